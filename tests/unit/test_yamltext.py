"""dump_yaml writes YAML that mcpstub's loader (YAML 1.2 core) and PyYAML's 1.1 reader read back
as the same data, kinds included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mcpstub.importer import same
from mcpstub.load import parse_document
from mcpstub.yamltext import DumpError, dump_yaml


def load(text: str) -> Any:
    doc, diagnostics = parse_document("t.yaml", Path("t.yaml"), text.encode("utf-8"))
    assert not diagnostics, [d.format() for d in diagnostics]
    return doc.data


TRICKY = [
    "no", "Yes", "ON", "off", "y", "N", "null", "Null", "~", "", " ", "true", "False",
    "1e3", "0o17", "0x1f", "1_000", ".inf", "-.inf", ".NaN", "12:30:00", "2026-01-01", "- a", "a: b",
    "a #b", "#x", "!tag", "&anchor", "*alias", "|", ">", "%x", "@x", "`x", "'x'", '"x"', "{a}", "[a]",
    "a,b", "? x", "x ", " x", "a  b", "tab\there", "line\nbreak\n", "\n", "\n\n", "a\n\n", "crlf\r\n",
    "nel\x85", "ls\u2028", "bom\ufeff", "del\x7f", "bell\x07", "astral 𝄞", "wide 漢字",
    "$ref", "#/$defs/X", "x-vendor", "_meta", "a/b", "=", "<<", "-", "---", "...", "- ", "multi\n line",
    "first\n  indented\nlast", "  leading\nspace", "trailing \nspace", "é" * 50 + "\nx",
]  # fmt: skip


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_strings_read_back_as_strings(text: str) -> None:
    data = {"k": text, text: [text, {"v": text}], "long": text * 5}
    dumped = dump_yaml(data)
    assert same(load(dumped), data), dumped


@pytest.mark.parametrize("text", TRICKY)
def test_pyyaml_reads_the_same_strings(text: str) -> None:
    data = {"k": text, "l": [text]}
    assert yaml.safe_load(dump_yaml(data)) == data


def test_numbers_keep_their_kind() -> None:
    data = {"i": 1, "f": 1.0, "big": 18446744073709551615, "e": 1e300, "s": 1e-7, "n": -0.0, "b": True}
    back = load(dump_yaml(data))
    assert same(back, data)


def test_non_json_values_are_refused() -> None:
    for bad in (float("nan"), float("inf"), b"x", {1: 2}, "lone \ud800 surrogate"):
        with pytest.raises(DumpError):
            dump_yaml({"k": bad})


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)
    | st.lists(st.sampled_from(TRICKY), max_size=3).map("".join),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=10) | st.sampled_from(TRICKY), children, max_size=4)
    ),
    max_leaves=25,
)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text(max_size=8) | st.sampled_from(TRICKY), json_values, max_size=5))
def test_any_json_mapping_reads_back_exactly(data: dict[str, Any]) -> None:
    assert same(load(dump_yaml(data)), data)


LONG_KEYS = st.builds(lambda n, c: c * n, st.integers(990, 1040), st.sampled_from(["a", "é", "\\", "'", "-"]))


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(LONG_KEYS | st.text(max_size=4), json_values, min_size=1, max_size=3), st.booleans())
def test_a_key_longer_than_yaml_reads_implicitly_is_written_explicitly(
    data: dict[str, Any], listed: bool
) -> None:
    # A YAML reader takes an implicit key of at most 1024 characters: an import of a tool with a
    # longer property name wrote a file the reader refused.
    document = {"tools": [data]} if listed else {"nested": {"deeper": data}}
    text = dump_yaml(document)
    assert same(load(text), document)
