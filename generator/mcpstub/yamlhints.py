"""YAML syntax errors in a writer's words: what the reader's error means in the text, and the fix.

`explain(text, exc, shown)` takes a PyYAML error and the text it was reading and returns the
message, the place (line and column, 1-based, as the reader counts lines) and a hint for the
mistakes people make: a line indented to no key above it, a line indented past a key's value, a
key without `: `, a value holding `: ` or starting with a character YAML reserves, text after a
quoted or bracketed value, a quote or bracket never closed, a list on its key's line, text after
the document. None where it has nothing better than the reader's words. `shown(line, column)` says
a place named in a message as an editor shows it.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable
from typing import Any

from mcpstub.document import YAML_LINE_BREAK

Explained = tuple[str, tuple[int, int], str]  # message, (line, column), hint
Shown = Callable[[int, int], tuple[int, int]]

# A line opening a block mapping's key: its indentation, any `- ` entries, the key (plain or quoted).
_KEY = re.compile(
    r"(?P<indent> *)(?P<dash>(?:-[ ]+)*)"
    r"(?P<key>[^\s#'\"{\[&*!|>%@`-](?:[^:#\n]|:(?=\S)|(?<=\S)#)*?|'[^']*'|\"[^\"]*\"):(?:[ ]|$)"
)
_DASH = re.compile(r"(?P<indent> *)-[ ]+")
_BLOCK_SCALAR = re.compile(r"[|>][0-9+-]*[ ]*(?:#.*)?$")
_RESERVED = {
    "@": "YAML reserves it",
    "`": "YAML reserves it",
    "%": "YAML reads it as a directive",
    "*": "YAML reads it as an alias",
    "&": "YAML reads it as an anchor",
    "|": "YAML reads it as the start of a block of text",
    ">": "YAML reads it as the start of a block of text",
    "!": "YAML reads it as a tag",
}


def explain(text: str, exc: Any, shown: Shown | None = None) -> Explained | None:
    """The message, place and hint for `exc`, raised reading `text`; None when not one of these."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None:
        return None
    return _Reading(text, shown or (lambda line, col: (line, col))).explain(exc, (mark.line, mark.column))


_QUOTED = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'")
# A `#` where a value of a flow collection starts: after a space (a comment), or right after a
# `[` or `,` (no value can start so).
_FLOW_HASH = re.compile(r"(?<=[\s\[,])#")
# The key a flow mapping's value belongs to, at the end of what comes before it.
_FLOW_KEY = re.compile(r"(?:^|[{\[,])\s*(?P<key>[^\s:,{}\[\]#][^:,{}\[\]]*?|\"[^\"]*\"|'[^']*'):$")


class _Reading:
    """The text by lines as the reader counts them, and how a place in it is named."""

    def __init__(self, text: str, shown: Shown) -> None:
        self.text = text
        self.lines = YAML_LINE_BREAK.split(text)
        self.starts = [0, *(m.end() for m in YAML_LINE_BREAK.finditer(text))]  # each line's offset
        self._shown = shown

    def offset(self, n: int, column: int) -> int:
        return self.starts[n] + column if n < len(self.starts) else len(self.text)

    def place(self, offset: int) -> tuple[int, int]:
        """The 0-based line and column of an offset into the text."""
        n = bisect_right(self.starts, offset) - 1
        return n, offset - self.starts[n]

    def line(self, n: int) -> str:
        return self.lines[n] if 0 <= n < len(self.lines) else ""

    def char(self, at: tuple[int, int] | None) -> str:
        """The character at `at`, or '' past the end of its line or of the text."""
        return "" if at is None else self.line(at[0])[at[1] : at[1] + 1]

    def name(self, n: int, column: int | None = None) -> str:
        """`line L` (or `line L, column C`) of the 0-based place, as an editor shows it."""
        line, col = self._shown(n + 1, (column or 0) + 1)
        return f"line {line}" if column is None else f"line {line}, column {col}"

    def explain(self, exc: Any, at: tuple[int, int]) -> Explained | None:
        problem = str(getattr(exc, "problem", "") or "")
        context = str(getattr(exc, "context", "") or "")
        context_mark = getattr(exc, "context_mark", None)
        opened = None if context_mark is None else (context_mark.line, context_mark.column)
        line = self.line(at[0])
        where = (at[0] + 1, at[1] + 1)
        if "quoted scalar" in context and "end of stream" in problem and self.char(opened) in ("'", '"'):
            assert opened is not None
            return (
                "a quoted value is never closed: it starts here and runs to the end of the file",
                (opened[0] + 1, opened[1] + 1),
                f"close it with {self.char(opened)} where the value ends",
            )
        if "while scanning" in context and opened is not None and self.char(opened) in _RESERVED:
            return self._reserved(opened)  # `*bold*`, `& more`, `| pipes`, `> reply`
        if "found character that cannot start any token" in problem and line[at[1] : at[1] + 1] in _RESERVED:
            return self._reserved(at)
        bracket = self.char(opened)
        if "flow" in context and (comment := self._flow_comment_before(at)) is not None:
            return comment  # (`{$ref: #/$defs/X}`: the close went with the comment, wherever it ends)
        flow = context in ("while parsing a flow mapping", "while parsing a flow sequence")
        if flow and bracket in ("{", "["):
            assert opened is not None
            entry = re.split(r"[,{\[]", line[: at[1]])[-1]
            if line[at[1] : at[1] + 1] == ":" and ": " in entry:  # `{description: a: b}`
                return self._colon_in_flow(at)
            closing = "}" if bracket == "{" else "]"
            if line[at[1] : at[1] + 1] != closing and _one_too_many(line, at[1]):
                # (`{a: [b]]}`; not `[x}`, where the '}' was meant to close the list)
                inside = f"inside the '{bracket}' opened at {self.name(*opened)}"
                return _closes_nothing(line[at[1]], where, inside)
            return (
                f"expected ',' or '{closing}' here, inside the '{bracket}' opened at {self.name(*opened)}",
                where,
                f"separate the entries with ', ' and close the '{bracket}' with '{closing}'",
            )
        if problem == "did not find expected node content" and at[0] >= len(self.lines) - 2:
            return self._unclosed_at_end(where)
        if problem == "block sequence entries are not allowed in this context":
            key = _KEY.match(line)
            name = key["key"] if key else "the key"
            return (
                "a list cannot start on its key's line",
                where,
                f"start each '- ' entry on a line of its own, indented under {name}:",
            )
        if problem.startswith("could not find expected ':'") and self.char(opened).strip():
            assert opened is not None
            return self._not_a_key(opened[0], opened[1])
        if problem == "mapping values are not allowed in this context":
            start = len(line) - len(line.lstrip(" -"))
            if at[1] - start > 1024:  # a key YAML reads only as an explicit one
                return self._long_key((at[0] + 1, start + 1))
            return self._colon_in_value(at)
        if problem == "did not find expected <document start>":
            return self._after_the_document(at)
        if problem == "but found another document":
            return (
                "a second YAML document starts here: a toolset file holds one",
                where,
                "remove this '---' line and what follows it, or move that into the first document",
            )
        misplaced = ("did not find expected key", "did not find expected '-' indicator")
        if problem in misplaced or problem.startswith("expected <block end>"):
            before = line[: at[1]].rstrip()
            if before.strip() and before[-1:] in "'\"":
                return self._after_quoted(at, before)
            if _one_too_many(line, at[1]):  # (`{a: 1}}`)
                return _closes_nothing(line[at[1]], where)
            if before.strip() and before[-1:] in "]}":
                return (
                    f"text after a '{before[-1]}': a value that starts with"
                    f" '{'[' if before[-1] == ']' else '{'}' is read as a"
                    f" {'list' if before[-1] == ']' else 'mapping'} and ends there",
                    where,
                    f"quote the whole value: {self._quoted_value(at[0])}",
                )
            if not before.strip():
                return self._misaligned(at)
        return None

    def _reserved(self, at: tuple[int, int]) -> Explained:
        """A plain value starting with a character YAML gives a meaning."""
        char = self.char(at)
        value = self._value_from(at)
        return (
            f"a value cannot start with '{char}' unquoted: {_RESERVED[char]}",
            (at[0] + 1, at[1] + 1),
            f"quote the value: {_json(value)}",
        )

    def _value_from(self, at: tuple[int, int]) -> str:
        """The plain value written from `at` to its end: the line's end or a comment, or, inside
        a flow collection, the next `,`, `]` or `}`."""
        line = self.line(at[0])
        rest = line[at[1] :].split(" #")[0].rstrip()
        before = line[: at[1]]
        if before.count("{") + before.count("[") > before.count("}") + before.count("]"):  # a flow value
            rest = re.split(r",|\]|\}", rest)[0].rstrip()
        return rest

    def _quoted_value(self, n: int) -> str:
        """Line `n`'s `key: value`, the value quoted."""
        line = self.line(n)
        key = _KEY.match(line)
        if key is None:
            return _json(line.strip())
        value = line[key.end() :].split(" #")[0].rstrip()
        return f"{key['key']}: {_json(value)}"

    def _flow_comment_before(self, at: tuple[int, int]) -> Explained | None:
        """`_comment_in_flow` from the innermost `[` or `{` still open at `at`."""
        start = _unclosed_bracket(self.text[: self.offset(*at)])
        return None if start is None else self._comment_in_flow(self.place(start), at)

    def _comment_in_flow(self, opened: tuple[int, int], at: tuple[int, int]) -> Explained | None:
        """`{$ref: #/$defs/X}`, `[red, #fff]`: a value starting with `#` is a comment, and the rest
        of its line (the collection's close) goes with it. A comment that takes no bracket with it,
        or that follows a value, was meant as one: the rest of its line is skipped."""
        for n in range(opened[0], at[0] + 1):
            line = self.line(n)
            # (quoted text blanked out, places kept: a '#' in it starts nothing)
            unquoted = _QUOTED.sub(lambda q: q[0][0] + "_" * (len(q[0]) - 2) + q[0][-1], line)
            for found in _FLOW_HASH.finditer(unquoted, opened[1] if n == opened[0] else 0):
                spaced = unquoted[found.start() - 1] in " \t"
                before, comment = unquoted[: found.start()].rstrip(), line[found.start() :]
                key = _FLOW_KEY.search(before)
                if spaced and (not {"]", "}"} & set(comment) or not (key or before.endswith(("[", ",")))):
                    break  # a comment meant as one
                value = re.split(r",|\]|\}", comment)[0].rstrip()
                said = f"{line[key.start('key') : key.end('key')]}: " if key else ""
                where = "after a space" if spaced else "where a value starts"
                return (
                    f"'#' {where} starts a comment in YAML: the rest of {self.name(n)} is not read",
                    (n + 1, found.start() + 1),
                    f"quote the value: {said}{_json(value)}",
                )
        return None

    def _colon_in_flow(self, at: tuple[int, int]) -> Explained:
        """`{description: a: b}`: a `: ` in a plain value inside a flow collection."""
        line = self.line(at[0])
        start = max(line.rfind(",", 0, at[1]), line.rfind("{", 0, at[1]), line.rfind("[", 0, at[1])) + 1
        entry = line[start:].strip()
        key, _, value = entry.partition(": ")
        value = re.split(r",|\]|\}", value)[0].rstrip()
        return (
            "a value holding ': ' must be quoted",
            (at[0] + 1, at[1] + 1),
            f"write it as {key}: {_json(value)}",
        )

    def _long_key(self, where: tuple[int, int]) -> Explained:
        return (
            "a key longer than 1024 characters: YAML reads one that long only as an explicit key",
            where,
            'shorten the key, or write `? "the key"` on a line of its own and `: value` on the next,'
            " indented as the key",
        )

    def _not_a_key(self, n: int, column: int) -> Explained:
        """Text at line `n`, `column` where a key belongs, with no `: ` after its key."""
        written = self.line(n)[column:].strip()
        shown = written if len(written) <= 40 else written[:37] + "..."
        if re.match(r"[^\s:]+:\S", written):  # `version:1.0.0`
            key, _, value = written.partition(":")
            return (
                f"'{shown}' is not a key: a key's ':' must be followed by a space",
                (n + 1, column + 1),
                f"write it as {key}: {value}",
            )
        if len(written.partition(": ")[0]) > 1024:
            return self._long_key((n + 1, column + 1))
        word, _, rest = written.partition(" ")
        return (
            f"'{shown}' is neither a key (no ': ' after it) nor inside a value",
            (n + 1, column + 1),
            (
                f"write it as {word}: {rest.strip()}, if '{word}' is a key; "
                if rest.strip()
                else "write it as 'key: value'; "
            )
            + "text that goes on from the line above must be indented more than that line's key",
        )

    def _colon_in_value(self, at: tuple[int, int]) -> Explained | None:
        """`mapping values are not allowed`: a `: ` in a plain value, on the key's line or on a
        line indented past the key, which YAML reads as more of that value."""
        line = self.line(at[0])
        key = _KEY.match(line)
        indent = len(line) - len(line.lstrip(" "))
        if key is not None and len(key.group(0).rstrip()) - 1 < at[1]:  # the key's line: `a: b: c`
            return (
                "a value holding ': ' must be quoted",
                (at[0] + 1, at[1] + 1),
                f"write it as {self._quoted_value(at[0])}",
            )
        previous = self._previous(at[0])
        above_line = self.line(previous) if previous is not None else ""
        if previous is not None and not _KEY.match(above_line) and not _DASH.match(above_line):
            # The line above has no `: `: YAML read it, and this line, as one plain value.
            column = len(self.line(previous)) - len(self.line(previous).lstrip(" "))
            return self._not_a_key(previous, column)
        above = self._keys_above(at[0])
        owner = next(((n, col, name) for n, col, name, _ in above if col < indent), None)
        if owner is None:
            return None
        n, col, name = owner
        return (
            f"this line is indented more than '{name}' on {self.name(n)}, so YAML reads it as more of"
            " that key's value",
            (at[0] + 1, indent + 1),
            f"indent it {_spaces(col)}, as '{name}', to make it a key beside it; or quote a value"
            " that holds ': '",
        )

    def _previous(self, n: int) -> int | None:
        """The nearest line above `n` holding something other than a comment."""
        for m in range(n - 1, -1, -1):
            stripped = self.line(m).strip()
            if stripped and not stripped.startswith("#"):
                return m
        return None

    def _after_quoted(self, at: tuple[int, int], before: str) -> Explained:
        """Text after a quoted value on its line: the quote closed early, or one opened on an
        earlier line was never closed there and ran on to this one."""
        quote = before[-1]
        start = _opening_quote(self.text, self.offset(at[0], len(before) - 1), quote)
        if start is not None and self.place(start)[0] < at[0]:
            n, column = self.place(start)
            return (
                f"the quoted value opened here is not closed on its line: it runs on to"
                f" {self.name(at[0], len(before) - 1)}",
                (n + 1, column + 1),
                f"close it with {quote} where the value ends",
            )
        inside = "write ' twice inside '...'" if quote == "'" else 'write \\" inside "..."'
        return (
            f"text after a quoted value: the value ended at the {quote} at column {len(before)}",
            (at[0] + 1, at[1] + 1),
            f"quote the whole value; to put the quote mark itself in it, {inside}",
        )

    def _unclosed_at_end(self, where: tuple[int, int]) -> Explained | None:
        """The file ends inside a `[` or `{` never closed."""
        opened = _unclosed_bracket(self.text)
        if opened is None:
            return None
        n, column = self.place(opened)
        comment = self._comment_in_flow((n, column), (len(self.lines) - 1, 0))
        if comment is not None:
            return comment  # (the close went with a comment)
        closing = "]" if self.text[opened] == "[" else "}"
        return (
            f"the '{self.text[opened]}' opened here is never closed: the file ends inside it",
            (n + 1, column + 1),
            f"close it with '{closing}'",
        )

    def _after_the_document(self, at: tuple[int, int]) -> Explained:
        """Text after the document's top-level collection ended: less indented than its first
        line, or after its closing bracket."""
        lines = self.lines
        written = (
            n
            for n, text in enumerate(lines)
            if text.strip() and not text.lstrip().startswith("#") and text.strip() != "---"
        )
        first = next(written, None)
        key = _KEY.match(self.line(at[0]))
        if first is not None and first < at[0] and key is not None:
            indent = len(lines[first]) - len(lines[first].lstrip(" "))
            column = len(key["indent"])
            if indent > column:
                return (
                    f"this line is indented {_spaces(column)}, less than the document's first line"
                    f" ({self.name(first)}, {_spaces(indent)}), whose mapping ends before it",
                    (at[0] + 1, column + 1),
                    f"indent it {_spaces(indent)}, as {self.name(first)}; or indent the document's"
                    f" first lines {_spaces(column)}",
                )
        return (
            "text after the end of the document: its top-level mapping or list closed before it",
            (at[0] + 1, at[1] + 1),
            "remove it, or move it inside the document",
        )

    def _misaligned(self, at: tuple[int, int]) -> Explained | None:
        """A line that starts at a column where no open mapping has its keys or list its entries."""
        line = self.line(at[0])
        column = at[1]
        block = self._in_block_scalar(at[0], column)
        if block is not None:
            return block
        closed = self._closed_by(at[0], column)
        if closed is not None:
            return closed
        dash = _DASH.match(line)
        above = self._keys_above(at[0])
        keys = [(n, col, name) for n, col, name, is_entry in above if not is_entry]
        beside = next(((n, name) for n, col, name in keys if col == column), None)
        if dash is not None:
            entries = [(n, col) for n, col, _, is_entry in above if is_entry]
            if entries:
                n, col = min(entries, key=lambda e: (abs(e[1] - column), -e[0]))
                if beside is not None:  # among a mapping's keys: another list's entry, or a key left out
                    return (
                        f"this '- ' entry lines up with the keys of the mapping that '{beside[1]}' on"
                        f" {self.name(beside[0])} is in, where no list can start",
                        (at[0] + 1, column + 1),
                        f"indent it {_spaces(col)}, as the entries of the list on {self.name(n)}; or"
                        " write its list's key on the line above it",
                    )
                return (
                    f"this '- ' entry is indented {_spaces(column)}, which lines up with no list above it",
                    (at[0] + 1, column + 1),
                    f"indent it {_spaces(col)}, as the entries of the list on {self.name(n)}",
                )
        for n, col, _, is_entry in above:
            if is_entry and col == column:
                content = _DASH.match(self.line(n))
                inner = content.end() if content is not None else col + 2
                return (
                    f"this line is at the column of the '- ' entries of the list on {self.name(n)},"
                    " but is not one",
                    (at[0] + 1, column + 1),
                    f"indent it {_spaces(inner)} to go on with that entry, or start a new entry with '- '",
                )
        if dash is not None and beside is not None:
            return (
                f"a '- ' list entry among the keys of the mapping that '{beside[1]}' on"
                f" {self.name(beside[0])} is in: a list belongs under a key",
                (at[0] + 1, column + 1),
                "write the list's key (`tools:`, say) on the line above it, and indent the entries under it",
            )
        deeper = [k for k in keys if k[1] > column]
        shallower = [k for k in keys if k[1] < column]
        options = [k for k in (deeper[-1] if deeper else None, shallower[0] if shallower else None) if k]
        if not options:
            return None
        said = ", or ".join(f"{_spaces(col)}, as '{name}' on {self.name(n)}" for n, col, name in options)
        return (
            f"this line is indented {_spaces(column)}, which lines up with no key above it",
            (at[0] + 1, column + 1),
            f"indent it {said}",
        )

    def _closed_by(self, n: int, column: int) -> Explained | None:
        """Line `n` lines up with the keys of a mapping above that a less indented key between
        them ended: that key may be the line written wrongly."""
        closer = None
        for m in range(n - 1, -1, -1):
            text = self.line(m)
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            indent = len(text) - len(text.lstrip(" "))
            if indent == column and closer is None:
                return None  # something open at this very column (a list's entries): not this
            key = _KEY.match(text)
            if key is None:
                continue
            if indent < column and closer is None:
                if self._previous(n) != self._flow_end(m) or _DASH.match(text):
                    return None  # the key has lines of its own below it: this line is misplaced
                closer = (m, key["key"], indent)
            elif closer is not None and key.start("key") == column:
                m_closer, name, indent = closer
                return (
                    f"this line lines up with '{key['key']}' on {self.name(m)}, but '{name}' on"
                    f" {self.name(m_closer)}, indented less, ended that mapping",
                    (n + 1, column + 1),
                    f"indent line {self.name(m_closer)[5:]} {_spaces(column)}, as '{key['key']}', if"
                    f" '{name}' belongs in that mapping; else indent this line {_spaces(indent)}",
                )
            elif closer is not None and indent < closer[2]:
                return None
        return None

    def _flow_end(self, m: int) -> int:
        """The line a `[...]` or `{...}` opened on line `m` closes on (`m` when none stays open)."""
        end, text = m, self.line(m)
        while _unclosed_bracket(text) is not None and end + 1 < len(self.lines):
            end += 1
            text += "\n" + self.line(end)
        return end

    def _in_block_scalar(self, n: int, column: int) -> Explained | None:
        """Line `n` dedented inside a `|` or `>` block of text: less than the block's first line,
        more than the block's key."""
        for m in range(n - 1, -1, -1):
            text = self.line(m)
            if not text.strip():
                continue
            indent = len(text) - len(text.lstrip(" "))
            key = _KEY.match(text)
            if key is not None and _BLOCK_SCALAR.match(text[key.end() :].strip()):
                if indent >= column:
                    return None
                first = next((k for k in range(m + 1, n) if self.line(k).strip()), None)
                if first is None:
                    return None
                inner = len(self.line(first)) - len(self.line(first).lstrip(" "))
                if column >= inner:
                    return None
                return (
                    f"this line is indented {_spaces(column)}, less than the block of text that"
                    f" '{key['key']}' starts on {self.name(m)}, so it ends that block",
                    (n + 1, column + 1),
                    f"indent it {_spaces(inner)}, as the block's first line ({self.name(first)})",
                )
            if indent <= column:
                return None
        return None

    def _keys_above(self, before: int) -> list[tuple[int, int, str, bool]]:
        """The lines above line `before` that open what it may belong to, nearest first: each key
        line with a smaller indent than those after it (line, column, key, False), and for a `- `
        entry line also the list (line, the dash's column, '', True)."""
        found: list[tuple[int, int, str, bool]] = []
        limit = None
        for n in range(before - 1, -1, -1):
            text = self.line(n)
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


def _opening_quote(text: str, end: int, quote: str) -> int | None:
    """Where the quoted value closed by the `quote` at `end` opened: the nearest quote before it
    that is not an escape (`\\"` in double quotes, `''` in single ones)."""
    i = end - 1
    while i >= 0:
        if text[i] == quote:
            if quote == '"':
                slashes = len(text[:i]) - len(text[:i].rstrip("\\"))
                if slashes % 2 == 0:
                    return i
            elif i > 0 and text[i - 1] == "'":
                i -= 2
                continue
            else:
                return i
        i -= 1
    return None


def _unclosed_bracket(text: str) -> int | None:
    """The offset of the innermost `[` or `{` still open at the end of `text`, outside quotes."""
    stack: list[int] = []
    quote = ""
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'" and (i == 0 or not text[i - 1].isalnum()):
            quote = char
        elif char == "#" and (i == 0 or text[i - 1] in " \t\n[{,"):  # (where a value starts, too)
            i = text.find("\n", i)
            if i < 0:
                break
        elif char in "[{":
            stack.append(i)
        elif char in "]}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


def _json(value: str) -> str:
    """`value` as a JSON string, its middle left out past 80 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:38] + " … " + text[-38:]


def _spaces(count: int) -> str:
    return f"{count} space" + ("" if count == 1 else "s")


def _closes_nothing(closer: str, where: tuple[int, int], inside: str = "") -> Explained:
    """A closing bracket too many (`_one_too_many`), at `where`; `inside`: the collection it is in."""
    return (
        f"a '{closer}' that closes nothing: {inside + ', ' if inside else ''}what it would close is"
        " closed before it",
        where,
        f"delete the '{closer}' here (one too many)",
    )


def _one_too_many(line: str, column: int) -> bool:
    """Whether the bracket at `column` closes right after another closing bracket, and the line's
    brackets match once it is deleted (`{a: [b]]}`, `{a: 1}}`; not `[x}`, `[[1], [2}]` or `x]y`)."""
    if line[column : column + 1] not in ("]", "}") or line[:column].rstrip()[-1:] not in ("]", "}"):
        return False
    opened: list[str] = []
    quote = ""
    for char in line[:column] + line[column + 1 :].split(" #", maxsplit=1)[0]:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "{[":
            opened.append(char)
        elif char in "}]":
            if not opened or opened.pop() != {"}": "{", "]": "["}[char]:
                return False
    return not opened
