"""Plain-text tables for the bench output (fixed width, no dependencies)."""

from __future__ import annotations

from collections.abc import Sequence

from bench.timing import Cell

__all__ = ["fmt_cell", "fmt_ratio", "fmt_seconds", "render"]


def fmt_seconds(s: float | None) -> str:
    """``s`` seconds with a readable unit: 850µs, 12.4ms, 3.05s."""
    if s is None:
        return "—"
    if s < 1e-3:
        return f"{s * 1e6:.0f}µs"
    if s < 1:
        return f"{s * 1e3:.3g}ms"
    if s < 1000:
        return f"{s:.3g}s"
    return f"{s:.0f}s"


def fmt_ratio(r: float | None) -> str:
    """A ratio as ``×6.6``, ``×246`` or ``×0.41``."""
    if r is None:
        return ""
    if r >= 100:
        return f"×{r:.0f}"
    if r >= 10:
        return f"×{r:.1f}"
    return f"×{r:.2f}"


def fmt_cell(cell: Cell | None, reference: Cell | None) -> str:
    """``time MB/s ×ratio`` where ratio = this cell's time / the reference's time."""
    if cell is None:
        return ""
    if cell.status == "capped":
        est = f" ~{fmt_seconds(cell.estimate)}" if cell.estimate is not None else ""
        return f"capped{est}"
    if cell.status == "error":
        return "error"
    ratio = None
    if reference is not None and reference.seconds and cell.seconds is not None:
        ratio = cell.seconds / reference.seconds
    mbps = f"{cell.mbps:.3g}" if cell.mbps is not None else "—"
    mark = " ≠" if cell.status == "wrong" else ""
    return f"{fmt_seconds(cell.seconds)} {mbps} {fmt_ratio(ratio)}{mark}".rstrip()


def render(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest entry; the first column left-aligned."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))

    def line(values: Sequence[str]) -> str:
        parts = [v.ljust(widths[i]) if i == 0 else v.rjust(widths[i]) for i, v in enumerate(values)]
        return "  ".join(parts).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), sep, *(line(r) for r in rows)])
