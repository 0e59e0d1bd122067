"""Load: a YAML (or JSON) file on disk -> plain JSON-like data plus the location of every node.

`load_document(path)` reads the file, composes it with PyYAML (C loader when available), and
converts the node graph to dicts, lists and scalars under the YAML 1.2 core schema (so `no` and
`2026-01-01` stay strings). Each value's and each mapping key's position is kept in a `Document`,
keyed by its JSON path. Problems come back as diagnostics, never as exceptions: bad UTF-8, tabs,
duplicate keys, an empty file, and alias bombs (expansion is bounded before it happens).

JSON text that YAML would read as exactly the same data, without a diagnostic, takes a fast path:
`json.loads` builds the data and the node graph is composed only when a position is asked for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import yaml

from mcpstub.diagnostics import Diagnostic, Location, error
from mcpstub.document import MAX_ALIAS_NODES, MAX_DEPTH, Document, JsonPath, yaml_lines
from mcpstub.engine import session
from mcpstub.engine.jsonread import _astral, _json_data
from mcpstub.engine.reread import _json_reread, _JsonRead, _keep, _remember_read, _reread
from mcpstub.yamlread import (
    _build,
    _check_expansion,
    _compose,
    _Converter,
    _decode,
    _LoadFailed,
    _surrogate_error,
    _ToolLines,
    _yaml_error,
)

__all__ = [
    "MAX_ALIAS_NODES",
    "MAX_DEPTH",
    "Document",
    "JsonPath",
    "load_document",
    "parse_document",
    "read_text",
]


def parse_document(
    file: str, path: Path, raw: bytes, *, fast: bool = True
) -> tuple[Document, list[Diagnostic]]:
    """Parse bytes already read from `path`; `file` is the name shown in diagnostics.

    `fast=False` reads JSON through the YAML path too (the fast path's results are the same).
    """
    doc = Document(file=file, path=path, raw=raw)
    doc, diagnostics = _parse_into(doc, raw, fast=fast)
    if doc._moves or doc._breaks:  # (a JSON error's place is counted as an editor counts already)
        diagnostics = [
            d if d.code == "json-syntax" else replace(d, location=doc.written(d.location))
            for d in diagnostics
        ]
    return doc, diagnostics


def _parse_into(doc: Document, raw: bytes, *, fast: bool) -> tuple[Document, list[Diagnostic]]:
    file = doc.file
    try:
        source = _decode(file, raw)
        text, doc._moves = _astral(source, doc.path)
        doc.text, doc._breaks = text, yaml_lines(source)  # (the escapes as written)
        start = text.lstrip()[:1]  # where it is not a comment, there is more than comments
        if not start or (
            start == "#"
            and all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())
        ):
            raise _LoadFailed(error("empty-file", "file is empty", Location(file, 1, 1)))
        watching = fast and session.current() is not None and not doc._moves  # `--watch`
        if watching:  # perhaps a save changed some tools
            json_again = _json_reread(doc, source)
            if json_again is not None:
                doc._lazy = True
                _keep(json_again)
                return doc, []
        spans: list[tuple[int, int]] = []
        found = _json_data(source, spans if watching else None) if fast else None
        if found is not None:
            doc.data, doc.finite = found
            doc._lazy = True
            if spans:
                _keep(_JsonRead(doc, source, spans))
            return doc, []
        # A `.json` file YAML reads (a trailing comma, a comment) but JSON does not; where YAML
        # does not read it either, its explanation is said.
        wrong = json_mistake(file, source) if doc.is_json else None
        try:
            if session.current() is not None and fast and wrong is None:  # perhaps one tool's lines changed
                again = _reread(doc, text)
                if again is not None:
                    doc._lazy = True
                    _keep(again)
                    return doc, []
            tools = _ToolLines() if session.current() is not None else None
            built = _build(doc, text, tools)
            if built is not None and wrong is not None:
                raise _LoadFailed(wrong)
            if built is not None:
                doc.data, doc._lazy = built[0], True
                if tools is not None and not built[1]:
                    _remember_read(doc, tools)
                return doc, built[1]
            node, aliased = _compose(file, text)
        except yaml.YAMLError as exc:
            failed = _surrogate_error(doc, text, exc) or _yaml_error(file, text, exc, _editor_place(doc))
            raise _LoadFailed(failed) from None
        if wrong is not None:
            raise _LoadFailed(wrong)
        if node is None or (isinstance(node, yaml.ScalarNode) and node.value == "" and not node.style):
            raise _LoadFailed(error("empty-file", "file holds no document", Location(file, 1, 1)))
        if aliased:  # without aliases, nothing is reused and the nesting is already bounded
            _check_expansion(file, node)
        converter = _Converter(doc)
        doc.root = node
        doc.data = converter.convert(node)
        return doc, converter.diagnostics
    except _LoadFailed as failed:
        return doc, [failed.diagnostic]
    except RecursionError:
        return doc, [error("yaml-too-deep", "document nests too deeply", Location(file, 1, 1))]


def json_mistake(file: str, text: str) -> Diagnostic | None:
    """Where a `.json` file is not JSON, which YAML would read all the same (a trailing comma, a
    `/* comment */` taken for a key): what is wrong there, and how to mend it."""
    try:
        json.loads(text, parse_constant=_not_a_number)
    except _NotANumber:  # NaN, Infinity: Python's reader takes them, JSON has none
        found = next(m for m in _CONSTANT.finditer(text) if m.group(1))
        at, message = found.start(1), f"invalid JSON: {found.group(1)} is not a JSON number"
        hint = "JSON has no NaN or Infinity: write a number, or a string if the text is meant"
        return error("json-syntax", message, text_place(file, text, at), hint)
    except json.JSONDecodeError as exc:
        at, message = exc.pos, f"invalid JSON: {exc.msg}"
        after, last = text[at : at + 1], text[:at].rstrip()[-1:]
        hint = "a file named .json is read as JSON; name it .yaml to write YAML"
        if last == "," and after in "}]" and after:
            at = len(text[:at].rstrip()) - 1
            ends = "object" if after == "}" else "array"
            message = f"invalid JSON: a comma before the '{after}' that ends the {ends}"
            hint = "JSON allows no comma after the last item: remove it"
        elif text.startswith(("//", "/*"), exc.pos) or (after == "#" and exc.pos > 0):
            hint = "JSON has no comments: remove it, or write the toolset as YAML (.yaml), where # starts one"
        elif after == "'":
            hint = 'JSON strings are in double quotes: "..."'
        return error("json-syntax", message, text_place(file, text, at), hint)
    except (RecursionError, ValueError):  # too deep, too many digits: the YAML path says so
        return None
    return None


def text_place(file: str, text: str, at: int) -> Location:
    """Offset `at` of `text` as an editor shows it: lines end at CR, LF or CRLF only, and columns
    count characters as written (an escape as its characters)."""
    before = text[:at]
    line = len(_LINE_BREAK.findall(before)) + 1
    return Location(file, line, at - max((m.end() for m in _LINE_BREAK.finditer(before)), default=0) + 1)


class _NotANumber(ValueError):
    pass


def _not_a_number(name: str) -> None:
    raise _NotANumber(name)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A JSON string, or (group 1) a constant Python's reader takes and JSON does not.
_CONSTANT = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def _editor_place(doc: Document) -> Callable[[int, int], tuple[int, int]]:
    """A place the YAML reader counts (line, column) as an editor shows it."""

    def shown(line: int, col: int) -> tuple[int, int]:
        loc = doc.written(Location(doc.file, line, col))
        return loc.line, loc.col

    return shown


def _read(path: Path, shown: str) -> bytes | Diagnostic:
    try:
        return path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        return error("file-unreadable", f"cannot read file: {reason}", Location(shown, 1, 1))


def read_text(path: Path, file: str | None = None) -> tuple[str | None, list[Diagnostic]]:
    """A file's text as every reader takes it (UTF-8, a byte order mark dropped), or why not."""
    shown = file if file is not None else str(path)
    raw = _read(path, shown)
    if isinstance(raw, Diagnostic):
        return None, [raw]
    try:
        return _decode(shown, raw), []
    except _LoadFailed as failed:
        return None, [failed.diagnostic]


def load_document(path: Path, file: str | None = None) -> tuple[Document, list[Diagnostic]]:
    """Read and parse `path`; unreadable files become a diagnostic."""
    shown = file if file is not None else str(path)
    raw = _read(path, shown)
    if isinstance(raw, Diagnostic):
        return Document(file=shown, path=path), [raw]
    return parse_document(shown, path, raw)
