"""`--watch` reads a JSON toolset again by the characters of the tools a save changed: the data,
the diagnostics and every position must be what reading the whole file gives, whatever the edit."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.toolset import build_shaped, edit_tools
from mcpstub import load
from mcpstub.engine import reread
from mcpstub.engine.session import Session, running
from mcpstub.load import parse_document
from tests.unit.test_load_fastpath import _exact, _paths

PATH = Path("tools.json")

TOOLSET: dict[str, Any] = {
    "mcpstub": 1,
    "server": {"name": "s"},
    "tools": [
        {
            "name": "alpha",
            "description": "Line one.\nLine two: é",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"type": "string", "enum": ["x", "y"]}, "b": {"type": "integer"}},
            },
        },
        {"name": "beta", "inputSchema": {"type": "object", "properties": {"c": {"type": "number"}}}},
        {
            "name": "gamma",
            "inputSchema": {"type": "object", "required": ["d"], "properties": {"d": {"default": 1.5}}},
            "annotations": {"readOnlyHint": True},
        },
        {"name": "delta", "inputSchema": {"type": "object"}},
    ],
    "$defs": {"Shared": {"type": "string"}},
}

# Layouts: as `json.dumps` writes with an indent of 1, 2 and 4, on one line, and with spaces,
# line breaks (LF and CRLF) between every token.
LAYOUTS = [
    json.dumps(TOOLSET, indent=1) + "\n",
    json.dumps(TOOLSET, indent=2, ensure_ascii=False),
    json.dumps(TOOLSET, indent=4) + "\n",
    json.dumps(TOOLSET),
    json.dumps(TOOLSET, indent=2, separators=(" ,\r\n ", " : ")),
    json.dumps({"tools": TOOLSET["tools"], "mcpstub": 1, "server": {"name": "s"}}, indent=2),
]

# What an edit may put anywhere: JSON's punctuation, quotes and escapes, what JSON reads and YAML
# does not (tabs, a colon after a line break or a space, NaN, 1e400, a lone surrogate escape, a
# long integer, duplicate keys), and whole tools.
PIECE_TEXTS = (
    ["{", "}", "[", "]", ",", ":", '"', "'", " ", "\n", "\r\n", "\r", "\t", "\\", '\\"', "\\n", "a", "1",
     "-", "1.0", "1e400", "-0.0", "NaN", "Infinity", "true", "null", '"x"', '"x": 1', '"name": "z"',
     "\n:", " :", '"\\ud800"', '"\\ud83d\\ude00"', "é", "\x7f", "\u2028", "9" * 320, "# c",
     '{"name": "eps", "inputSchema": {"type": "object"}}', '{"name": "eps"},', ', {"name": "eps"}',
     '"name": "alpha"', '"inputSchema": {}', "[" * 40, "]" * 40]
)  # fmt: skip
PIECES = st.sampled_from(PIECE_TEXTS)


@st.composite
def edited(draw: st.DrawFn, text: str) -> str:
    """`text` with a few spans replaced, inserted, removed, copied or moved, anywhere."""
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["insert", "replace", "delete", "copy", "tool", "seam"]))
        if kind == "insert":
            text = text[:at] + "".join(draw(st.lists(PIECES, min_size=1, max_size=4))) + text[at:]
        elif kind == "replace":
            end = draw(st.integers(at, min(len(text), at + 12)))
            text = text[:at] + draw(PIECES) + text[end:]
        elif kind == "delete":
            end = draw(st.integers(at, min(len(text), at + 40)))
            text = text[:at] + text[end:]
        elif kind == "copy":
            start = draw(st.integers(0, len(text)))
            text = text[:at] + text[start : start + draw(st.integers(1, 60))] + text[at:]
        elif kind == "seam":  # at the end of an object: where one tool meets the next
            ends = [i for i, c in enumerate(text) if c == "}"]
            if ends:
                near = draw(st.sampled_from(ends)) + draw(st.integers(-1, 2))
                text = text[:near] + draw(st.sampled_from(["", *PIECE_TEXTS])) + text[near + 1 :]
        else:  # an edit within one tool's text, where most saves make it
            starts = [i for i in range(len(text)) if text.startswith('"name"', i)]
            if starts:
                near = draw(st.sampled_from(starts)) + draw(st.integers(0, 40))
                text = text[:near] + draw(PIECES) + text[near + draw(st.integers(0, 3)) :]
    return text


@pytest.fixture
def remembering(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Reads remembered, as in `--watch`; yields, per read, whether it read the changed tools only."""
    taken: list[bool] = []
    real = load._json_reread

    def spy(doc: load.Document, text: str) -> reread._JsonRead | None:
        again = real(doc, text)
        taken.append(again is not None)
        return again

    monkeypatch.setattr(load, "_json_reread", spy)
    with running(Session()):
        yield taken


def _whole(text: str) -> tuple[load.Document, list[Any]]:
    with running(None):
        return parse_document("tools.json", PATH, text.encode("utf-8", "surrogatepass"))


def _same(text: str, *, positions: bool = True) -> load.Document:
    doc, diagnostics = parse_document("tools.json", PATH, text.encode("utf-8", "surrogatepass"))
    whole, expected = _whole(text)
    assert diagnostics == expected
    assert _exact(doc.data) == _exact(whole.data)
    assert whole.finite or not doc.finite  # never sure of what the whole read is not
    if positions and not diagnostics:
        for path in _paths(whole.data):
            assert doc.loc(path) == whole.loc(path), path
            assert doc.key_loc(path) == whole.key_loc(path), path
    return doc


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_read_again_by_some_tools_is_the_read_of_the_whole_file(
    remembering: list[bool], data: st.DataObject
) -> None:
    text = data.draw(st.sampled_from(LAYOUTS))
    _same(text)
    for _ in range(data.draw(st.integers(1, 4))):
        text = data.draw(edited(text))
        _same(text)


@pytest.mark.parametrize("indent", [None, 1, 2])
def test_most_one_tool_edits_read_that_tool_only(remembering: list[bool], indent: int | None) -> None:
    """The bench's toolsets as `json.dumps` writes them: a one-tool edit reads that tool only."""
    for shape in ("mixed", "enums", "shared"):
        doc = build_shaped(shape, 40)
        remembering.clear()
        _same(json.dumps(doc, indent=indent), positions=False)
        for n in range(8):
            doc = edit_tools(doc, [(n * 7) % 40], 100 + n)
            _same(json.dumps(doc, indent=indent), positions=False)
        assert remembering.count(True) == 8, (shape, remembering)


BASE = json.dumps(TOOLSET, indent=2)

TOOL_EDITS = [
    ('"type": "integer"', '"type": "string"'),  # within the first tool
    ('"name": "beta"', '"name": "beta2"'),
    ('"readOnlyHint": true', '"readOnlyHint": false, "title": "G"'),
    ('{\n      "name": "beta"', '{"name": "new"},\n    {\n      "name": "beta"'),  # a tool added
    (',\n    {\n      "name": "delta",\n      "inputSchema": {\n        "type": "object"\n      }\n    }', ""),  # noqa: E501
    ('"type": "object"\n      }\n    }\n  ]', '"type": "object"\n      }\n    },\n    {"name": "eps"}\n  ]'),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), TOOL_EDITS)
def test_a_change_within_the_tools_is_read_by_those_tools(
    remembering: list[bool], old: str, new: str
) -> None:
    assert old in BASE
    _same(BASE)
    _same(BASE.replace(old, new, 1))
    assert remembering == [False, True]


UNREAD_EDITS = [
    ('"name": "s"', '"name": "t"'),  # outside the tools
    ('"Shared": {\n      "type": "string"', '"Shared": {\n      "type": "number"'),
    ('"tools": [\n    {', '"tools": [ {'),  # between the key and the first tool
    ('"type": "integer"', '"type":\t"integer"'),  # a tab: the YAML reader reports it
    ('"type": "integer"', '"type"\n: "integer"'),
    ('"name": "beta"', '"name": "beta", "name": "again"'),  # a duplicate key
    ('"name": "beta"', '"name": NaN'),  # what JSON reads and YAML reads otherwise
    ('"name": "beta"', '"name": "\\udc00"'),
    ('"name": "beta"', '"name": "beta"}, {"name": '),  # tools split otherwise, reaching past the part
    ('"name": "beta"', '"name": "beta'),  # an unclosed string
    ('{\n      "name": "delta",\n      "inputSchema": {\n        "type": "object"\n      }\n    }', ""),
    ('    },\n    {\n      "name": "beta"', '    }\n    {\n      "name": "beta"'),  # the comma between two
    ('    },\n    {\n      "name": "beta"', '    };\n    {\n      "name": "beta"'),
    ('    },\n    {\n      "name": "beta"', '    }],\n    [{\n      "name": "beta"'),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), UNREAD_EDITS)
def test_a_change_that_could_read_otherwise_reads_the_whole_file(
    remembering: list[bool], old: str, new: str
) -> None:
    assert old in BASE
    _same(BASE)
    _same(BASE.replace(old, new, 1))
    _same(BASE)  # and back
    assert remembering[1] is False


def test_a_deep_tool_read_again_is_refused_as_the_whole_file_refuses_it(remembering: list[bool]) -> None:
    deep = '{"name": "beta", "x": ' + "[" * (load.MAX_DEPTH - 3) + "]" * (load.MAX_DEPTH - 3) + "}"
    deeper = '{"name": "beta", "x": ' + "[" * (load.MAX_DEPTH - 2) + "]" * (load.MAX_DEPTH - 2) + "}"
    text = BASE.replace('"name": "beta"', '"name": "beta0"')
    _same(text)
    at = text.index('{\n      "name": "beta0"')
    end = text.index('},\n    {\n      "name": "gamma"') + 1
    accepted = _same(text[:at] + deep + text[end:])
    assert accepted.data["tools"][1]["name"] == "beta"
    _same(text[:at] + deeper + text[end:])
    assert remembering[1] is True


# Whole texts: a tool whose new text, read on its own, would take in what follows it.
REACHING = [
    ('{"tools": [{"a": 1}, {"b": 1}]}', '{"tools": [{"a": [0, {"b": 1}]}'),
    ('{"tools": [{"a": 1}, {"b": "x"}], "z": 1}', '{"tools": [{"a": "1}, {"b": "x"}], "z": 1}'),
]


@pytest.mark.parametrize(("old", "new"), REACHING)
def test_a_tool_that_reaches_past_its_text_reads_the_whole_file(
    remembering: list[bool], old: str, new: str
) -> None:
    _same(old)
    _same(new)
    assert remembering == [False, False]


@settings(max_examples=300, deadline=None)
@given(
    st.text("ab", max_size=40),
    st.text("ab", max_size=6),
    st.text("ab", max_size=6),
    st.text("ab", max_size=40),
    st.sampled_from([1, 2, 3, 1 << 16]),
)
def test_the_alike_start_and_end_of_two_texts_are_counted_exactly(
    head: str, one: str, other: str, tail: str, chunk: int
) -> None:
    a, b = head + one + tail, head + other + tail
    start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reread, "_COMPARED", chunk)
        assert reread._same_start(a, b) == start
        for limit in {0, min(len(a), len(b)) - start, min(len(a), len(b))}:
            end = 0
            while end < limit and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
                end += 1
            assert reread._same_end(a, b, limit) == end
