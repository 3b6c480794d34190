"""Code the tests share: strategies, builders, checks, servers, recorded streams, the
hypothesis profiles and the machines.  Test modules import from here, never from one
another."""
