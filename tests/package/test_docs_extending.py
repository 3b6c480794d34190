"""The extension-point pages in ``docs/extending/`` name files and tables that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PAGES = sorted((ROOT / "docs" / "extending").glob("*.md"))


def test_there_is_a_page_per_extension_point() -> None:
    assert [p.stem for p in PAGES] == ["format", "ledger", "provider", "repair-kind"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_every_path_a_page_names_exists(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:src|tests)/[\w/.\-]+)`", text))
    assert paths, page
    missing = sorted(p for p in paths if "<" not in p and not (ROOT / p).exists())
    assert not missing, missing


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("unspool.sources.providers._table", "PROVIDERS"),
        ("unspool.sources.providers._compatible", "COMPATIBLE"),
        ("unspool.sources._entry", "entry_point"),
        ("unspool.actions._tool_formats", "TOOL_FORMATS"),
        ("unspool.protocols._model_formats", "MODEL_FORMATS"),
        ("unspool.protocols.tag_args", "READERS"),
        ("unspool.core._repairs", "REPAIR_KINDS"),
        ("unspool.core._lexicon", "LOOKAHEAD"),
        ("unspool.actions.ledgers._base", "Ledger"),
    ],
)
def test_the_tables_the_pages_name_exist(module: str, name: str) -> None:
    assert hasattr(__import__(module, fromlist=[name]), name)
