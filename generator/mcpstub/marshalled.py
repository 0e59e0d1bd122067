"""`marshalled(value)`: `marshal.dumps(value, 2)`, made once per object; `condensed(schema)`: a
schema with each of its definitions as a hash of those bytes, to hash schemas by.

Bundling puts the very object of a shared definition into every tool schema that takes it as it
is, and what is made once per distinct definition (its text, its model, whether it compiles) is
found by these bytes: equal bytes, equal value, with types and key order kept (marshal version 2
has no back-references). A checked schema is never changed in place, so an object's bytes stay
what they were; the object is kept with them, so its id names no other while they are known.
"""

from __future__ import annotations

import hashlib
import marshal

# By id of the object: the object and its bytes. Emptied once it holds this many bytes, and by
# `forget()` at the start of each run (a `--watch` session keeps no earlier run's objects).
_KNOWN: dict[int, tuple[object, bytes]] = {}
_KNOWN_BYTES = [0]
_FINGERPRINTS: dict[int, tuple[object, bytes]] = {}  # by id: the object and its bytes' SHA-256
_CONDENSED: dict[int, tuple[object, object]] = {}  # by id of a schema: it and `condensed(schema)`
_MAX_BYTES = 32 << 20


def forget() -> None:
    """Let go of every object and bytes known so far."""
    _KNOWN.clear()
    _KNOWN_BYTES[0] = 0
    _FINGERPRINTS.clear()
    _CONDENSED.clear()


def marshalled(value: object) -> bytes:
    """`marshal.dumps(value, 2)` (ValueError for what marshal cannot write), once per object."""
    known = _KNOWN.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    data = marshal.dumps(value, 2)  # type: ignore[arg-type]
    if _KNOWN_BYTES[0] + len(data) > _MAX_BYTES:
        forget()
    _KNOWN[id(value)] = (value, data)
    _KNOWN_BYTES[0] += len(data)
    return data


def fingerprint(value: object) -> bytes:
    """The SHA-256 of `marshalled(value)`, once per object (ValueError as `marshalled`)."""
    known = _FINGERPRINTS.get(id(value))
    if known is not None and known[0] is value:
        return known[1]
    digest = hashlib.sha256(marshalled(value)).digest()
    if len(_FINGERPRINTS) >= _MAX_FINGERPRINTS:
        _FINGERPRINTS.clear()
    _FINGERPRINTS[id(value)] = (value, digest)
    return digest


_MAX_FINGERPRINTS = 200_000


def condensed(schema: object) -> object:
    """`schema` with each definition of its `$defs` or `definitions` (a non-empty object) standing
    as its `fingerprint`, for hashing: bytes, which no JSON value is, so no two schemas that differ
    condense alike (short of a SHA-256 collision), and a definition copied into many schemas is
    written out once, not once per copy."""
    if not isinstance(schema, dict):
        return schema
    known = _CONDENSED.get(id(schema))  # (a schema is condensed for each key made of its tool)
    if known is not None and known[0] is schema:
        return known[1]
    if len(_CONDENSED) >= _MAX_FINGERPRINTS:
        _CONDENSED.clear()
    shown = _CONDENSED[id(schema)] = (schema, _condensed(schema))
    return shown[1]


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
