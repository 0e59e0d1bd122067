"""`marshalled(value)`: `marshal.dumps(value, 2)`, made once per object; `condensed(schema)`: a
schema with each of its definitions as a hash of those bytes, to hash schemas by.

Bundling puts the very object of a shared definition into every tool schema that takes it as it
is, and what is made once per distinct definition (its text, its model, whether it compiles) is
found by these bytes: equal bytes, equal value, with types and key order kept (marshal version 2
has no back-references). A checked schema is never changed in place, so an object's bytes stay
what they were (`memory.of`).
"""

from __future__ import annotations

import hashlib
import marshal

from mcpstub.engine import memory


def marshalled(value: object) -> bytes:
    """`marshal.dumps(value, 2)` (ValueError for what marshal cannot write), once per object."""
    return memory.of("marshalled", value, _dumps)


def _dumps(value: object) -> bytes:
    return marshal.dumps(value, 2)  # type: ignore[arg-type]


def fingerprint(value: object) -> bytes:
    """The SHA-256 of `marshalled(value)`, once per object (ValueError as `marshalled`)."""
    return memory.of("fingerprint", value, lambda v: hashlib.sha256(marshalled(v)).digest())


def condensed(schema: object) -> object:
    """`schema` with each definition of its `$defs` or `definitions` (a non-empty object) standing
    as its `fingerprint`, for hashing: bytes, which no JSON value is, so no two schemas that differ
    condense alike (short of a SHA-256 collision), and a definition copied into many schemas is
    written out once, not once per copy."""
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
