"""A value's bytes (`value_bytes`, its marshal form) and their hash, made once per object; schemas
condensed to hash them by.

Bundling puts the very object of a shared definition into every tool schema that takes it, and what
is made once per distinct definition (its text, its model, whether it compiles) is found by these
bytes: marshal version 2 has no back-references, so equal bytes mean an equal value, types and key
order kept. A checked schema is never changed in place, so an object's bytes stay what they were.
"""

from __future__ import annotations

import hashlib
import marshal

from mcpstub.engine import memory


def value_bytes(value: object) -> bytes:
    """`marshal.dumps(value, 2)` (ValueError for what marshal cannot write), once per object."""
    return memory.of("value_bytes", value, _dumps)


def _dumps(value: object) -> bytes:
    return marshal.dumps(value, 2)  # type: ignore[arg-type]


def fingerprint(value: object) -> bytes:
    """The SHA-256 of `value_bytes(value)`, once per object (ValueError as `value_bytes`)."""
    return memory.of("fingerprint", value, lambda v: hashlib.sha256(value_bytes(v)).digest())


def condensed(schema: object) -> object:
    """`schema` with each `$defs`/`definitions` entry as its `fingerprint`: bytes, which no JSON value
    is, so differing schemas never condense alike, and a definition copied into many is written once."""
    if not isinstance(schema, dict):
        return schema
    return memory.of("condensed", schema, _condensed)


def _condensed(schema: dict[str, object]) -> object:
    out: dict[str, object] | None = None
    for key in ("$defs", "definitions"):
        definitions = schema.get(key)
        if not isinstance(definitions, dict) or not definitions:
            continue
        try:
            shown = {n: fingerprint(d) if isinstance(d, dict) and d else d for n, d in definitions.items()}
        except ValueError:  # not plain data: hashed as it is
            continue
        out = out if out is not None else dict(schema)
        out[key] = shown
    return out if out is not None else schema
