"""JSON pointers (RFC 6901): the one place they are written, split and followed.

A pointer is `/a/b~1c` (tokens `a`, `b/c`; `~` is written `~0` and `/` `~1`). A `$ref` fragment
is a URI fragment: percent-decoded as a whole first, then read as a pointer, as jsonschema-rs and
`referencing` read it (`#/%24defs/a~1b` is `$defs`, `a/b`; `#/$defs/a%2Fb` is `$defs`, `a`, `b`);
the file part of a `$ref` is percent-decoded the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

Token = str | int
# What a URI fragment holds as written (RFC 3986 `pchar` and `/`): everything else is escaped.
_FRAGMENT_SAFE = "!$&'()*+,;=:@/"
_INDEX = re.compile(r"0|[1-9][0-9]*", re.ASCII)  # an array index, as RFC 6901 spells it
_BAD_TILDE = re.compile(r"~(?![01])")


def escape(token: Token) -> str:
    """One token as written in a pointer: `a/b~c` -> `a~1b~0c`."""
    return str(token).replace("~", "~0").replace("/", "~1")


def to_pointer(path: Iterable[Token]) -> str:
    """`['a', 0, 'b/c']` -> `/a/0/b~1c` (the empty path is `''`, the whole document)."""
    return "".join("/" + escape(token) for token in path)


def to_fragment(path: Iterable[Token]) -> str:
    """A `$ref` to `path` in the same document: `#/$defs/a~1b`, percent-encoded where a URI
    fragment cannot hold a character as it is (`%`, space, non-ASCII)."""
    return "#" + quote(to_pointer(path), safe=_FRAGMENT_SAFE)


@lru_cache(maxsize=4096)
def split(pointer: str) -> tuple[str, ...] | None:
    """`/a/b~1c` -> `('a', 'b/c')`; `''` -> `()`; None when it is not a JSON pointer (no
    leading `/`, or a `~` not followed by `0` or `1`)."""
    if pointer == "":
        return ()
    if not pointer.startswith("/") or _BAD_TILDE.search(pointer):
        return None
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/"))


def percent_decoded(part: str) -> str | None:
    """A part of a `$ref` percent-decoded as RFC 3986 reads it: the fragment (the text after `#`),
    giving the JSON pointer it stands for, or the file part (before `#`), giving the relative path
    it names (`%25` is `%`, `%2F` `/`). None when an escape is malformed (`%zz`, `%2`) or the
    octets are not UTF-8: validators refuse such a reference too."""
    if "%" not in part:
        return part
    if re.search(r"%(?![0-9A-Fa-f]{2})", part):
        return None
    try:
        return unquote(part, errors="strict")
    except UnicodeDecodeError:
        return None


def split_fragment(fragment: str) -> tuple[str, ...] | None:
    """The tokens of a `$ref` fragment (the text after `#`), or None when it is not a pointer."""
    pointer = percent_decoded(fragment)
    return None if pointer is None else split(pointer)


def ref_file(base: Path, file_part: str) -> Path | None:
    """The file a `$ref`'s file part names, written in a document in the folder `base` (resolved:
    `..` and symlinks followed), or None when the part is not percent-encoded text or names no
    path the system resolves (a loop of symbolic links, a NUL byte: reading it says so)."""
    written = percent_decoded(file_part)
    try:
        return None if written is None else (base / written).resolve()
    except (OSError, RuntimeError, ValueError):  # (Python 3.11 says a loop as RuntimeError)
        return None


def resolve(data: Any, tokens: Iterable[str]) -> tuple[bool, Any, tuple[str | int, ...]]:
    """Follow tokens into data: (found, value, path as far as it went, list indexes as ints)."""
    path: list[str | int] = []
    for token in tokens:
        if isinstance(data, dict) and token in data:
            data = data[token]
            path.append(token)
        elif isinstance(data, list) and _INDEX.fullmatch(token) and int(token) < len(data):
            data = data[int(token)]
            path.append(int(token))
        else:
            return False, None, tuple(path)
    return True, data, tuple(path)
