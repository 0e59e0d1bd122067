"""Memory: what a run has made already, found again by what it was made of.

The current `Memory` is a run's own (`remembering()` in `pipeline`) or a `--watch` session's, kept
across its runs (`session.running`). Outside both nothing is kept, and the files are the same.

- `of(kind, obj, make)`: by the object's identity. The entry holds the object, so its id names no
  other; a checked schema or tool is never changed in place, so the value stays true of it.
- `keyed(kind, key, make)`: under a key holding everything the value is made of: nothing to invalidate.

Past its budget (bytes of the texts held, plus a little per entry) a memory starts over. A session
drops the entries of objects it no longer holds at each run (`forget_objects`): they would keep
those objects alive, which weigh more than what is counted of them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")
Obj = TypeVar("Obj")

_ENTRY = 100  # what an entry is counted beside the texts and bytes in it
_MISSING = object()


class Memory:
    """Values by the object or the key they were made of; see the module's docstring."""

    def __init__(self, budget: int = 256_000_000) -> None:
        self._objects: dict[tuple[str, int], tuple[object, Any, int]] = {}
        self._keyed: dict[tuple[str, Hashable], Any] = {}
        self._spent = 0
        self._budget = budget

    def of(self, kind: str, obj: Obj, make: Callable[[Obj], T]) -> T:
        """`make(obj)`, made once per object."""
        hit = self._objects.get((kind, id(obj)))
        if hit is not None and hit[0] is obj:
            found: T = hit[1]
            return found
        value = make(obj)
        self.put(kind, obj, value)
        return value

    def known(self, kind: str, obj: object) -> Any:
        """What `of(kind, obj, ...)` made (or `put`), or None."""
        hit = self._objects.get((kind, id(obj)))
        return hit[1] if hit is not None and hit[0] is obj else None

    def put(self, kind: str, obj: object, value: Any) -> None:
        """Remember `value` as `of(kind, obj, ...)` would have made it."""
        self._objects[(kind, id(obj))] = (obj, value, self._spend(value))

    def forget_objects(self, held: Iterable[object] = ()) -> None:
        """Let go of every entry made of an object, except of those `held` (by identity)."""
        ids = {id(obj) for obj in held}
        kept = {key: hit for key, hit in self._objects.items() if key[1] in ids}
        self._spent -= sum(hit[2] for key, hit in self._objects.items() if key not in kept)
        self._objects = kept

    def keyed(self, kind: str, key: Hashable, make: Callable[..., T], *args: Any) -> T:
        """`make(*args)`, made once per key."""
        value = self._keyed.get((kind, key), _MISSING)
        if value is _MISSING:
            value = make(*args)
            self._spend(key, value)
            self._keyed[(kind, key)] = value
        found: T = value
        return found

    def _spend(self, *parts: object) -> int:
        cost = _ENTRY
        for part in parts:
            for item in part if isinstance(part, tuple) else (part,):
                if isinstance(item, str | bytes):
                    cost += len(item)
        self._spent += cost
        if self._spent > self._budget:
            self._objects.clear()
            self._keyed.clear()
            self._spent = cost
        return cost


_CURRENT: ContextVar[Memory | None] = ContextVar("mcpstub_memory", default=None)


def current() -> Memory | None:
    """The memory of the run under way, if any."""
    return _CURRENT.get()


# The two functions below are called some 100,000 times in a run over 500 tools: what they find
# is looked up here, and the memory's method is called only to make a value.


def of(kind: str, obj: Obj, make: Callable[[Obj], T]) -> T:
    """`Memory.of` in the current memory; outside any, `make(obj)`."""
    memory = _CURRENT.get()
    if memory is None:
        return make(obj)
    hit = memory._objects.get((kind, id(obj)))
    if hit is not None and hit[0] is obj:
        found: T = hit[1]
        return found
    return memory.of(kind, obj, make)


def known(kind: str, obj: object) -> Any:
    """`Memory.known` in the current memory; outside any, None."""
    memory = _CURRENT.get()
    return None if memory is None else memory.known(kind, obj)


def put(kind: str, obj: object, value: Any) -> None:
    """`Memory.put` in the current memory; outside any, nothing. With `known`, for a value made
    by recursion: a call of `of` between two levels would take stack frames of its own."""
    memory = _CURRENT.get()
    if memory is not None:
        memory.put(kind, obj, value)


def keyed(kind: str, key: Hashable, make: Callable[..., T], *args: Any) -> T:
    """`Memory.keyed` in the current memory; outside any, `make(*args)`."""
    memory = _CURRENT.get()
    if memory is None:
        return make(*args)
    value = memory._keyed.get((kind, key), _MISSING)
    if value is _MISSING:
        return memory.keyed(kind, key, make, *args)
    found: T = value
    return found


def keep(memory: Memory) -> None:
    """Make `memory` current for the rest of this thread: a model worker's, whose units are the
    groups of one run (a definition shared by many tools is looked at once per worker)."""
    _CURRENT.set(memory)


@contextmanager
def remembering(memory: Memory | None = None) -> Iterator[Memory]:
    """Run the block with `memory` current (default: the current one, else a new one for the block)."""
    if memory is None:
        memory = _CURRENT.get() or Memory()
    token = _CURRENT.set(memory)
    try:
        yield memory
    finally:
        _CURRENT.reset(token)
