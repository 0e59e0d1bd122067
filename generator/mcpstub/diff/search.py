"""Counterexample search: settle what the rules cannot decide by generating instances.

`Searcher(a_root, b_root)` draws instances of schema A with hypothesis-jsonschema (bounded
examples and time, derandomized: the same schemas give the same answer) and keeps one that A
accepts and B refuses, both judged by jsonschema-rs in each schema's own dialect (ECMA-262
patterns, formats checked as the generated server checks them). A candidate must also be refused
at the node the rules could not decide, so the finding is attributed to the right place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import jsonschema_rs

from mcpstub.diff.compare import Context, IPath, Reason

JSON = Any
MISSING_HINT = (
    "the counterexample search needs hypothesis and hypothesis-jsonschema: pip install 'mcpstub[diff]'"
)


class _OutOfTime(Exception):
    pass


@dataclass(frozen=True)
class Outcome:
    """What a search found: `found` with the instance, or why there is none."""

    found: bool
    instance: JSON = None
    note: str = ""


def search_available() -> bool:
    """True when hypothesis and hypothesis-jsonschema can be imported."""
    try:
        import hypothesis  # noqa: F401, PLC0415
        import hypothesis_jsonschema  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


def _at(instance: JSON, path: IPath) -> Iterator[JSON]:
    """The parts of an instance an instance path (with `*` and `**` wildcards) reaches."""
    if not path:
        yield instance
        return
    head, rest = path[0], path[1:]
    if head == "*" and isinstance(instance, list):
        for item in instance:
            yield from _at(item, rest)
    elif head == "**" and isinstance(instance, dict):
        for value in instance.values():
            yield from _at(value, rest)
    elif isinstance(head, int) and isinstance(instance, list) and head < len(instance):
        yield from _at(instance[head], rest)
    elif isinstance(head, str) and isinstance(instance, dict) and head in instance:
        yield from _at(instance[head], rest)


class Searcher:
    """Searches for instances of A that B refuses."""

    def __init__(self, a_root: JSON, b_root: JSON, max_examples: int, seconds: float) -> None:
        self.a, self.b = Context(a_root), Context(b_root)
        self.max_examples, self.seconds = max_examples, seconds

    @cached_property
    def _roots(self) -> tuple[Callable[[JSON], bool], Callable[[JSON], bool]] | None:
        try:
            in_a = jsonschema_rs.validator_for(self.a.root, validate_formats=True).is_valid
            in_b = jsonschema_rs.validator_for(self.b.root, validate_formats=True).is_valid
        except Exception:
            return None
        return in_a, in_b

    @cached_property
    def _strategy(self) -> Any:
        from hypothesis_jsonschema import from_schema  # noqa: PLC0415

        return from_schema(self.a.root)

    def find(self, reason: Reason) -> Outcome:
        """An instance of A, refused by B at the reason's node."""
        if not search_available():
            return Outcome(False, note=MISSING_HINT)
        roots = self._roots
        if roots is None:
            return Outcome(False, note="a schema could not be compiled for the search")
        in_a, in_b = roots
        node_a = self.a.validator(self.a.lookup(reason.a_ptr)[1], reason.a_ptr)
        node_b = self.b.validator(self.b.lookup(reason.b_ptr)[1], reason.b_ptr)
        try:
            strategy = self._strategy
        except Exception as exc:  # hypothesis-jsonschema refuses some schemas outright
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return Outcome(False, note=f"instances could not be generated: {text[:120]}")
        deadline = time.monotonic() + self.seconds
        best: list[JSON] = []

        def refused_here(instance: JSON) -> bool:
            if node_a is None or node_b is None:
                return True
            return any(node_a(part) and not node_b(part) for part in _at(instance, reason.ipath))

        def condition(instance: JSON) -> bool:
            if time.monotonic() > deadline:
                raise _OutOfTime
            if in_a(instance) and not in_b(instance) and refused_here(instance):
                best.append(instance)
                return True
            return False

        from hypothesis import HealthCheck, Verbosity, find, settings  # noqa: PLC0415
        from hypothesis.errors import HypothesisException  # noqa: PLC0415

        bounded = settings(
            max_examples=self.max_examples,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
        )
        try:
            found = find(strategy, condition, settings=bounded)
        except _OutOfTime:
            if best:
                return Outcome(True, best[-1])
            return Outcome(False, note=f"no counterexample within {self.seconds:g} s")
        except HypothesisException as exc:
            if best:
                return Outcome(True, best[-1])
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            if type(exc).__name__ == "NoSuchExample":
                return Outcome(False, note=f"no counterexample in {self.max_examples} instances")
            return Outcome(False, note=f"instances could not be generated: {text[:120]}")
        except Exception as exc:  # hypothesis-jsonschema refuses some schemas outright
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return Outcome(False, note=f"instances could not be generated: {text[:120]}")
        return Outcome(True, found)
