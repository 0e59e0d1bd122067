"""JSON reading: JSON text that YAML would read as the same data, read by `json.loads` instead.

`_json_data(text)` is None for text the YAML path must read (it reports what JSON and YAML read
differently); `_astral` rewrites surrogate pairs for the YAML reader.
"""

from __future__ import annotations

import bisect
import json
import json.scanner
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcpstub.document import MAX_DEPTH, YAML_LINE_BREAK

_SURROGATE_PAIR = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE
)




def _astral(text: str, path: Path) -> tuple[str, dict[int, list[int]]]:
    """`text` with JSON's surrogate pair escapes (`\\ud83d\\ude00`, which a YAML reader refuses) written
    as YAML's escape of the character (`\\U0001F600`), and where (see Document). A lone surrogate stays:
    the YAML reader reports it."""
    if "\\" not in text or "\\u" not in text:  # (one character is found far faster than two)
        return text, {}
    if _JSON_START.match(text) is None or _SURROGATE_PAIR.search(text) is None:
        return text, {}
    if path.suffix.lower() != ".json":  # JSON by its content: a YAML scalar may hold `\u` as text
        try:
            json.loads(text)
        except (ValueError, RecursionError):
            return text, {}
    starts = [0] + [m.end() for m in YAML_LINE_BREAK.finditer(text)]  # where each line starts, as YAML counts
    parts: list[str] = []
    moves: dict[int, list[int]] = {}
    at = 0
    for match in _SURROGATE_PAIR.finditer(text):
        line = bisect.bisect_right(starts, match.start())
        high, low = int(match[2], 16) - 0xD800, int(match[3], 16) - 0xDC00
        parts += [text[at : match.start()], f"{match[1]}\\U{0x10000 + (high << 10) + low:08X}"]
        cols = moves.setdefault(line, [])
        # The rewritten text's column just after the escape (1-based), on this line.
        cols.append(match.end() - starts[line - 1] + 1 - 2 * (len(cols) + 1))
        at = match.end()
    return "".join(parts) + text[at:], moves


# The JSON fast path. JSON is YAML, but a YAML reader differs from `json.loads` on some JSON: it
# refuses duplicate keys, nesting beyond MAX_DEPTH, tabs, lone surrogate escapes (pairs: `_astral`),
# a key more than 1024 characters before its colon or on another line than it, and the characters
# below (some it refuses, some it reads as line breaks); it reads `NaN` and `Infinity` as strings.
# Text with any of these takes the YAML path, which reports each as it always has.
_NOT_YAML_ALIKE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_JSON_START = re.compile(r"[ \r\n]*[\[{]")
_NEWLINE_COLON = re.compile("\n:")
_SPACE_COLON = re.compile(" :")
_MAX_FAST_KEY = 150  # characters; written with \uXXXX escapes and a space, well under 1024


def yaml_alike(text: str) -> str:
    """JSON text with the characters a YAML reader refuses or reads as line breaks written as
    `\\uXXXX` escapes (JSON allows them raw): text mcpstub writes, it reads back."""
    if _NOT_YAML_ALIKE.search(text) is None:
        return text
    return _NOT_YAML_ALIKE.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


class _NotYamlAlike(Exception):
    """The JSON text holds something the YAML path reads differently or reports."""


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs) or (pairs and max(map(len, result)) > _MAX_FAST_KEY):
        raise _NotYamlAlike
    return result


def _json_constant(_name: str) -> Any:
    raise _NotYamlAlike


class _Numbers:
    """`json.loads` number hooks noting a number JSON may not hold: inf (1e400), or too many digits."""

    def __init__(self) -> None:
        self.finite = True

    def as_float(self, text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            self.finite = False
        return value

    def as_int(self, text: str) -> int:
        if len(text) > _DOUBLE_DIGITS:
            self.finite = False  # perhaps: the check looks at the value itself
        return int(text)


_DOUBLE_DIGITS = 300  # a double holds every integer below 10**308; this many digits or fewer fit


def _json_alike(text: str) -> bool:
    """Whether JSON text is free of what the YAML path reads otherwise or reports (see above)."""
    return not (
        "\t" in text
        # (One character is found many times faster than two; two faster by a regular expression.)
        or _NEWLINE_COLON.search(text) is not None
        or ("\r" in text and "\r:" in text)
        # At most one space between a key and its colon.
        or (_SPACE_COLON.search(text) is not None and text.count(" :") != text.count('" :'))
        or ("\x7f" in text if text.isascii() else _NOT_YAML_ALIKE.search(text) is not None)
        or (
            "\\" in text
            and "\\u" in text
            and _SURROGATE_ESCAPE.search(_SURROGATE_PAIR.sub("", text)) is not None
        )
    )


def _decoder(numbers: _Numbers) -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=_json_object,
        parse_constant=_json_constant,
        parse_float=numbers.as_float,
        parse_int=numbers.as_int,
    )


def _json_data(text: str, spans: list[tuple[int, int]] | None = None) -> tuple[Any, bool] | None:
    """`(data, finite)` when `text` is JSON the YAML path reads alike without a diagnostic (`finite`:
    see `_Numbers`); `spans` receives where each item of the top-level `tools` array starts and ends."""
    if _JSON_START.match(text) is None or not _json_alike(text):
        return None
    numbers = _Numbers()
    try:
        data = _scan_tools(_scanner(numbers), text, spans) if spans is not None else None
        if data is None:
            data = _decoder(numbers).decode(text)
    # ValueError: not JSON, or too many digits; StopIteration: no value where one must be
    except (ValueError, StopIteration, RecursionError, _NotYamlAlike):
        return None
    return (data, numbers.finite) if _depth_within(data, MAX_DEPTH) else None


_SPACE = re.compile(r"[ \t\n\r]*")  # what JSON allows between tokens


def _skip(text: str, at: int) -> int:
    found = _SPACE.match(text, at)
    return found.end() if found else at


# The JSON reader's own string and value scanners (its C ones, where built): `(value, end)`.
_scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_Scanner = Callable[[str, int], tuple[Any, int]]


def _scanner(numbers: _Numbers) -> _Scanner:
    scanner: _Scanner = json.scanner.make_scanner(_decoder(numbers))  # type: ignore[arg-type]
    return scanner


def _scan_tools(scan: _Scanner, text: str, spans: list[tuple[int, int]]) -> Any:
    """`text` read a value at a time as `json.loads` would, noting in `spans` where each item of its
    `tools` array starts and ends; None (`spans` left empty) when `text` is not an object."""
    at = _skip(text, 0)
    if not text.startswith("{", at):
        return None
    pairs: list[tuple[str, Any]] = []
    at = _skip(text, at + 1)
    while not text.startswith("}", at) or pairs:  # (a pair read: only the `break` below ends it)
        if not text.startswith('"', at):
            raise ValueError("a key expected")
        key, at = _scan_string(text, at + 1)
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise ValueError("a colon expected")
        at = _skip(text, at + 1)
        if key == "tools" and text.startswith("[", at) and not spans:
            value, at = _scan_items(scan, text, at, spans)
        else:
            value, at = scan(text, at)
        pairs.append((key, value))
        at = _skip(text, at)
        if text.startswith("}", at):
            break
        if not text.startswith(",", at):
            raise ValueError("a comma expected")
        at = _skip(text, at + 1)
    if _skip(text, at + 1) != len(text):
        raise ValueError("extra data")
    return _json_object(pairs)


def _scan_items(
    scan: _Scanner, text: str, at: int, spans: list[tuple[int, int]], end: int | None = None
) -> tuple[list[Any], int]:
    """The array starting at `text[at]` (`[`), its items' spans appended to `spans`; with `end`,
    the items from `at` (an item's start) to `end` (an item's end) instead, no brackets."""
    items: list[Any] = []
    if end is None:
        at = _skip(text, at + 1)
        if text.startswith("]", at):
            return items, at + 1
    while True:
        try:
            value, stop = scan(text, at)
        except StopIteration:
            raise ValueError("a value expected") from None
        items.append(value)
        spans.append((at, stop))
        if end is not None and stop >= end:
            if stop > end:
                raise ValueError("an item reaches past the part read")
            return items, stop
        at = _skip(text, stop)
        if end is None and text.startswith("]", at):
            return items, at + 1
        if not text.startswith(",", at):
            raise ValueError("a comma expected")
        at = _skip(text, at + 1)
        if end is not None and at >= end:
            raise ValueError("a value expected")


def _depth_within(data: Any, limit: int) -> bool:
    """True when lists and dicts nest at most `limit` deep."""
    level = [data] if isinstance(data, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return False
        below: list[Any] = []
        for value in level:
            items = value.values() if type(value) is dict else value
            kinds = set(map(type, items))  # at C speed: most lists (enums) hold no container
            if dict in kinds or list in kinds:
                below.extend(item for item in items if type(item) is dict or type(item) is list)
        level = below
    return True


def _holds_as_double(integers: list[int]) -> bool:
    """True when every integer converts to an IEEE double (JSON numbers, as clients read them)."""
    try:
        float(max(integers))
        float(min(integers))
    except OverflowError:
        return False
    return True


def all_finite(value: Any) -> bool:
    """Whether every number is one JSON can hold: no inf or nan, no integer beyond a double's range."""
    stack = [value] if isinstance(value, dict | list) else []
    if not _all_finite_in([value]):
        return False
    while stack:
        node = stack.pop()
        items = list(node.values()) if isinstance(node, dict) else node
        kinds = set(map(type, items))  # at C speed: most lists (enums) hold strings only
        if any(issubclass(kind, int | float) and kind is not bool for kind in kinds) and not _all_finite_in(
            items
        ):
            return False
        if any(issubclass(kind, dict | list) for kind in kinds):
            stack.extend(item for item in items if isinstance(item, dict | list))
    return True


def _all_finite_in(items: list[Any]) -> bool:
    """`all_finite` for the numbers among `items` (not what they hold)."""
    if not all(math.isfinite(item) for item in items if isinstance(item, float)):
        return False
    integers = [item for item in items if isinstance(item, int) and not isinstance(item, bool)]
    return not integers or _holds_as_double(integers)
