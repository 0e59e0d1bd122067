"""Text every output can carry: JSON text for the wire, writable text for logs, the words of a
failed schema check."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from mcp import types
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python

if TYPE_CHECKING:
    import jsonschema_rs

_MAX_ERRORS = 20  # the errors of one check said, at most


def clean(text: str) -> str:
    """`text` as JSON can carry it: a lone surrogate (a file name decoded with surrogateescape,
    say) becomes U+FFFD, and a surrogate pair the character it encodes."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def clean_json(value: Any) -> Any:
    """`value` with every string (keys too) made sendable by `clean`."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(key) if isinstance(key, str) else key: clean_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [clean_json(item) for item in value]
    return value


def json_data(
    value: Any, *, exclude_unset: bool = False, exclude_none: bool = False, cleaned: bool = False
) -> Any:
    """`value` as JSON data (models by their wire names), a NaN or an infinity kept as the float it
    is for `unreadable` to find: generated models say so in their config (pydantic's `mode="json"`
    dump otherwise makes those in fields typed Any None, which a schema may take); a model whose
    config does not (of a package generated before it did) is dumped in Python's mode first. Text
    JSON cannot carry raises UnicodeEncodeError, or is made sendable (`clean`) if `cleaned`."""
    first = value[0] if isinstance(value, list | tuple) and value else value
    old = isinstance(first, BaseModel) and first.model_config.get("ser_json_inf_nan") != "constants"
    try:
        leave = (exclude_unset, exclude_none)
        if old:
            return to_jsonable_python(_python(value, leave), inf_nan_mode="constants")
        if isinstance(value, BaseModel):
            return value.model_dump(
                mode="json", by_alias=True, warnings=False, exclude_unset=leave[0], exclude_none=leave[1]
            )
        return to_jsonable_python(value, by_alias=True, inf_nan_mode="constants")
    except UnicodeEncodeError:  # (a lone surrogate in a key of a field typed Any)
        if not cleaned:
            raise
        return to_jsonable_python(clean_json(_python(value, leave)), inf_nan_mode="constants")


def plain_json(value: Any, *, exclude_none: bool = False) -> Any:
    """`value` as JSON data, strings made sendable (`clean_json`), dumped in Python's mode first, so
    that a NaN or an infinity stays the float it is wherever it stands (the JSON dump of a model
    whose config does not say so, an SDK model's field typed Any, makes it None) for `unreadable`
    to find; sets, tuples and generators become lists, each read once."""
    return to_jsonable_python(clean_json(_python(value, (False, exclude_none))), inf_nan_mode="constants")


def _python(value: Any, leave: tuple[bool, bool]) -> Any:
    """`value` with every model in it dumped in Python's mode (`leave`: whether to leave out fields
    not set, and fields that are None)."""
    unset, none = leave
    return _ANY.dump_python(value, by_alias=True, warnings=False, exclude_unset=unset, exclude_none=none)


_ANY: TypeAdapter[Any] = TypeAdapter(Any)


# The integers Python's JSON readers take (its `json`, pydantic's) have at most 4,300 digits.
MAX_DIGITS = 4300
_TOO_LONG = 10**MAX_DIGITS
_NOT_DIGIT = re.compile(rb"[^0-9]")
_DIGITS = re.compile(rb"[0-9]+")


def may_be_unreadable(text: bytes) -> bool:
    """Whether JSON `text` may hold what `unreadable` finds: `NaN`, `Infinity`, or a run of more than
    4,300 digits. Such a run holds one of every 4,300th byte, so only those are looked at (1.2 ms
    for 1.2 MB of output, the NaN search included, where a search at each byte takes 10 ms and
    walking the value 28 ms; this runs on every call)."""
    if b"NaN" in text or b"Infinity" in text:
        return True
    for at in range(0, len(text), MAX_DIGITS):
        if 48 <= text[at] <= 57:  # a digit: where does its run end, and is it that long?
            end = found.start() if (found := _NOT_DIGIT.search(text, at)) else len(text)
            if end > MAX_DIGITS and _DIGITS.fullmatch(text, end - MAX_DIGITS - 1, end):
                return True
    return False


def unreadable(value: Any, path: tuple[str | int, ...] = ()) -> tuple[list[str | int], str] | None:
    """The path of the first number in `value` that JSON cannot carry to its reader, and why: a NaN
    or an infinity (JSON has neither) or an integer of more than 4,300 digits (Python's readers
    refuse it, the SDK's too, and end the connection); None if there is none."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (list(path), "NaN and infinities have no JSON form")
    if isinstance(value, int):
        if isinstance(value, bool) or abs(value) < _TOO_LONG:
            return None
        return list(path), f"an integer of more than {MAX_DIGITS:,} digits, which JSON readers refuse"
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(item, float | int | dict | list) and (found := unreadable(item, (*path, key))):
            return found
    return None


NOT_TEXT = "not Unicode text: a lone surrogate (an unpaired \\ud800-\\udfff escape)"


def not_text(value: Any, path: tuple[str | int, ...] = ()) -> list[str | int] | None:
    """The path of the first string in `value` (a key, or a value) that is no Unicode text: one
    holding a lone surrogate (JSON's `\\ud800` escape, which Python's JSON reader takes); None
    if there is none."""
    if isinstance(value, str):
        return None if clean(value) is value else list(path)  # (`clean` keeps text JSON carries)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if isinstance(key, str) and clean(key) is not key:
            return [*path, key]
        if isinstance(item, str | dict | list) and (found := not_text(item, (*path, key))) is not None:
            return found
    return None


def writable(text: str) -> str:
    """`text` with what a UTF-8 log file cannot hold escaped (`\\udc80`)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def pointer(path: list[str | int]) -> str:
    """A JSON Pointer (RFC 6901) for a validation error's path; `(root)` for the whole value."""
    if not path:
        return "(root)"
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


def model_errors(failure: ValidationError, most: int | None = None) -> str:
    """One `- <pointer>: <why>` line per error of a pydantic model's check (the first `most`)."""
    errors = failure.errors(include_url=False)[:most]
    return "\n".join(f"- {pointer(list(error['loc']))}: {error['msg']}" for error in errors)


def describe(errors: Iterator[jsonschema_rs.ValidationError]) -> str:
    """One `- <pointer>: <why>` line per schema error (at most 20), long echoes shortened."""
    import json  # only a failed check needs it

    lines = []
    for index, error in enumerate(errors):
        if index == _MAX_ERRORS:
            lines.append("- ...")
            break
        # Long echoes are cut (80 characters of the instance, 240 in all), as at build time.
        message = error.message
        try:
            echo = json.dumps(error.instance, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError):
            echo = ""
        if len(echo) > 80 and echo in message:
            message = message.replace(echo, echo[:79] + "…")
        if len(message) > 240:
            message = message[:119] + "…" + message[-119:]
        lines.append(f"- {pointer(error.instance_path)}: {message}")
    return "\n".join(lines)


def unread_message(failure: Exception) -> tuple[bool, types.JSONRPCError] | None:
    """What answers a message whose line the SDK could not read (`failure`, pydantic's): for a
    request, the error to send the client (True): -32700 for text its JSON reader refuses and
    Python's takes (a lone surrogate escaped, say), -32600 for a request of no shape MCP defines;
    for the client's answer to a request of the server's, the error that request gets (False).
    None where no id can be read (text no JSON reader takes, a notification)."""
    if not isinstance(failure, ValidationError):
        return None
    errors = failure.errors(include_url=False)
    text: Any = next((e["input"] for e in errors if e["type"] == "json_invalid"), None)
    if isinstance(text, bytes):  # (an HTTP body)
        text = text.decode("utf-8", "replace")
    if isinstance(text, str):
        try:  # (an integer past Python's 4,300 digits is read as nothing: its id is still read)
            message = json.loads(text.removeprefix("\ufeff"), parse_int=_int_or_none)
        except (ValueError, RecursionError):  # (nested past Python's limit too)
            return None
        error = types.ErrorData(code=types.PARSE_ERROR, message=f"Parse error: {errors[0]['msg']}")
    else:
        # The message itself: what an error at its top stands at (a `missing` one names the key it
        # lacks, at the message), not an object nested in it.
        tops = (e["input"] for e in errors if len(e["loc"]) - (e["type"] == "missing") <= 1)
        message = next((top for top in tops if isinstance(top, dict)), {})
        error = types.ErrorData(code=types.INVALID_REQUEST, message="Invalid request: not one MCP defines")
    if not isinstance(message, dict):
        return None
    ident = message.get("id")
    if isinstance(ident, bool) or not isinstance(ident, int | str):
        return None
    if isinstance(ident, str) and clean(ident) != ident:  # (an id no JSON text can carry back)
        return None
    if "method" in message:
        return True, types.JSONRPCError(jsonrpc="2.0", id=ident, error=error)
    if "result" in message or "error" in message:
        said = types.ErrorData(code=error.code, message=f"the client's answer is unreadable: {error.message}")
        return False, types.JSONRPCError(jsonrpc="2.0", id=ident, error=said)
    return None


def _int_or_none(digits: str) -> int | None:
    try:
        return int(digits)
    except ValueError:  # past the digits Python reads
        return None
