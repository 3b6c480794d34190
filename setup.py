"""Build hook for the optional C machine (``unspool.core._speedups``).

Everything else lives in pyproject.toml.  The extension is optional: without a
compiler (or on PyPy) the build prints a warning and installs the pure-Python
package, which runs the same parser (``unspool.accelerated`` is then False).
"""

from __future__ import annotations

import os
import platform

from setuptools import Extension, setup

ext_modules = []
if platform.python_implementation() == "CPython" and os.environ.get("UNSPOOL_PURE_BUILD") != "1":
    ext_modules.append(
        Extension(
            "unspool.core._speedups",
            sources=["src/unspool/core/_speedups.c"],
            optional=True,
            extra_compile_args=os.environ.get("UNSPOOL_CFLAGS", "").split(),
            extra_link_args=os.environ.get("UNSPOOL_LDFLAGS", "").split(),
        )
    )

setup(ext_modules=ext_modules)
