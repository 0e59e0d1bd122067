"""Bounds that accept nothing: a lower bound above its upper one in one schema (`accepts-nothing`),
judged as the server's validator compares them, as written and as clients read them (doubles)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from mcpstub.diagnostics import Diagnostic, warning

if TYPE_CHECKING:
    from mcpstub.document import Document, JsonPath


# The bounds of one kind of value: lower keywords, upper keywords (an exclusive one second), the kind.
_RANGES = (
    (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum"), "number"),
    (("minLength",), ("maxLength",), "string"),
    (("minItems",), ("maxItems",), "array"),
    (("minProperties",), ("maxProperties",), "object"),
    (("minContains",), ("maxContains",), "array"),
    (("minContains",), ("maxItems",), "array"),
    (("minItems",), ("maxContains",), "array"),  # (where every item counts toward `contains`)
)
BOUNDS = frozenset(key for lows, highs, _ in _RANGES for key in (*lows, *highs))
_AT_LEAST_ONE = "contains (one item at least)"  # what `contains` asks where no minContains is read


def range_problems(
    doc: Document, where: JsonPath, node: dict[str, Any], draft07: bool
) -> Iterator[Diagnostic]:
    """A warning of each lower bound above an upper one in one schema: no value of that kind passes
    there (no integer, where the schema takes integers alone and no whole number lies between; no
    multiple of a whole `multipleOf`)."""
    for lows, highs, kind in _RANGES:
        # (a bound the schema check refuses, a negative length or an infinity, is said there)
        given: dict[str, float] = {k: node[k] for k in (*lows, *highs) if _is_bound(node.get(k), kind)}
        if "Contains" in lows[0] + highs[0]:  # (without `contains` they apply to nothing)
            counts_all = node.get("contains") is True or node.get("contains") == {}  # (every item counts)
            if "contains" not in node or (draft07 and "maxContains" in highs):
                continue  # (draft-07 reads no maxContains)
            if lows[0] == "minItems" and not counts_all:
                continue
            if lows[0] == "minContains" and (draft07 or "minContains" not in given):
                given = {_AT_LEAST_ONE: 1, **{k: v for k, v in given.items() if k != "minContains"}}
        lower, upper = [k for k in given if k not in highs], [k for k in highs if k in given]
        if not (lower and upper):
            continue
        # The strictest of each side: on a tie, the exclusive one (listed second).
        low = max(reversed(lower), key=given.__getitem__)
        high = min(reversed(upper), key=given.__getitem__)
        a, b, exclusive = given[low], given[high], "exclusive" in low + high
        what, between, empty = kind, "nothing", _empty(a, b, exclusive)
        types: list[Any] = node["type"] if isinstance(node.get("type"), list) else [node.get("type")]
        if kind == "number" and "integer" in types and "number" not in types and not empty:
            what, between = "integer", "no whole number"  # (1.2 to 1.8)
            empty = _no_whole_number(a, b, low.startswith("exc"), high.startswith("exc"))
        written: Any = node.get("multipleOf")
        step = int(written) if _is_bound(written, "length") else 0
        if kind == "number" and not empty and 1 <= step < 2**53 and max(abs(a), abs(b)) < 2**53:
            # (past 2**53 the validator compares bounds as doubles, multiples exactly: left unjudged)
            what = f"multiple of {step}"  # (11 to 14 by 5; 1.2 to 1.8 by 1)
            between = f"no {what}"
            empty = _no_whole_number(a, b, low.startswith("exc"), high.startswith("exc"), step)
        if empty:
            shown = [name if name == _AT_LEAST_ONE else f"{name} {given[name]!r}" for name in (low, high)]
            yield warning(
                "accepts-nothing",
                f"{doc.describe(where)} accepts no {what}: its {shown[0]} and its {shown[1]}"
                f" leave {between} between them",
                doc.key_loc((*where, "contains")) if low == _AT_LEAST_ONE else doc.loc((*where, low)),
                "mend the bound that is wrong (swapped with the other, or a digit off)",
            )


def _empty(a: float, b: float, exclusive: bool) -> bool:
    """No value from `a` to `b` as written, nor as clients read them (doubles: 10**20 + 1 is 1e20)."""
    return all(x > y or (x == y and exclusive) for x, y in ((a, b), (float(a), float(b))))


def _no_whole_number(a: float, b: float, above: bool, below: bool, step: int = 1) -> bool:
    """No whole number (times `step`) from `a` to `b` (`above`, `below`: that bound is exclusive),
    as written nor as clients read them (doubles)."""
    return all(
        (math.floor(x) + 1 if above else math.ceil(x)) > (math.ceil(y) - 1 if below else math.floor(y))
        for x, y in (
            (Fraction(a) / step, Fraction(b) / step),
            (Fraction(float(a)) / step, Fraction(float(b)) / step),
        )
    )


def _is_bound(value: Any, kind: str) -> bool:
    """A bound the schema check takes and the server compares exactly: a finite number below 2**63
    (past it, jsonschema-rs compares an integer with a float bound as a double: 2**63 passes
    `exclusiveMaximum: 9.223372036854776e18`); a length a whole one, not negative."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        if not math.isfinite(float(value)) or abs(value) >= 2**63:
            return False
    except OverflowError:  # (an integer past any double)
        return False
    return kind == "number" or (value >= 0 and value == int(value))
