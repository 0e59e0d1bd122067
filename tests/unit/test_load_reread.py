"""`--watch` reads a YAML toolset again by the lines of the one tool a save changed: the data, the
diagnostics and every position must be what reading the whole file gives, whatever the edit."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.bench_edit import _PlainDumper
from benchmarks.toolset import build_shaped, edit_tools
from mcpstub import load
from mcpstub.engine import reread
from mcpstub.engine.session import Session, running
from mcpstub.load import parse_document
from mcpstub.pipeline import check_toolset
from tests.unit.test_load_fastpath import _exact, _paths

PATH = Path("tools.yaml")

# A toolset written the ways people write YAML: comments between and inside tools, block and
# folded scalars, quoted scalars over several lines, flow collections, blank lines, and a
# top-level key after the tools.
BASE = """\
mcpstub: 1
server:
  name: s  # the server
tools:
  # the first tool
  - name: alpha
    description: |
      Line one.
        Indented two.
    inputSchema:
      type: object
      properties:
        a: {type: string, enum: [x, "y", 'z']}
        b:
          type: integer
          minimum: 0

  - name: beta
    description: >-
      folded
      text
    inputSchema: {type: object, properties: {c: {type: number}}}
  # between tools
  - name: gamma
    description: "a quoted
      scalar over lines"
    inputSchema:
      type: object
      required: [d]
      properties:
        d: {type: boolean, default: true}
    annotations:
      readOnlyHint: true
  -   name: delta
      inputSchema:
        type: object
$defs:
  Shared: {type: string}
"""

# What an edit may put in a line: YAML's indicators, quotes, tabs, spaces and line breaks.
PIECES = st.sampled_from(
    ["a", "1", " ", "  ", "\t", ":", ": ", "- ", "-", "#", "'", '"', "[", "]", "{", "}", ",", "|", ">",
     "&a", "*a", "!", "%", "@", "`", "?", "\n", "\r\n", "name: x", "e", "1e400", "é", "\\", "...", "---",
     "\r", "|+", "|2", "? ", "1.0", "true"]
)  # fmt: skip


@st.composite
def edited(draw: st.DrawFn, text: str) -> str:
    """`text` with a few lines changed, inserted, removed or moved, anywhere."""
    lines = text.splitlines(keepends=True)
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            lines = ["x: 1\n"]
        at = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["insert", "replace", "delete", "copy", "indent", "piece"]))
        if kind == "insert":
            lines.insert(at, "".join(draw(st.lists(PIECES, max_size=6))) + "\n")
        elif kind == "replace":
            lines[at] = "".join(draw(st.lists(PIECES, max_size=8))) + "\n"
        elif kind == "delete":
            del lines[at]
        elif kind == "copy":
            lines.insert(at, lines[draw(st.integers(0, len(lines) - 1))])
        elif kind == "indent":
            lines[at] = " " * draw(st.integers(0, 8)) + lines[at].lstrip(" ")
        else:
            cut = draw(st.integers(0, len(lines[at])))
            lines[at] = lines[at][:cut] + draw(PIECES) + lines[at][cut:]
    return "".join(lines)


@pytest.fixture
def remembering(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Reads remembered, as in `--watch`; yields, per read, whether it took the tool's lines only."""
    taken: list[bool] = []
    real = load._reread

    def spy(doc: load.Document, text: str) -> reread._Read | None:
        again = real(doc, text)
        taken.append(again is not None)
        return again

    monkeypatch.setattr(load, "_reread", spy)
    with running(Session()):
        yield taken


def _written(doc: dict[str, Any]) -> str:
    """Block YAML as people write it (a reused value written out, not as an alias)."""
    return yaml.dump(doc, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=100)


def _whole(text: str) -> tuple[load.Document, list[Any]]:
    with running(None):
        return parse_document("tools.yaml", PATH, text.encode())


def _same(text: str) -> None:
    doc, diagnostics = parse_document("tools.yaml", PATH, text.encode())
    whole, expected = _whole(text)
    assert diagnostics == expected
    assert _exact(doc.data) == _exact(whole.data)
    if not diagnostics:
        for path in _paths(whole.data):
            assert doc.loc(path) == whole.loc(path), path
            assert doc.key_loc(path) == whole.key_loc(path), path


# Other layouts: compact entries at column 0 and a key after them; a whole document indented; a
# `-` alone on its line; keep-chomped block scalars before the next tool.
BASES = [
    BASE,
    "mcpstub: 1\ntools:\n- name: a\n  d: |2\n     x\n\n- name: b\n  d: >-\n    y\n  # c\n\n- c\nz: 1\n",
    "  mcpstub: 1\n  tools:\n  - name: a\n    v: 1\n  - name: b\n  x: 1\n",
    "tools:\n-\n  - name: a\n    v: 1\n- name: b\n  d: |+\n    k\n\n  # cm\n- [1, 2]\n$defs: {}\n",
]


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_read_again_by_one_tools_lines_is_the_read_of_the_whole_file(
    remembering: list[bool], data: st.DataObject
) -> None:
    base = data.draw(st.sampled_from(BASES))
    text = base.replace("\n", "\r\n") if data.draw(st.booleans()) else base
    text = text.rstrip("\n") if data.draw(st.booleans()) else text  # with or without a last line break
    _same(text)
    for _ in range(data.draw(st.integers(1, 4))):
        text = data.draw(edited(text))
        _same(text)


def test_most_one_tool_edits_take_the_tools_lines_only(remembering: list[bool]) -> None:
    """The bench's toolset written as YAML: a one-tool edit is read by that tool's lines."""
    doc = build_shaped("mixed", 60)
    text = _written(doc)
    _same(text)
    for n in range(12):
        text = _written(edit_tools(doc, [(n * 7) % 60], 100 + n))
        _same(text)
    assert remembering.count(True) >= 11, remembering


def test_what_a_read_again_keeps_is_never_changed_by_the_check(tmp_path: Path) -> None:
    """A tool read again keeps the other tools' data from the read before, which the check of that
    read has used: the check must leave the data it is given as it was."""
    for doc in (build_shaped("mixed", 30), build_shaped("shared", 10), build_shaped("draft07", 20)):
        path = tmp_path / "tools.yaml"
        path.write_text(_written(doc))
        loaded, _ = load.load_document(path)
        before = copy.deepcopy(loaded.data)
        checked = check_toolset(path)
        assert checked.ok
        from mcpstub.validate import check_document  # noqa: PLC0415

        check_document(loaded)
        assert _exact(loaded.data) == _exact(before)


TOOL_EDITS = [
    ("        b:\n          type: integer\n", "        b:\n          type: string\n"),  # alpha
    ("      Line one.\n", "      Line one, longer.\n      And two.\n"),  # a block scalar grows
    ("      text\n", "      text: with a colon\n"),  # beta
    ("  - name: gamma\n", "  - name: gamma\n    title: Gamma\n"),
    ("      readOnlyHint: true\n", "      readOnlyHint: true\n  - name: epsilon\n"),  # a tool added
    ("  -   name: delta\n      inputSchema:\n        type: object\n", ""),  # the last tool removed
    ("    inputSchema: {type: object, properties: {c: {type: number}}}\n",  # a flow mapping over lines
     "    inputSchema: {type: object,\n      properties: {c: {type: number}}}\n"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), TOOL_EDITS)
def test_a_change_within_the_tools_lines_is_read_by_those_lines(
    remembering: list[bool], old: str, new: str
) -> None:
    assert old in BASE
    _same(BASE)
    _same(BASE.replace(old, new, 1))
    assert remembering == [False, True]


UNREAD_EDITS = [
    ("  name: s  # the server\n", "  name: t\n"),  # outside the tools
    ("  Shared: {type: string}\n", "  Shared: {type: number}\n"),
    ("  - name: alpha\n", "  - name: alpha2\n"),  # the first line of the first tool
    ("  - name: beta\n", "    name: beta\n"),  # no longer a tool of its own: beta's first line
    ('    description: "a quoted\n', '    description: "a quoted\n  - "\n'),  # what reads otherwise
]


@pytest.mark.parametrize(("old", "new"), UNREAD_EDITS)
def test_a_change_that_could_read_otherwise_reads_the_whole_file(
    remembering: list[bool], old: str, new: str
) -> None:
    assert old in BASE
    _same(BASE)
    _same(BASE.replace(old, new, 1))


# Found by attack: each read again, before the fix, otherwise than the whole file.
MISREAD = [
    ("tools:\n  - name: a\n  - name: b\n", "tools:\n  - name: a\n...\n  - name: b\n"),  # a document end
    ("tools:\n  - a\n  - b\nx: 1\n", "tools:\n  - a\n  - b\n...\nx: 1\n"),
    ("tools:\n  - name: a\n  - name: b\n", "tools:\n  - name: a\n...  # c\n  - name: b\n"),
    ("  tools:\n  - name: a\n  x: 1\n", "  tools:\n  - name: a\n  # x: 1\n"),  # an indented document
    ("  mcpstub: 1\n  tools:\n  - name: a\n  x: 1\n", "  mcpstub: 1\n  tools:\n  - name: a\n  - x: 1\n"),
    ("tools:\n-\n  - name: a\n    v: 1\n", "tools:\n-\n  - name: a\n    v: 2\n"),  # a `-` alone on its line
    ("tools:\n  - name: a\n  -  \n    d: |+\n \n\n  # cm\n  - name: b\n",
     "tools:\n  - name: a\n\n  -  \n    d: |+\n \n\n  # cm\n  - name: b\n"),
    ("tools:\r\n- \n  - name: a\r\n    v: 1\r\n", "tools:\r\n- \n  - name: a\r\n\r\n"),
    ("tools:\n  - name: a\n  -\r c: 1\n", "tools:\n  - name: a\n    v: 1\n  -\r c: 1\n"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), MISREAD)
def test_what_an_attack_found_reads_as_the_whole_file(remembering: list[bool], old: str, new: str) -> None:
    _same(old)
    _same(new)
    _same(old)  # and back
