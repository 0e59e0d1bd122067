"""YAML text: JSON-like data -> YAML that reads back, under the YAML 1.2 core schema, as the same data.

Key order is kept; small containers go on one line; multi-line strings are literal blocks where that
is exact. A string is plain only when no YAML reader (1.2 core, or 1.1 like PyYAML's default) could
take it for anything else, else double-quoted with JSON's escapes. A float always has a dot or exponent.
"""

from __future__ import annotations

import math
import re
from typing import Any

WIDTH = 100
_PLAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$./ -]*")
# Words YAML 1.1 or 1.2 readers resolve to null or a boolean.
_RESERVED = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n"})
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}


class DumpError(ValueError):
    """A value that JSON (and so the toolset format) cannot hold."""


def _needs_escape(char: str) -> bool:
    """Characters a YAML stream may not hold raw, or that readers take for line breaks."""
    code = ord(char)
    return (
        code < 0x20
        or 0x7F <= code <= 0x9F
        or code in (0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF)
        or 0xD800 <= code <= 0xDFFF
    )


def quoted(text: str) -> str:
    """A double-quoted scalar with JSON's escapes (valid JSON and valid YAML)."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0xD800 <= ord(char) <= 0xDFFF:
            raise DumpError(f"the string {text[:40]!r} holds a lone surrogate, which YAML cannot")
        elif _needs_escape(char):
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def scalar(value: Any) -> str:
    """One scalar on one line."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise DumpError(f"{value!r} is not a JSON number")
        text = repr(value)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(value, str):
        plain = (
            _PLAIN.fullmatch(value) is not None
            and not value.endswith(" ")
            and value.lower() not in _RESERVED
            and "  " not in value
        )
        return value if plain else quoted(value)
    raise DumpError(f"{type(value).__name__} value is not JSON")


def _literal_lines(text: str) -> list[str] | None:
    """The lines of a literal block that reads back as `text` exactly, or None."""
    if "\n" not in text.rstrip("\n") or "\r" in text or "\t" in text:
        return None
    if any(_needs_escape(c) for c in text if c != "\n"):
        return None
    lines = text.rstrip("\n").split("\n")
    # (the first line with text sets the block's indentation: one more space of its own is lost)
    if next(line for line in lines if line).startswith(" ") or any(line.endswith(" ") for line in lines):
        return None
    return lines


def _literal(text: str, indent: int) -> str | None:
    lines = _literal_lines(text)
    if lines is None:
        return None
    trailing = len(text) - len(text.rstrip("\n"))
    chomp = "-" if trailing == 0 else "" if trailing == 1 else "+"
    pad = " " * indent
    body = "".join(f"{pad}{line}\n" if line else "\n" for line in lines)
    return f"|{chomp}\n{body}" + "\n" * max(trailing - 1, 0)


def _flow(value: Any) -> str | None:
    """The value on one line in flow style, or None if a string in it is better as a block."""
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise DumpError(f"object key {key!r} is not a string")
            inner = _flow(item)
            if inner is None or len(scalar(key)) > _LONGEST_KEY:
                return None
            items.append(f"{scalar(key)}: {inner}")
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list | tuple):
        parts = [_flow(item) for item in value]
        if any(p is None for p in parts):
            return None
        return "[" + ", ".join(p for p in parts if p is not None) + "]"
    if isinstance(value, str) and _literal_lines(value) is not None and len(value) > 40:
        return None
    return scalar(value)


def _value(value: Any, indent: int, used: int) -> str:
    """Text after `key:` or `- ` (starting with a space or a newline), ending with a newline."""
    if isinstance(value, str):
        block = _literal(value, indent) if _literal_lines(value) is not None else None
        if block is not None and (len(value) > 40 or used + len(quoted(value)) + 1 > WIDTH):
            return " " + block
        return " " + scalar(value) + "\n"
    if not isinstance(value, dict | list | tuple):
        return " " + scalar(value) + "\n"
    if not value:
        return " {}\n" if isinstance(value, dict) else " []\n"
    flow = _flow(value)
    if flow is not None and used + 1 + len(flow) <= WIDTH:
        return " " + flow + "\n"
    return "\n" + _block(value, indent)


def _block(value: dict[str, Any] | list[Any] | tuple[Any, ...], indent: int) -> str:
    pad = " " * indent
    out = []
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise DumpError(f"object key {key!r} is not a string")
            written = scalar(key)
            if len(written) > _LONGEST_KEY:  # YAML reads a longer key only as an explicit one
                out.append(f"{pad}? {written}\n")
                written = ""
            head = f"{pad}{written}:"
            out.append(head + _value(item, indent + 2, len(head)))
    else:
        for item in value:
            head = f"{pad}-"
            if isinstance(item, dict) and item:
                flow = _flow(item)
                if flow is not None and len(head) + 1 + len(flow) <= WIDTH:
                    out.append(f"{head} {flow}\n")
                    continue
                text = _block(item, indent + 2)
                out.append(f"{head} {text[indent + 2 :]}")  # the first key on the dash's line
            else:
                out.append(head + _value(item, indent + 2, len(head)))
    return "".join(out)


# A YAML reader takes an implicit key of at most 1024 characters (the `: ` after it included).
_LONGEST_KEY = 1000


def dump_yaml(data: dict[str, Any]) -> str:
    """A YAML document for a mapping: block style at the top, keys in the data's order."""
    try:
        return _block(data, 0) if data else "{}\n"
    except RecursionError:
        raise DumpError("it nests too deeply to be written") from None
