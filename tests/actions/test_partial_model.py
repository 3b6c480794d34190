"""stream_model / astream_model: typed partial models while the JSON streams."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field

from tests.support.hypothesis_profiles import examples
from unspool.actions._partial_model import ModelStream, PartialModel, astream_model, stream_model
from unspool.core._errors import MalformedJSON


class Tag(BaseModel):
    name: str
    weight: float = 1.0


class Item(BaseModel):
    title: str
    count: int = Field(ge=0)
    tags: list[Tag] = []
    kind: Literal["a", "b"] = "a"
    note: str | None = None


class Doc(BaseModel):
    name: str
    items: list[Item]
    meta: dict[str, str] = {}
    flag: bool = False
    sub: Item | None = None
    scores: list[int] = []


def plain(value: Any) -> Any:
    """The shown structure without serializing (partial instances are not valid models)."""
    if isinstance(value, BaseModel):
        return {k: plain(v) for k, v in vars(value).items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def states(parts: list[PartialModel[Any]]) -> list[tuple[Any, set[tuple[Any, ...]], bool]]:
    return [(plain(p.value), set(p.pending), p.done) for p in parts]


# exact sequences ----------------------------------------------------------------------------


def test_fields_fill_in_strings_grow_lists_append() -> None:
    chunks = ['{"name": "Fra', 'ctions", "items": [{"title": "Hal', 'ves", "count": 2}', "]}"]
    parts = [p.snapshot() for p in stream_model(Doc, chunks)]
    empty_item: dict[str, Any] = {
        "title": None,
        "count": None,
        "tags": [],
        "kind": "a",
        "note": None,
    }
    base = {"meta": {}, "flag": False, "sub": None, "scores": []}
    assert states(parts) == [
        ({"name": "Fra", "items": None, **base}, {("name",)}, False),
        (
            {"name": "Fractions", "items": [{**empty_item, "title": "Hal"}], **base},
            {("items",), ("items", 0), ("items", 0, "title")},
            False,
        ),
        (
            {"name": "Fractions", "items": [{**empty_item, "title": "Halves", "count": 2}], **base},
            {("items",)},
            False,
        ),
        (
            {"name": "Fractions", "items": [{**empty_item, "title": "Halves", "count": 2}], **base},
            set(),
            False,
        ),
        (
            {"name": "Fractions", "items": [{**empty_item, "title": "Halves", "count": 2}], **base},
            set(),
            True,
        ),
    ]
    final = parts[-1].value
    assert final == Doc(name="Fractions", items=[Item(title="Halves", count=2)])
    assert parts[0].missing == frozenset({"items", "meta", "flag", "sub", "scores"})
    assert parts[1].value.model_fields_set == {"name", "items"}
    assert parts[1].value.items[0].model_fields_set == {"title"}
    assert type(parts[1].value.items[0]) is Item


def test_values_are_live_and_snapshot_detaches() -> None:
    stream = ModelStream(Doc)
    first = stream.feed('{"name": "ab')
    assert first is not None
    kept = first.snapshot()
    stream.feed('cd", "items": []}')
    assert first.value.name == "abcd"
    assert kept.value.name == "ab"
    assert stream.feed("   ") is None  # whitespace changes nothing shown
    assert stream.finish().value == Doc(name="abcd", items=[])
    assert stream.finish() is stream.finish()


def test_atomic_fields_appear_only_when_complete() -> None:
    class Event(BaseModel):
        when: datetime
        level: Literal["low", "high"]
        value: int | str

    chunks = ['{"when": "2024-05-01T', '10:00:00Z", "level": "hi', 'gh", "value": "x', '"}']
    parts = [p.snapshot() for p in stream_model(Event, chunks)]
    assert [(plain(p.value), sorted(p.pending)) for p in parts] == [
        ({"when": None, "level": None, "value": None}, [("when",)]),
        (
            {"when": datetime(2024, 5, 1, 10, tzinfo=timezone.utc), "level": None, "value": None},
            [("level",)],
        ),
        (
            {"when": datetime(2024, 5, 1, 10, tzinfo=timezone.utc), "level": "high", "value": None},
            [("value",)],
        ),
        (
            {"when": datetime(2024, 5, 1, 10, tzinfo=timezone.utc), "level": "high", "value": "x"},
            [],
        ),
        (
            {"when": datetime(2024, 5, 1, 10, tzinfo=timezone.utc), "level": "high", "value": "x"},
            [],
        ),
    ]


def test_aliases_unknown_keys_and_frozen_models() -> None:
    class Product(BaseModel):
        model_config = ConfigDict(frozen=True)
        product_id: str = Field(alias="productId")
        view: str = "compact"

    text = '{"productId": "p1", "junk": {"a": [1, "x"]}, "view": "detailed"}'
    parts = [p.snapshot() for p in stream_model(Product, [text[:14], text[14:30], text[30:]])]
    assert [plain(p.value) for p in parts[:-1]] == [
        {"product_id": None, "view": "compact"},
        {"product_id": "p1", "view": "compact"},
        {"product_id": "p1", "view": "detailed"},
    ]
    assert parts[1].pending == frozenset()  # the unknown key is not a field
    assert parts[-1].value == Product.model_validate_json(text)


def test_dict_fields_and_optional_nested_model() -> None:
    text = '{"name": "n", "items": [], "meta": {"k": "vv"}, "sub": null, "scores": [3, 4]}'
    parts = [p.snapshot() for p in stream_model(Doc, [text[:43], text[43:74], text[74:]])]
    assert [plain(p.value)["meta"] for p in parts] == [
        {"k": "v"},
        {"k": "vv"},
        {"k": "vv"},
        {"k": "vv"},
    ]
    assert parts[0].pending == frozenset({("meta",), ("meta", "k")})
    assert plain(parts[1].value)["scores"] == [3]
    assert parts[-1].value == Doc.model_validate_json(text)


def test_skip_preamble_and_bytes() -> None:
    reply = 'Here you go:\n```json\n{"name": "café", "items": []}\n```\nEnjoy!'.encode()
    parts = list(stream_model(Doc, [reply[:20], reply[20:43], reply[43:]], skip_preamble=True))
    assert parts[-1].value == Doc(name="café", items=[])


# errors ---------------------------------------------------------------------------------------


def test_invalid_item_is_taken_out_and_the_list_keeps_its_valid_items() -> None:
    text = '{"name": "n", "items": [{"title": "a", "count": 1}, {"title": "b", "count": -1}]}'
    bad_count = {
        "path": ["items", 1, "count"],
        "message": "Input should be greater than or equal to 0",
        "type": "greater_than_equal",
    }
    stream = ModelStream(Doc)
    seen = [stream.feed(text[:60]), stream.feed(text[60:])]
    last = seen[-1]
    assert last is not None
    assert plain(last.value)["items"] == [
        {"title": "a", "count": 1, "tags": [], "kind": "a", "note": None}
    ]
    assert "items" in last.value.model_fields_set and "items" not in last.missing
    assert last.errors == (bad_count,)
    final = stream.finish()
    assert (final.done, final.complete, final.final) == (True, False, None)
    assert final.errors == (bad_count,)  # the final validation's verdict, listed once
    assert plain(final.value)["items"][0]["title"] == "a"
    raising = ModelStream(Doc, raise_on_error=True)
    raising.feed(text)
    with pytest.raises(pydantic.ValidationError) as info:
        raising.finish()
    assert [(e["loc"], e["type"]) for e in info.value.errors()] == [
        (("items", 1, "count"), "greater_than_equal")
    ]


def test_a_list_invalid_as_a_whole_is_taken_out() -> None:
    class Few(BaseModel):
        names: list[str] = Field(max_length=1)

    *_, last = stream_model(Few, ['{"names": ["a", "b"]}'])
    assert last.value.names is None and "names" in last.missing
    assert [e["type"] for e in last.errors] == ["too_long"]


def test_a_cut_off_document_ends_not_complete_instead_of_raising() -> None:
    parts = [p.snapshot() for p in stream_model(Doc, ['{"name": "n", "items": [{"title": "cut'])]
    last = parts[-1]
    assert (last.done, last.complete, last.final, last.pending) == (True, False, None, frozenset())
    assert last.errors == (
        {
            "path": [],
            "message": "Invalid JSON: EOF while parsing: the document was cut off",
            "type": "json_invalid",
        },
    )
    assert plain(last.value)["items"][0]["title"] == "cut"
    assert not any(p.done for p in parts[:-1])


def test_a_cut_off_document_raises_json_invalid_on_request() -> None:
    parts: list[PartialModel[Doc]] = []
    with pytest.raises(pydantic.ValidationError) as info:
        for part in stream_model(
            Doc, ['{"name": "n", "items": [{"title": "cut'], raise_on_error=True
        ):
            parts.append(part.snapshot())
    assert info.value.errors(include_url=False) == [
        {
            "type": "json_invalid",
            "loc": (),
            "msg": "Invalid JSON: EOF while parsing: the document was cut off",
            "input": None,
            "ctx": {"error": "EOF while parsing: the document was cut off"},
        }
    ]
    assert plain(parts[-1].value)["items"][0]["title"] == "cut"


def test_malformed_json_ends_the_iteration_at_the_chunk_that_broke_it() -> None:
    read: list[str] = []

    def chunks() -> Iterator[str]:
        for chunk in ['{"name": "n",', " oops}", ' "never": 1']:
            read.append(chunk)
            yield chunk

    parts = list(stream_model(Doc, chunks()))
    assert read == ['{"name": "n",', " oops}"]  # nothing is read after the error
    last = parts[-1]
    assert (last.done, last.complete, last.final) == (True, False, None)
    (err,) = last.errors
    assert err["type"] == "json_invalid" and err["path"] == []
    assert err["message"].startswith("Invalid JSON: ") and "position" in err["message"]
    assert last.value.name == "n"


def test_malformed_json_raises_json_invalid_from_the_core_error_on_request() -> None:
    with pytest.raises(pydantic.ValidationError) as info:
        list(stream_model(Doc, ['{"name": "n",', " oops}"], raise_on_error=True))
    (err,) = info.value.errors()
    assert err["type"] == "json_invalid"
    assert isinstance(info.value.__cause__, MalformedJSON)
    assert err["ctx"]["error"] == str(info.value.__cause__)


def test_model_validators_run_at_the_end() -> None:
    class Range(BaseModel):
        lo: int
        hi: int

        @pydantic.model_validator(mode="after")
        def ordered(self) -> Range:
            if self.lo > self.hi:
                raise ValueError("lo must not exceed hi")
            return self

    parts = [p.snapshot() for p in stream_model(Range, ['{"lo": 5,', ' "hi": 1}'])]
    assert [plain(p.value) for p in parts] == [{"lo": 5, "hi": None}, *[{"lo": 5, "hi": 1}] * 2]
    assert parts[-1].complete is False and parts[-1].final is None
    assert [(e["type"], e["message"]) for e in parts[-1].errors] == [
        ("value_error", "Value error, lo must not exceed hi")
    ]
    with pytest.raises(pydantic.ValidationError, match="lo must not exceed hi"):
        list(stream_model(Range, ['{"lo": 5,', ' "hi": 1}'], raise_on_error=True))
    *_, good = stream_model(Range, ['{"lo": 1, "hi": 5}'])
    assert good.complete and good.final == Range(lo=1, hi=5) and good.value is good.final


# async -----------------------------------------------------------------------------------------


async def test_astream_model_async_and_sync_sources() -> None:
    text = '{"name": "x", "items": [{"title": "t", "count": 0, "tags": [{"name": "q"}]}]}'

    async def chunks() -> AsyncIterator[str]:
        for i in range(0, len(text), 7):
            yield text[i : i + 7]

    async_parts = [p async for p in astream_model(Doc, chunks())]
    sync_parts = [
        p async for p in astream_model(Doc, [text[i : i + 7] for i in range(0, len(text), 7)])
    ]
    assert async_parts[-1].done and sync_parts[-1].done
    assert async_parts[-1].value == sync_parts[-1].value == Doc.model_validate_json(text)
    assert len(async_parts) == len(sync_parts)


# properties --------------------------------------------------------------------------------


_text = st.text(st.characters(codec="utf-8"), max_size=12)
_tags = st.builds(Tag, name=_text, weight=st.floats(-1e6, 1e6, allow_nan=False))
_items = st.builds(
    Item,
    title=_text,
    count=st.integers(0, 10**12),
    tags=st.lists(_tags, max_size=2),
    kind=st.sampled_from(["a", "b"]),
    note=st.none() | _text,
)
_docs = st.builds(
    Doc,
    name=_text,
    items=st.lists(_items, max_size=3),
    meta=st.dictionaries(_text, _text, max_size=2),
    flag=st.booleans(),
    sub=st.none() | _items,
    scores=st.lists(st.integers(-5, 5), max_size=3),
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    doc = draw(_docs)
    data = doc.model_dump(exclude_defaults=draw(st.booleans()))
    indent = draw(st.sampled_from([None, 1]))
    return json.dumps(data, indent=indent, ensure_ascii=draw(st.booleans()))


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every value shown (set fields only), with its path in the partial value."""
    yield path, value
    if isinstance(value, BaseModel):
        for name in value.model_fields_set:
            yield from leaves(getattr(value, name), (*path, name))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, (*path, i))
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))


_ADAPTERS: dict[tuple[type[BaseModel], str], pydantic.TypeAdapter[Any]] = {}


def _adapter(model: type[BaseModel], name: str) -> pydantic.TypeAdapter[Any]:
    """The field's validator, built once (building one costs more than a whole example)."""
    key = (model, name)
    if key not in _ADAPTERS:
        annotation = model.model_fields[name].annotation
        assert annotation is not None
        _ADAPTERS[key] = pydantic.TypeAdapter(annotation)
    return _ADAPTERS[key]


def check_completed_fields_valid(
    value: Any, pending: frozenset[tuple[Any, ...]], path: tuple[Any, ...] = ()
) -> None:
    if not isinstance(value, BaseModel):
        return
    for name in value.model_fields_set:
        field_path = (*path, name)
        shown = getattr(value, name)
        if field_path not in pending:
            assert _adapter(type(value), name).validate_python(shown) == shown
        children = shown if isinstance(shown, list) else [shown]
        for i, child in enumerate(children):
            sub = (*field_path, i) if isinstance(shown, list) else field_path
            check_completed_fields_valid(child, pending, sub)


@settings(max_examples=examples(120), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_every_prefix_keeps_types_completed_fields_valid_and_ends_at_model_validate_json(
    whole: str,
) -> None:
    types_seen: dict[tuple[Any, ...], type] = {}
    strings_seen: dict[tuple[Any, ...], str] = {}
    parts = stream_model(Doc, list(whole))  # one character per chunk: every prefix
    last = None
    for part in parts:
        for path, shown in leaves(part.value):
            assert types_seen.setdefault(path, type(shown)) is type(shown), path
            if isinstance(shown, str) and path in strings_seen:
                assert shown.startswith(strings_seen[path]), path
            if isinstance(shown, str):
                strings_seen[path] = shown
        check_completed_fields_valid(part.value, part.pending)
        assert part.errors == ()
        last = part
    assert last is not None and last.done and last.complete
    assert last.final == last.value == Doc.model_validate_json(whole)


@settings(max_examples=examples(60), deadline=None)
@given(documents(), st.lists(st.integers(1, 40), min_size=1, max_size=8))
def test_any_chunking_gives_the_same_final_model(whole: str, sizes: list[int]) -> None:
    chunks, pos, i = [], 0, 0
    while pos < len(whole):
        size = sizes[i % len(sizes)]
        chunks.append(whole[pos : pos + size])
        pos, i = pos + size, i + 1
    *_, last = stream_model(Doc, chunks)
    assert last.value == Doc.model_validate_json(whole)


# typing ------------------------------------------------------------------------------------


_UNRELATED = (
    "redis.*,rich.*,psycopg.*,psycopg_pool.*,starlette.*,anyio.*,markdown_it.*,opentelemetry.*,"
    "uvicorn.*,click.*,httpx.*,openai.*,anthropic.*,google.*,boto3.*,botocore.*,ollama.*,ag_ui.*"
)
"""Packages the typing check below does not follow (``follow_imports = skip``)."""


def test_the_partial_view_does_not_lie_to_mypy(tmp_path: Path) -> None:
    """``part.value`` is ``Partial[M]`` (fields read as Any: they may be missing), and only
    ``part.final`` is typed as the model, ``M | None``."""
    mypy_api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from pydantic import BaseModel\n"
        "from unspool import stream_model\n"
        "class Lesson(BaseModel):\n"
        "    title: str\n"
        "for part in stream_model(Lesson, ['{}']):\n"
        "    shown = part.value.title\n"
        "    lesson: Lesson = part.value\n"
        "    final: Lesson | None = part.final\n"
        "    exact: Lesson = part.final\n",
        encoding="utf-8",
    )
    # The extras unspool's package imports (ledgers, web, CLI, SDKs) have nothing to do
    # with this check: skipping them halves mypy's work (2.7 s -> 1.2 s of CPU).
    config = tmp_path / "mypy.ini"
    config.write_text(
        f"[mypy]\npython_version = 3.10\n[mypy-{_UNRELATED}]\nfollow_imports = skip\n",
        encoding="utf-8",
    )
    options = ["--config-file", str(config), "--strict", "--no-incremental"]
    out, _, status = mypy_api.run([*options, "--cache-dir", os.devnull, str(snippet)])
    assert status == 1
    errors = [line.split(":")[1] for line in out.splitlines() if ": error:" in line]
    assert errors == ["7", "9"], out  # the two assignments that would be lies
    assert 'expression has type "Partial[Lesson]"' in out
