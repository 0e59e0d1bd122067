"""YAML syntax errors in a writer's words: what the reader's error means in the text, and the fix.

`explain(text, exc)` takes a PyYAML error and the text it was reading and returns the message,
the place (line and column, 1-based, as the reader counts lines) and a hint for the mistakes people
make: a line indented to no key above it, a line indented past a key's value, a value holding
`: `, text after a quoted value, a quote or bracket never closed, a list on its key's line, a
reserved character. None where it has nothing better than the reader's words.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcpstub.document import YAML_LINE_BREAK

Explained = tuple[str, tuple[int, int], str]  # message, (line, column), hint

# A line opening a block mapping's key: its indentation, any `- ` entries, the key (plain or quoted).
_KEY = re.compile(
    r"(?P<indent> *)(?P<dash>(?:- +)*)(?P<key>[^\s#'\"{\[&*!|>%@`-][^:#]*?|'[^']*'|\"[^\"]*\"):(?: |$)"
)
_DASH = re.compile(r"(?P<indent> *)- ")
_RESERVED = ("@", "`")


def _mark(exc: Any, name: str) -> tuple[int, int] | None:
    mark = getattr(exc, name, None)
    return None if mark is None else (mark.line, mark.column)


def explain(text: str, exc: Any) -> Explained | None:
    """The message, place and hint for `exc`, raised reading `text`; None when not one of these."""
    problem = str(getattr(exc, "problem", "") or "")
    context = str(getattr(exc, "context", "") or "")
    at, opened = _mark(exc, "problem_mark"), _mark(exc, "context_mark")
    if at is None:
        return None
    lines = YAML_LINE_BREAK.split(text)
    lines += [""] * (at[0] + 1 - len(lines))  # (a mark at the end of the text)
    line = lines[at[0]]
    where = (at[0] + 1, at[1] + 1)
    if "quoted scalar" in context and "end of stream" in problem and _char(lines, opened) in ("'", '"'):
        assert opened is not None
        return (
            "a quoted value is never closed: it starts here and runs to the end of the file",
            (opened[0] + 1, opened[1] + 1),
            f"close it with {_char(lines, opened)} where the value ends",
        )
    bracket = _char(lines, opened)
    if context in ("while parsing a flow mapping", "while parsing a flow sequence") and bracket in ("{", "["):
        assert opened is not None
        closing = "}" if bracket == "{" else "]"
        return (
            f"expected ',' or '{closing}' here, inside the '{bracket}' opened at line {opened[0] + 1},"
            f" column {opened[1] + 1}",
            where,
            f"separate the entries with ', ' and close the '{bracket}' with '{closing}'",
        )
    if "found character that cannot start any token" in problem and line[at[1] : at[1] + 1] in _RESERVED:
        value = line[at[1] :].split(" #")[0].rstrip()
        return (
            f"a value cannot start with '{line[at[1]]}' unquoted: YAML reserves it",
            where,
            f"quote the value: {json.dumps(value, ensure_ascii=False)}",
        )
    if problem == "block sequence entries are not allowed in this context":
        key = _KEY.match(line)
        name = key["key"] if key else "the key"
        return (
            "a list cannot start on its key's line",
            where,
            f"start each '- ' entry on a line of its own, indented under {name}:",
        )
    if problem.startswith("could not find expected ':'") and _char(lines, opened).strip():
        assert opened is not None
        written = lines[opened[0]][opened[1] :].strip()
        shown = written if len(written) <= 40 else written[:37] + "..."
        return (
            f"'{shown}' is neither a key (no ':' after it) nor inside a value",
            (opened[0] + 1, opened[1] + 1),
            "write it as 'key: value'; text that goes on from the line above must be indented"
            " more than that line's key",
        )
    if problem == "mapping values are not allowed in this context":
        return _colon_in_value(lines, at)
    if problem == "did not find expected <document start>":
        return _first_line_indented(lines, at)
    if problem == "but found another document":
        return (
            "a second YAML document starts here: a toolset file holds one",
            where,
            "remove this '---' line and what follows it, or move that into the first document",
        )
    if problem in ("did not find expected key", "did not find expected '-' indicator") or problem.startswith(
        "expected <block end>"
    ):
        before = line[: at[1]].rstrip()
        if before.strip() and before[-1:] in "'\"":
            quote = before[-1]
            inside = "write ' twice inside '...'" if quote == "'" else 'write \\" inside "..."'
            return (
                f"text after a quoted value: the value ended at the {quote} at column {len(before)}",
                where,
                f"quote the whole value; to put the quote mark itself in it, {inside}",
            )
        if not before.strip():
            return _misaligned(lines, at)
    return None


def _char(lines: list[str], mark: tuple[int, int] | None) -> str:
    """The character at `mark`, or '' past the end of its line or of the text."""
    if mark is None or mark[0] >= len(lines):
        return ""
    return lines[mark[0]][mark[1] : mark[1] + 1]


def _colon_in_value(lines: list[str], at: tuple[int, int]) -> Explained | None:
    """`mapping values are not allowed`: a `: ` in a plain value, on the key's line or on a line
    indented past the key, which YAML reads as more of that value."""
    line = lines[at[0]]
    key = _KEY.match(line)
    indent = len(line) - len(line.lstrip(" "))
    if key is not None and len(key.group(0).rstrip()) - 1 < at[1]:  # the key's line: `a: b: c`
        value = line[key.end() :].split(" #")[0].rstrip()
        return (
            "a value holding ': ' must be quoted",
            (at[0] + 1, at[1] + 1),
            f"write it as {line[key.start('key') : key.end('key')]}: {json.dumps(value, ensure_ascii=False)}",
        )
    above = _keys_above(lines, at[0])
    owner = next(((n, col, name) for n, col, name, _ in above if col < indent), None)
    if owner is None:
        return None
    n, col, name = owner
    return (
        f"this line is indented more than '{name}' on line {n + 1}, so YAML reads it as more of"
        f" that key's value",
        (at[0] + 1, indent + 1),
        f"indent it {_spaces(col)}, as '{name}', to make it a key beside it; or quote a value that"
        " holds ': '",
    )


def _misaligned(lines: list[str], at: tuple[int, int]) -> Explained | None:
    """A line that starts at a column where no open mapping has its keys or list its entries."""
    line = lines[at[0]]
    column = at[1]
    dash = _DASH.match(line)
    above = _keys_above(lines, at[0])
    if dash is not None:
        entries = [(n, col) for n, col, _, is_entry in above if is_entry]
        if entries:
            n, col = min(entries, key=lambda e: (abs(e[1] - column), -e[0]))
            return (
                f"this '- ' entry is indented {_spaces(column)}, which lines up with no list above it",
                (at[0] + 1, column + 1),
                f"indent it {_spaces(col)}, as the entries of the list on line {n + 1}",
            )
    for n, col, _, is_entry in above:
        if is_entry and col == column:
            return (
                f"this line is at the column of the '- ' entries of the list on line {n + 1}, but is not one",
                (at[0] + 1, column + 1),
                f"indent it {_spaces(col + 2)} to go on with that entry, or start a new entry with '- '",
            )
    keys = [(n, col, name) for n, col, name, is_entry in above if not is_entry]
    if not keys:
        return None
    deeper = [k for k in keys if k[1] > column]
    shallower = [k for k in keys if k[1] < column]
    options = [k for k in (deeper[-1] if deeper else None, shallower[0] if shallower else None) if k]
    if not options:
        return None
    said = ", or ".join(f"{_spaces(col)}, as '{name}' on line {n + 1}" for n, col, name in options)
    return (
        f"this line is indented {_spaces(column)}, which lines up with no key above it",
        (at[0] + 1, column + 1),
        f"indent it {said}",
    )


def _first_line_indented(lines: list[str], at: tuple[int, int]) -> Explained | None:
    """The document's first line indented more than a later line at its top level."""
    written = (n for n, text in enumerate(lines) if text.strip() and not text.lstrip().startswith("#"))
    first = next(written, None)
    key = _KEY.match(lines[at[0]])
    if first is None or first >= at[0] or key is None:
        return None
    indent = len(lines[first]) - len(lines[first].lstrip(" "))
    column = len(key["indent"])
    if indent <= column:
        return None
    return (
        f"the document's first line is indented {_spaces(indent)}, and line {at[0] + 1}, a key beside"
        " it, is not",
        (first + 1, indent + 1),
        f"indent it {_spaces(column)}, as '{key['key']}' on line {at[0] + 1}",
    )


def _keys_above(lines: list[str], before: int) -> list[tuple[int, int, str, bool]]:
    """The lines above line `before` that open what it may belong to, nearest first: each key
    line with a smaller indent than those after it (line, column, key, False), and for a `- `
    entry line also the list (line, the dash's column, '', True)."""
    found: list[tuple[int, int, str, bool]] = []
    limit = None
    for n in range(before - 1, -1, -1):
        text = lines[n]
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(text) - len(text.lstrip(" "))
        if limit is not None and indent >= limit:
            continue
        key = _KEY.match(text)
        dash = _DASH.match(text)
        if key is not None:
            found.append((n, key.start("key"), key["key"], False))
        if dash is not None:
            found.append((n, indent, "", True))
        if key is not None or dash is not None:
            limit = indent
        if indent == 0 and (key is not None or dash is not None):
            break
    return found


def _spaces(count: int) -> str:
    return f"{count} space" + ("" if count == 1 else "s")
