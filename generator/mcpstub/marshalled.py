"""`marshalled(value)`: `marshal.dumps(value, 2)`, made once per object.

Bundling puts the very object of a shared definition into every tool schema that takes it as it
is, and what is made once per distinct definition (its text, its model, whether it compiles) is
found by these bytes: equal bytes, equal value, with types and key order kept (marshal version 2
has no back-references). A checked schema is never changed in place, so an object's bytes stay
what they were; the object is kept with them, so its id names no other while they are known.
"""

from __future__ import annotations

import marshal

# By id of the object: the object and its bytes. Emptied once it holds this many bytes, and by
# `forget()` at the start of each run (a `--watch` session keeps no earlier run's objects).
_KNOWN: dict[int, tuple[object, bytes]] = {}
_KNOWN_BYTES = [0]
_MAX_BYTES = 32 << 20


def forget() -> None:
    """Let go of every object and bytes known so far."""
    _KNOWN.clear()
    _KNOWN_BYTES[0] = 0


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
