"""Diagnostics said once a place, as the gravest reading says them.

A schema is read more than once where two dialects reach it, or where a unit inside another one is
linted again: each reading may say the same problem at the same place. `OncePerPlace` keeps one:
what is said again at a place is not said twice, and an error there drops the warnings other
readings said of it (the error is the graver reading of the same text).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

from mcpstub.diagnostics import Diagnostic, Location


class OncePerPlace:
    """Diagnostics that `add` appends to `said` once a place, the gravest reading winning.

    `said` only grows by `add` (others may append to it, or cut what they appended, too: theirs
    count as said by no reading); a warning an error drops stays in it, so what was said since a
    length still holds every error, and `kept` leaves the dropped warnings out."""

    def __init__(self, said: list[Diagnostic]) -> None:
        self.said = said
        self._at: dict[Location, list[Diagnostic]] = {}  # what is said at each place
        self._seen: list[Diagnostic] = []  # the part of `said` `_at` holds
        # By id of a diagnostic `add` said: it (kept alive, so no id is reused) and its reading.
        self._reading: dict[int, tuple[Diagnostic, Hashable]] = {}
        self._dropped: dict[int, Diagnostic] = {}  # the warnings an error at their place dropped

    def _index(self) -> dict[Location, list[Diagnostic]]:
        seen = len(self._seen)
        if len(self.said) < seen or (seen and self.said[seen - 1] is not self._seen[-1]):
            self._at, self._seen, seen = {}, [], 0  # (what others appended was cut: read it all again)
        for earlier in self.said[seen:]:
            self._at.setdefault(earlier.location, []).append(earlier)
            self._seen.append(earlier)
        return self._at

    def add(self, diagnostic: Diagnostic, reading: Hashable) -> None:
        """Say `diagnostic`, found by `reading` (a dialect, say), unless its place has it already
        or has an error; an error drops the warnings other readings said at its place."""
        at = [x for x in self._index().get(diagnostic.location, []) if id(x) not in self._dropped]
        if any(x.code == diagnostic.code or x.is_error > diagnostic.is_error for x in at):
            return
        if diagnostic.is_error:
            by_other = [x for x in at if not x.is_error and self._reading.get(id(x), (x, None))[1] != reading]
            self._dropped.update((id(x), x) for x in by_other)
        self._reading[id(diagnostic)] = (diagnostic, reading)
        self.said.append(diagnostic)

    def kept(self) -> Iterator[Diagnostic]:
        """What is said, without the warnings an error dropped."""
        return (d for d in self.said if id(d) not in self._dropped)
