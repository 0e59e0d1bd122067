"""Compare two self-contained schemas: is every instance of A also an instance of B?

Both directions of `diff` reduce to this one question. For an input, A is OLD and B is NEW (an
input breaks clients when NEW refuses what OLD accepted); for an output, A is NEW and B is OLD
(an output breaks clients when NEW may send what OLD never did). `Subset(...).run()` walks the
two schemas side by side, following `$ref`s structurally (so moving a definition is no change),
and returns `Reason`s, each at a JSON pointer inside the NEW schema:

- exact reasons: the rules know an instance of A outside B exists (a breaking change);
- inexact reasons: the rules cannot decide (an `anyOf`/`not`/`if` rewrite, a pattern change, a
  constraint beside a keyword the rules do not model); the counterexample search settles them.

The rules are sound: when no reason is returned, A is a subset of B. A finite A (a `const`, an
`enum`, booleans, a small integer range) is decided exactly by validating every value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any

import jsonschema_rs

from mcpstub.bundle import resolve_pointer, split_pointer
from mcpstub.validate import schema_dialect

JSON = Any
IPath = tuple[str | int, ...]  # instance path; "*" any item, "**" any unlisted key

_COMMON = frozenset(
    {
        "$ref", "type", "enum", "const", "properties", "required", "additionalProperties",
        "patternProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems",
        "uniqueItems", "minProperties", "maxProperties", "allOf", "anyOf", "oneOf", "not", "if",
        "then", "else", "items", "contains", "propertyNames", "dependencies",
    }
)  # fmt: skip
# The keywords that validate in each dialect (as jsonschema-rs applies them); others are inert.
ACTIVE = {
    "2020-12": _COMMON
    | {
        "prefixItems", "dependentRequired", "dependentSchemas", "unevaluatedProperties",
        "unevaluatedItems", "minContains", "maxContains", "$dynamicRef",
    },
    "draft-07": _COMMON | {"additionalItems"},
}  # fmt: skip
# Keywords the rules do not model: equal on both sides is no change, anything else is undecided.
_OPAQUE_GROUPS = (
    ("not",),
    ("if", "then", "else"),
    ("contains", "minContains", "maxContains"),
    ("propertyNames",),
    ("dependencies",),
    ("dependentRequired",),
    ("dependentSchemas",),
    ("$dynamicRef",),
)
_UNEVALUATED = ("unevaluatedProperties", "unevaluatedItems")
_ONE = frozenset(
    {
        "additionalProperties", "additionalItems", "contains", "not", "if", "then", "else",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties",
    }
)  # fmt: skip
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"properties", "patternProperties", "dependentSchemas"})
_ALL_TYPES = frozenset({"null", "boolean", "object", "array", "string", "number"})
_FINITE_RANGE = 256  # integer ranges up to this size are decided by trying every value
KNOWN_FORMATS = frozenset(
    {
        "date", "date-time", "time", "duration", "email", "idn-email", "hostname", "idn-hostname",
        "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uri-template", "uuid",
        "json-pointer", "relative-json-pointer", "regex",
    }
)  # fmt: skip


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


def encode(part: str | int) -> str:
    """One JSON pointer segment."""
    return str(part).replace("~", "~0").replace("/", "~1")


def show(value: JSON, limit: int = 60) -> str:
    """A JSON value as one short line."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Virtual(dict[str, Any]):
    """A schema node built by the comparison (a merge): it has no place in the document."""


@dataclass
class Context:
    """One side's root schema, its dialect, and validators for its nodes (built on demand)."""

    root: JSON

    @cached_property
    def dialect(self) -> str:
        """2020-12 or draft-07."""
        return schema_dialect(self.root) or "2020-12"

    @cached_property
    def active(self) -> frozenset[str]:
        """The keywords that validate in this dialect."""
        return ACTIVE[self.dialect]

    @cached_property
    def _validators(self) -> Any:
        try:
            return jsonschema_rs.validator_map_for(self.root, validate_formats=True)
        except Exception:  # a schema the validator cannot compile: nothing is decided by values
            return None

    def lookup(self, ptr: str) -> tuple[bool, JSON]:
        """The node at a pointer into the root."""
        parts = split_pointer(ptr)
        if parts is None:
            return False, None
        found, value, _ = resolve_pointer(self.root, parts)
        return found, value

    def validator(self, node: JSON, ptr: str) -> Callable[[JSON], bool] | None:
        """A validity test for `node`; None when it cannot be built."""
        if node is True or (isinstance(node, dict) and not self.keywords(node)):
            return lambda _: True
        if node is False:
            return lambda _: False
        if not isinstance(node, dict):  # a pointer into a merged node, which has no place of its own
            return None
        if not isinstance(node, _Virtual):
            found, real = self.lookup(ptr)
            if found and real is node and self._validators is not None:
                v = self._validators.get("#" + ptr)
                if v is not None:
                    return v.is_valid  # type: ignore[no-any-return]
        standalone = dict(node)
        for key in ("$defs", "definitions", "$schema"):
            if isinstance(self.root, dict) and key in self.root and key not in standalone:
                standalone[key] = self.root[key]
        try:
            compiled = jsonschema_rs.validator_for(standalone, validate_formats=True)
            test: Callable[[JSON], bool] = compiled.is_valid
            return test
        except Exception:  # refs that only resolve in place
            return None

    def keywords(self, node: dict[str, Any]) -> set[str]:
        """The node's keywords that validate."""
        return {k for k in node if k in self.active}

    def resolve(self, node: JSON, ptr: str) -> tuple[JSON, str]:
        """Follow bare `$ref`s (draft-07 ignores a ref's siblings; 2020-12 keeps them as a conjunct)."""
        for _ in range(64):
            if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
                return node, ptr
            if self.dialect != "draft-07" and self.keywords(node) - {"$ref"}:
                return node, ptr
            fragment = node["$ref"].partition("#")[2]
            found, target = self.lookup(fragment)
            if not found:
                return {}, ptr  # cannot happen after bundling; treat as unconstrained
            node, ptr = target, fragment
        return node, ptr


def _canon(value: JSON) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _types(node: dict[str, Any]) -> set[str]:
    declared = node.get("type")
    if declared is None:
        return set(_ALL_TYPES)
    names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
    found = {n for n in names if isinstance(n, str)}
    if "number" in found:
        found.discard("integer")
    return found


def _allows(types: set[str], kind: str) -> bool:
    if kind == "integer":
        return "integer" in types or "number" in types
    return kind in types


Bound = tuple[float | int, bool]  # (value, exclusive)


def _num(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _lower(node: dict[str, Any], inclusive: str, exclusive: str | None) -> Bound | None:
    best: Bound | None = None
    if _num(node.get(inclusive)):
        best = (node[inclusive], False)
    if exclusive and _num(node.get(exclusive)):
        cand = (node[exclusive], True)
        if best is None or cand[0] >= best[0]:
            best = cand
    return best


def _upper(node: dict[str, Any], inclusive: str, exclusive: str | None) -> Bound | None:
    best: Bound | None = None
    if _num(node.get(inclusive)):
        best = (node[inclusive], False)
    if exclusive and _num(node.get(exclusive)):
        cand = (node[exclusive], True)
        if best is None or cand[0] <= best[0]:
            best = cand
    return best


def _int_low(bound: Bound | None) -> int | None:
    """The smallest integer above a lower bound."""
    if bound is None:
        return None
    value, excl = bound
    return math.floor(value) + 1 if excl else math.ceil(value)


def _int_high(bound: Bound | None) -> int | None:
    if bound is None:
        return None
    value, excl = bound
    return math.ceil(value) - 1 if excl else math.floor(value)


def _fits_low(a: Bound | None, b: Bound | None, integer: bool) -> bool:
    """Every value above `a` is above `b`."""
    if b is None:
        return True
    if a is None:
        return False
    if integer:
        low = _int_low(a)
        assert low is not None
        return low > b[0] if b[1] else low >= b[0]
    return a[0] > b[0] or (a[0] == b[0] and (a[1] or not b[1]))


def _fits_high(a: Bound | None, b: Bound | None, integer: bool) -> bool:
    if b is None:
        return True
    if a is None:
        return False
    if integer:
        high = _int_high(a)
        assert high is not None
        return high < b[0] if b[1] else high <= b[0]
    return a[0] < b[0] or (a[0] == b[0] and (a[1] or not b[1]))


def _frac(value: float | int) -> Fraction:
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def _multiple(of: JSON, value: JSON) -> bool:
    """`value` is an integer multiple of `of`."""
    if not (_num(of) and _num(value)) or of <= 0:
        return False
    return (_frac(value) / _frac(of)).denominator == 1


def _bound_text(name: str, bound: Bound | None, exclusive: str) -> str:
    if bound is None:
        return f"no {name}"
    return f"{exclusive if bound[1] else name} {show(bound[0])}"


@dataclass
class Subset:
    """Decides `A ⊆ B` for two schema roots; `a_is_old` says which one is NEW (for paths and words)."""

    a_root: JSON
    b_root: JSON
    a_is_old: bool
    reasons: list[Reason] = field(default_factory=list)
    infos: list[tuple[str, str]] = field(default_factory=list)
    _active: set[tuple[str, str, int, int]] = field(default_factory=set)
    _trial: int = 0

    def __post_init__(self) -> None:
        self.a = Context(self.a_root)
        self.b = Context(self.b_root)

    def run(self) -> list[Reason]:
        """Compare the two roots."""
        self.check(self.a_root, "", self.b_root, "", (), True)
        return self.reasons

    # -- wording ---------------------------------------------------------------------------

    @property
    def _input(self) -> bool:
        return self.a_is_old

    def _new(self, ap: str, bp: str) -> str:
        return bp if self.a_is_old else ap

    def add(
        self, kind: str, ap: str, bp: str, ip: IPath, message: str, exact: bool, suffix: str = ""
    ) -> None:
        """Record a reason at the NEW side's node (plus `suffix`)."""
        self.reasons.append(Reason(kind, self._new(ap, bp) + suffix, message, exact, ap, bp, ip))

    def undecided(self, ap: str, bp: str, ip: IPath, message: str, suffix: str = "") -> None:
        """Record something the rules cannot decide."""
        self.add("undecided", ap, bp, ip, message, False, suffix)

    def _trial_reasons(self, a: JSON, ap: str, b: JSON, bp: str, ip: IPath) -> list[Reason]:
        saved, self.reasons = self.reasons, []
        self._trial += 1
        try:
            self.check(a, ap, b, bp, ip, True)
            return self.reasons
        finally:
            self.reasons = saved
            self._trial -= 1

    def _describe(self, a: JSON, ap: str, b: JSON, bp: str) -> None:
        if self._trial or not (isinstance(a, dict) and isinstance(b, dict)):
            return
        if isinstance(a, _Virtual) or isinstance(b, _Virtual):
            return
        for key in ("title", "description", "default"):
            if _canon(a.get(key)) != _canon(b.get(key)):
                self.infos.append((self._new(ap, bp) + "/" + key, key))

    # -- equality ----------------------------------------------------------------------------

    def equal(self, x: JSON, xp: str, y: JSON, yp: str, seen: set[tuple[str, str]] | None = None) -> bool:
        """Same validation meaning, structurally: refs followed, annotations ignored."""
        seen = set() if seen is None else seen
        x, xp = self.a.resolve(x, xp)
        y, yp = self.b.resolve(y, yp)
        if (xp, yp) in seen:
            return True
        seen.add((xp, yp))
        if isinstance(x, bool) or isinstance(y, bool):
            x = {} if x is True else x
            y = {} if y is True else y
            if isinstance(x, bool) or isinstance(y, bool):
                return x is y or (isinstance(x, dict) and isinstance(y, dict))
        if not (isinstance(x, dict) and isinstance(y, dict)):
            return _canon(x) == _canon(y)
        keys = self.a.keywords(x)
        if keys != self.b.keywords(y):
            return False
        return all(self._equal_key(key, x[key], xp, y[key], yp, seen) for key in keys)

    def equal_keyword(self, key: str, xv: JSON, xp: str, yv: JSON, yp: str) -> bool:
        """Same meaning of one keyword's values, in the nodes at `xp` (A) and `yp` (B).

        A keyword's value is not a schema (a map of them, a list of them, names): compared as one,
        any map would look like a schema without keywords, equal to every other.
        """
        return self._equal_key(key, xv, xp, yv, yp, set())

    def _equal_key(self, key: str, xv: JSON, xp: str, yv: JSON, yp: str, seen: set[tuple[str, str]]) -> bool:
        if key == "$ref":
            if not (isinstance(xv, str) and isinstance(yv, str)):
                return False
            fx, tx = self.a.lookup(xv.partition("#")[2])
            fy, ty = self.b.lookup(yv.partition("#")[2])
            return fx and fy and self.equal(tx, xv.partition("#")[2], ty, yv.partition("#")[2], seen)
        if key in _ONE or (key == "items" and isinstance(xv, dict | bool)):
            return self.equal(xv, f"{xp}/{key}", yv, f"{yp}/{key}", seen)
        if key in _LIST or key == "items":
            if not (isinstance(xv, list) and isinstance(yv, list) and len(xv) == len(yv)):
                return False
            return all(
                self.equal(xi, f"{xp}/{key}/{i}", yi, f"{yp}/{key}/{i}", seen)
                for i, (xi, yi) in enumerate(zip(xv, yv, strict=True))
            )
        if key in _MAP or key == "dependencies":
            if not (isinstance(xv, dict) and isinstance(yv, dict) and set(xv) == set(yv)):
                return False
            for name in xv:
                p = f"/{key}/{encode(name)}"
                if isinstance(xv[name], list) or isinstance(yv[name], list):  # draft-07 names
                    if _canon(xv[name]) != _canon(yv[name]):
                        return False
                elif not self.equal(xv[name], xp + p, yv[name], yp + p, seen):
                    return False
            return True
        if key in ("required", "type") and isinstance(xv, list) and isinstance(yv, list):
            return sorted(map(_canon, xv)) == sorted(map(_canon, yv))
        return _canon(xv) == _canon(yv)

    # -- the walk ------------------------------------------------------------------------------

    def check(self, a: JSON, ap: str, b: JSON, bp: str, ip: IPath, exact: bool) -> None:
        """Add the reasons why A (at `ap`) may hold an instance B (at `bp`) refuses."""
        a, ap = self.a.resolve(a, ap)
        b, bp = self.b.resolve(b, bp)
        # Identity, not only the pointers: a part of a node (its rest without allOf) sits at the
        # same pointer as the node, and must not pass for a recursive visit of it.
        key = (ap, bp, id(a), id(b))
        if key in self._active:
            return  # recursion through $ref: assume the pair holds (instances are finite)
        if len(self._active) > 200:
            self.undecided(ap, bp, ip, "schemas nest too deeply to compare")
            return
        self._active.add(key)
        try:
            self._check(a, ap, b, bp, ip, exact)
        finally:
            self._active.discard(key)

    def _check(self, a: JSON, ap: str, b: JSON, bp: str, ip: IPath, exact: bool) -> None:
        self._describe(a, ap, b, bp)
        if a is False:
            return
        if b is True or (isinstance(b, dict) and not self.b.keywords(b)):
            return
        if a is True or not isinstance(a, dict):
            a = {}
        if b is False or not isinstance(b, dict):
            words = "no value is accepted any more" if self._input else "values may appear where none could"
            self.add("false", ap, bp, ip, words, exact)
            return
        if any(k in b for k in _UNEVALUATED):
            if not self.equal(a, ap, b, bp):
                self.undecided(ap, bp, ip, "unevaluated properties or items changed together with the schema")
            return
        if any(k in a for k in _UNEVALUATED):
            exact = False
        if self._enumerated(a, ap, b, bp, ip, exact):
            return
        b = self._split_all_of_b(a, ap, b, bp, ip, exact)
        merged = self._merge_all_of_a(a, ap, b, bp, ip)
        if merged is None:
            return
        a = merged
        if self._split_any_of_a(a, ap, b, bp, ip, exact):
            return
        b = self._split_any_of_b(a, ap, b, bp, ip, exact)
        exact = self._opaque(a, ap, b, bp, ip, exact)
        self._typed(a, ap, b, bp, ip, exact)

    def _enumerated(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> bool:
        """Decide a finite A by validating each of its values against B."""
        values = _finite_values(a, self.a)
        if values is None:
            return False
        in_a = self.a.validator(a, ap)
        in_b = self.b.validator(b, bp)
        if in_a is None or in_b is None:
            return False
        bad = [v for v in values if in_a(v) and not in_b(v)]
        if not bad:
            return True
        listed = ", ".join(show(v, 30) for v in bad[:3]) + (", …" if len(bad) > 3 else "")
        if all(v is None for v in bad):
            kind = "null"
        elif "const" in b and "const" not in a:
            kind = "const"
        else:
            kind = "enum"
        if self._input:
            message = f"{'value' if len(bad) == 1 else 'values'} {listed} no longer accepted"
        else:
            message = f"{'value' if len(bad) == 1 else 'values'} {listed} may now be returned"
        new_node = b if self._input else a
        where = next((f"/{k}" for k in ("const", "enum", "type") if k in new_node), "")
        reason = Reason(kind, self._new(ap, bp) + where, message, exact, ap, bp, ip, bad[0], True)
        self.reasons.append(reason)
        return True

    def _conjuncts(
        self, ctx: Context, node: dict[str, Any], ptr: str
    ) -> tuple[dict[str, Any], list[tuple[JSON, str]]]:
        """The node without `allOf` (and without a `$ref` that has siblings), and those parts."""
        members: list[tuple[JSON, str]] = []
        rest = dict(node)
        if isinstance(node.get("allOf"), list) and "allOf" in ctx.active:
            members += [(m, f"{ptr}/allOf/{i}") for i, m in enumerate(node["allOf"])]
            del rest["allOf"]
        if isinstance(node.get("$ref"), str):
            members.append(({"$ref": node["$ref"]}, ptr))
            del rest["$ref"]
        return rest, members

    def _split_all_of_b(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> dict[str, Any]:
        rest, members = self._conjuncts(self.b, b, bp)
        if not members:
            return b
        if "allOf" in a and "allOf" in b and self.equal_keyword("allOf", a["allOf"], ap, b["allOf"], bp):
            members = [m for m in members if not m[1].startswith(bp + "/allOf/")]
        for member, mp in members:
            self.check(a, ap, member, mp, ip, exact)
        return rest

    def _merge_all_of_a(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath
    ) -> dict[str, Any] | None:
        """A as one node when its conjuncts merge; None when decided (or undecided) here."""
        rest, members = self._conjuncts(self.a, a, ap)
        if not members:
            return a
        parts = [rest] + [self.a.resolve(m, mp)[0] for m, mp in members]
        merged = _merge(parts, self.a)
        if merged is not None:
            return merged
        for part, pp in [(rest, ap), *members]:
            if not self._trial_reasons(part, pp, b, bp, ip):
                return None
        self.undecided(ap, bp, ip, "allOf rewritten: the rules cannot compare it")
        return None

    def _split_any_of_a(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> bool:
        for kw in ("anyOf", "oneOf"):
            branches = a.get(kw)
            if not isinstance(branches, list):
                continue
            if isinstance(b.get(kw), list) and self.equal_keyword(kw, branches, ap, b[kw], bp):
                continue
            rest = {k: v for k, v in a.items() if k != kw}
            resolved = [self.a.resolve(br, f"{ap}/{kw}/{i}") for i, br in enumerate(branches)]
            branch_exact = exact and (kw == "anyOf" or self._disjoint(self.a, [r for r, _ in resolved]))
            for i, (found, bpath) in enumerate(resolved):
                branch: JSON = {} if found is True else found
                if not isinstance(branch, dict):
                    continue
                if not self.a.keywords(rest):
                    self.check(branch, bpath, b, bp, ip, branch_exact)
                    continue
                part = _merge([rest, branch], self.a)
                if part is None:
                    part = _Virtual({"allOf": [rest, branch]})
                self.check(part, f"{ap}/{kw}/{i}", b, bp, ip, branch_exact)
            return True
        return False

    def _split_any_of_b(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> dict[str, Any]:
        for kw in ("anyOf", "oneOf"):
            branches = b.get(kw)
            if not isinstance(branches, list):
                continue
            b = {k: v for k, v in b.items() if k != kw}
            if isinstance(a.get(kw), list) and self.equal_keyword(kw, a[kw], ap, branches, bp):
                continue
            resolved = [self.b.resolve(br, f"{bp}/{kw}/{i}") for i, br in enumerate(branches)]
            alone = kw == "anyOf" or self._disjoint(self.b, [r for r, _ in resolved])
            fits = [i for i, (br, brp) in enumerate(resolved) if not self._trial_reasons(a, ap, br, brp, ip)]
            if fits and alone:
                continue
            if alone and self._fits_by_type(a, ap, resolved, ip):
                continue
            covered: set[str] = set()
            for br, _ in resolved:
                if br is True or (isinstance(br, dict) and not self.b.keywords(br)):
                    covered |= _ALL_TYPES
                elif isinstance(br, dict):
                    covered |= _types(br)
            missing = [t for t in sorted(_inhabited_types(a)) if not _allows(covered, t)]
            if missing and not fits:
                self._type_reason(a, {kw: branches}, ap, bp, ip, missing, exact)
            else:
                self.undecided(
                    ap,
                    bp,
                    ip,
                    f"{kw} rewritten: the rules cannot compare it",
                    f"/{kw}" if self._input else "",
                )
        return b

    def _fits_by_type(self, a: dict[str, Any], ap: str, branches: list[tuple[JSON, str]], ip: IPath) -> bool:
        """Each of A's types, taken alone, fits some branch (`[string, null]` into `anyOf`)."""
        types = sorted(_inhabited_types(a))
        if len(types) < 2:
            return False
        for t in types:
            part = _Virtual({**a, "type": t})
            if not any(not self._trial_reasons(part, ap, br, brp, ip) for br, brp in branches):
                return False
        return True

    def _disjoint(self, ctx: Context, branches: list[JSON]) -> bool:
        """No instance matches two branches (so oneOf acts as anyOf): by type or a discriminator."""
        for i, x in enumerate(branches):
            for y in branches[i + 1 :]:
                if not self._apart(ctx, x, y):
                    return False
        return True

    def _apart(self, ctx: Context, x: JSON, y: JSON) -> bool:
        if not (isinstance(x, dict) and isinstance(y, dict) and "type" in x and "type" in y):
            return False
        tx, ty = _expand(_types(x)), _expand(_types(y))
        if not tx & ty:
            return True
        if tx != {"object"} or ty != {"object"}:
            return False
        both = set(_names(x.get("required"))) & set(_names(y.get("required")))
        px = x.get("properties") if isinstance(x.get("properties"), dict) else {}
        py = y.get("properties") if isinstance(y.get("properties"), dict) else {}
        assert isinstance(px, dict) and isinstance(py, dict)
        for name in both & set(px) & set(py):
            lx = _literals(ctx.resolve(px[name], "")[0])
            ly = _literals(ctx.resolve(py[name], "")[0])
            if lx is not None and ly is not None and not lx & ly:
                return True  # a discriminator: a required property with disjoint constant values
        return False

    def _opaque(self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool) -> bool:
        for group in _OPAQUE_GROUPS:
            in_b = [k for k in group if k in b and k in self.b.active]
            in_a = [k for k in group if k in a and k in self.a.active]
            if not in_a and not in_b:
                continue
            # The keywords of the group that changed: added, removed, or with another meaning.
            changed = [
                k
                for k in group
                if (k in in_a) != (k in in_b) or (k in in_b and not self.equal_keyword(k, a[k], ap, b[k], bp))
            ]
            if not changed:
                continue
            if in_b:
                # Name (and point at, when NEW has it) the first keyword of the group that changed.
                new_keys = in_b if self._input else in_a
                self.undecided(
                    ap,
                    bp,
                    ip,
                    f"{changed[0]} changed: the rules cannot compare it",
                    f"/{changed[0]}" if changed[0] in new_keys else "",
                )
            exact = False  # A's own extra constraint may rule out what the rules would call a break
        return exact

    def _type_reason(
        self,
        a: dict[str, Any],
        b: dict[str, Any],
        ap: str,
        bp: str,
        ip: IPath,
        missing: list[str],
        exact: bool,
    ) -> None:
        names = ", ".join(missing)
        if missing == ["null"]:
            kind = "null"
            message = "null no longer accepted" if self._input else "null may now be returned"
        else:
            kind = "type"
            message = (
                f"type {names} no longer accepted" if self._input else f"type {names} may now be returned"
            )
        if self._input:
            where = "/type" if "type" in b else next((f"/{k}" for k in ("anyOf", "oneOf") if k in b), "")
        else:
            where = "/type" if "type" in a else ""
        self.add(kind, ap, bp, ip, message, exact, where)

    def _inhabited(self, a: dict[str, Any], depth: int = 0) -> set[str]:
        """A's types that some instance can take, looking one level into required properties."""
        types = _inhabited_types(a)
        if "object" in types and not self._object_possible(a, depth):
            types.discard("object")
        return types

    def _object_possible(self, a: dict[str, Any], depth: int) -> bool:
        props = a.get("properties") if isinstance(a.get("properties"), dict) else {}
        assert isinstance(props, dict)
        required = (
            {r for r in a.get("required", []) if isinstance(r, str)}
            if isinstance(a.get("required"), list)
            else set()
        )
        max_props = a.get("maxProperties")
        if isinstance(max_props, int | float) and len(required) > max_props:
            return False
        closed = a.get("additionalProperties") is False and not a.get("patternProperties")
        for name in required:
            if name not in props:
                if closed:
                    return False
                continue
            sub = self.a.resolve(props[name], "")[0]
            if sub is False:
                return False
            if (
                isinstance(sub, dict)
                and depth < 3
                and not ({"enum", "const", "anyOf", "oneOf", "allOf", "$ref"} & set(sub))
            ):
                if not self._inhabited(sub, depth + 1):
                    return False
        return True

    def _typed(self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool) -> None:
        ta = self._inhabited(a)
        if not ta and not ({"enum", "const"} & set(a)):
            return  # A holds no instance at all
        tb = _types(b) if "type" in self.b.keywords(b) else set(_ALL_TYPES)
        missing = [t for t in sorted(ta) if not _allows(tb, t)]
        if "number" in missing and "integer" in tb and _multiple(1, a.get("multipleOf") or 0.5):
            missing.remove("number")
        if missing:
            self._type_reason(a, b, ap, bp, ip, missing, exact)
        common = {t for t in ta if _allows(tb, t)}
        for key in ("enum", "const"):
            if key in b and key in self.b.active:
                # A is not finite (that was decided above): some value of A lies outside B's list.
                inexact = any(k in a for k in ("pattern", "format", "multipleOf", "propertyNames"))
                word = "enum" if key == "enum" else "const"
                if self._input:
                    message = f"{word} added: only {show(b[key], 50)} accepted"
                else:
                    message = f"{word} removed: values other than {show(b[key], 50)} may now be returned"
                self.add(key, ap, bp, ip, message, exact and not inexact, f"/{key}" if self._input else "")
                return
        if "string" in common:
            self._strings(a, ap, b, bp, ip, exact)
        if common & {"number", "integer"}:
            self._numbers(a, ap, b, bp, ip, exact, integer="number" not in common)
        if "array" in common:
            self._arrays(a, ap, b, bp, ip, exact)
        if "object" in common:
            self._objects(a, ap, b, bp, ip, exact)

    def _bound(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool,
        names: tuple[str, str, str | None, str | None], integer: bool,
    ) -> None:  # fmt: skip
        low_name, high_name, low_ex, high_ex = names
        a_lo, b_lo = _lower(a, low_name, low_ex), _lower(b, low_name, low_ex)
        a_hi, b_hi = _upper(a, high_name, high_ex), _upper(b, high_name, high_ex)
        if integer and a_lo is None and low_name in ("minLength", "minItems", "minProperties"):
            a_lo = (0, False)
        for kind_name, fits, a_b, b_b, name, ex in (
            ("low", _fits_low, a_lo, b_lo, low_name, low_ex),
            ("high", _fits_high, a_hi, b_hi, high_name, high_ex),
        ):
            if fits(a_b, b_b, integer):
                continue
            old, new = (a_b, b_b) if self._input else (b_b, a_b)
            verb = "tightened" if self._input else "relaxed"
            message = (
                f"{name} {verb}: {_bound_text(name, old, ex or name)} -> {_bound_text(name, new, ex or name)}"
            )
            new_node = b if self._input else a
            keyword = next((k for k in (name, ex) if k and k in new_node), None)
            self.add("bound", ap, bp, ip, message, exact, f"/{keyword}" if keyword else "")
            del kind_name

    def _numbers(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool, integer: bool
    ) -> None:
        sparse = "multipleOf" in a and not (integer and _multiple(a["multipleOf"], 1))
        self._bound(
            a,
            ap,
            b,
            bp,
            ip,
            exact and not sparse,
            ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"),
            integer,
        )
        m_b = b.get("multipleOf")
        if not _num(m_b):
            return
        m_a = a.get("multipleOf")
        if (_num(m_a) and _multiple(m_b, m_a)) or (integer and _multiple(m_b, 1)):
            return
        low, high = (
            _int_low(_lower(a, "minimum", "exclusiveMinimum")),
            _int_high(_upper(a, "maximum", "exclusiveMaximum")),
        )
        wide = low is None or high is None or high - low >= 1 or not integer
        old, new = (m_a, m_b) if self._input else (m_b, m_a)
        message = f"multipleOf {'tightened' if self._input else 'relaxed'}: {show(old)} -> {show(new)}"
        self.add(
            "bound",
            ap,
            bp,
            ip,
            message,
            exact and wide and not _num(m_a),
            "/multipleOf" if (self._input or m_a is not None) else "",
        )

    def _strings(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> None:
        shaped = "pattern" in a or ("format" in a and a["format"] in KNOWN_FORMATS)
        self._bound(a, ap, b, bp, ip, exact and not shaped, ("minLength", "maxLength", None, None), True)
        if isinstance(b.get("pattern"), str) and a.get("pattern") != b["pattern"]:
            old, new = (a.get("pattern"), b["pattern"]) if self._input else (b["pattern"], a.get("pattern"))
            message = f"pattern changed: {show(old)} -> {show(new)}"
            self.add(
                "pattern", ap, bp, ip, message, False, "/pattern" if self._input or "pattern" in a else ""
            )
        fb = b.get("format")
        if isinstance(fb, str) and fb in KNOWN_FORMATS and a.get("format") != fb:
            old, new = (a.get("format"), fb) if self._input else (fb, a.get("format"))
            message = (
                f"format changed: {show(old)} -> {show(new)}"
                if old and new
                else (f"format {fb} added" if self._input else f"format {fb} removed")
            )
            self.add(
                "format",
                ap,
                bp,
                ip,
                message,
                exact and "pattern" not in a,
                "/format" if self._input or "format" in a else "",
            )

    def _items(
        self, ctx: Context, node: dict[str, Any], ptr: str
    ) -> tuple[list[tuple[JSON, str]], tuple[JSON, str] | None]:
        if ctx.dialect == "draft-07":
            items = node.get("items")
            if isinstance(items, list):
                rest = node.get("additionalItems")
                return (
                    [(s, f"{ptr}/items/{i}") for i, s in enumerate(items)],
                    (rest, f"{ptr}/additionalItems") if rest is not None else None,
                )
            return [], ((items, f"{ptr}/items") if items is not None else None)
        prefix = node.get("prefixItems")
        prefixes = (
            [(s, f"{ptr}/prefixItems/{i}") for i, s in enumerate(prefix)] if isinstance(prefix, list) else []
        )
        items = node.get("items")
        return prefixes, ((items, f"{ptr}/items") if isinstance(items, dict | bool) else None)

    def _arrays(self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool) -> None:
        self._bound(
            a, ap, b, bp, ip, exact and "contains" not in a, ("minItems", "maxItems", None, None), True
        )
        a_max = _int_high(_upper(a, "maxItems", None))
        a_max = a_max if a_max is not None else 1 << 30
        if b.get("uniqueItems") is True and a.get("uniqueItems") is not True and a_max >= 2:
            message = (
                "uniqueItems added"
                if self._input
                else "uniqueItems removed: repeated items may now be returned"
            )
            self.add("bound", ap, bp, ip, message, exact, "/uniqueItems" if self._input else "")
        a_pre, a_rest = self._items(self.a, a, ap)
        b_pre, b_rest = self._items(self.b, b, bp)
        for i in range(max(len(a_pre), len(b_pre))):
            if i >= a_max:
                break
            a_i: tuple[JSON, str] = a_pre[i] if i < len(a_pre) else a_rest or ({}, ap)
            b_i = b_pre[i] if i < len(b_pre) else b_rest
            if b_i is not None:
                self.check(a_i[0], a_i[1], b_i[0], b_i[1], (*ip, i), exact)
        if b_rest is not None and a_max > max(len(a_pre), len(b_pre)):
            a_r = a_rest or ({}, ap)
            self.check(a_r[0], a_r[1], b_rest[0], b_rest[1], (*ip, "*"), exact)

    def _objects(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> None:
        a_props = a.get("properties") if isinstance(a.get("properties"), dict) else {}
        b_props = b.get("properties") if isinstance(b.get("properties"), dict) else {}
        assert isinstance(a_props, dict) and isinstance(b_props, dict)
        a_req = (
            {r for r in a.get("required", []) if isinstance(r, str)}
            if isinstance(a.get("required"), list)
            else set()
        )
        b_req = (
            {r for r in b.get("required", []) if isinstance(r, str)}
            if isinstance(b.get("required"), list)
            else set()
        )
        a_add, b_add = a.get("additionalProperties"), b.get("additionalProperties")
        a_pat, b_pat = a.get("patternProperties"), b.get("patternProperties")
        names_exact = exact
        a_pat = a_pat if isinstance(a_pat, dict) and "patternProperties" in self.a.active else {}
        b_pat = b_pat if isinstance(b_pat, dict) and "patternProperties" in self.b.active else {}
        pats_equal = not a_pat and not b_pat
        if a_pat or b_pat:
            pats_equal = bool(
                a_pat and b_pat and self.equal_keyword("patternProperties", a_pat, ap, b_pat, bp)
            )
            # A name a pattern matches escapes additionalProperties: changed patterns change which
            # names each side's other keywords judge. Undecided wherever B judges any name.
            if not pats_equal and (b_pat or b_add is not None or b_props):
                self.undecided(
                    ap,
                    bp,
                    ip,
                    "patternProperties changed: the rules cannot compare it",
                    "/patternProperties" if (b_pat if self._input else a_pat) else "",
                )
            names_exact = False
        for name in sorted(b_req - a_req):
            if self._input:
                message = f"property {name!r} is newly required"
                where = f"/properties/{encode(name)}" if name in b_props else "/required"
            else:
                message = f"property {name!r} is no longer required"
                where = f"/properties/{encode(name)}" if name in a_props else ""
            self.add("required", ap, bp, (*ip,), message, exact, where)
        max_props = a.get("maxProperties")
        saturated = isinstance(max_props, int | float) and len(a_req) >= max_props  # only required names fit
        for name in [*a_props, *(n for n in b_props if n not in a_props)]:
            if saturated and name not in a_req:
                continue
            seg = f"/properties/{encode(name)}"
            matched: list[str] = []  # A's patterns that match an undeclared name: its schema there
            if name in a_props:
                a_s, a_sp = a_props[name], ap + seg
            else:
                found = _matching(a_pat, name)
                if found is None:
                    self.undecided(ap, bp, (*ip, name), "a pattern of patternProperties cannot be read")
                    continue
                matched = found
                if matched:
                    first = ap + "/patternProperties/" + encode(matched[0])
                    a_s, a_sp = (
                        (a_pat[matched[0]], first)
                        if len(matched) == 1
                        else (_Virtual({"allOf": [a_pat[m] for m in matched]}), first)
                    )
                else:
                    a_s, a_sp = (
                        ({} if a_add is None else a_add),
                        ap + ("/additionalProperties" if a_add is not None else seg),
                    )
            if name in b_props:
                b_s, b_sp = b_props[name], bp + seg
            elif pats_equal and b_pat and _matching(b_pat, name) != []:
                continue  # the same patterns judge the name on both sides; B's additional does not
            elif b_add is not None:
                b_s, b_sp = b_add, bp + "/additionalProperties"
            else:
                continue
            a_resolved = self.a.resolve(a_s, a_sp)[0]
            b_resolved = self.b.resolve(b_s, b_sp)[0]
            if a_resolved is False:
                continue
            if name not in b_props and b_resolved is False and name in a_props:
                message = (
                    f"property {name!r} removed: the object is closed, so it is refused"
                    if self._input
                    else f"property {name!r} added where the object was closed"
                )
                self.add(
                    "property-forbidden",
                    ap,
                    bp,
                    (*ip, name),
                    message,
                    names_exact,
                    seg,
                )
                continue
            if name in b_props and name not in a_props and a_add is None and not matched:
                if b_resolved is True or (isinstance(b_resolved, dict) and not self.b.keywords(b_resolved)):
                    continue
                message = (
                    f"new property {name!r} constrains a name the old schema accepted with any value"
                    if self._input
                    else f"property {name!r} is no longer declared: any value may now be returned for it"
                )
                self.add(
                    "property-undeclared",
                    ap,
                    bp,
                    (*ip, name),
                    message,
                    names_exact,
                    seg,
                )
                continue
            self.check(a_s, a_sp, b_s, b_sp, (*ip, name), names_exact)
        if b_add is not None and not saturated:
            b_closed = self.b.resolve(b_add, bp + "/additionalProperties")[0] is False
            a_closed = a_add is not None and self.a.resolve(a_add, ap + "/additionalProperties")[0] is False
            if b_closed and not a_closed:
                message = (
                    "additionalProperties is now false: unlisted properties are refused"
                    if self._input
                    else "additionalProperties is no longer false: unlisted properties may now be returned"
                )
                self.add(
                    "additional",
                    ap,
                    bp,
                    (*ip, "**"),
                    message,
                    names_exact,
                    "/additionalProperties" if self._input or a_add is not None else "",
                )
            elif not b_closed and not a_closed:
                self.check(
                    {} if a_add is None else a_add,
                    ap + "/additionalProperties",
                    b_add,
                    bp + "/additionalProperties",
                    (*ip, "**"),
                    names_exact,
                )
        a_lo = max(a.get("minProperties", 0) if _num(a.get("minProperties")) else 0, len(a_req))
        probe = dict(a)
        probe["minProperties"] = a_lo
        if (
            a_add is not None
            and self.a.resolve(a_add, ap)[0] is False
            and not a_pat
            and "maxProperties" not in a
        ):
            probe["maxProperties"] = len(a_props)
        self._bound(probe, ap, b, bp, ip, exact, ("minProperties", "maxProperties", None, None), True)


def _matching(patterns: dict[str, Any], name: str) -> list[str] | None:
    """The patterns (ECMA-262, as validators read them) that match a name; None if one cannot be read."""
    found = []
    for pattern in patterns:
        try:
            if jsonschema_rs.is_valid({"pattern": pattern}, name):
                found.append(pattern)
        except Exception:  # not a regular expression the validator reads
            return None
    return found


def _expand(types: set[str]) -> set[str]:
    return types | {"integer"} if "number" in types else set(types)


def _names(value: JSON) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _literals(node: JSON) -> set[str] | None:
    """The values a node is limited to by `const` or `enum` (canonical JSON), if it is."""
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return {_canon(node["const"])}
    if isinstance(node.get("enum"), list):
        return {_canon(v) for v in node["enum"]}
    return None


def _inhabited_types(node: dict[str, Any]) -> set[str]:
    """The node's types that some instance can take (a type whose bounds cross is empty)."""
    found = set()
    for t in _types(node):
        if t == "string":
            lo, hi = _int_low(_lower(node, "minLength", None)), _int_high(_upper(node, "maxLength", None))
            if lo is not None and hi is not None and lo > hi:
                continue
        elif t in ("number", "integer"):
            lo_b, hi_b = (
                _lower(node, "minimum", "exclusiveMinimum"),
                _upper(node, "maximum", "exclusiveMaximum"),
            )
            if t == "integer":
                lo, hi = _int_low(lo_b), _int_high(hi_b)
                if lo is not None and hi is not None and lo > hi:
                    continue
            elif (
                lo_b is not None
                and hi_b is not None
                and (lo_b[0] > hi_b[0] or (lo_b[0] == hi_b[0] and (lo_b[1] or hi_b[1])))
            ):
                continue
        elif t == "array":
            lo, hi = _int_low(_lower(node, "minItems", None)), _int_high(_upper(node, "maxItems", None))
            if lo is not None and hi is not None and lo > hi:
                continue
        found.add(t)
    return found


def _finite_values(node: dict[str, Any], ctx: Context) -> list[JSON] | None:
    """Every value the node may take, when there are few (else None)."""
    keys = ctx.keywords(node)
    if "const" in keys:
        return [node["const"]]
    if "enum" in keys and isinstance(node["enum"], list):
        return list(node["enum"])
    if "type" not in keys:
        return None
    types = _types(node)
    if not types <= {"null", "boolean", "integer"}:
        return None
    values: list[JSON] = []
    if "null" in types:
        values.append(None)
    if "boolean" in types:
        values += [False, True]
    if "integer" in types:
        lo = _int_low(_lower(node, "minimum", "exclusiveMinimum"))
        hi = _int_high(_upper(node, "maximum", "exclusiveMaximum"))
        if lo is None or hi is None or hi - lo > _FINITE_RANGE:
            return None
        values += list(range(lo, hi + 1))
    return values


_MERGE_MIN = frozenset({"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"})
_MERGE_MAX = frozenset({"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"})
_OBJECT_SHAPE = frozenset({"properties", "patternProperties", "additionalProperties"})


def _merge(parts: list[JSON], ctx: Context) -> _Virtual | None:
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
    merged: _Virtual = _Virtual()
    for d in dicts:
        for key, value in d.items():
            if key not in ctx.active:
                continue
            if key not in merged:
                merged[key] = value
            elif key == "required":
                merged[key] = sorted({*merged[key], *value}) if isinstance(value, list) else value
            elif key == "properties" and isinstance(value, dict):
                props = dict(merged[key])
                for name, sub in value.items():
                    props[name] = _Virtual({"allOf": [props[name], sub]}) if name in props else sub
                merged[key] = props
            elif key == "type":
                both = _expand(_types({"type": merged[key]})) & _expand(_types({"type": value}))
                if "number" in both:
                    both.discard("integer")
                merged[key] = sorted(both)
            elif key in _MERGE_MIN and _num(value) and _num(merged[key]):
                merged[key] = max(merged[key], value)
            elif key in _MERGE_MAX and _num(value) and _num(merged[key]):
                merged[key] = min(merged[key], value)
            elif _canon(merged[key]) != _canon(value):
                return None
    return merged


def iter_reasons(reasons: list[Reason], exact: bool) -> Iterator[Reason]:
    """Reasons of one kind of certainty."""
    return (r for r in reasons if r.exact is exact)
