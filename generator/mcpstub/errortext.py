"""Error text: how a failed check of an instance is worded, at build time and in generated servers.

`describe_error(path, message, instance)` gives `/a/0: <message>`: the place as a JSON pointer
(`(root)` for the whole instance) and the validator's message with long echoes cut short, so a
3 KB argument object is not repeated back. The generated server's `_describe` words its errors
the same way (tests hold the two together), so an example refused at build time reads like the
call refused at run time.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from mcpstub.pointers import to_pointer

ECHO_MAX = 80  # characters of an echoed instance kept in a message
MESSAGE_MAX = 240  # characters of a message kept in all


def first_line(exc: BaseException, default: str | None = None) -> str:
    """The first line of what an exception says; `default` (its type's name, if None) when it says
    nothing."""
    said = str(exc).strip()
    if said:
        return said.splitlines()[0]
    return type(exc).__name__ if default is None else default


def pointer(path: Sequence[str | int]) -> str:
    """`['a', 0]` -> `/a/0`; the empty path is `(root)`."""
    if not path:
        return "(root)"
    return to_pointer(path)


def short_message(message: str, instance: Any) -> str:
    """The validator's message with the echoed instance, and the whole, cut to a readable size."""
    try:
        echo = json.dumps(instance, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON, or an integer too long to print
        echo = ""
    if len(echo) > ECHO_MAX and echo in message:
        message = message.replace(echo, echo[: ECHO_MAX - 1] + "…")
    if len(message) > MESSAGE_MAX:
        half = (MESSAGE_MAX - 1) // 2
        message = message[:half] + "…" + message[-half:]
    return message


def describe_error(path: Sequence[str | int], message: str, instance: Any) -> str:
    """`/a/0: <short message>`."""
    return f"{pointer(path)}: {short_message(message, instance)}"


def describe_path(path: Sequence[str | int], root: str = "toolset") -> str:
    """`('tools', 2, 'name')` -> `tools[2].name`; the empty path is the document's `root` (a
    file a reference reaches is named by its name)."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or root


def echo_value(value: Any) -> str:
    """`repr(value)` with true, false and null as a toolset writes them (`written`), said in a few
    words when long: a 400-digit number or a page of text would bury the line that says what is
    wrong."""
    shown = written(value)
    if len(shown) <= ECHO_MAX:
        return shown
    if isinstance(value, int) and not isinstance(value, bool):
        return f"an integer of {len(str(abs(value)))} digits"
    return shown[: ECHO_MAX - 4] + "..." + shown[-1]


def shortened(message: str, instance: Any) -> str:
    """`message` with the value it quotes in full (`instance`) as `echo_value` says it."""
    shown = repr(instance)
    return message.replace(shown, echo_value(instance), 1) if len(written(instance)) > ECHO_MAX else message


def written(value: Any) -> str:
    """`repr(value)` with true, false and null as a toolset writes them (not `True`, `None`)."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(written, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{written(k)}: {written(v)}" for k, v in value.items()) + "}"
    return repr(value)


def schema_said(err: Any) -> str:
    """What a meta-schema failure (a jsonschema `ValidationError`) says, in a toolset's words: the
    value as written (`true`, not `True`), an exclusive bound as the bound it is, and why a pattern
    is no regular expression where Python's reading of it says."""
    kind, bound, value = err.validator, err.validator_value, err.instance
    if kind in ("exclusiveMinimum", "exclusiveMaximum") and not isinstance(value, bool):
        side = "greater" if kind == "exclusiveMinimum" else "less"
        return f"{echo_value(value)} must be {side} than {bound}"
    if kind == "format" and bound == "regex" and isinstance(value, str):
        try:
            re.compile(value)
            why = ""
        except re.error as exc:
            why = f": {exc}"
        return f"{echo_value(value)} is not a regular expression{why}"
    message, shown = err.message, repr(value)
    if message.startswith(shown) and len(shown) <= ECHO_MAX:
        message = written(value) + message[len(shown) :]
    return shortened(message, value)


# What YAML 1.1 (PyYAML's default, and many editors) reads as a boolean; YAML 1.2 reads it as text.
_YAML11_TRUE = frozenset({"y", "Y", "yes", "Yes", "YES", "on", "On", "ON"})
_YAML11_FALSE = frozenset({"n", "N", "no", "No", "NO", "off", "Off", "OFF"})


def yaml_boolean_hint(value: Any) -> str | None:
    """Where a boolean was wanted and `value` is text some YAML reads as one: what to write."""
    if not isinstance(value, str) or value not in _YAML11_TRUE | _YAML11_FALSE:
        return None
    meant = "true" if value in _YAML11_TRUE else "false"
    return f"YAML 1.2 reads {value} as the text {value!r}, not a boolean: write {meant}"


def unknown_keys(unknown: Sequence[str], known: Sequence[str]) -> str:
    """`a (did you mean b?), c`: each unknown key of a settings table, with the known one it is close
    to (`fail_on` for `fail-on`, `emit-tests` for `emit_tests`), if any."""
    import difflib  # noqa: PLC0415 - only for the message

    close = [(key, difflib.get_close_matches(key, sorted(known), n=1)) for key in unknown]
    return ", ".join(f"{key} (did you mean {match[0]}?)" if match else key for key, match in close)


def close_file(folder: Path, written: str) -> str | None:
    """`did you mean 'schemas/common.yaml'?` where the file `written` (from `folder`) is not, and a
    file beside where it would be has a name close to its own."""
    import difflib  # noqa: PLC0415 - only for the message

    where = PurePosixPath(written.replace(os.sep, "/"))
    try:
        names = [entry.name for entry in os.scandir(folder / where.parent) if entry.is_file()]
    except OSError:
        return None
    close = difflib.get_close_matches(where.name, names, n=1, cutoff=0.8)
    return f"did you mean {str(where.parent / close[0])!r}?" if close else None
