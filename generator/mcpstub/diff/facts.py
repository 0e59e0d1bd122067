"""Facts about one schema node, with no comparison in them: its types, numeric and length bounds,
the literal values it is limited to, every value of a small finite node, and the one node that a
conjunction of plain parts amounts to. `Reason` is what the comparison reports.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import jsonschema_rs

from mcpstub.diff.semantics import Context

JSON = Any
IPath = tuple[str | int, ...]  # instance path; "*" any item, "**" any unlisted key

ALL_TYPES = frozenset({"null", "boolean", "object", "array", "string", "number"})
FINITE_RANGE = 256  # integer ranges up to this size are decided by trying every value


@dataclass
class Reason:
    """Why A may not be a subset of B, at `path` inside the NEW schema."""

    kind: str
    path: str
    message: str
    exact: bool
    a_ptr: str = ""
    b_ptr: str = ""
    ipath: IPath = ()
    witness: JSON = None
    has_witness: bool = False


def show(value: JSON, limit: int = 60) -> str:
    """A JSON value as one short line."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Virtual(dict[str, Any]):
    """A schema node built by the comparison (a merge): it has no place in the document."""


def canon(value: JSON) -> str:
    """A JSON value as text that is equal only for values the server's validator calls equal: 1
    and 1.0; past 2**53 an integer and a float are two (a `const` may take them as one, a bound
    does not: `minimum: 2.0**63` takes the float 2.0**63, `minimum: 9223372036854776000` not)."""
    return json.dumps(_plain(value), sort_keys=True, ensure_ascii=False)


def _plain(value: JSON) -> JSON:
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _huge(value: JSON) -> bool:
    """Whether a number past 2**53 stands in `value`: the server compares such an integer and a
    float otherwise than their values (see `canon`), which a list of values misses."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return abs(value) > 2**53
    if isinstance(value, list):
        return any(map(_huge, value))
    if isinstance(value, dict):
        return any(map(_huge, value.values()))
    return False


def types_of(node: dict[str, Any]) -> set[str]:
    declared = node.get("type")
    if declared is None:
        return set(ALL_TYPES)
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    found = {n for n in names if isinstance(n, str)}
    if "number" in found:
        found.discard("integer")
    return found


def allows(types: set[str], kind: str) -> bool:
    if kind == "integer":
        return "integer" in types or "number" in types
    return kind in types


Bound = tuple[float | int, bool]  # (value, exclusive)


def num(value: JSON) -> bool:
    """A finite JSON number (an integer of any size: past a float's range it is still finite)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool)


def lower(node: dict[str, Any], inclusive: str, exclusive: str | None) -> Bound | None:
    best: Bound | None = None
    if num(node.get(inclusive)):
        best = (node[inclusive], False)
    if exclusive and num(node.get(exclusive)):
        cand = (node[exclusive], True)
        if best is None or cand[0] >= best[0]:
            best = cand
    return best


def upper(node: dict[str, Any], inclusive: str, exclusive: str | None) -> Bound | None:
    best: Bound | None = None
    if num(node.get(inclusive)):
        best = (node[inclusive], False)
    if exclusive and num(node.get(exclusive)):
        cand = (node[exclusive], True)
        if best is None or cand[0] <= best[0]:
            best = cand
    return best


def int_low(bound: Bound | None) -> int | None:
    """The smallest integer above a lower bound."""
    if bound is None:
        return None
    value, excl = bound
    return math.floor(value) + 1 if excl else math.ceil(value)


def int_high(bound: Bound | None) -> int | None:
    if bound is None:
        return None
    value, excl = bound
    return math.ceil(value) - 1 if excl else math.floor(value)


def fits_low(a: Bound | None, b: Bound | None, integer: bool) -> bool:
    """Every value above `a` is above `b`."""
    if b is None:
        return True
    if a is None:
        return False
    if integer and not _huge([a[0], b[0]]):  # (past 2**53 the server places a float among integers)
        low = int_low(a)
        assert low is not None
        return low > b[0] if b[1] else low >= b[0]
    return a[0] > b[0] or (a[0] == b[0] and (a[1] or not b[1]))


def fits_high(a: Bound | None, b: Bound | None, integer: bool) -> bool:
    if b is None:
        return True
    if a is None:
        return False
    if integer and not _huge([a[0], b[0]]):
        high = int_high(a)
        assert high is not None
        return high < b[0] if b[1] else high <= b[0]
    return a[0] < b[0] or (a[0] == b[0] and (a[1] or not b[1]))


def frac(value: float | int) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def multiple(of: JSON, value: JSON) -> bool:
    """`value` is an integer multiple of `of`."""
    if not (num(of) and num(value)) or of <= 0:
        return False
    return (frac(value) / frac(of)).denominator == 1


def shown_or_none(value: JSON) -> str:
    """A keyword's value as a finding says it: `(none)` where the schema has no such keyword."""
    return "(none)" if value is None else show(value)


def bound_text(name: str, bound: Bound | None, exclusive: str) -> str:
    if bound is None:
        return f"no {name}"
    return f"{exclusive if bound[1] else name} {show(bound[0])}"


def matching(patterns: dict[str, Any], name: str) -> list[str] | None:
    """The patterns (ECMA-262, as validators read them) that match a name; None if one cannot be read."""
    found = []
    for pattern in patterns:
        try:
            if jsonschema_rs.is_valid({"pattern": pattern}, name):
                found.append(pattern)
        except Exception:  # not a regular expression the validator reads
            return None
    return found


def expand(types: set[str]) -> set[str]:
    return types | {"integer"} if "number" in types else set(types)


def names_in(value: JSON) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def literals(node: JSON) -> set[str] | None:
    """The values a node is limited to by `const` or `enum` (canonical JSON), if it is."""
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return {canon(node["const"])}
    if isinstance(node.get("enum"), list):
        return {canon(v) for v in node["enum"]}
    return None


def inhabited_types(node: dict[str, Any]) -> set[str]:
    """The node's types that some instance can take (a type whose bounds cross is empty)."""
    found = set()
    for t in types_of(node):
        if t == "string":
            lo, hi = int_low(lower(node, "minLength", None)), int_high(upper(node, "maxLength", None))
            if lo is not None and hi is not None and lo > hi:
                continue
        elif t in ("number", "integer"):
            lo_b, hi_b = (
                lower(node, "minimum", "exclusiveMinimum"),
                upper(node, "maximum", "exclusiveMaximum"),
            )
            if t == "integer":
                lo, hi = int_low(lo_b), int_high(hi_b)
                if lo is not None and hi is not None and lo > hi:
                    continue
            elif (
                lo_b is not None
                and hi_b is not None
                and (lo_b[0] > hi_b[0] or (lo_b[0] == hi_b[0] and (lo_b[1] or hi_b[1])))
            ):
                continue
        elif t in ("array", "object"):
            what = "Items" if t == "array" else "Properties"
            lo, hi = int_low(lower(node, f"min{what}", None)), int_high(upper(node, f"max{what}", None))
            if lo is not None and hi is not None and lo > hi:
                continue
        found.add(t)
    return found


def _spellings(value: JSON) -> list[JSON] | None:
    """The values the server may take as `value`: itself; past 2**53 also the float nearest it
    and the integers that float spells (it compares such numbers otherwise than by their values,
    see `canon`), for a number alone (None for one inside an array or object)."""
    if not _huge(value):
        return [value]
    if not isinstance(value, int | float):
        return None
    spelt: list[JSON] = [value]
    try:
        near = float(value)
    except OverflowError:  # (past what a double holds: the server's reading of it is its own)
        return None
    if math.isfinite(near):
        for other in (near, int(near), int(Decimal(repr(near)))):
            if not any(type(other) is type(seen) and other == seen for seen in spelt):
                spelt.append(other)
    return spelt


_INTEGER_BOUNDS = ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum")


def finite_values(
    node: dict[str, Any], ctx: Context, depth: int = 0, seen: dict[int, list[JSON] | None] | None = None
) -> list[JSON] | None:
    """Every value the node may take, when there are few (else None); some may be refused by the
    node's other keywords (an `anyOf` of `const`s beside a `type` gives every const)."""
    keys = ctx.keywords(node)
    if "const" in keys:
        return _spellings(node["const"])
    if "enum" in keys and isinstance(node["enum"], list):
        listed: list[JSON] = []
        for value in node["enum"]:
            spelt = _spellings(value)
            if spelt is None:
                return None
            listed += spelt
        return listed
    for kw in ("anyOf", "oneOf"):
        if kw in keys and isinstance(node[kw], list) and depth < 4:
            union: dict[str, JSON] = {}  # (by canon: branches through shared refs repeat values)
            seen = {} if seen is None else seen  # (each shared branch read once)
            for written in node[kw]:
                branch = ctx.resolve(written, "")[0]
                if isinstance(branch, dict) and id(branch) not in seen:
                    seen[id(branch)] = finite_values(branch, ctx, depth + 1, seen)
                held = seen[id(branch)] if isinstance(branch, dict) else None
                if held is None and branch is not False:
                    break
                union.update((canon(v), v) for v in held or ())
                if len(union) > FINITE_RANGE:
                    break
            else:
                return list(union.values())
    if "type" not in keys:
        return None
    types = types_of(node)
    values: list[JSON] = []
    only_empty: list[tuple[str, JSON, str]] = [("string", "", "maxLength"), ("array", [], "maxItems")]
    for kind, empty, most in [*only_empty, ("object", {}, "maxProperties")]:
        if kind in types:  # finite where it can only be empty (an object also where closed to all)
            if int_high(upper(node, most, None)) != 0 and not (kind == "object" and _closed_to_all(node)):
                return None
            values.append(empty)
    types = types - {"string", "array", "object"}
    if not types <= {"null", "boolean", "integer", "number"}:
        return None
    if "null" in types:
        values.append(None)
    if "boolean" in types:
        values += [False, True]
    if "number" in types:  # finite when its bounds meet (or cross): one value, or none
        low, high = lower(node, "minimum", "exclusiveMinimum"), upper(node, "maximum", "exclusiveMaximum")
        if low is None or high is None or low[0] < high[0] or _huge([low[0], high[0]]):
            return None
        if low[0] == high[0] and not (low[1] or high[1]):
            values.append(node["minimum"] if low[0] == node.get("minimum") else low[0])
    elif "integer" in types:
        lo = int_low(lower(node, "minimum", "exclusiveMinimum"))
        hi = int_high(upper(node, "maximum", "exclusiveMaximum"))
        if lo is None or hi is None or hi - lo > FINITE_RANGE:
            return None
        if _huge([lo, hi]):  # (an integer bound there places the server's floats as its value
            if any(isinstance(node.get(k), float) for k in _INTEGER_BOUNDS):  # does; a float not)
                return None
            return values + [spelt for i in range(lo, hi + 1) for spelt in _spellings(i) or ()]
        values += list(range(lo, hi + 1))
    return values


def _closed_to_all(node: dict[str, Any]) -> bool:
    """Whether an object schema takes no property: closed, and any it names refused."""
    props = node.get("properties", {})
    return (
        node.get("additionalProperties") is False
        and not node.get("patternProperties")
        and isinstance(props, dict)
        and all(value is False for value in props.values())
    )


_MERGE_MIN = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_MERGE_MAX = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_OBJECT_SHAPE = frozenset({"properties", "patternProperties", "additionalProperties"})
# Keywords whose meaning depends on their siblings in the same node: merged from different parts,
# they would judge together what each judged apart (`then` without its `if` is inert, and so is
# `minContains` without `contains`; `additionalItems` sees only its own node's `items`; a
# `contentMediaType` is read in the encoding its own node names).
_SIBLING_GROUPS = (
    frozenset({"contentEncoding", "contentMediaType", "contentSchema"}),
    frozenset({"if", "then", "else"}),
    frozenset({"contains", "minContains", "maxContains"}),
    frozenset({"items", "prefixItems", "additionalItems"}),
    frozenset({"unevaluatedProperties", "unevaluatedItems"}),
)


def merge(parts: list[JSON], ctx: Context) -> Virtual | None:
    """One node equivalent to the conjunction of `parts`, when they combine plainly (else None)."""
    dicts: list[dict[str, Any]] = []
    for part in parts:
        if part is True:
            continue
        if not isinstance(part, dict):
            return None
        if isinstance(part.get("$ref"), str) and ctx.keywords(part) - {"$ref"} and ctx.dialect != "draft-07":
            return None
        if "allOf" in part or "$ref" in part:
            return None
        dicts.append(part)
    closed = [d for d in dicts if "additionalProperties" in d or "patternProperties" in d]
    shaped = [d for d in dicts if _OBJECT_SHAPE & set(d)]
    if closed and len(shaped) > 1:
        return None  # additionalProperties only sees its own node's properties
    for group in _SIBLING_GROUPS:
        if sum(bool(group & ctx.keywords(d)) for d in dicts) > 1 or (
            "unevaluatedItems" in group and any(group & ctx.keywords(d) for d in dicts)
        ):
            return None
    merged: Virtual = Virtual()
    for d in dicts:
        keys = ctx.keywords(d)
        for key, value in d.items():
            if key not in keys:
                continue
            if key not in merged:
                merged[key] = value
            elif key == "required":
                merged[key] = sorted({*merged[key], *value}) if isinstance(value, list) else value
            elif key == "properties" and isinstance(value, dict):
                props = dict(merged[key])
                for name, sub in value.items():
                    props[name] = Virtual({"allOf": [props[name], sub]}) if name in props else sub
                merged[key] = props
            elif key == "type":
                both = expand(types_of({"type": merged[key]})) & expand(types_of({"type": value}))
                if "number" in both:
                    both.discard("integer")
                merged[key] = sorted(both)
            elif key == "enum" and isinstance(value, list) and isinstance(merged[key], list):
                if _huge([value, merged[key]]):
                    return None  # (past 2**53 the server takes numbers canon keeps apart as one)
                taken = {canon(v) for v in value}  # the values both lists hold, in the first's order
                merged[key] = [v for v in merged[key] if canon(v) in taken]
            elif key in _MERGE_MIN and num(value) and num(merged[key]):
                merged[key] = max(merged[key], value)
            elif key in _MERGE_MAX and num(value) and num(merged[key]):
                merged[key] = min(merged[key], value)
            elif canon(merged[key]) != canon(value):
                return None
    return merged
