"""Where a key is written in a TOML file: the line and column a configuration mistake is said at.

`toml_place(text, keys)` reads the text once, by its tokens (strings, multi-line ones first,
comments, bare words, punctuation), and notes where each table, key, array item and inline table
key is first written; tomllib, which reads the values, keeps no places.
"""

from __future__ import annotations

import re
import tomllib

# TOML's tokens, for `toml_place`: strings (multi-line first), comments, line ends, bare words
# (keys, numbers, dates; a dot parts a dotted key), punctuation, anything else.
_TOML_TOKEN = re.compile(
    r'"""(?:\\.|[^\\])*?"""(?!")|' + r"'''.*?'''(?!')|"
    r'"(?:[^"\\\n]|\\.)*"|' + r"'[^'\n]*'|"
    r"#[^\n]*|\n|[A-Za-z0-9_.:+-]+|[][{},=]|[ \t\r]+|.",
    re.S,
)
_TomlPath = tuple[str | int, ...]


def _toml_key(token: str) -> list[str]:
    """The key parts a key's token spells: a quoted key read as TOML reads it, a bare one split at its
    dots."""
    if token[0] not in "\"'":
        return [part for part in token.split(".") if part]
    if "\\" not in token:
        return [token[1:-1]]
    try:
        return list(tomllib.loads(f"{token} = 0"))
    except tomllib.TOMLDecodeError:
        return [token[1:-1]]


def toml_place(text: str, keys: _TomlPath, *, value_at: bool = False) -> tuple[int, int]:
    """Where in TOML `text` the value at `keys` (table names, keys, list indexes) is written, as
    (line, column), 1-based: its key (with `value_at`, the value after it), else where a header
    or dotted key below it first names it, else that of the nearest table or key holding it."""
    values: dict[_TomlPath, int] = {}  # where each key's value starts
    places: dict[_TomlPath, int] = {}
    implied: dict[_TomlPath, int] = {}  # tables named only as part of a longer name

    def note(path: _TomlPath, at: int) -> None:
        places.setdefault(path, at)
        for end in range(1, len(path)):
            implied.setdefault(path[:end], at)

    counts: dict[_TomlPath, int] = {}  # each array of tables (by its path): its last entry
    table: _TomlPath = ()
    opened: list[tuple[_TomlPath, list[int]]] = []  # inline values: an array's path and item, a table's
    key: list[str] = []  # the dotted key being read, from `key_at`
    key_at, header, value, value_path = 0, "", False, table
    for match in _TOML_TOKEN.finditer(text):
        token, at = match.group(), match.start()
        if token[0] in " \t\r#":
            continue
        if header:  # `[table]` or `[[array of tables]]`: within the last entry of each array named
            if token == "[" and not key:
                header = "[["
            elif token == "]":
                table = ()
                for i, part in enumerate(key):
                    table = (*table, part)
                    if i < len(key) - 1 and table in counts:
                        table = (*table, counts[table])
                if header == "[[":
                    counts[table] = counts.get(table, -1) + 1
                    note(table, key_at)
                    table = (*table, counts[table])
                note(table, key_at)
                header, key = "", []
            elif token != "\n":
                key_at = key_at if key else at
                key += _toml_key(token)
            continue
        in_array = bool(opened) and bool(opened[-1][1])
        if value or in_array:
            if token == "\n":
                continue
            if not value:  # in an array: an item starts, or the array goes on or ends
                path, item = opened[-1]
                if token in ",]":
                    item[0] += token == ","
                    if token == "]":
                        opened.pop()
                    continue
                value_path = (*path, item[0])
                note(value_path, at)
            else:
                values.setdefault(value_path, at)
            value = False
            if token in "[{":
                opened.append((value_path, [0] if token == "[" else []))
            continue
        if token == "\n" or token in ",]}":  # a statement, an inline table's entry or table ends
            key = []
            if token == "}" and opened:
                opened.pop()
        elif token == "[" and not opened:
            header, key = "[", []
        elif token == "=":
            value_path = (*(opened[-1][0] if opened else table), *key)
            note(value_path, key_at)
            key, value = [], True
        else:
            key_at = key_at if key else at
            key += _toml_key(token)
    for end in range(len(keys), 0, -1):
        offset = values.get(keys) if value_at and end == len(keys) else None
        offset = places.get(keys[:end], implied.get(keys[:end])) if offset is None else offset
        if offset is not None:
            line = text.count("\n", 0, offset) + 1
            return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
    return 1, 1
