"""Helpers of the web layer's tests: a real uvicorn server, the npm clients, a test app."""
