"""The comparison of one node's type-specific keywords: numbers, strings, arrays and objects.

`TypedRules` is the half of `compare.Subset` that knows what each type's keywords mean and how a
reason is recorded; the walk through combinators and references is in `compare`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from mcpstub.diff.facts import (
    ALL_TYPES,
    JSON,
    IPath,
    Reason,
    Virtual,
    bound_text,
    canon,
    finite_values,
    fits_high,
    fits_low,
    int_high,
    int_low,
    lower,
    matching,
    multiple,
    num,
    show,
    shown_or_none,
    upper,
)
from mcpstub.diff.semantics import Context
from mcpstub.pointers import escape

# Values tried, in order, for one a new property's schema refuses (the open-object counterexample).
_OTHER_VALUES: tuple[JSON, ...] = (None, 0, "", True, [], {}, 0.5, "x", -1)


# How to add a property to an input object safely, said where one is added to an open object.
OPEN_OBJECT_ADVICE = "close the object (additionalProperties: false) to add properties safely"


def _names_listed(node: dict[str, Any], declared: dict[str, Any]) -> bool:
    """Whether the object's `propertyNames` lists the names it takes, each declared: closed."""
    names = node.get("propertyNames")
    if not isinstance(names, dict):
        return False
    listed = [names["const"]] if "const" in names else names.get("enum")
    return isinstance(listed, list) and all(isinstance(n, str) and n in declared for n in listed)


class TypedRules:
    """Type-specific rules; `check` (the walk) is `compare.Subset`'s."""

    a: Context
    b: Context
    a_is_old: bool
    reasons: list[Reason]
    # What a keyword A leaves out takes (items, additionalProperties): one object for the whole
    # walk, so that a recursion through it into B's recursive schema is seen as one (a fresh `{}`
    # each time walked on until 200 levels, branch by branch: a diff that never ended).
    any_schema: dict[str, Any]

    def check(self, a: JSON, ap: str, b: JSON, bp: str, ip: IPath, exact: bool) -> None:
        """Add the reasons why A (at `ap`) may hold an instance B (at `bp`) refuses."""
        raise NotImplementedError

    @staticmethod
    def _anything(ctx: Context, node: JSON, depth: int = 0) -> bool:
        """The node takes any value, however written: true, no keyword, or keywords each of which
        takes anything (an allOf of such parts, an anyOf with one, a oneOf of one beside parts that
        take nothing, a `not` of what takes nothing, an if whose then and else take anything, a
        type list of every type)."""
        node = ctx.resolve(node, "")[0]
        if node is True or (isinstance(node, dict) and not ctx.keywords(node)):
            return True
        if not isinstance(node, dict) or depth > 8:
            return False
        anything = partial(TypedRules._anything, ctx, depth=depth + 1)
        keywords = ctx.keywords(node)
        for key in keywords - {"if", "then", "else"}:
            value = node[key]
            parts = value if isinstance(value, list) and key in ("allOf", "anyOf", "oneOf") else None
            if not (
                (key == "allOf" and parts is not None and all(map(anything, parts)))
                or (key == "anyOf" and parts is not None and any(map(anything, parts)))
                or (
                    key == "oneOf"
                    and parts is not None
                    and sum(map(anything, parts)) == 1
                    and all(anything(part) or TypedRules._nothing(ctx, part, depth + 1) for part in parts)
                )
                or (key == "not" and TypedRules._nothing(ctx, value, depth + 1))
                or (key == "type" and isinstance(value, list) and ALL_TYPES <= set(value))
            ):
                return False
        if "if" not in keywords:
            return True
        condition = node["if"]  # (what an if that takes anything or nothing never reaches is no matter)
        reached = ["then"] * (not TypedRules._nothing(ctx, condition)) + ["else"] * (not anything(condition))
        return all(anything(node.get(key, True)) for key in reached)

    @staticmethod
    def _nothing(ctx: Context, node: JSON, depth: int = 0) -> bool:
        """The node takes no value, as its combinators tell: false, a `not` of what takes anything,
        an allOf with a part that takes nothing, an anyOf or oneOf of such parts alone."""
        node = ctx.resolve(node, "")[0]
        if node is False or refuses_all(ctx, node, ""):
            return True
        if not isinstance(node, dict) or depth > 8:
            return False
        nothing = partial(TypedRules._nothing, ctx, depth=depth + 1)
        keywords = ctx.keywords(node)
        parts = {key: node[key] for key in ("allOf", "anyOf", "oneOf") if isinstance(node.get(key), list)}
        return (
            ("not" in keywords and TypedRules._anything(ctx, node["not"], depth + 1))
            or ("allOf" in keywords and any(map(nothing, parts.get("allOf", ()))))
            or any(k in keywords and parts.get(k) and all(map(nothing, parts[k])) for k in ("anyOf", "oneOf"))
        )

    def equal_keyword(self, key: str, xv: JSON, xp: str, yv: JSON, yp: str) -> bool:
        """Same meaning of one keyword's values (`compare.Subset`'s)."""
        raise NotImplementedError

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

    def _refused_name(
        self,
        kind: str,
        a: tuple[str, str],
        b: tuple[str, str],
        ip: IPath,
        message: str,
        exact: bool,
        suffix: str,
    ) -> None:
        """Record a reason at the NEW object (plus `suffix`) for a property it now refuses by its
        name: judged where the property's value is (A's schema for it, B's that refuses it), so a
        counterexample is an object that has the property."""
        self.reasons.append(Reason(kind, self._new(a[0], b[0]) + suffix, message, exact, a[1], b[1], ip))

    def undecided(self, ap: str, bp: str, ip: IPath, message: str, suffix: str = "") -> None:
        """Record something the rules cannot decide."""
        self.add("undecided", ap, bp, ip, message, False, suffix)

    def _bound(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool,
        names: tuple[str, str, str | None, str | None], integer: bool,
    ) -> None:  # fmt: skip
        low_name, high_name, low_ex, high_ex = names
        a_lo, b_lo = lower(a, low_name, low_ex), lower(b, low_name, low_ex)
        a_hi, b_hi = upper(a, high_name, high_ex), upper(b, high_name, high_ex)
        if integer and a_lo is None and low_name in ("minLength", "minItems", "minProperties"):
            a_lo = (0, False)
        for kind_name, fits, a_b, b_b, name, ex in (
            ("low", fits_low, a_lo, b_lo, low_name, low_ex),
            ("high", fits_high, a_hi, b_hi, high_name, high_ex),
        ):
            # An integer and a float bound past 2**53 are not compared exactly by the server (it
            # rounds the integer): equal here, they may still take different integers.
            rounded = a_b is not None and b_b is not None and _rounded_apart(a_b[0], b_b[0])
            # So is a node's inclusive bound against its exclusive one: which of them binds is
            # the server's to say (`maximum: 2.0**60` beside `exclusiveMaximum: 2**60 + 1`).
            rounded = rounded or (ex is not None and (_mixed_pair(a, name, ex) or _mixed_pair(b, name, ex)))
            if fits(a_b, b_b, integer) and not rounded:
                continue
            old, new = (a_b, b_b) if self._input else (b_b, a_b)
            verb = "tightened" if self._input else "relaxed"
            if fits(a_b, b_b, integer):
                verb = "rewritten"
            message = (
                f"{name} {verb}: {bound_text(name, old, ex or name)} -> {bound_text(name, new, ex or name)}"
            )
            new_node = b if self._input else a
            # NEW's keyword that bounds it: the exclusive one where that is the tighter
            binding = [ex] if new is not None and new[1] and ex else [name] if new is not None else []
            keyword = next((k for k in (*binding, name, ex) if k and k in new_node), None)
            self.add("bound", ap, bp, ip, message, exact and not rounded, f"/{keyword}" if keyword else "")
            del kind_name

    def _numbers(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool, integer: bool
    ) -> None:
        sparse = "multipleOf" in a and not (integer and multiple(a["multipleOf"], 1))
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
        if not num(m_b):
            return
        m_a = a.get("multipleOf")
        if (num(m_a) and multiple(m_b, m_a)) or (integer and multiple(m_b, 1)):
            return
        low, high = (
            int_low(lower(a, "minimum", "exclusiveMinimum")),
            int_high(upper(a, "maximum", "exclusiveMaximum")),
        )
        wide = low is None or high is None or high - low >= 1 or not integer
        old, new = (m_a, m_b) if self._input else (m_b, m_a)
        verb = "tightened" if self._input else "relaxed"
        message = f"multipleOf {verb}: {shown_or_none(old)} -> {shown_or_none(new)}"
        self.add(
            "bound",
            ap,
            bp,
            ip,
            message,
            exact and wide and not num(m_a),
            "/multipleOf" if (self._input or m_a is not None) else "",
        )

    def _strings(
        self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool
    ) -> None:
        fa, fb = a.get("format"), b.get("format")
        content_a, content_b = self.a.content(a), self.b.content(b)
        shaped = "pattern" in a or self.a.asserts_format(fa) or bool(content_a)
        self._bound(a, ap, b, bp, ip, exact and not shaped, ("minLength", "maxLength", None, None), True)
        if isinstance(b.get("pattern"), str) and a.get("pattern") != b["pattern"]:
            old, new = (a.get("pattern"), b["pattern"]) if self._input else (b["pattern"], a.get("pattern"))
            message = f"pattern changed: {shown_or_none(old)} -> {shown_or_none(new)}"
            self.add(
                "pattern", ap, bp, ip, message, False, "/pattern" if self._input or "pattern" in a else ""
            )
        # A format counts where the side's own server validator asserts it (per dialect).
        if self.b.asserts_format(fb) and not (fa == fb and self.a.asserts_format(fa)):
            old_f, new_f = (fa, fb) if self._input else (fb, fa)
            if fa == fb:
                old_d, new_d = (self.a, self.b) if self._input else (self.b, self.a)
                message = (
                    f"format {fb} is {'now' if self._input else 'no longer'} checked: the server's "
                    f"{new_d.dialect} validator {'asserts' if self._input else 'ignores'} it, its "
                    f"{old_d.dialect} one {'ignored' if self._input else 'asserted'} it"
                )
            elif fa and self.a.asserts_format(fa):  # (both sides check a format: another one)
                message = f"format changed: {show(old_f)} -> {show(new_f)}"
            else:  # (one A's validator ignores is as good as none: a format added, or removed)
                message = f"format {fb} added" if self._input else f"format {fb} removed"
                if fa:
                    message += f" ({fa} is not checked by the server's {self.a.dialect} validator)"
            where = "/format" if self._input or "format" in a else ""
            kind = "format-changed" if fa != fb and self.a.asserts_format(fa) else "format"
            self.add(kind, ap, bp, ip, message, exact and not shaped, where)
        if content_b and canon(content_a) != canon(content_b):
            words = "now checked" if self._input else "no longer checked"
            message = f"{show(content_b)} {words} (the server's {self.b.dialect} validator checks content)"
            where = "/" + next(iter(content_b)) if self._input else ""
            self.add("content", ap, bp, ip, message, False, where)

    def _refused_by(self, reason: Reason, b_node: JSON, b_ptr: str) -> None:
        """Record `reason`, where A takes any value, with a witness: a value B's node refuses."""
        b_test = self.b.validator(b_node, b_ptr)
        refused = [v for v in _OTHER_VALUES if b_test is not None and not b_test(v)]
        reason.witness, reason.has_witness = (refused[0], True) if refused else (None, False)
        self.reasons.append(reason)

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

    def _most_items(self, ctx: Context, node: dict[str, Any], ptr: str) -> int | None:
        """How many items an array of `node` holds at most, whatever its `maxItems` says: a closed
        tuple no more than its prefix, unique items no more than the values they may take."""
        declared = int_high(upper(node, "maxItems", None))
        prefix, rest = self._items(ctx, node, ptr)
        refused = next((i for i, (item, at) in enumerate(prefix) if refuses_all(ctx, item, at)), None)
        if refused is not None:  # no item can stand at that place, nor after it
            declared = min(refused, declared if declared is not None else refused)
        if rest is not None:
            rest_node = ctx.resolve(*rest)[0]
            if refuses_all(ctx, *rest):
                declared = min(len(prefix), declared if declared is not None else len(prefix))
            elif node.get("uniqueItems") is True and isinstance(rest_node, dict) and rest_node:
                values = finite_values(rest_node, ctx)
                takes = ctx.validator(rest_node, ctx.resolve(*rest)[1]) if values is not None else None
                if values is not None and takes is not None:  # (those the items take, once each)
                    distinct = len({canon(v) for v in values if takes(v)}) + len(prefix)
                    declared = min(distinct, declared if declared is not None else distinct)
        return declared

    def _arrays(self, a: dict[str, Any], ap: str, b: dict[str, Any], bp: str, ip: IPath, exact: bool) -> None:
        a_max = self._most_items(self.a, a, ap)
        if a_max is not None and a_max != int_high(upper(a, "maxItems", None)):
            a = {**a, "maxItems": a_max}  # (as A is read: the bound it holds is the one compared)
        self._bound(
            a, ap, b, bp, ip, exact and "contains" not in a, ("minItems", "maxItems", None, None), True
        )
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
            a_i: tuple[JSON, str] = a_pre[i] if i < len(a_pre) else a_rest or (self.any_schema, ap)
            b_i = b_pre[i] if i < len(b_pre) else b_rest
            if b_i is not None:
                self.check(a_i[0], a_i[1], b_i[0], b_i[1], (*ip, i), exact)
        if b_rest is not None and a_max > max(len(a_pre), len(b_pre)):
            a_r = a_rest or (self.any_schema, ap)
            # (placed at the first item past both tuples: one a search can plant)
            self.check(a_r[0], a_r[1], b_rest[0], b_rest[1], (*ip, max(len(a_pre), len(b_pre))), exact)

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
        # Names A's instances may hold, where it is closed to others (None where it is not).
        a_names = None
        if a_add is not None and not a_pat and self.a.resolve(a_add, ap)[0] is False:
            at = f"{ap}/properties/"
            a_names = [n for n, s in a_props.items() if self.a.resolve(s, at + escape(n))[0] is not False]
        a_least = a["minProperties"] if num(a.get("minProperties")) else 0
        for name in sorted(b_req - a_req):
            if a_names is not None and name in a_names and len(a_names) - 1 < a_least:
                continue  # (too few other names for A's minProperties: every instance holds it)
            if self._input:
                message = f"property {name!r} is newly required"
                where = f"/properties/{escape(name)}" if name in b_props else "/required"
            else:
                message = f"property {name!r} is no longer required"
                where = f"/properties/{escape(name)}" if name in a_props else "/required" * ("required" in a)
            self.add("required", ap, bp, (*ip,), message, exact, where)
        max_props = a.get("maxProperties")
        saturated = isinstance(max_props, int | float) and len(a_req) >= max_props  # only required names fit
        # Every name either side declares, and the names A requires: with `maxProperties` filled by
        # them, those are the only names A's instances have, and B judges each.
        declared = [*a_props, *(n for n in b_props if n not in a_props)]
        for name in [*declared, *sorted(n for n in a_req if n not in declared)]:
            if saturated and name not in a_req:
                continue
            seg = f"/properties/{escape(name)}"
            matched: list[str] = []  # A's patterns that match an undeclared name: its schema there
            if name in a_props:
                a_s, a_sp = a_props[name], ap + seg
            else:
                found = matching(a_pat, name)
                if found is None:
                    self.undecided(ap, bp, (*ip, name), "a pattern of patternProperties cannot be read")
                    continue
                matched = found
                if matched:
                    first = ap + "/patternProperties/" + escape(matched[0])
                    a_s, a_sp = (
                        (a_pat[matched[0]], first)
                        if len(matched) == 1
                        else (Virtual({"allOf": [a_pat[m] for m in matched]}), first)
                    )
                else:
                    a_s, a_sp = (
                        (self.any_schema if a_add is None else a_add),
                        ap + ("/additionalProperties" if a_add is not None else seg),
                    )
            if name in b_props:
                b_s, b_sp = b_props[name], bp + seg
            elif pats_equal and b_pat and matching(b_pat, name) != []:
                continue  # the same patterns judge the name on both sides; B's additional does not
            elif b_add is not None:
                b_s, b_sp = b_add, bp + "/additionalProperties"
            else:
                continue
            a_resolved = self.a.resolve(a_s, a_sp)[0]
            b_resolved = self.b.resolve(b_s, b_sp)[0]
            if a_resolved is False or refuses_all(self.a, a_s, a_sp):
                continue
            if name not in b_props and b_resolved is False and (name in a_props or name in a_req):
                if name not in a_props:  # a required name never declared, only let in by A
                    message = (
                        f"required property {name!r} is refused: the object is now closed"
                        if self._input
                        else f"property {name!r} is now required where the object was closed"
                    )
                    where = "/additionalProperties" if self._input else "/required"
                    self._refused_name(
                        "additional", (ap, a_sp), (bp, b_sp), (*ip, name), message, names_exact, where
                    )
                    continue
                if self._input:
                    message, where = f"property {name!r} removed: the object is closed, so it is refused", seg
                else:
                    message, where = f"property {name!r} added where the object was closed", seg
                self._refused_name(
                    "property-forbidden", (ap, a_sp), (bp, b_sp), (*ip, name), message, names_exact, where
                )
                continue
            a_open = a_add is None or self._anything(self.a, self.a.resolve(a_add, ap)[0])
            if name in b_props and name not in a_props and a_open and not matched:
                if self._anything(self.b, b_resolved):
                    continue
                if self._input:  # the open-object rule: a warning unless open-objects is strict
                    closed = b_add is not None and refuses_all(self.b, b_add, bp + "/additionalProperties")
                    closed = closed or _names_listed(b, b_props)  # (`propertyNames: {enum: [a, b]}`)
                    message = (
                        f"property {name!r} added to an object that accepts unlisted "
                        f"properties: a client that sent {name!r} with another value is refused"
                        + ("" if closed else f"; {OPEN_OBJECT_ADVICE}")  # (closing it now is a break)
                    )
                    reason = Reason("open-property", bp + seg, message, names_exact, ap, bp, (*ip, name))
                    self._refused_by(reason, b_resolved, self.b.resolve(b_s, b_sp)[1])
                    continue
                message = f"property {name!r} is no longer declared: any value may now be returned for it"
                at = self._new(ap, bp) + seg
                reason = Reason("property-undeclared", at, message, names_exact, ap, bp, (*ip, name))
                self._refused_by(reason, b_resolved, self.b.resolve(b_s, b_sp)[1])
                continue
            self.check(a_s, a_sp, b_s, b_sp, (*ip, name), names_exact)
        if b_add is not None and not saturated:
            b_closed = refuses_all(self.b, b_add, bp + "/additionalProperties")
            a_closed = a_add is not None and refuses_all(self.a, a_add, ap + "/additionalProperties")
            unlisted = next(  # a name neither side lists: judged by additionalProperties alone
                (
                    name
                    for name in ("unlisted", "x", "_", "0", "Z", *(f"x{i}" for i in range(len(b_props))))
                    if name not in a_props and name not in b_props
                    and matching(a_pat, name) == [] and matching(b_pat, name) == []
                ),
                "**",  # (the patterns take every name tried: any unlisted one)
            )  # fmt: skip
            if b_closed and not a_closed:
                message = (
                    "additionalProperties is now false: unlisted properties are refused"
                    if self._input
                    else "additionalProperties is no longer false: unlisted properties may now be returned"
                )
                where = "/additionalProperties" if self._input or a_add is not None else ""
                if unlisted == "**":
                    self.add("additional", ap, bp, (*ip, "**"), message, names_exact, where)
                else:
                    a_at, b_at = ap + "/additionalProperties", bp + "/additionalProperties"
                    args = ((ap, a_at), (bp, b_at), (*ip, unlisted), message, names_exact, where)
                    self._refused_name("additional", *args)
            elif not b_closed and not a_closed:
                a_at, b_at = ap + "/additionalProperties", bp + "/additionalProperties"
                a_others = self.any_schema if a_add is None else a_add
                self.check(a_others, a_at, b_add, b_at, (*ip, unlisted), names_exact)
        a_lo = max(a.get("minProperties", 0) if num(a.get("minProperties")) else 0, len(a_req))
        probe = dict(a)
        probe["minProperties"] = a_lo
        if a_names is not None and "maxProperties" not in a:
            probe["maxProperties"] = len(a_names)
        self._bound(probe, ap, b, bp, ip, exact, ("minProperties", "maxProperties", None, None), True)


def _mixed_pair(node: dict[str, Any], name: str, ex: str) -> bool:
    """Whether `node` bounds one side by an integer and a float past 2**53 (see `_rounded_apart`)."""
    first, second = node.get(name), node.get(ex)
    if isinstance(first, int | float) and isinstance(second, int | float):
        return _rounded_apart(first, second)
    return False


def _rounded_apart(x: float, y: float) -> bool:
    """One bound an integer, the other a float, past 2**53: the server compares an integer instance
    with the float one after rounding it to a float, so equal bounds may take different integers."""
    return isinstance(x, int) != isinstance(y, int) and max(abs(x), abs(y)) > 2**53


def refuses_all(ctx: Context, node: JSON, ptr: str) -> bool:
    """The node is `false`, or `{not: {}}` (`{not: true}`): it accepts nothing."""
    found = ctx.resolve(node, ptr)[0]
    if not isinstance(found, dict):
        return found is False
    if "not" not in ctx.keywords(found):
        return False
    negated = ctx.resolve(found["not"], f"{ptr}/not")[0]
    return negated is True or (isinstance(negated, dict) and not ctx.keywords(negated))
