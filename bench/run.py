"""The bench runner: ``python -m bench [--quick | --full] [--only SECTION ...]``.

Runs the chosen sections in one process on the same deterministic streams, prints
their tables and writes every number to ``bench/results/latest.json``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.baseline import Baseline, resolve
from bench.profiles import FULL, QUICK, Profile, with_overrides

__all__ = ["SECTIONS", "main"]

SECTIONS: dict[str, str] = {
    "core": "bench.sec_core",
    "lenient": "bench.sec_lenient",
    "interleaved": "bench.sec_interleaved",
    "tags": "bench.sec_tags",
    "models": "bench.sec_models",
    "providers": "bench.sec_providers",
    "ledgers": "bench.sec_ledgers",
    "formats": "bench.sec_formats",
}
"""Section name -> module with ``run(profile) -> dict``."""

_VERSIONED = (
    "jiter",
    "pydantic-core",
    "partial-json-parser",
    "json-repair",
    "jsonriver",
    "jsonmend",
    "ijson",
    "json-stream",
    "json-stream-rs-tokenizer",
    "orjson",
    "pydantic",
    "instructor",
    "openai",
    "anthropic",
)

RESULTS = Path(__file__).resolve().parent / "results" / "latest.json"


def _versions() -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in _VERSIONED:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def _load() -> str:
    """The 1, 5 and 15 minute load averages, as printed in the tables' headers."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m bench",
        description="unspool against its peers on the same chunked streams.",
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="small sizes, 8-char chunks (default)")
    mode.add_argument("--full", action="store_true", help="1 KB to 1 MB, every chunker")
    ap.add_argument(
        "--only",
        action="append",
        choices=list(SECTIONS),
        metavar="SECTION",
        help=f"run only this section (repeatable): {', '.join(SECTIONS)}",
    )
    ap.add_argument("--workloads", nargs="+", metavar="W", help="interleaved structured toolargs")
    ap.add_argument("--sizes", nargs="+", metavar="S", help="1KB 4KB 24KB 98KB 400KB 1MB")
    ap.add_argument("--chunks", nargs="+", metavar="C", help="4 8 40 rand1-12")
    ap.add_argument("--cap", type=float, help="seconds after which a peer stops growing")
    ap.add_argument("--repeats", type=int, help="runs per cell at most (median)")
    ap.add_argument(
        "--baseline",
        metavar="PATH",
        help="another unspool checkout (or its src dir) measured beside this one, e.g. a "
        "git worktree of a release: rows 'unspool @<commit>' in core, interleaved and tags",
    )
    ap.add_argument("--json", type=Path, default=RESULTS, help=f"results file (default {RESULTS})")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    base = FULL if args.full else QUICK
    baseline: Baseline | None = None
    if args.baseline:
        baseline, problem = resolve(args.baseline)
        if baseline is None:
            print(f"note: {problem}; going on without a baseline", flush=True)
    profile: Profile = with_overrides(
        base,
        shapes=args.workloads,
        sizes=args.sizes,
        chunkers=args.chunks,
        cap=args.cap,
        repeats=args.repeats,
        baseline=baseline,
    )
    chosen = args.only or list(SECTIONS)
    print(
        f"unspool bench · profile {profile.name} · sizes {' '.join(profile.sizes)} · "
        f"chunks {' '.join(profile.chunkers)} · cap {profile.settings.cap:g}s · "
        f"Python {platform.python_version()}",
        flush=True,
    )
    if baseline is not None:
        print(
            f"baseline: unspool @{baseline.name} from {baseline.unspool_file} "
            "(measured in a subprocess in the same run, beside the current rows)",
            flush=True,
        )
    results: dict[str, Any] = {
        "meta": {
            "profile": profile.name,
            "sizes": list(profile.sizes),
            "chunkers": list(profile.chunkers),
            "workloads": list(profile.shapes),
            "settings": vars(profile.settings),
            "python": sys.version,
            "platform": platform.platform(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "versions": _versions(),
            "baseline": None if baseline is None else vars(baseline),
        },
        "sections": {},
    }
    results["meta"]["load_before"] = _load()
    for name in chosen:
        print(f"\n=== {name} === (load average {_load()})", flush=True)
        t0 = time.perf_counter()
        module = importlib.import_module(SECTIONS[name])
        run: Callable[[Profile], dict[str, Any]] = module.run
        section = run(profile)
        section["wall_seconds"] = time.perf_counter() - t0
        results["sections"][name] = section
        print(f"({name}: {section['wall_seconds']:.0f} s)", flush=True)
    results["meta"]["load_after"] = _load()
    print(
        f"\nload average at the end: {_load()} (on {os.cpu_count()} CPUs; others' work skews timings)"
    )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False, default=str))
    print(f"\nresults written to {args.json}")
    return 0
