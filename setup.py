"""Build hook for the optional C parts: the machine (``unspool.core._speedups``), the
argument snapshots (``unspool.protocols._snapshots``) and the protocols' per-chunk
fast paths (``unspool.protocols._direct``).

Everything else lives in pyproject.toml.  The extensions are optional: without a
compiler (or on PyPy) the build prints a warning and installs the pure-Python
package, which runs the same parser (``unspool.accelerated`` is then False).
"""

from __future__ import annotations

import os
import platform

from setuptools import Extension, setup

C_PARTS = ("unspool.core._speedups", "unspool.protocols._snapshots", "unspool.protocols._direct")
ext_modules = []
if platform.python_implementation() == "CPython" and os.environ.get("UNSPOOL_PURE_BUILD") != "1":
    for name in C_PARTS:
        ext_modules.append(
            Extension(
                name,
                sources=["src/" + name.replace(".", "/") + ".c"],
                optional=True,
                extra_compile_args=os.environ.get("UNSPOOL_CFLAGS", "").split(),
                extra_link_args=os.environ.get("UNSPOOL_LDFLAGS", "").split(),
            )
        )

setup(ext_modules=ext_modules)
