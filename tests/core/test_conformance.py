"""JSONTestSuite (shipped in ``tests/data/JSONTestSuite``, MIT) in strict mode, read as bytes.

* every ``y_`` file: accepted with ``json.loads``'s value, as bytes and as str, whole,
  split at every index and one byte at a time; lenient mode gives the same value;
* every ``n_`` file: rejected.  Either ``MalformedJSON`` at the first offending
  character (``N_ERRORS``), ``LimitExceeded`` (``N_LIMITS``), or, for a file that is
  only a truncated document, no error and ``complete`` still False after ``finish()``
  (``N_TRUNCATED``, with the value ``finish()`` gives);
* every ``i_`` file: the decision below (``I_DECISIONS``);
* ``test_transform``: the value ``json.loads`` gives, or the decision below.

The files are shipped in the repository, so a fresh clone runs these tests with
nothing beside it.

"pos" is a character offset in the decoded text: the first character at which the
input stops being a prefix of any JSON document (for bytes that are not UTF-8, the
offending byte's character offset, unless a syntax error comes first).
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.core import (
    assert_partial,
    assert_same,
    chunks_at,
    conformance_dir,
    feed_until_error,
    one_by_one,
    read_suite_file,
    suite_dir,
    suite_names,
    transform_dir,
    utf8_or_none,
)
from tests.support.paths import ROOT
from unspool import UNSET, JsonStream, LimitExceeded, MalformedJSON

# ------------------------------------------------------------------------------ n_ files

N_ERRORS: dict[str, int] = {
    "n_array_1_true_without_comma.json": 3,
    "n_array_a_invalid_utf8.json": 1,
    "n_array_colon_instead_of_comma.json": 3,
    "n_array_comma_after_close.json": 4,
    "n_array_comma_and_number.json": 1,
    "n_array_double_comma.json": 3,
    "n_array_double_extra_comma.json": 5,
    "n_array_extra_close.json": 5,
    "n_array_extra_comma.json": 4,
    "n_array_incomplete_invalid_value.json": 1,
    "n_array_inner_array_no_comma.json": 2,
    "n_array_invalid_utf8.json": 1,
    "n_array_items_separated_by_semicolon.json": 2,
    "n_array_just_comma.json": 1,
    "n_array_just_minus.json": 2,
    "n_array_missing_value.json": 4,
    "n_array_number_and_comma.json": 3,
    "n_array_number_and_several_commas.json": 3,
    "n_array_spaces_vertical_tab_formfeed.json": 2,
    "n_array_star_inside.json": 1,
    "n_incomplete_false.json": 5,
    "n_incomplete_null.json": 4,
    "n_incomplete_true.json": 4,
    "n_multidigit_number_then_00.json": 3,
    "n_number_++.json": 1,
    "n_number_+1.json": 1,
    "n_number_+Inf.json": 1,
    "n_number_-01.json": 3,
    "n_number_-1.0..json": 5,
    "n_number_-2..json": 4,
    "n_number_-NaN.json": 2,
    "n_number_.-1.json": 1,
    "n_number_.2e-3.json": 1,
    "n_number_0.1.2.json": 4,
    "n_number_0.3e+.json": 6,
    "n_number_0.3e.json": 5,
    "n_number_0.e1.json": 3,
    "n_number_0_capital_E+.json": 4,
    "n_number_0_capital_E.json": 3,
    "n_number_0e+.json": 4,
    "n_number_0e.json": 3,
    "n_number_1.0e+.json": 6,
    "n_number_1.0e-.json": 6,
    "n_number_1.0e.json": 5,
    "n_number_1_000.json": 3,
    "n_number_1eE2.json": 3,
    "n_number_2.e+3.json": 3,
    "n_number_2.e-3.json": 3,
    "n_number_2.e3.json": 3,
    "n_number_9.e+.json": 3,
    "n_number_Inf.json": 1,
    "n_number_NaN.json": 1,
    "n_number_U+FF11_fullwidth_digit_one.json": 1,
    "n_number_expression.json": 2,
    "n_number_hex_1_digit.json": 2,
    "n_number_hex_2_digits.json": 2,
    "n_number_infinity.json": 1,
    "n_number_invalid+-.json": 4,
    "n_number_invalid-negative-real.json": 9,
    "n_number_invalid-utf-8-in-bigger-int.json": 4,
    "n_number_invalid-utf-8-in-exponent.json": 4,
    "n_number_invalid-utf-8-in-int.json": 2,
    "n_number_minus_infinity.json": 2,
    "n_number_minus_sign_with_trailing_garbage.json": 2,
    "n_number_minus_space_1.json": 2,
    "n_number_neg_int_starting_with_zero.json": 3,
    "n_number_neg_real_without_int_part.json": 2,
    "n_number_neg_with_garbage_at_end.json": 3,
    "n_number_real_garbage_after_e.json": 3,
    "n_number_real_with_invalid_utf8_after_e.json": 3,
    "n_number_real_without_fractional_part.json": 3,
    "n_number_starting_with_dot.json": 1,
    "n_number_with_alpha.json": 4,
    "n_number_with_alpha_char.json": 19,
    "n_number_with_leading_zero.json": 2,
    "n_object_bad_value.json": 9,
    "n_object_bracket_key.json": 1,
    "n_object_comma_instead_of_colon.json": 4,
    "n_object_double_colon.json": 5,
    "n_object_emoji.json": 1,
    "n_object_garbage_at_end.json": 9,
    "n_object_key_with_single_quotes.json": 1,
    "n_object_lone_continuation_byte_in_key_and_trailing_comma.json": 2,
    "n_object_missing_colon.json": 5,
    "n_object_missing_key.json": 1,
    "n_object_missing_semicolon.json": 5,
    "n_object_non_string_key.json": 1,
    "n_object_non_string_key_but_huge_number_instead.json": 1,
    "n_object_repeated_null_null.json": 1,
    "n_object_several_trailing_commas.json": 8,
    "n_object_single_quote.json": 1,
    "n_object_trailing_comma.json": 8,
    "n_object_trailing_comment.json": 9,
    "n_object_trailing_comment_open.json": 9,
    "n_object_trailing_comment_slash_open.json": 9,
    "n_object_trailing_comment_slash_open_incomplete.json": 9,
    "n_object_two_commas_in_a_row.json": 9,
    "n_object_unquoted_key.json": 1,
    "n_object_with_single_string.json": 21,
    "n_object_with_trailing_garbage.json": 9,
    "n_string_1_surrogate_then_escape_u.json": 10,
    "n_string_1_surrogate_then_escape_u1.json": 11,
    "n_string_1_surrogate_then_escape_u1x.json": 11,
    "n_string_accentuated_char_no_quotes.json": 1,
    "n_string_backslash_00.json": 3,
    "n_string_escape_x.json": 3,
    "n_string_escaped_ctrl_char_tab.json": 3,
    "n_string_escaped_emoji.json": 3,
    "n_string_incomplete_escaped_character.json": 7,
    "n_string_incomplete_surrogate.json": 12,
    "n_string_incomplete_surrogate_escape_invalid.json": 15,
    "n_string_invalid-utf-8-in-escape.json": 4,
    "n_string_invalid_backslash_esc.json": 3,
    "n_string_invalid_unicode_escape.json": 4,
    "n_string_invalid_utf8_after_escape.json": 3,
    "n_string_leading_uescaped_thinspace.json": 1,
    "n_string_no_quotes_with_bad_escape.json": 1,
    "n_string_single_quote.json": 1,
    "n_string_single_string_no_double_quotes.json": 0,
    "n_string_unescaped_ctrl_char.json": 3,
    "n_string_unescaped_newline.json": 5,
    "n_string_unescaped_tab.json": 2,
    "n_string_unicode_CapitalU.json": 2,
    "n_string_with_trailing_garbage.json": 2,
    "n_structure_U+2060_word_joined.json": 1,
    "n_structure_angle_bracket_..json": 0,
    "n_structure_angle_bracket_null.json": 1,
    "n_structure_array_trailing_garbage.json": 3,
    "n_structure_array_with_extra_array_close.json": 3,
    "n_structure_ascii-unicode-identifier.json": 0,
    "n_structure_capitalized_True.json": 1,
    "n_structure_close_unopened_array.json": 1,
    "n_structure_double_array.json": 2,
    "n_structure_end_array.json": 0,
    "n_structure_incomplete_UTF8_BOM.json": 0,
    "n_structure_null-byte-outside-string.json": 1,
    "n_structure_number_with_trailing_garbage.json": 1,
    "n_structure_object_followed_by_closing_object.json": 2,
    "n_structure_object_with_comment.json": 5,
    "n_structure_object_with_trailing_garbage.json": 12,
    "n_structure_open_array_apostrophe.json": 1,
    "n_structure_open_array_comma.json": 1,
    "n_structure_open_object_close_array.json": 1,
    "n_structure_open_object_comma.json": 1,
    "n_structure_open_object_open_array.json": 1,
    "n_structure_open_object_string_with_apostrophes.json": 1,
    "n_structure_open_open.json": 3,
    "n_structure_single_star.json": 0,
    "n_structure_trailing_#.json": 9,
    "n_structure_uescaped_LF_before_string.json": 1,
    "n_structure_unicode-identifier.json": 0,
    "n_structure_whitespace_U+2060_word_joiner.json": 1,
    "n_structure_whitespace_formfeed.json": 1,
}
"""n_ files that raise MalformedJSON (not a subclass), and the character offset they raise at."""

N_LIMITS: dict[str, int] = {
    # the 1001st opening bracket exceeds the default max_depth=1000
    "n_structure_100000_opening_arrays.json": 1000,
    "n_structure_open_array_object.json": 2500,
}
"""n_ files that raise LimitExceeded (never RecursionError), with the offset they raise at."""

N_TRUNCATED: dict[str, Any] = {
    "n_array_incomplete.json": ["x"],
    "n_array_newlines_unclosed.json": ["a", 4, 1],
    "n_array_unclosed.json": [""],
    "n_array_unclosed_trailing_comma.json": [1],
    "n_array_unclosed_with_new_lines.json": [1, 1, 1],
    "n_array_unclosed_with_object_inside.json": [{}],
    "n_object_missing_value.json": {},
    "n_object_no-colon.json": {},
    "n_object_unterminated-value.json": {"a": "a"},
    "n_single_space.json": UNSET,
    # `\"` is an escaped quote: these strings never close
    "n_string_1_surrogate_then_escape.json": ['\ud800"]'],
    "n_string_escaped_backslash_bad.json": ['\\"]'],
    "n_string_incomplete_escape.json": ['"]'],
    "n_string_single_doublequote.json": "",
    "n_string_start_escape_unclosed.json": [""],
    "n_structure_array_with_unclosed_string.json": ["asd]"],
    "n_structure_comma_instead_of_closing_brace.json": {"x": True},
    "n_structure_lone-open-bracket.json": [],
    "n_structure_no_data.json": UNSET,
    "n_structure_object_unclosed_no_value.json": {},
    "n_structure_open_array_open_object.json": [{}],
    "n_structure_open_array_open_string.json": ["a"],
    "n_structure_open_array_string.json": ["a"],
    "n_structure_open_object.json": {},
    "n_structure_open_object_open_string.json": {},
    "n_structure_unclosed_array.json": [1],
    "n_structure_unclosed_array_partial_null.json": [False],
    "n_structure_unclosed_array_unfinished_false.json": [True],
    "n_structure_unclosed_array_unfinished_true.json": [False],
    "n_structure_unclosed_object.json": {"asd": "asd"},
    # bytes: a UTF-8 BOM and nothing else; the BOM is skipped (as str it is an error, below)
    "n_structure_UTF8_BOM_no_data.json": UNSET,
    # bytes: a lone UTF-8 lead byte is an incomplete character, dropped at finish()
    "n_structure_lone-invalid-utf-8.json": UNSET,
    "n_structure_single_eacute.json": UNSET,
}
"""n_ files that are only truncated documents (fed as bytes): finish() value, complete False."""

N_STR_ERRORS: dict[str, int] = {
    # decoded to str the BOM is a character U+FEFF, not whitespace (as json.loads(str))
    "n_structure_UTF8_BOM_no_data.json": 0,
}
"""n_ files whose outcome differs when fed as str: MalformedJSON at this offset."""

INF_NAN: dict[str, Any] = {
    "n_number_NaN.json": [math.nan],
    "n_number_infinity.json": [math.inf],
    "n_number_minus_infinity.json": [-math.inf],
}
"""The three n_ files json.loads accepts; strict mode rejects them unless allow_inf_nan=True."""

# ------------------------------------------------------------------------------ i_ files

BYTES_ERROR = "MalformedJSON"

I_DECISIONS: dict[str, tuple[Any, Any]] = {
    # name: (outcome fed as bytes, outcome fed as str); an int is "MalformedJSON at pos".
    # Huge exponents follow float(), like json.loads: overflow gives +-inf, underflow 0.0.
    "i_number_double_huge_neg_exp.json": ([0.0], [0.0]),
    "i_number_huge_exp.json": ([math.inf], [math.inf]),
    "i_number_neg_int_huge_exp.json": ([-math.inf], [-math.inf]),
    "i_number_pos_double_huge_exp.json": ([math.inf], [math.inf]),
    "i_number_real_neg_overflow.json": ([-math.inf], [-math.inf]),
    "i_number_real_pos_overflow.json": ([math.inf], [math.inf]),
    "i_number_real_underflow.json": ([0.0], [0.0]),
    # Big ints are exact Python ints (under the 4300-digit limit).
    "i_number_too_big_neg_int.json": (
        [-123123123123123123123123123123],
        [-123123123123123123123123123123],
    ),
    "i_number_too_big_pos_int.json": ([100000000000000000000], [100000000000000000000]),
    "i_number_very_big_negative_int.json": (
        [-237462374673276894279832749832423479823246327846],
        [-237462374673276894279832749832423479823246327846],
    ),
    # Escaped lone surrogates pass through, as json.loads gives them.
    "i_object_key_lone_2nd_surrogate.json": ({"\udfaa": 0}, {"\udfaa": 0}),
    "i_string_1st_surrogate_but_2nd_missing.json": (["\udada"], ["\udada"]),
    "i_string_1st_valid_surrogate_2nd_invalid.json": (["\ud888\u1234"], ["\ud888\u1234"]),
    "i_string_incomplete_surrogate_and_escape_valid.json": (["\ud800\n"], ["\ud800\n"]),
    "i_string_incomplete_surrogate_pair.json": (["\udd1ea"], ["\udd1ea"]),
    "i_string_incomplete_surrogates_escape_valid.json": (
        ["\ud800\ud800\n"],
        ["\ud800\ud800\n"],
    ),
    "i_string_invalid_lonely_surrogate.json": (["\ud800"], ["\ud800"]),
    "i_string_invalid_surrogate.json": (["\ud800abc"], ["\ud800abc"]),
    "i_string_inverted_surrogates_U+1D11E.json": (["\udd1e\ud834"], ["\udd1e\ud834"]),
    "i_string_lone_second_surrogate.json": (["\udfaa"], ["\udfaa"]),
    # Bytes are UTF-8 only: UTF-16 (with or without BOM) is malformed at its first character.
    "i_string_UTF-16LE_with_BOM.json": (0, None),
    "i_string_utf16BE_no_BOM.json": (0, None),  # U+0000 at 0 is not a JSON token
    "i_string_utf16LE_no_BOM.json": (1, None),  # "[" then U+0000
    # Invalid UTF-8 is MalformedJSON at the character offset of the bad byte.  Unlike
    # json.loads(bytes) (surrogatepass) an encoded surrogate is invalid UTF-8 too.
    "i_string_UTF-8_invalid_sequence.json": (4, None),
    "i_string_UTF8_surrogate_U+D800.json": (2, None),
    "i_string_invalid_utf-8.json": (2, None),
    "i_string_iso_latin_1.json": (2, None),
    "i_string_lone_utf8_continuation_byte.json": (2, None),
    "i_string_not_in_unicode_range.json": (2, None),
    "i_string_overlong_sequence_2_bytes.json": (2, None),
    "i_string_overlong_sequence_6_bytes.json": (2, None),
    "i_string_overlong_sequence_6_bytes_null.json": (2, None),
    "i_string_truncated-utf-8.json": (2, None),
    # 500 levels are under the default max_depth=1000.
    "i_structure_500_nested_arrays.json": ("json.loads", "json.loads"),
    # A leading UTF-8 BOM is skipped in bytes mode; decoded to str it is an error.
    "i_structure_UTF-8_BOM_empty_object.json": ({}, 0),
}
"""What unspool does with each implementation-defined file (None: not valid UTF-8, no str form)."""

TRANSFORM_ERRORS: dict[str, int] = {
    # UTF-8-encoded surrogates are invalid UTF-8 (decision above)
    "string_1_invalid_codepoint.json": 2,
    "string_2_invalid_codepoints.json": 2,
    "string_3_invalid_codepoints.json": 2,
}


# ------------------------------------------------------------------------------ helpers


def _finish(data: str | bytes, **options: Any) -> tuple[JsonStream, Any]:
    parser = JsonStream(**options)
    parser.feed(data)
    return parser, parser.finish()


def _finish_chunks(chunks: list[Any]) -> Any:
    parser = JsonStream()
    for chunk in chunks:
        parser.feed(chunk)
    return parser.finish()


def _expect_error(chunks: list[Any], pos: int, kind: type[MalformedJSON], label: str) -> None:
    try:
        parser, _, err = feed_until_error(chunks)
    except AssertionError as missing:
        raise AssertionError(f"{label}: {missing}") from None
    assert type(err) is kind, f"{label}: raised {type(err).__name__}: {err}"
    assert err.pos == pos, f"{label}: pos {err.pos}, expected {pos} ({err})"
    with pytest.raises(kind):
        parser.finish()


def _expect_truncated(chunks: list[Any], value: Any, label: str) -> None:
    parser = JsonStream()
    for chunk in chunks:
        parser.feed(chunk)
    assert_same(parser.finish(), value, label)
    assert parser.complete is False, f"{label}: a truncated document is not complete"


# ------------------------------------------------------------------------------ tests


def test_conformance_data_ships_inside_the_repository_with_its_licence() -> None:
    """A fresh clone with nothing beside it has the data (never ``../shared``)."""
    repo = ROOT
    folder = conformance_dir().resolve()
    assert folder.is_relative_to(repo / "tests"), folder
    licence = (folder / "JSONTestSuite" / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "Nicolas Seriot" in licence
    tracked = subprocess.run(
        ["git", "ls-files", "--", "tests/data/JSONTestSuite"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    if tracked.returncode == 0 and tracked.stdout:  # inside a git checkout: all are tracked
        shipped = {Path(line).name for line in tracked.stdout.splitlines()}
        assert {p.name for p in suite_dir().iterdir()} <= shipped


def test_conformance_data_is_present_and_fully_classified() -> None:
    names = {p.name for p in suite_dir().iterdir()}
    n_files = {n for n in names if n.startswith("n_")}
    classified = set(N_ERRORS) | set(N_LIMITS) | set(N_TRUNCATED)
    assert n_files == classified, (
        f"unclassified: {sorted(n_files - classified)}, unknown: {sorted(classified - n_files)}"
    )
    assert not set(N_ERRORS) & set(N_TRUNCATED)
    assert {n for n in names if n.startswith("i_")} == set(I_DECISIONS)
    assert len([n for n in names if n.startswith("y_")]) == 95


@pytest.mark.parametrize("name", suite_names("y_"))
def test_y_file_is_accepted_with_json_loads_value(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    expected = json.loads(data)
    parser, result = _finish(data)
    assert_same(result, expected, f"{name} as bytes")
    assert parser.complete is True
    text = utf8_or_none(data)
    assert text is not None, f"{name} is valid UTF-8"
    parser, result = _finish(text)
    assert_same(result, expected, f"{name} as str")
    assert parser.complete is True
    _, lenient = _finish(data, lenient=True)
    assert_same(lenient, expected, f"{name} in lenient mode")


@pytest.mark.parametrize("name", suite_names("y_"))
def test_y_file_under_every_chunking(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    expected = json.loads(data)
    text = data.decode("utf-8")
    plans: list[list[Any]] = [one_by_one(data), one_by_one(text)]
    plans += [chunks_at(data, [cut]) for cut in range(len(data) + 1)]
    plans += [chunks_at(text, [cut]) for cut in range(len(text) + 1)]
    for chunks in plans:
        parser = JsonStream()
        for chunk in chunks:
            parser.feed(chunk)
        assert_same(parser.finish(), expected, f"{name} fed as {chunks!r}")
        assert parser.complete is True


@pytest.mark.parametrize("name", suite_names("n_"))
def test_n_file_is_rejected_as_bytes(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    plans: list[list[Any]] = [[data]]
    plans.append(one_by_one(data) if len(data) < 5000 else chunks_at(data, [1, 7]))
    for chunks in plans:
        label = f"{name} fed as {len(chunks)} byte chunk(s)"
        if name in N_ERRORS:
            _expect_error(chunks, N_ERRORS[name], MalformedJSON, label)
        elif name in N_LIMITS:
            _expect_error(chunks, N_LIMITS[name], LimitExceeded, label)
        elif name in N_TRUNCATED:
            _expect_truncated(chunks, N_TRUNCATED[name], label)
        else:
            pytest.fail(f"{name} is not classified in this file")


@pytest.mark.parametrize("name", [n for n in suite_names("n_") if n in N_ERRORS or n in N_LIMITS])
def test_n_file_error_partial_is_the_last_good_value(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    pos = N_ERRORS[name] if name in N_ERRORS else N_LIMITS[name]
    # the characters before the offending one are valid UTF-8 in every file
    text = data.decode("utf-8", errors="replace")[:pos]
    partials = []
    for chunks in ([data], one_by_one(data)):
        with pytest.raises(MalformedJSON) as caught:
            _finish_chunks(chunks)
        assert_partial(caught.value, text)
        partials.append(caught.value.partial)
    assert_same(partials[1], partials[0], f"{name}: .partial fed one byte at a time")


@pytest.mark.parametrize("name", suite_names("n_"))
def test_n_file_is_rejected_as_str(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    text = utf8_or_none(data)
    if text is None:
        # not UTF-8: there is no str form of this file; the bytes test covers it
        assert name in N_ERRORS or name in N_TRUNCATED, name
        return
    chunks: list[Any] = [text]
    if name in N_STR_ERRORS:
        _expect_error(chunks, N_STR_ERRORS[name], MalformedJSON, f"{name} as str")
    elif name in N_ERRORS:
        _expect_error(chunks, N_ERRORS[name], MalformedJSON, f"{name} as str")
    elif name in N_LIMITS:
        _expect_error(chunks, N_LIMITS[name], LimitExceeded, f"{name} as str")
    else:
        _expect_truncated(chunks, N_TRUNCATED[name], f"{name} as str")


@pytest.mark.parametrize("name", sorted(INF_NAN))
def test_inf_nan_files_need_allow_inf_nan(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    assert_same(json.loads(data), INF_NAN[name], "json.loads itself accepts this n_ file")
    _expect_error([data], N_ERRORS[name], MalformedJSON, f"{name} in strict mode")
    for chunks in ([data], one_by_one(data)):
        parser = JsonStream(allow_inf_nan=True)
        for chunk in chunks:
            parser.feed(chunk)
        assert_same(parser.finish(), INF_NAN[name], f"{name} with allow_inf_nan=True")
        assert parser.complete is True


@pytest.mark.parametrize("name", suite_names("i_"))
def test_i_file_decision(name: str) -> None:
    data = read_suite_file(suite_dir(), name)
    as_bytes, as_str = I_DECISIONS[name]
    text = utf8_or_none(data)
    assert (text is None) == (as_str is None), f"{name}: str form of the decision table"
    for label, source, outcome in (("bytes", data, as_bytes), ("str", text, as_str)):
        if source is None:
            continue
        for chunks in ([source], one_by_one(source)):
            what = f"{name} as {label} in {len(chunks)} chunk(s)"
            if isinstance(outcome, int) and not isinstance(outcome, bool):
                _expect_error(chunks, outcome, MalformedJSON, what)
                continue
            expected = json.loads(data) if outcome == "json.loads" else outcome
            parser = JsonStream()
            for chunk in chunks:
                parser.feed(chunk)
            assert_same(parser.finish(), expected, what)
            assert parser.complete is True


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in transform_dir().iterdir()),
)
def test_transform_file(name: str) -> None:
    data = read_suite_file(transform_dir(), name)
    if name in TRANSFORM_ERRORS:
        _expect_error([data], TRANSFORM_ERRORS[name], MalformedJSON, name)
        return
    expected = json.loads(data)
    for chunks in ([data], one_by_one(data), one_by_one(data.decode("utf-8"))):
        parser = JsonStream()
        for chunk in chunks:
            parser.feed(chunk)
        assert_same(parser.finish(), expected, f"{name} in {len(chunks)} chunk(s)")
