"""Python text as black and ruff write it: literals of JSON values, and the order of imported names.

Model generation uses these without the templates `render` needs.
"""

from __future__ import annotations

import ast
import importlib.util
import math
import re
import unicodedata
from functools import cache, lru_cache
from pathlib import Path

from mcpstub.engine import memory
from mcpstub.engine.fingerprints import value_bytes
from mcpstub.ir import JSON
from mcpstub.layout import LINE_LENGTH


class RenderError(Exception):
    """The IR cannot be rendered: a generator bug or an input the earlier stages let through."""


def to_literal(
    value: JSON,
    *,
    indent: int | None = None,
    used: int = 0,
    tail: int = 1,
    _cache: dict[int, str | None] | None = None,
    _parts: list[str] | None = None,
    _definitions: bool = False,
) -> str:
    """A Python expression, as black writes it, that evaluates to the JSON value (key order kept).

    With `indent`, a container too wide for its line (`used` columns before it, `tail` after) is one
    item per line with a trailing comma, which keeps black from joining it again. `_parts` collects
    the entries of multi-line definitions; `_definitions`: `value` maps names to definitions."""
    if indent is None or not value or not isinstance(value, dict | list | tuple):
        return _flat_literal(value)
    # Flat text of each container by id, None once it is known to be longer than a line: a large
    # value is never written flat, so only as much of it is spelled as a line can hold.
    cache: dict[int, str | None] = {} if _cache is None else _cache
    room = LINE_LENGTH - used - tail
    flat = _flat_within(value, cache)
    if flat is not None and text_width(flat) <= room:
        return flat
    inner = " " * (indent + 4)
    lines = []
    if isinstance(value, dict):
        for key, item in value.items():
            key_text = _key_literal(key)
            used = len(inner) + text_width(key_text)
            if _definitions:
                line = _definition_entry(inner, key_text, item, indent + 4, used, cache)
                if _parts is not None and line.find("\n") < len(line) - 1:
                    _parts.append(line)
                lines.append(line)
                continue
            holds_definitions = key in _DEFINITIONS and isinstance(item, dict)
            text = to_literal(
                item,
                indent=indent + 4,
                used=used,
                _cache=cache,
                _parts=_parts,
                _definitions=holds_definitions,
            )
            lines.append(f"{inner}{key_text}{text},\n")
        opening, closing = "{", "}"
    else:
        for item in value:
            text = to_literal(item, indent=indent + 4, used=len(inner), _cache=cache, _parts=_parts)
            lines.append(f"{inner}{text},\n")
        opening, closing = "[", "]"
    return opening + "\n" + "".join(lines) + " " * indent + closing


# Keys whose value maps names to schemas: bundling copies the same definitions into every tool
# that uses them, so each one's entry is laid out once per place and reused (`_definition_entry`).
_DEFINITIONS = frozenset(("$defs", "definitions"))


def _definition_entry(
    inner: str, key_text: str, item: JSON, indent: int, used: int, cache: dict[int, str | None]
) -> str:
    """The line(s) `key: literal,` of a definition in its mapping: the very text object of an
    equal entry laid out at the same place before, if any."""
    try:
        # marshal keeps types and order apart (1, 1.0 and True; key order): equal bytes, equal
        # value, equal text.
        key: tuple[object, ...] | None = (key_text, value_bytes(item), indent, used)
    except ValueError:  # not plain data: laid out as it comes
        key = None

    def lay_out() -> str:
        return f"{inner}{key_text}{to_literal(item, indent=indent, used=used, _cache=cache)},\n"

    return lay_out() if key is None else memory.keyed("definition-entry", key, lay_out)


_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string_literal(text: str) -> str:
    """The string as black writes it: double quotes unless single ones need fewer escapes."""
    quote = '"' if text.count('"') <= text.count("'") else "'"
    if text.isprintable() and "\\" not in text and quote not in text:
        return quote + text + quote
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char == quote:
            out.append("\\" + char)
        elif char.isprintable():
            out.append(char)
        else:
            out.append(char_escape(char))
    return quote + "".join(out) + quote


def char_escape(char: str) -> str:
    """A character as repr() escapes it (`\\x1b`, `\\u202e`, `\\U000e0001`), in lowercase hex."""
    code = ord(char)
    width = 2 if code < 0x100 else 4 if code < 0x10000 else 8
    return f"\\{'x' if width == 2 else 'u' if width == 4 else 'U'}{code:0{width}x}"


def _flat_literal(value: JSON) -> str:
    if value is None:
        return "None"
    if value is True:
        return "True"
    if value is False:
        return "False"
    if isinstance(value, str):
        return _string_literal(value)
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise RenderError(f"{value!r} is not a JSON number")
        return repr(float(value)).replace("e+", "e")  # black writes 1e300, not 1e+300
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{_key_literal(key)}{_flat_literal(item)}" for key, item in value.items()) + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flat_literal(item) for item in value) + "]"
    raise RenderError(f"{type(value).__name__} value {value!r} is not JSON")


def _key_literal(key: object) -> str:
    if not isinstance(key, str):
        raise RenderError(f"JSON object key {key!r} is not a string")
    return _string_literal(key) + ": "


def _flat_within(value: JSON, cache: dict[int, str | None]) -> str | None:
    """`_flat_literal(value)` if it is at most a line long, else None (spelling no more of a
    container than a line holds); containers' answers are kept in `cache` by id."""
    if not isinstance(value, dict | list | tuple):
        if isinstance(value, str) and len(value) > LINE_LENGTH:
            return None  # its literal is longer still
        text = _flat_literal(value)
        return text if len(text) <= LINE_LENGTH else None
    if id(value) in cache:
        return cache[id(value)]
    if isinstance(value, dict):
        opening, closing = "{", "}"
        pairs = ((_key_literal(key), item) for key, item in value.items())
    else:
        opening, closing = "[", "]"
        pairs = (("", item) for item in value)
    parts: list[str] = []
    total = 2
    for key_text, item in pairs:
        item_text = _flat_within(item, cache)
        if item_text is None:
            break
        parts.append(key_text + item_text)
        total += len(parts[-1]) + 2
        if total > LINE_LENGTH + 2:
            break
    else:
        flat = opening + ", ".join(parts) + closing
        cache[id(value)] = flat
        return flat
    cache[id(value)] = None
    return None


def text_width(text: str) -> int:
    """Columns the text takes, as black counts them (East Asian wide characters count 2)."""
    if text.isascii():
        return len(text)
    wide = _wide_ranges()
    return sum(2 if wide.get(ord(char) >> 8) and _is_wide(ord(char), wide) else 1 for char in text)


def _is_wide(code: int, wide: dict[int, list[tuple[int, int]]]) -> bool:
    return any(low <= code <= high for low, high in wide[code >> 8])


@cache
def _wide_ranges() -> dict[int, list[tuple[int, int]]]:
    """Black's table of wide characters, by block of 256 code points, read from black's data file
    (black pins its Unicode version) without importing black, which generation does not need."""
    ranges: list[tuple[int, int]] = []
    spec = importlib.util.find_spec("black")
    if spec is not None and spec.submodule_search_locations:
        table = Path(next(iter(spec.submodule_search_locations))) / "_width_table.py"
        if table.is_file():
            text = table.read_text("utf-8")
            rows = ast.literal_eval(text[text.index("= [", text.index("WIDTH_TABLE")) + 2 :])
            ranges = [(low, high) for low, high, width in rows if width == 2]
    if not ranges:  # no black installed: the Unicode database is close enough
        wide = [c for c in range(0x110000) if unicodedata.east_asian_width(chr(c)) in "WF"]
        ranges = [(c, c) for c in wide]
    blocks: dict[int, list[tuple[int, int]]] = {}
    for low, high in ranges:
        for block in range(low >> 8, (high >> 8) + 1):
            blocks.setdefault(block, []).append((low, high))
    return blocks


@lru_cache(maxsize=8192)
def _natural(text: str) -> tuple[str | int, ...]:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def _name_kind(name: str) -> int:
    """isort's order by type: CONSTANTS, then Classes, then everything else."""
    return 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2


def import_order(names: list[str]) -> list[str]:
    """Names of one `from m import ...` in the order ruff's isort rule (I001) wants by default."""
    return sorted(names, key=lambda n: (_name_kind(n), _natural(n.lower()), _natural(n)))


def from_import(module: str, names: list[str]) -> str:
    """`from module import names` (in the order given), wrapped as black wraps it."""
    line = f"from {module} import {', '.join(names)}"
    if text_width(line) <= LINE_LENGTH:
        return line
    return f"from {module} import (\n" + "".join(f"    {name},\n" for name in names) + ")"


def all_order(names: list[str]) -> list[str]:
    """An `__all__` list in the order ruff's RUF022 wants."""
    return sorted(names, key=lambda n: (_name_kind(n), _natural(n)))


def class_header(name: str, base: str) -> str:
    """`class name(base):`, split inside the brackets as black splits a long one."""
    line = f"class {name}({base}):"
    if text_width(line) <= LINE_LENGTH:
        return line
    body = "    " + base
    if text_width(body) > LINE_LENGTH and base.endswith("]"):
        outer, inner = base[:-1].split("[", 1)
        body = f"    {outer}[\n        {inner}\n    ]"
    return f"class {name}(\n{body}\n):"
