"""Text every output can carry: JSON text for the wire, writable text for logs."""

from __future__ import annotations

from typing import Any


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
        return {
            clean(key) if isinstance(key, str) else key: clean_json(item)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [clean_json(item) for item in value]
    return value


def writable(text: str) -> str:
    """`text` with what a UTF-8 log file cannot hold escaped (`\\udc80`)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
