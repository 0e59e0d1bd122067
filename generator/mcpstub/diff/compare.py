"""Compare two self-contained schemas: is every instance of A also an instance of B?

Both directions of `diff` reduce to this question: for an input A is OLD and B is NEW (NEW refuses
what OLD accepted), for an output A is NEW and B is OLD (NEW may send what OLD never did). `Subset`
walks both schemas side by side, following `$ref`s structurally (moving a definition is no change),
and returns `Reason`s at JSON pointers inside NEW: exact ones (an instance of A outside B exists) and
inexact ones (an `anyOf`/`not`/`if` rewrite, a pattern change, an unmodelled keyword), which the
counterexample search settles.

The rules are sound: no reason means A is a subset of B. A finite A (a `const`, an `enum`, booleans,
a small integer range, a number its bounds pin to one value) is decided exactly by validating every
value.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mcpstub.diff.facts import (
    ALL_TYPES,
    JSON,
    IPath,
    Reason,
    Virtual,
    allows,
    canon,
    expand,
    finite_values,
    inhabited_types,
    int_low,
    literals,
    lower,
    merge,
    multiple,
    names_in,
    num,
    show,
    shown_or_none,
    types_of,
)
from mcpstub.diff.semantics import Context
from mcpstub.diff.typed import TypedRules, refuses_all
from mcpstub.pointers import escape

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
_NUMBER_KEYWORDS = ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "multipleOf")
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"properties", "patternProperties", "dependentSchemas"})


_NAME_DEPENDENCIES = ("dependentRequired", "dependencies")


def _name_dependencies(ctx: Context, node: dict[str, Any]) -> dict[str, set[str]] | None:
    """The names each property's presence requires (`dependentRequired`, and draft-07's
    `dependencies` written as names), merged; None where a dependency is a schema or malformed."""
    found: dict[str, set[str]] = {}
    for key in _NAME_DEPENDENCIES:
        if key not in ctx.keywords(node):
            continue
        if not isinstance(node[key], dict):
            return None
        for name, names in node[key].items():
            if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
                return None
            found.setdefault(name, set()).update(names)
    return found


_Layers = list[tuple[dict[str, Any], str]]


def _layers(ctx: Context, node: JSON, ptr: str, target: dict[str, Any], at: str) -> _Layers:
    """The nodes a place's `$ref`s pass through, from the one written there to `target` (at `at`),
    which they resolve to."""
    layers: _Layers = []
    while isinstance(node, dict) and not isinstance(node, Virtual) and node is not target:
        if any(seen is node for seen, _ in layers):  # (a cycle, as a server may advertise)
            break
        layers.append((node, ptr))
        ref = node.get("$ref")
        found, node, ptr = ctx.follow(ref) if isinstance(ref, str) else (False, None, "")
        if not found:
            return [(target, at)]
    return [*layers, (target, at)]


def _shown_value(node: dict[str, Any], key: str) -> str:
    return json.dumps(node[key], ensure_ascii=False, sort_keys=True) if key in node else "(none)"


def _change(old: str, new: str, width: int = 40) -> str:
    """`old -> new`, each cut to `width` characters around where they first differ (from the start
    of a word, where one starts a little before)."""
    same = next((i for i, pair in enumerate(zip(old, new, strict=False)) if pair[0] != pair[1]), None)
    same = min(len(old), len(new)) if same is None else same
    start = max(0, same - 10) if max(len(old), len(new)) > width else 0
    if start:  # (the text before `same` is both sides'; its beginning starts a word too)
        word = old.rfind(" ", max(0, start - 15), start + 1)
        start = word + 1 if word >= 0 else 0 if start <= 15 else start

    def cut(text: str) -> str:
        shown = text[start : start + width]
        return "…" * (start > 0) + shown + "…" * (start + width < len(text))

    return f"{cut(old)} -> {cut(new)}"


def _shown(layers: _Layers, key: str) -> tuple[dict[str, Any], str]:
    """The layer whose `key` a place shows: the first that writes one, else the first."""
    return next(((node, ptr) for node, ptr in layers if key in node), layers[0])


def _counterparts(a: _Layers, b: _Layers, key: str) -> list[tuple[tuple[dict[str, Any], str], ...]]:
    """The layers of two places compared for `key`: each with its counterpart where both sides
    pass as many; where both follow references but not as many (an alias put in or taken out),
    what each shows before the definition reached, then the two definitions; else (a definition
    written out in place) what each side shows."""
    if len(a) == len(b):
        return list(zip(a, b, strict=True))
    if min(len(a), len(b)) == 1:
        return [(_shown(a, key), _shown(b, key))]
    return [(_shown(a[:-1], key), _shown(b[:-1], key)), (a[-1], b[-1])]


def _refuses(keyword: str, bound: JSON, value: JSON) -> bool:
    """Whether the number keyword `keyword: bound` alone refuses the number `value`."""
    if not (num(bound) and num(value)):
        return False
    if keyword == "multipleOf":
        return bound > 0 and not multiple(bound, value)
    below: bool = value < bound if keyword == "minimum" else value <= bound
    above: bool = value > bound if keyword == "maximum" else value >= bound
    return below if keyword in ("minimum", "exclusiveMinimum") else above


def _whole(node: dict[str, Any]) -> bool:
    """Whether the node's number bounds pin it to one whole value (`minimum` = `maximum`)."""
    low, high = node.get("minimum"), node.get("maximum")
    whole = isinstance(low, int) or (isinstance(low, float) and low.is_integer())
    return isinstance(low, int | float) and num(low) and low == high and whole


def _json_type(value: object) -> str:
    """The JSON type of a value, as `type` names it (1.0 is an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


# A branch of an anyOf or oneOf: the keyword, its index, and every branch there with its pointer.
_Branch = tuple[str, int, list[tuple[JSON, str]]]


@dataclass
class Subset(TypedRules):
    """Decides `A ⊆ B` for two schema roots; `a_is_old` says which one is NEW (for paths and words)."""

    a_root: JSON
    b_root: JSON
    a_is_old: bool
    reasons: list[Reason] = field(default_factory=list)
    # Annotations changed: (where in NEW, the keyword, what OLD and NEW show there, as one line).
    infos: list[tuple[str, str, str]] = field(default_factory=list)
    _active: dict[tuple[str, str, int, int], int] = field(default_factory=dict)  # -> instance depth
    _trial: int = 0
    # The branch of A's anyOf or oneOf `_split_any_of_a` checks next.
    _branch: _Branch | None = None

    def __post_init__(self) -> None:
        self.a = Context(self.a_root)
        self.b = Context(self.b_root)
        self.any_schema = {}

    def run(self) -> list[Reason]:
        """Compare the two roots."""
        unfollowed = self.a.unfollowed or self.b.unfollowed
        if unfollowed is not None:
            self.undecided("", "", (), f"the schemas use {unfollowed}, which the rules do not follow")
            return self.reasons
        self.check(self.a_root, "", self.b_root, "", (), True)
        return self.reasons

    def _trial_reasons(self, a: JSON, ap: str, b: JSON, bp: str, ip: IPath) -> list[Reason]:
        saved, self.reasons = self.reasons, []
        self._trial += 1
        try:
            self.check(a, ap, b, bp, ip, True)
            return self.reasons
        finally:
            self.reasons = saved
            self._trial -= 1

    def _describe(self, written: tuple[JSON, str, JSON, str], a: JSON, ap: str, b: JSON, bp: str) -> None:
        """An info for each annotation that changed at this place. A node whose `$ref`s were
        followed holds its own and each reference's (`{$ref: Priority, default: low}`), compared
        with their counterparts (`_counterparts`)."""
        if self._trial or not (isinstance(a, dict) and isinstance(b, dict)):
            return
        if isinstance(a, Virtual) or isinstance(b, Virtual):
            return
        wa, wap, wb, wbp = written
        layers_a, layers_b = _layers(self.a, wa, wap, a, ap), _layers(self.b, wb, wbp, b, bp)
        for key in ("title", "description", "default"):
            for (x, xp), (y, yp) in _counterparts(layers_a, layers_b, key):
                place = self._new(xp, yp) + "/" + key
                if canon(x.get(key)) != canon(y.get(key)) and all(i[:2] != (place, key) for i in self.infos):
                    old, new = (x, y) if self.a_is_old else (y, x)
                    self.infos.append((place, key, _change(_shown_value(old, key), _shown_value(new, key))))

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
            return canon(x) == canon(y)
        keys = self.a.keywords(x)
        if keys != self.b.keywords(y) or canon(self.a.content(x)) != canon(self.b.content(y)):
            return False
        return all(self._equal_key(key, x[key], xp, y[key], yp, seen) for key in keys)

    def equal_keyword(self, key: str, xv: JSON, xp: str, yv: JSON, yp: str) -> bool:
        """Same meaning of one keyword's values at `xp` (A) and `yp` (B). A value that is not a schema
        (a map of them, names) is not compared as one: any map would equal every other."""
        return self._equal_key(key, xv, xp, yv, yp, set())

    def _equal_key(self, key: str, xv: JSON, xp: str, yv: JSON, yp: str, seen: set[tuple[str, str]]) -> bool:
        if key == "$ref":
            if not (isinstance(xv, str) and isinstance(yv, str)):
                return False
            fx, tx, px = self.a.follow(xv)
            fy, ty, py = self.b.follow(yv)
            return fx and fy and self.equal(tx, px, ty, py, seen)
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
                p = f"/{key}/{escape(name)}"
                if isinstance(xv[name], list) or isinstance(yv[name], list):  # draft-07 names
                    if canon(xv[name]) != canon(yv[name]):
                        return False
                elif not self.equal(xv[name], xp + p, yv[name], yp + p, seen):
                    return False
            return True
        if key in ("required", "type") and isinstance(xv, list) and isinstance(yv, list):
            return sorted(map(canon, xv)) == sorted(map(canon, yv))
        if key == "format":  # the same name means the same only where both sides assert it, or neither
            return canon(xv) == canon(yv) and self.a.asserts_format(xv) == self.b.asserts_format(yv)
        return canon(xv) == canon(yv)

    # -- the walk ------------------------------------------------------------------------------

    def check(self, a: JSON, ap: str, b: JSON, bp: str, ip: IPath, exact: bool) -> None:
        """Add the reasons why A (at `ap`) may hold an instance B (at `bp`) refuses."""
        written = (a, ap, b, bp)
        a, ap = self.a.resolve(a, ap)
        b, bp = self.b.resolve(b, bp)
        # Identity, not only the pointers: a part of a node (its rest without allOf) sits at the
        # same pointer as the node, and must not pass for a recursive visit of it.
        key = (ap, bp, id(a), id(b))
        if key in self._active:
            if self._active[key] < len(ip):
                return  # recursion into the instance through $ref: assume the pair holds (it is finite)
            # A cycle of references that takes no step into the instance (`$ref: "#"` beside other
            # keywords, in a listing): the pair may not be assumed to hold of itself.
            self.undecided(ap, bp, ip, "a reference cycle the rules cannot compare")
            return
        if len(self._active) > 200:
            self.undecided(ap, bp, ip, "schemas nest too deeply to compare")
            return
        self._active[key] = len(ip)
        try:
            self._check(written, a, ap, b, bp, ip, exact)
        finally:
            del self._active[key]

    def _check(
        self, written: tuple[JSON, str, JSON, str], a: JSON, ap: str, b: JSON, bp: str, ip: IPath, exact: bool
    ) -> None:
        """`written`: the nodes at A's and B's place before their references were followed."""
        branch, self._branch = self._branch, None  # (of this node alone, not of those below it)
        self._describe(written, a, ap, b, bp)
        if a is False:
            return
        if b is True or (isinstance(b, dict) and not self.b.keywords(b)):
            return
        if a is True or not isinstance(a, dict):
            a = {}
        if self._holds_nothing(a, ap):
            return
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
        if merged is not a and self._enumerated(merged, ap, b, bp, ip, exact):
            return  # finite once its conjuncts are merged (`allOf: [{$ref: Color}]` of an enum)
        a = merged
        if self._split_any_of_a(a, ap, b, bp, ip, exact):
            return
        one_of = a.get("oneOf") if "oneOf" in self.a.keywords(a) else None
        overlapping = isinstance(one_of, list) and not self._disjoint(
            self.a, [self.a.resolve(br, ap)[0] for br in one_of]
        )
        if overlapping:  # (a value two branches take is refused: what the rules read may not be taken)
            exact = False
        b = self._split_any_of_b(a, ap, b, bp, ip, exact, branch)
        exact = self._opaque(a, ap, b, bp, ip, exact)
        self._typed(a, ap, b, bp, ip, exact)

    def _enumerated(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> bool:
        """Decide a finite A by validating each of its values against B."""
        values = finite_values(a, self.a)
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
        where = next((f"/{k}" for k in ("const", "enum", "oneOf", "anyOf", "type") if k in new_node), "")
        b = self._flat(self.b, b, bp)  # (what its allOf says, named as B says it)
        moved = [k for k in _NUMBER_KEYWORDS if canon(a.get(k)) != canon(b.get(k))]
        refused = {_json_type(v) for v in bad}
        if kind == "enum" and "type" in b and not any(allows(types_of(b), t) for t in refused):
            kind, where = "type", "/type" if "type" in new_node else ""  # a number pinned to 1.5, B integer
            verb = "no longer accepted" if self._input else "may now be returned"
            message = f"type {', '.join(sorted(refused))} {verb}: {listed}"
        elif kind == "enum" and not {"enum", "const"} & {*a, *b} and moved:  # a bound of a small range
            # The keyword of B's that refuses the value (first moved where none alone does).
            key = next((k for k in moved if k in b and _refuses(k, b[k], bad[0])), moved[0])
            kind, where = "bound", f"/{key}" if key in new_node else ""
            old, new = (a, b) if self._input else (b, a)
            message = f"{key} {shown_or_none(old.get(key))} -> {shown_or_none(new.get(key))}: {message}"
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

    def _flat(self, ctx: Context, node: dict[str, Any], ptr: str) -> dict[str, Any]:
        """The node with its conjuncts merged in where they merge plainly, else the node."""
        rest, members = self._conjuncts(ctx, node, ptr)
        if not members:
            return node
        merged = merge([rest] + [ctx.resolve(m, mp)[0] for m, mp in members], ctx)
        return node if merged is None else merged

    def _conjunction(
        self, a: dict[str, Any], ap: str
    ) -> tuple[dict[str, Any] | None, dict[str, Any], list[tuple[JSON, str]]]:
        """A as one node (itself without conjuncts), or None where its conjuncts do not merge; and
        A's rest and conjuncts."""
        rest, members = self._conjuncts(self.a, a, ap)
        if not members:
            return a, rest, members
        return merge([rest] + [self.a.resolve(m, mp)[0] for m, mp in members], self.a), rest, members

    def _merge_all_of_a(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath
    ) -> dict[str, Any] | None:
        """A as one node when its conjuncts merge; None when decided (or undecided) here."""
        merged, rest, members = self._conjunction(a, ap)
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
                self._branch = (kw, i, resolved)
                try:
                    if not self.a.keywords(rest):
                        self.check(branch, bpath, b, bp, ip, branch_exact)
                        continue
                    part = merge([rest, branch], self.a)
                    if part is None:
                        part = Virtual({"allOf": [rest, branch]})
                    self.check(part, f"{ap}/{kw}/{i}", b, bp, ip, branch_exact)
                finally:
                    self._branch = None
            return True
        return False

    def _split_any_of_b(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool,
        branch: _Branch | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        """B without its anyOf or oneOf, once A (`branch`: the branch of A's own it is, if one) is
        within one of its branches, or the reasons it may not be are added."""
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
                    covered |= ALL_TYPES
                elif isinstance(br, dict):
                    covered |= types_of(br)
            missing = [t for t in sorted(inhabited_types(a)) if not allows(covered, t)]
            if missing and not fits:
                self._type_reason(a, {kw: branches}, ap, bp, ip, missing, exact)
            elif alone and self._in_place(kw, branch, resolved):
                # A branch within none of B's, where every other branch is as it was: what changed
                # from B's branch at its place (a shared definition, a bound moved) is said there,
                # never as certain, since another of B's branches may take what that one refuses: a
                # break needs a counterexample.
                assert branch is not None
                self.check(a, ap, *resolved[branch[1]], ip, False)
            else:
                self.undecided(
                    ap,
                    bp,
                    ip,
                    f"{kw} rewritten: the rules cannot compare it",
                    f"/{kw}" if self._input else "",
                )
        return b

    def _in_place(self, kw: str, branch: _Branch | None, b_branches: list[tuple[JSON, str]]) -> bool:
        """Whether A's branch (`branch`) is the one of its `kw` changed in place: as many branches on
        both sides, each other one the same as B's at its place (not reordered)."""
        if branch is None or branch[0] != kw or len(branch[2]) != len(b_branches):
            return False
        return all(
            self.equal(*branch[2][j], *b_branches[j]) for j in range(len(b_branches)) if j != branch[1]
        )

    def _fits_by_type(self, a: dict[str, Any], ap: str, branches: list[tuple[JSON, str]], ip: IPath) -> bool:
        """Each of A's types, taken alone, fits some branch (`[string, null]` into `anyOf`)."""
        types = sorted(inhabited_types(a))
        if len(types) < 2:
            return False
        for t in types:
            part = Virtual({**a, "type": t})
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
        tx, ty = expand(types_of(x)), expand(types_of(y))
        if not tx & ty:
            return True
        if tx != {"object"} or ty != {"object"}:
            return False
        both = set(names_in(x.get("required"))) & set(names_in(y.get("required")))
        px = x.get("properties") if isinstance(x.get("properties"), dict) else {}
        py = y.get("properties") if isinstance(y.get("properties"), dict) else {}
        assert isinstance(px, dict) and isinstance(py, dict)
        for name in both & set(px) & set(py):
            lx = literals(ctx.resolve(px[name], "")[0])
            ly = literals(ctx.resolve(py[name], "")[0])
            if lx is not None and ly is not None and not lx & ly:
                return True  # a discriminator: a required property with disjoint constant values
        return False

    def _opaque(self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool) -> bool:
        names_a, names_b = _name_dependencies(self.a, a), _name_dependencies(self.b, b)
        compared = names_a is not None and names_b is not None
        if compared:
            self._name_dependencies(a, ap, b, bp, ip, names_a or {}, names_b or {})
            exact = exact and not names_a
        for group in _OPAQUE_GROUPS:
            if compared and group[0] in _NAME_DEPENDENCIES:
                continue
            in_b = [k for k in group if k in self.b.keywords(b)]
            in_a = [k for k in group if k in self.a.keywords(a)]
            if not in_a and not in_b:
                continue
            # The keywords of the group that changed: added, removed, or with another meaning.
            changed = [
                k
                for k in group
                if (k in in_a) != (k in in_b) or (k in in_b and not self.equal_keyword(k, a[k], ap, b[k], bp))
            ]
            if not changed:
                # Unchanged, A's keyword still constrains its instances: what the rules would call
                # a break may be ruled out by it (a dependentSchemas no object with the name meets).
                exact = exact and not in_a
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

    def _name_dependencies(
        self,
        a: dict[str, Any],
        ap: str,
        b: dict[str, Any],
        bp: str,
        ip: IPath,
        names_a: dict[str, set[str]],
        names_b: dict[str, set[str]],
    ) -> None:
        """A reason for each name B requires beside another that an object of A may lack: A's
        required names and the names its own dependencies bring in, transitively, are there."""
        required = set(names_in(a.get("required"))) if "required" in self.a.keywords(a) else set()
        new_ctx, new_node = (self.b, b) if self._input else (self.a, a)
        keys = new_ctx.keywords(new_node)
        active = [k for k in _NAME_DEPENDENCIES if k in keys and isinstance(new_node[k], dict)]
        properties = a.get("properties") if "properties" in self.a.keywords(a) else None
        for name, names in sorted(names_b.items()):
            if isinstance(properties, dict) and properties.get(name) is False:
                continue  # no object of A has the name
            present, todo = set(), [name, *required]
            while todo:
                if (next_name := todo.pop()) not in present:
                    present.add(next_name)
                    todo.extend(names_a.get(next_name, ()))
            missing = sorted(names - present)
            if not missing:
                continue
            listed = ", ".join(repr(m) for m in missing)
            verb = "now required" if self._input else "may now be missing"
            key = next((k for k in active if name in new_node[k]), None)
            where = f"/{key}/{escape(name)}" if key is not None else ""
            self.add("required", ap, bp, ip, f"{listed} {verb} where {name!r} is present", False, where)

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

    def _holds_nothing(self, a: dict[str, Any], ap: str, depth: int = 0) -> bool:
        """A accepts no instance, as far as its own keywords tell: none of the few values it may take
        passes all of A, or no type of A is left once bounds that cross and required properties that
        accept nothing are taken out (its `allOf` merged in). A change to what accepts nothing breaks
        nobody."""
        written = a
        a = self._conjunction(a, ap)[0] or a
        values = finite_values(a, self.a)
        if values is not None:  # (each judged by the node as written: a merge may join keywords
            in_a = self.a.validator(written, ap)  # that judge apart, as contentMediaType does)
            return in_a is not None and not any(in_a(v) for v in values)
        # A part (of its allOf, or the target of a $ref beside other keywords) that accepts nothing,
        # or takes a few values none of which the whole takes.
        for part, where in self._conjuncts(self.a, written, ap)[1] if depth < 8 else ():
            node, at = self.a.resolve(part, where)
            if node is False or (isinstance(node, dict) and self._holds_nothing(node, at, depth + 1)):
                return True
            few = finite_values(node, self.a) if isinstance(node, dict) else None
            in_a = self.a.validator(written, ap) if few is not None else None
            if few is not None and in_a is not None and not any(in_a(v) for v in few):
                return True
        if "$ref" in a and self.a.dialect == "draft-07":
            return False  # the siblings of a draft-07 $ref do not apply
        if refuses_all(self.a, a, ap):
            return True
        one_of = a.get("oneOf") if "oneOf" in self.a.keywords(a) else None
        if isinstance(one_of, list) and one_of:
            # Every value in two branches is in none alone: each branch written twice, or two that
            # take anything.
            anything = sum(self._anything(self.a, self.a.resolve(br, ap)[0]) for br in one_of)
            if anything > 1 or not self._alone(one_of, f"{ap}/oneOf"):
                return True
        return not self._inhabited(a, ap, depth)

    def _alone(self, branches: list[JSON], ptr: str) -> list[tuple[JSON, str]]:
        """The branches of a oneOf written only once (a value of two equal ones is in neither alone)."""
        resolved = [self.a.resolve(br, f"{ptr}/{i}") for i, br in enumerate(branches)]
        forms = Counter(canon(node) for node, _ in resolved)
        return [(node, at) for node, at in resolved if forms[canon(node)] == 1]

    def _inhabited(self, a: dict[str, Any], ap: str, depth: int = 0) -> set[str]:
        """A's types that some instance can take, looking into required properties."""
        types = inhabited_types(a)
        if "object" in types and not self._object_possible(a, ap, depth):
            types.discard("object")
        most = self._most_items(self.a, a, ap) if "array" in types else None
        if most is not None and (int_low(lower(a, "minItems", None)) or 0) > most:
            types.discard("array")
        for kw in ("anyOf", "oneOf"):  # an instance is of a type some branch takes
            branches = a.get(kw) if kw in self.a.keywords(a) else None
            if kw == "oneOf" and isinstance(branches, list):
                branches = [node for node, _ in self._alone(branches, f"{ap}/{kw}")]
            allowed = None
            if isinstance(branches, list):
                allowed = self._branch_types(branches, f"{ap}/{kw}", depth)
            if allowed is not None:
                kept = {t for t in types if allows(allowed, t)}
                if "number" in types and "integer" in allowed:
                    kept.add("integer")
                types = kept
        return types

    def _branch_types(self, branches: list[JSON], ptr: str, depth: int = 0) -> set[str] | None:
        """The types the branches take together (a branch's own, as its anyOf or oneOf narrows
        them, a few levels down); None where one takes any type."""
        found: set[str] = set()
        read: set[int] = set()  # (a branch repeated, through one shared definition, is read once)
        for index, branch in enumerate(branches):
            node, at = self.a.resolve(branch, f"{ptr}/{index}")
            if node is False or id(node) in read:
                continue
            if not isinstance(node, dict):
                return None
            read.add(id(node))
            keywords = self.a.keywords(node)
            values = finite_values(node, self.a) if {"const", "enum"} & keywords else None
            in_node = self.a.validator(node, at) if values is not None else None
            if values is not None and in_node is not None:  # (a branch of consts: the types of
                found |= {_json_type(v) for v in values if in_node(v)}  # the values it takes)
            elif depth < 3 and ("type" in keywords or "anyOf" in keywords or "oneOf" in keywords):
                found |= self._inhabited(node, at, depth + 1)
            elif "type" in keywords:
                found |= types_of(node)
            else:
                return None
        return found

    def _object_possible(self, a: dict[str, Any], ap: str, depth: int) -> bool:
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
        closed = (
            "additionalProperties" in a
            and refuses_all(self.a, a["additionalProperties"], f"{ap}/additionalProperties")
            and not a.get("patternProperties")
        )
        for name in sorted(required):
            if name not in props:
                if closed:
                    return False
                continue
            sub, sp = self.a.resolve(props[name], f"{ap}/properties/{escape(name)}")
            if sub is False:
                return False
            if isinstance(sub, dict) and depth < 3 and self._holds_nothing(sub, sp, depth + 1):
                return False
        return True

    def _typed(self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool) -> None:
        ta = self._inhabited(a, ap)
        if not ta and not ({"enum", "const"} & set(a)):
            return  # A holds no instance at all
        tb = types_of(b) if "type" in self.b.keywords(b) else set(ALL_TYPES)
        missing = [t for t in sorted(ta) if not allows(tb, t)]
        common = {t for t in ta if allows(tb, t)}
        if "number" in missing and "integer" in tb and (multiple(1, a.get("multipleOf") or 0.5) or _whole(a)):
            missing.remove("number")  # a multiple of a whole number, or one whole number, is an
            common.add("integer")  # integer: B's type holds it, and B's integer keywords judge it
        if missing:
            self._type_reason(a, b, ap, bp, ip, missing, exact)
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
