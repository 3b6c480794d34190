"""How many examples the property tests try: one budget per run, chosen by profile.

A test states its weight as the examples it would try in CI (``examples(200)``);
the loaded profile scales every weight by ``max_examples / 100``:

* ``dev`` (the default): 30 per 100, fast enough to run the whole suite often, and
  derandomized like ``ci``: the README's test command tries the same examples on every
  run, so its verdict is reproducible (a random hunt is the ``long`` profile's job);
* ``ci`` (when ``CI`` is set, as CI does): 100 per 100, derandomized so a run is
  reproducible, and no example database (a fresh clone has none);
* ``long`` (``UNSPOOL_HYPOTHESIS=long``): 1000 per 100, random, for a hunt before a
  release or after touching the parsers (tens of minutes).

``UNSPOOL_HYPOTHESIS=dev|ci|long`` picks a profile by name, whatever ``CI`` says.
``conftest.py`` loads the profile before any test module is imported, so
``examples()`` at decoration time already sees it.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

__all__ = ["PROFILES", "chosen_profile", "examples", "load_profile"]

_COMMON = {
    "deadline": None,  # a shared 2-core machine makes single examples slow at random
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}

PROFILES: dict[str, settings] = {
    "dev": settings(max_examples=30, derandomize=True, **_COMMON),
    "ci": settings(max_examples=100, derandomize=True, database=None, print_blob=True, **_COMMON),
    # derandomize=False said outright: under CI, Hypothesis's own default derandomizes
    "long": settings(max_examples=1000, derandomize=False, **_COMMON),
}
"""The profiles by name; ``max_examples`` is the budget of a test of weight 100."""

for _name, _settings in PROFILES.items():
    settings.register_profile(f"unspool-{_name}", _settings)


def chosen_profile(environ: dict[str, str] | None = None) -> str:
    """The profile name for this environment: ``$UNSPOOL_HYPOTHESIS``, else ``ci``
    when ``$CI`` is set to anything but ``false``/``0``/empty, else ``dev``."""
    env = os.environ if environ is None else environ
    asked = env.get("UNSPOOL_HYPOTHESIS", "").strip().lower()
    if asked:
        if asked not in PROFILES:
            raise ValueError(f"UNSPOOL_HYPOTHESIS={asked!r}: choose one of {sorted(PROFILES)}")
        return asked
    ci = env.get("CI", "").strip().lower()
    return "ci" if ci not in ("", "0", "false", "no") else "dev"


def load_profile() -> str:
    """Load the chosen profile into hypothesis; returns its name."""
    name = chosen_profile()
    settings.load_profile(f"unspool-{name}")
    return name


def examples(weight: int, profile: settings | None = None) -> int:
    """The examples a test of this CI ``weight`` tries under ``profile`` (default: the
    loaded one); at least 5."""
    budget = (profile or settings()).max_examples
    return max(5, round(weight * budget / 100))
