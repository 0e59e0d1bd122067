"""Re-reading in a `--watch` session: a save that changed some tools is read by those tools.

In a session (`session.running`), each toolset's last read is kept; a YAML save is read again
by the lines of the tools it changed (`_reread`), a JSON save by their text (`_json_reread`), and
spliced into the last read's data. Anything unusual returns None: the whole file is read.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcpstub.document import MAX_DEPTH, YAML_ONLY_BREAKS, Document
from mcpstub.engine import session
from mcpstub.engine.jsonread import (
    _depth_within,
    _json_alike,
    _NotYamlAlike,
    _Numbers,
    _scan_items,
    _scanner,
    all_finite,
)
from mcpstub.yamlread import _build, _ToolLines


@dataclass
class _Read:
    """A YAML toolset as last read, kept in a session (`session.reads`)."""

    doc: Document
    lines: list[str]
    tools: _ToolLines


@dataclass
class _JsonRead:
    """A JSON toolset as last read, with where each item of its `tools` array starts and ends."""

    doc: Document
    text: str
    spans: list[tuple[int, int]]


# Characters Python splits lines at but YAML does not (those YAML 1.1 splits at too, but an editor
# does not, are `YAML_ONLY_BREAKS`).
_ODD_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def _reads() -> dict[tuple[Path, str], _Read | _JsonRead] | None:
    """Each toolset's last plain read, by (path, name shown), in a session (`session.reads`)."""
    kept = session.current()
    return kept.reads if kept is not None else None


def _lines(text: str) -> list[str] | None:
    """`text`'s lines as YAML counts them, or None where Python could count otherwise."""
    odd = any(c in text for c in _ODD_BREAKS)
    if odd or (not text.isascii() and any(c in text for c in YAML_ONLY_BREAKS)):
        return None
    return text.splitlines(keepends=True)


def _remember_read(doc: Document, tools: _ToolLines) -> None:
    reads = _reads()
    if reads is None:
        return
    key = (doc.path, doc.file)
    lines = _lines(doc.text)
    if lines is None or doc._moves or not tools.entries(lines):
        reads.pop(key, None)
        return
    _keep(_Read(doc, lines, tools))


def _keep(read: _Read | _JsonRead) -> None:
    reads = _reads()
    if reads is not None:
        reads[(read.doc.path, read.doc.file)] = read


def _reread(doc: Document, text: str) -> _Read | None:
    """`text` read from the last read where only some consecutive tools' lines differ; None: the caller
    reads the whole file. If the first changed tool's `-` line and every line outside are unchanged,
    and the changed lines read alone without a diagnostic, they read the same in the whole file: what
    could stay open past their end (a quote, a flow collection) fails that read."""
    last = reads.get((doc.path, doc.file)) if (reads := _reads()) is not None else None
    if not isinstance(last, _Read) or doc._moves:
        return None
    lines = _lines(text)
    if lines is None:
        return None
    old = last.lines
    shortest = min(len(old), len(lines))
    first = 0  # the first line that differs
    while first < shortest and old[first] == lines[first]:
        first += 1
    same_end = 0  # how many lines at the end are the same, not counting those already matched
    while same_end < shortest - first and old[-1 - same_end] == lines[-1 - same_end]:
        same_end += 1
    if first == len(old) == len(lines):  # the same text
        doc.data, doc.finite = last.doc.data, last.doc.finite
        return _Read(doc, lines, last.tools)
    old_stop, delta = len(old) - same_end, len(lines) - len(old)
    starts, end = last.tools.starts, last.tools.end
    # The changed lines lie within the lines of tools `begin` to `stop - 1`: a whole number of
    # tools, whose first line (a `-` entry) is unchanged.
    begin = bisect.bisect_right(starts, first - 1) - 1
    stop = bisect.bisect_left(starts, old_stop, begin + 1)
    if begin < 0 or old_stop > end:
        return None
    window = (starts[begin], starts[stop] if stop < len(starts) else end)
    changed = lines[window[0] : window[1] + delta]
    if any(line.startswith(("---", "...", "%")) for line in changed):
        return None  # a document marker or directive: the whole file reads otherwise
    part = _ToolLines(at_top=True)
    try:
        built = _build(
            Document(file=doc.file, path=doc.path), "".join(changed), part, max_depth=MAX_DEPTH - 1
        )
    except Exception:  # any failure: the whole file is read, and reports it
        return None
    if built is None or built[1] or not isinstance(built[0], list) or not part.entries(changed):
        return None
    items: list[Any] = built[0]
    if len(items) != len(part.starts) or part.starts[0] != 0 or part.dash != last.tools.dash:
        return None
    _splice(doc, last.doc, begin, stop, items, finite=all_finite(items))
    kept = [*starts[:begin], *(window[0] + line for line in part.starts)]
    moved = _ToolLines(True, [*kept, *(line + delta for line in starts[stop:])], end + delta)
    moved.dash = last.tools.dash
    return _Read(doc, lines, moved)


def _splice(doc: Document, last: Document, begin: int, stop: int, items: list[Any], *, finite: bool) -> None:
    """`doc` holds `last`'s data with its tools `begin` to `stop - 1` replaced by `items`."""
    data = dict(last.data)
    data["tools"] = [*data["tools"][:begin], *items, *data["tools"][stop:]]
    doc.data, doc.finite = data, last.finite and finite


# Texts are compared this many characters at a time, then by halves within the first that differ.
_COMPARED = 1 << 16


def _same_start(a: str, b: str) -> int:
    """How many characters `a` and `b` start with alike."""
    shortest = min(len(a), len(b))
    at = 0
    while at < shortest and a[at : at + _COMPARED] == b[at : at + _COMPARED]:
        at += _COMPARED
    if at >= shortest:
        return shortest
    low, high = at, min(at + _COMPARED, shortest)  # a[:low] == b[:low]; they differ before `high`
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _same_end(a: str, b: str, limit: int) -> int:
    """How many characters `a` and `b` end with alike, at most `limit`."""
    at = 0
    while at < limit:
        step = min(_COMPARED, limit - at)
        if a[len(a) - at - step : len(a) - at] != b[len(b) - at - step : len(b) - at]:
            break
        at += step
    low, high = at, min(at + _COMPARED, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


def _json_reread(doc: Document, text: str) -> _JsonRead | None:
    """`_reread` for JSON, by `tools` items: the text around them is unchanged, so reading the changed
    items alone, ending exactly where they did, is reading the whole text."""
    last = reads.get((doc.path, doc.file)) if (reads := _reads()) is not None else None
    if not isinstance(last, _JsonRead):
        return None
    old, spans = last.text, last.spans
    if text == old:
        doc.data, doc.finite = last.doc.data, last.doc.finite
        return _JsonRead(doc, text, spans)
    first = _same_start(old, text)
    old_stop = len(old) - _same_end(old, text, min(len(old), len(text)) - first)
    delta = len(text) - len(old)
    # The changed characters lie within the items `begin` to `last_item`: the last starting at or
    # before the first change, to the first ending at or after the last change.
    begin = bisect.bisect_right(spans, first, key=lambda span: span[0]) - 1
    last_item = bisect.bisect_left(spans, old_stop, max(begin, 0), key=lambda span: span[1])
    if begin < 0 or last_item == len(spans):
        return None
    stop = last_item + 1
    start, end = spans[begin][0], spans[stop - 1][1] + delta
    if end <= start or not _json_alike(text[start:end]):
        return None
    numbers = _Numbers()
    found: list[tuple[int, int]] = []
    try:
        items, _ = _scan_items(_scanner(numbers), text, start, found, end)
    except (ValueError, StopIteration, RecursionError, _NotYamlAlike):
        return None
    if not _depth_within(items, MAX_DEPTH - 1):
        return None
    _splice(doc, last.doc, begin, stop, items, finite=numbers.finite)
    moved = [(a + delta, b + delta) for a, b in spans[stop:]]
    return _JsonRead(doc, text, [*spans[:begin], *found, *moved])
