"""The demo's pages: plain HTML, CSS and scripts, served as they are (no build step)."""

from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent
"""The folder holding the page files."""
