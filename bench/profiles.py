"""The ``--quick`` and ``--full`` profiles: which sizes, chunkers and how hard to measure."""

from __future__ import annotations

from dataclasses import dataclass, replace

from bench.baseline import Baseline
from bench.timing import Settings
from bench.workloads import CHUNKERS, SHAPES, SIZES

__all__ = ["FULL", "QUICK", "Profile", "with_overrides"]


@dataclass(frozen=True)
class Profile:
    """What one run measures.  ``lenient_size`` is the size of the per-deviation table;
    ``protocol_sizes`` the sizes of the interleaved, tags and models linearity rows;
    ``baseline`` another unspool checkout to measure beside this one (``--baseline``)."""

    name: str
    shapes: tuple[str, ...]
    sizes: tuple[str, ...]
    chunkers: tuple[str, ...]
    settings: Settings
    lenient_size: str
    protocol_sizes: tuple[str, ...]
    baseline: Baseline | None = None


QUICK = Profile(
    name="quick",
    shapes=SHAPES,
    sizes=("1KB", "4KB", "24KB", "98KB"),
    chunkers=("8",),
    settings=Settings(repeats=5, budget=1.5, cap=1.0),
    lenient_size="1KB",
    protocol_sizes=("1KB", "4KB", "24KB", "98KB"),
)

FULL = Profile(
    name="full",
    shapes=SHAPES,
    sizes=tuple(s for s in SIZES if s != "4MB"),
    chunkers=tuple(CHUNKERS),
    settings=Settings(repeats=5, budget=3.0, cap=3.0),
    lenient_size="4KB",
    protocol_sizes=tuple(s for s in SIZES if s != "4MB"),
)


def with_overrides(
    profile: Profile,
    *,
    shapes: list[str] | None = None,
    sizes: list[str] | None = None,
    chunkers: list[str] | None = None,
    cap: float | None = None,
    repeats: int | None = None,
    baseline: Baseline | None = None,
) -> Profile:
    """``profile`` with the command line's choices applied (each checked); ``sizes``
    applies to the protocol rows too."""
    for given, known, what in (
        (shapes, SHAPES, "workload"),
        (sizes, tuple(SIZES), "size"),
        (chunkers, tuple(CHUNKERS), "chunker"),
    ):
        for g in given or ():
            if g not in known:
                raise SystemExit(f"unknown {what} {g!r}; choose from {', '.join(known)}")
    settings = profile.settings
    if cap is not None:
        settings = replace(settings, cap=cap)
    if repeats is not None:
        settings = replace(settings, repeats=repeats)
    chosen = tuple(s for s in SIZES if s in sizes) if sizes else None
    return replace(
        profile,
        shapes=tuple(shapes) if shapes else profile.shapes,
        sizes=chosen or profile.sizes,
        protocol_sizes=chosen or profile.protocol_sizes,
        chunkers=tuple(chunkers) if chunkers else profile.chunkers,
        settings=settings,
        baseline=baseline,
    )
