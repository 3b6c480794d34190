"""Lenient mode keeps the spec's invariants (hypothesis), and reads all valid JSON unchanged.

A valid document is generated, then written with deviations injected where the
clean value stays recoverable (trailing commas, single quotes, unquoted keys,
comments, Python literals, raw control characters, missing commas, unescaped inner
quotes, literals in any case, unquoted values, invalid escapes, ellipses, curly
quotes, leading zeros, missing null values), and fed in random chunks.  Between successive feeds the live value only
grows (strings at the end, lists append or grow their last item, dicts add keys or
grow their last one, scalars never change, no type changes); the final value is
``json.loads`` of the clean document; the repairs do not depend on the chunking.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.core import (
    assert_same,
    chunks_at,
    detach,
    mismatch,
    one_by_one,
    read_suite_file,
    suite_dir,
    suite_names,
)
from tests.support.hypothesis_profiles import examples
from tests.support.lenient_writer import TEXTS, VALUES, documents
from unspool import UNSET, JsonStream, MalformedJSON
from unspool.core._oneshot import loads_with_repairs

SETTINGS = settings(
    max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)

# --------------------------------------------------------------------------- feeding


@st.composite
def chunkings(draw: st.DrawFn, text: str) -> list[str]:
    if draw(st.booleans()) and len(text) < 400:
        return one_by_one(text)  # type: ignore[return-value]
    cuts = draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=12))
    return chunks_at(text, cuts)  # type: ignore[return-value]


# --------------------------------------------------------------------------- growth


def growth_problem(old: Any, new: Any, where: str = "$") -> str | None:
    """Why ``new`` is not a grown version of ``old`` (None if it is)."""
    if old is UNSET:
        return None
    if type(old) is not type(new):
        return f"{where}: {type(old).__name__} became {type(new).__name__}"
    if isinstance(old, str):
        return None if new.startswith(old) else f"{where}: {old!r} is not a prefix of {new!r}"
    if isinstance(old, list):
        if len(new) < len(old):
            return f"{where}: list shrank from {len(old)} to {len(new)}"
        for i, item in enumerate(old[:-1]):
            problem = mismatch(new[i], item)
            if problem:
                return f"{where}[{i}] (closed) changed: {problem}"
        return growth_problem(old[-1], new[len(old) - 1], f"{where}[-1]") if old else None
    if isinstance(old, dict):
        keys = list(old)
        if list(new)[: len(keys)] != keys:
            return f"{where}: keys {keys} are not a prefix of {list(new)}"
        for k in keys[:-1]:
            problem = mismatch(new[k], old[k])
            if problem:
                return f"{where}[{k!r}] (closed) changed: {problem}"
        return (
            growth_problem(old[keys[-1]], new[keys[-1]], f"{where}[{keys[-1]!r}]") if keys else None
        )
    problem = mismatch(new, old)
    return f"{where}: scalar changed: {problem}" if problem else None


def feed_and_check(chunks: Sequence[str]) -> tuple[Any, list[Any], bool]:
    """Feed ``chunks`` leniently, checking growth after every feed; the final value,
    the repairs and ``complete``."""
    parser = JsonStream(lenient=True)
    before: Any = UNSET
    for index, chunk in enumerate(chunks):
        now = detach(parser.feed(chunk))
        problem = growth_problem(before, now)
        assert problem is None, f"after chunk {index} ({chunk!r}): {problem}"
        before = now
    final = detach(parser.finish())
    problem = growth_problem(before, final)
    assert problem is None, f"at finish: {problem}"
    return final, list(parser.repairs), parser.complete


# --------------------------------------------------------------------------- properties


@SETTINGS
@given(data=st.data())
def test_dirty_documents_stream_to_the_clean_value(data: st.DataObject) -> None:
    clean, dirty, _ = data.draw(documents())
    chunks = data.draw(chunkings(dirty))
    value, repairs, complete = feed_and_check(chunks)
    assert_same(value, json.loads(clean), f"dirty={dirty!r}")
    assert complete
    whole = JsonStream(lenient=True)
    whole.feed(dirty)
    whole.finish()
    assert repairs == whole.repairs, f"repairs depend on the chunking: {dirty!r}"


@SETTINGS
@given(data=st.data())
def test_a_cut_off_dirty_document_finishes_the_same_for_every_chunking(
    data: st.DataObject,
) -> None:
    _, dirty, _ = data.draw(documents())
    prefix = dirty[: data.draw(st.integers(min_value=0, max_value=len(dirty)))]
    chunks = data.draw(chunkings(prefix))
    whole = JsonStream(lenient=True)
    try:
        whole.feed(prefix)
        whole_value = detach(whole.finish())
    except MalformedJSON as refused:
        # cut inside a line comment that reads over closers ('[ //},'): refused, never read
        # as a truncation that drops what the comment may hide; the same for every chunking
        with pytest.raises(MalformedJSON) as err:
            feed_and_check(chunks)
        assert (str(err.value), err.value.pos) == (str(refused), refused.pos), prefix
        return
    value, repairs, complete = feed_and_check(chunks)
    assert_same(value, whole_value, f"prefix={prefix!r}")
    assert repairs == whole.repairs, f"prefix={prefix!r}"
    assert complete == whole.complete
    # the live value of the prefix only grows into the value of the whole document
    full_value, _, _ = feed_and_check([dirty])
    problem = growth_problem(detach(JsonStream(lenient=True).feed(prefix)), full_value)
    assert problem is None, f"prefix={prefix!r}: {problem}"


@SETTINGS
@given(data=st.data())
def test_deviations_are_reported(data: st.DataObject) -> None:
    clean, dirty, _ = data.draw(documents())
    value, repairs, _ = feed_and_check([dirty])
    assert_same(value, json.loads(clean))
    strict_ok = True
    try:
        json.loads(dirty)
    except ValueError:
        strict_ok = False
    # no repair exactly when the dirty text is strict JSON after all
    assert (repairs == []) == strict_ok, f"{dirty!r}: {repairs}"


def test_growth_checker_catches_what_it_should() -> None:
    assert growth_problem(["ab"], ["abc", 1]) is None
    assert growth_problem({"a": 1, "b": "x"}, {"a": 1, "b": "xy", "c": []}) is None
    assert (
        growth_problem(["ab", 1], ["abc", 1])
        == "$[0] (closed) changed: $: got 'abc', expected 'ab'"
    )
    assert growth_problem({"c": 1}, ["c"]) == "$: dict became list"
    assert growth_problem({"ok": "tr"}, {"ok": True}) == "$['ok']: str became bool"
    assert growth_problem([1], []) == "$: list shrank from 1 to 0"
    assert (
        growth_problem({"a": 1}, {"b": 1, "a": 1}) == "$: keys ['a'] are not a prefix of ['b', 'a']"
    )


@settings(max_examples=examples(50), deadline=None)
@given(text=TEXTS, literal=st.sampled_from([True, False, None]), before=VALUES)
def test_string_then_literal_in_an_array_streams_cleanly(
    text: str, literal: Any, before: Any
) -> None:
    doc = [before, text, literal]
    value, _, complete = feed_and_check([json.dumps(doc)])
    assert_same(value, doc)
    assert complete


# --------------------------------------------------------------------------- JSONTestSuite


@pytest.mark.parametrize("name", suite_names("y_"))
def test_every_y_file_reads_the_same_in_lenient_mode(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    expected = json.loads(data)
    text = data.decode("utf-8")
    options: dict[str, Any] = {"lenient": True, "skip_preamble": True}  # as loads() reads
    for how, chunks in (("bytes", [data]), ("str", [text]), ("chars", one_by_one(text))):
        parser = JsonStream(**options)
        for chunk in chunks:
            parser.feed(chunk)
        assert_same(parser.finish(), expected, f"{name} as {how}")
        assert parser.complete, f"{name} as {how}"
        assert parser.repairs == [], f"{name} as {how}"
    assert_same(loads_with_repairs(data)[0], expected, name)
    assert loads_with_repairs(data)[1] == []


def test_the_suite_has_its_y_files() -> None:
    assert len(suite_names("y_")) == 95


@pytest.mark.parametrize("prefix", ["[ //},'", "[ //},'a"])
def test_a_prefix_cut_inside_a_comment_over_closers_is_refused_for_every_chunking(
    prefix: str,
) -> None:
    """Found by the long profile: the cut-off property holds when the prefix is refused."""
    for chunks in ([prefix], list(prefix), [prefix[:4], prefix[4:]]):
        with pytest.raises(MalformedJSON, match="line comment ran to the end") as err:
            feed_and_check(chunks)
        assert err.value.pos == len(prefix)  # the end of input
