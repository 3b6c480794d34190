"""Tests of the package as a whole: its shape and public names, the README and docs, the
build and extras, events, adversarial inputs, the bench and the suite's own setup."""
