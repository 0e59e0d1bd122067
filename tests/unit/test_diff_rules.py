"""`diff` rules, one hand-written pair per rule and direction, each with the finding it must give.

A pair is (old schema, new schema). As an input schema a change breaks clients when it gets
stricter; the same change as an output schema breaks them when the schema gets looser, so most
pairs are tried both ways round: the breaking way must give the rule at the path, the other way
must give no breaking finding at all.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from jsonschema_rs import validator_for

from mcpstub.diff import DiffOptions, Finding, Side, diff_sides
from mcpstub.pointers import resolve

S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741


def obj(props: dict[str, Any], required: tuple[str, ...] = (), **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), **more}


def schema_findings(found: list[Finding]) -> list[Finding]:
    """The findings without the one for the version these sides are given."""
    return [f for f in found if f.rule != "server-version-changed"]


# The rules are tried with a search of 60 instances, a fifth of what a user's diff draws (300):
# a test whose counterexample takes more draws names its count.
EXAMPLES = 60


def run_input(old: Any, new: Any, **opts: Any) -> list[Finding]:
    old_side = Side("1.0.0", {"t": {"name": "t", "inputSchema": old}})
    new_side = Side("2.0.0", {"t": {"name": "t", "inputSchema": new}})
    return schema_findings(diff_sides(old_side, new_side, DiffOptions(**{"max_examples": EXAMPLES, **opts})))


def run_output(old: Any, new: Any, **opts: Any) -> list[Finding]:
    empty = {"type": "object"}
    old_side = Side("1.0.0", {"t": {"name": "t", "inputSchema": empty, "outputSchema": old}})
    new_side = Side("2.0.0", {"t": {"name": "t", "inputSchema": empty, "outputSchema": new}})
    return schema_findings(diff_sides(old_side, new_side, DiffOptions(**{"max_examples": EXAMPLES, **opts})))


def breaking(findings: list[Finding]) -> set[tuple[str, str, str]]:
    return {(f.rule, f.direction, f.path) for f in findings if f.severity == "breaking"}


D07_OBJECT = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}

# (id, stricter schema's counterpart: looser, stricter, input rule + path, output rule + path)
# As an input, looser -> stricter breaks; as an output, stricter -> looser breaks.
PAIRS: list[tuple[str, Any, Any, tuple[str, str], tuple[str, str]]] = [
    (
        "required",
        obj({"a": S}),
        obj({"a": S}, ("a",)),
        ("input-required-added", "/properties/a"),
        ("output-required-removed", "/properties/a"),
    ),
    (
        "closed-object-property",
        obj({"a": S, "b": S}, additionalProperties=False),
        obj({"a": S}, additionalProperties=False),
        ("input-property-removed", "/properties/b"),
        ("output-property-added", "/properties/b"),
    ),
    (
        "additional-properties",
        obj({"a": S}),
        obj({"a": S}, additionalProperties=False),
        ("input-additional-properties-closed", "/additionalProperties"),
        ("output-additional-properties-opened", ""),
    ),
    (
        "additional-properties-schema",
        obj({"a": S}, additionalProperties=S),
        obj({"a": S}, additionalProperties={"type": "string", "maxLength": 3}),
        ("input-constraint-tightened", "/additionalProperties/maxLength"),
        ("output-constraint-relaxed", "/additionalProperties"),
    ),
    (
        "type",
        obj({"a": {"type": ["string", "integer"]}}),
        obj({"a": S}),
        ("input-type-narrowed", "/properties/a/type"),
        ("output-type-widened", "/properties/a/type"),
    ),
    (
        "number-integer",
        obj({"a": {"type": "number"}}),
        obj({"a": I}),
        ("input-type-narrowed", "/properties/a/type"),
        ("output-type-widened", "/properties/a/type"),
    ),
    (
        "null",
        obj({"a": {"type": ["string", "null"]}}, ("a",)),
        obj({"a": S}, ("a",)),
        ("input-null-refused", "/properties/a/type"),
        ("output-null-allowed", "/properties/a/type"),
    ),
    (
        "null-any-of",
        obj({"a": {"anyOf": [S, {"type": "null"}]}}, ("a",)),
        obj({"a": S}, ("a",)),
        ("input-null-refused", "/properties/a/type"),
        ("output-null-allowed", "/properties/a/anyOf/1/type"),
    ),
    (
        "enum",
        obj({"a": {"enum": ["x", "y"]}}),
        obj({"a": {"enum": ["x"]}}),
        ("input-enum-narrowed", "/properties/a/enum"),
        ("output-enum-widened", "/properties/a/enum"),
    ),
    (
        "enum-added",
        obj({"a": S}),
        obj({"a": {"type": "string", "enum": ["x"]}}),
        ("input-enum-narrowed", "/properties/a/enum"),
        ("output-enum-widened", "/properties/a"),
    ),
    (
        "const",
        obj({"a": S}),
        obj({"a": {"type": "string", "const": "x"}}),
        ("input-const-added", "/properties/a/const"),
        ("output-const-removed", "/properties/a"),
    ),
    (
        "minimum",
        obj({"a": {"type": "number", "minimum": 0}}),
        obj({"a": {"type": "number", "minimum": 1}}),
        ("input-constraint-tightened", "/properties/a/minimum"),
        ("output-constraint-relaxed", "/properties/a/minimum"),
    ),
    (
        "exclusive-maximum",
        obj({"a": {"type": "number", "maximum": 10}}),
        obj({"a": {"type": "number", "exclusiveMaximum": 10}}),
        ("input-constraint-tightened", "/properties/a/exclusiveMaximum"),
        ("output-constraint-relaxed", "/properties/a/maximum"),
    ),
    (
        "max-length",
        obj({"a": S}),
        obj({"a": {"type": "string", "maxLength": 5}}),
        ("input-constraint-tightened", "/properties/a/maxLength"),
        ("output-constraint-relaxed", "/properties/a"),
    ),
    (
        "min-items",
        obj({"a": {"type": "array", "items": S}}),
        obj({"a": {"type": "array", "items": S, "minItems": 1}}),
        ("input-constraint-tightened", "/properties/a/minItems"),
        ("output-constraint-relaxed", "/properties/a"),
    ),
    (
        "max-properties",
        obj({"a": S}),
        obj({"a": S}, maxProperties=3),
        ("input-constraint-tightened", "/maxProperties"),
        ("output-constraint-relaxed", ""),
    ),
    (
        "multiple-of",
        obj({"a": I}),
        obj({"a": {"type": "integer", "multipleOf": 5}}),
        ("input-constraint-tightened", "/properties/a/multipleOf"),
        ("output-constraint-relaxed", "/properties/a"),
    ),
    (
        "unique-items",
        obj({"a": {"type": "array"}}),
        obj({"a": {"type": "array", "uniqueItems": True}}),
        ("input-constraint-tightened", "/properties/a/uniqueItems"),
        ("output-constraint-relaxed", "/properties/a"),
    ),
    (
        "format",
        obj({"a": S}),
        obj({"a": {"type": "string", "format": "date"}}),
        ("input-format-added", "/properties/a/format"),
        ("output-format-removed", "/properties/a"),
    ),
    (
        "items",
        obj({"a": {"type": "array", "items": {"type": ["string", "integer"]}}}),
        obj({"a": {"type": "array", "items": S}}),
        ("input-type-narrowed", "/properties/a/items/type"),
        ("output-type-widened", "/properties/a/items/type"),
    ),
    (
        "prefix-items",
        obj({"a": {"type": "array", "prefixItems": [S]}}),
        obj({"a": {"type": "array", "prefixItems": [{"type": "string", "minLength": 1}]}}),
        ("input-constraint-tightened", "/properties/a/prefixItems/0/minLength"),
        ("output-constraint-relaxed", "/properties/a/prefixItems/0"),
    ),
    (
        "ref-target",
        obj({"a": {"$ref": "#/$defs/X"}}, **{"$defs": {"X": obj({"b": S})}}),
        obj({"a": {"$ref": "#/$defs/X"}}, **{"$defs": {"X": obj({"b": S}, ("b",))}}),
        ("input-required-added", "/$defs/X/properties/b"),
        ("output-required-removed", "/$defs/X/properties/b"),
    ),
    (
        "nested-object",
        obj({"a": obj({"b": I})}),
        obj({"a": obj({"b": {"type": "integer", "maximum": 3}})}),
        ("input-constraint-tightened", "/properties/a/properties/b/maximum"),
        ("output-constraint-relaxed", "/properties/a/properties/b"),
    ),
    (
        "dependent-required",
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        {"type": "object", "dependentRequired": {"a": ["b", "c"]}},
        ("input-required-added", "/dependentRequired/a"),
        ("output-required-removed", "/dependentRequired/a"),
    ),
    (
        "dependencies-names",
        D07_OBJECT,
        {**D07_OBJECT, "dependencies": {"a": ["b"]}},
        ("input-required-added", "/dependencies/a"),
        ("output-required-removed", ""),
    ),
]


@pytest.mark.parametrize(
    ("looser", "stricter", "in_rule", "out_rule"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS]
)
def test_input_breaks_when_stricter(
    looser: Any, stricter: Any, in_rule: tuple[str, str], out_rule: tuple[str, str]
) -> None:
    found = breaking(run_input(looser, stricter, check_version=False))
    assert (in_rule[0], "input", "/inputSchema" + in_rule[1]) in found, found
    assert not breaking(run_input(stricter, looser, check_version=False))


def test_a_format_changed_is_named_so_both_ways_and_in_both_directions() -> None:
    # email -> date is neither a format added nor one removed: each side takes what the other refuses.
    email, date = (obj({"a": {"type": "string", "format": name}}) for name in ("email", "date"))
    for old, new in ((email, date), (date, email)):
        for run, direction in ((run_input, "input"), (run_output, "output")):
            found = breaking(run(old, new, check_version=False))
            at = f"/{direction}Schema/properties/a/format"
            assert found == {(f"{direction}-format-changed", direction, at)}, found
    # A format the old side's validator ignores (draft-07's uuid) was none: one is added.
    uuid, email = ({**D07_OBJECT, "properties": {"a": {"format": f}}} for f in ("uuid", "email"))
    unchecked = "(uuid is not checked by the server's draft-07 validator)"
    found = [(f.rule, f.message) for f in run_input(uuid, email, check_version=False)]
    assert found == [("input-format-added", f"format email added {unchecked}")]
    assert {f.rule for f in run_input(email, uuid, check_version=False)} == {"input-format-removed"}
    found = [(f.rule, f.message) for f in run_output(email, uuid, check_version=False)]
    assert found == [("output-format-removed", f"format email removed {unchecked}")]


@pytest.mark.parametrize(
    ("looser", "stricter", "in_rule", "out_rule"), [p[1:] for p in PAIRS], ids=[p[0] for p in PAIRS]
)
def test_output_breaks_when_looser(
    looser: Any, stricter: Any, in_rule: tuple[str, str], out_rule: tuple[str, str]
) -> None:
    found = breaking(run_output(stricter, looser, check_version=False))
    assert (out_rule[0], "output", "/outputSchema" + out_rule[1]) in found, found
    assert not breaking(run_output(looser, stricter, check_version=False))


COMPATIBLE = [
    ("moved-into-defs", obj({"a": S}), obj({"a": {"$ref": "#/$defs/A"}}, **{"$defs": {"A": S}})),
    (
        "renamed-def",
        obj({"a": {"$ref": "#/$defs/A"}}, **{"$defs": {"A": S}}),
        obj({"a": {"$ref": "#/$defs/B"}}, **{"$defs": {"B": S}}),
    ),
    (
        "integer-bound-between-integers",
        obj({"a": {"type": "integer", "maximum": 10}}),
        obj({"a": {"type": "integer", "maximum": 10.5}}),
    ),
    (
        "same-integers",
        obj({"a": {"type": "integer", "minimum": 0.5}}),
        obj({"a": {"type": "integer", "minimum": 1}}),
    ),
    (
        "enum-within-range",
        obj({"a": {"type": "integer", "minimum": 1, "maximum": 3}}),
        obj({"a": {"enum": [1, 2, 3]}}),
    ),
    (  # a number its bounds pin to one whole value is an integer
        "number-pinned-to-a-whole-value",
        obj({"a": {"type": "number", "minimum": 1, "maximum": 1}}),
        obj({"a": I}),
    ),
    (
        "number-pinned-written-as-float",
        obj({"a": {"type": "number", "minimum": 2.0, "maximum": 2}}),
        obj({"a": I}),
    ),
    (
        "number-with-no-value",
        obj({"a": {"type": "number", "minimum": 1, "exclusiveMaximum": 1}}),
        obj({"a": {"type": "integer", "maximum": 0}}),
    ),
    ("description-only", obj({"a": S}), obj({"a": {"type": "string", "description": "now documented"}})),
    ("anyof-reordered", obj({"a": {"anyOf": [S, I]}}), obj({"a": {"anyOf": [I, S]}})),
    ("unknown-keyword", obj({"a": S}), obj({"a": {"type": "string", "x-widget": "text"}})),
    (
        "multiple-of-divides",
        obj({"a": {"type": "integer", "multipleOf": 10}}),
        obj({"a": {"type": "integer", "multipleOf": 10}}),
    ),
    ("allof-merged", obj({"a": S, "b": I}, ("a",)), {"allOf": [obj({"a": S}, ("a",)), obj({"b": I})]}),
    (
        "draft07-ref-sibling-ignored",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/A"}},
            "definitions": {"A": S},
        },
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": {"$ref": "#/definitions/A", "maxLength": 1}},
            "definitions": {"A": S},
        },
    ),
]


@pytest.mark.parametrize(("old", "new"), [c[1:] for c in COMPATIBLE], ids=[c[0] for c in COMPATIBLE])
def test_compatible_input_change_is_not_breaking(old: Any, new: Any) -> None:
    assert not breaking(run_input(old, new, check_version=False))


# Names a property's presence requires (dependentRequired, draft-07's dependencies of names): OLD
# asks for them already where its required names, or the names its own dependencies bring in,
# transitively, are there; the same dependencies in the other dialect's spelling are a rewrite.
NAME_DEPENDENCIES = [
    (
        "transitive",
        {"type": "object", "dependentRequired": {"a": ["b"], "b": ["c"]}},
        {"type": "object", "dependentRequired": {"a": ["b", "c"]}},
    ),
    (
        "required",
        {"type": "object", "required": ["c"]},
        {"type": "object", "dependentRequired": {"a": ["c"]}},
    ),
    (
        "never-present",
        {"type": "object", "properties": {"a": False}},
        {"type": "object", "properties": {"a": False}, "dependentRequired": {"a": ["c"]}},
    ),
    (
        "draft-07-spelling",
        {**D07_OBJECT, "dependencies": {"a": ["b"]}},
        {"type": "object", "dependentRequired": {"a": ["b"]}},
    ),
    (
        "2020-12-spelling",
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        {**D07_OBJECT, "dependencies": {"a": ["b"]}},
    ),
]


@pytest.mark.parametrize(
    ("old", "new"), [c[1:] for c in NAME_DEPENDENCIES], ids=[c[0] for c in NAME_DEPENDENCIES]
)
def test_names_a_property_requires_are_compared_by_what_old_asks_for_already(old: Any, new: Any) -> None:
    run_input(old, old)  # (what the first comparison of a process imports is not timed)
    started = time.process_time()
    found = run_input(old, new, check_version=False)
    assert [f for f in found if f.severity != "info"] == [], found  # decided: neither broken nor undecided
    assert time.process_time() - started < 0.5  # by the rules, not a search that found nothing
    if old.get("$schema") != new.get("$schema"):
        assert [f.rule for f in found] == ["input-schema-rewritten"]


@pytest.mark.parametrize("inert", [5, True, "abc", {"a": ["c"]}])
def test_a_name_dependency_is_placed_by_the_keywords_its_dialect_reads(inert: Any) -> None:
    # draft-07 ignores dependentRequired, whatever it holds: the break is the `dependencies` one.
    old = {**D07_OBJECT, "properties": {"a": S, "b": S}}
    new = {**old, "dependentRequired": inert, "dependencies": {"a": ["b"]}}
    found = [(f.rule, f.path, f.counterexample) for f in run_input(old, new) if f.severity == "breaking"]
    assert found == [("input-required-added", "/inputSchema/dependencies/a", {"a": ""})], found


def test_identical_sides_give_nothing() -> None:
    schema = obj({"a": {"anyOf": [S, {"not": I}]}, "b": {"if": S, "then": {"minLength": 2}}})
    assert run_input(schema, schema) == []


def side(tools: dict[str, dict[str, Any]], version: str | None = "1.0.0") -> Side:
    return Side(version, {name: {"name": name, **tool} for name, tool in tools.items()})


BASE = {"inputSchema": obj({"a": S})}


def test_removed_tool_is_breaking_and_renamed_tool_is_named() -> None:
    other = {**BASE, "outputSchema": obj({"r": S})}
    found = diff_sides(side({"a": BASE, "b": other}), side({"c": BASE}, "2.0.0"))
    rules = {(f.tool, f.rule, f.severity) for f in found}
    assert ("a", "tool-removed", "breaking") in rules
    assert ("c", "tool-added", "info") in rules
    assert [f.message for f in found if f.rule == "tool-removed"] == [
        "no longer served: a client that calls it fails (renamed to 'c'?)",
        "no longer served: a client that calls it fails",
    ]
    # Two removed tools with the schemas of the one added: no guess names either.
    found = diff_sides(side({"a": BASE, "b": BASE}), side({"c": BASE}, "2.0.0"))
    gone = "no longer served: a client that calls it fails"
    assert [f.message for f in found if f.rule == "tool-removed"] == [gone, gone]


def test_output_schema_removed_or_added_is_breaking() -> None:
    with_out = {**BASE, "outputSchema": obj({"r": S})}
    removed = diff_sides(side({"t": with_out}), side({"t": BASE}, "2.0.0"))
    added = diff_sides(side({"t": BASE}), side({"t": with_out}, "2.0.0"))
    assert ("output-schema-removed", "output") in {(f.rule, f.direction) for f in removed}
    assert ("output-schema-added", "output") in {(f.rule, f.direction) for f in added}


@pytest.mark.parametrize(
    ("hint", "before", "after", "rule"),
    [
        ("readOnlyHint", True, False, "annotation-read-only-dropped"),
        ("readOnlyHint", True, None, "annotation-read-only-dropped"),
        ("destructiveHint", False, True, "annotation-destructive-added"),
        ("destructiveHint", False, None, "annotation-destructive-added"),
        ("idempotentHint", True, False, "annotation-idempotent-dropped"),
        ("openWorldHint", False, True, "annotation-open-world-added"),
    ],
)
def test_annotation_flips_warn(hint: str, before: bool, after: bool | None, rule: str) -> None:
    old = {**BASE, "annotations": {hint: before}}
    new = {**BASE, "annotations": {} if after is None else {hint: after}}
    found = diff_sides(side({"t": old}), side({"t": new}))
    assert [(f.rule, f.severity, f.path) for f in found] == [(rule, "warning", f"/annotations/{hint}")]
    assert not [f for f in diff_sides(side({"t": new}), side({"t": old})) if f.severity != "info"]


def test_wording_changes_are_info_naming_the_tool() -> None:
    old = {**BASE, "title": "A", "description": "does a"}
    new = {
        **BASE,
        "title": "B",
        "description": "does b",
        "inputSchema": obj({"a": {"type": "string", "description": "x"}}),
    }
    found = diff_sides(side({"t": old}), side({"t": new}))
    assert {(f.tool, f.rule, f.severity) for f in found} == {
        ("t", "title-changed", "info"),
        ("t", "description-changed", "info"),
        ("t", "schema-wording-changed", "info"),
    }


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("1.2.0", "1.3.0", True),
        ("1.2.0", "2.0.0", False),
        ("0.3.1", "0.4.0", False),
        ("0.3.1", "0.3.2", True),
        ("1.0.0", None, True),
        ("1.0", "2.0", False),
        ("1.0", "1.1", True),
        ("1", "v2", False),
        ("2024.06", "2025.01", True),
        ("1.0.0", "\u0662.0.0", True),  # (an Arabic-Indic 2: semver's digits are ASCII)
        ("1" * 5000 + ".0.0", "2.0.0", True),
        ("v1.0.0", "v2.0.0", False),
        ("1.9.0", "10.0.0", False),
    ],
)
def test_breaking_change_needs_a_major_bump(old: str, new: str | None, error: bool) -> None:
    found = diff_sides(side({"a": BASE, "b": BASE}, old), side({"a": BASE}, new))
    assert ("version-not-bumped" in {f.rule for f in found}) is error


def test_a_version_that_is_no_semantic_version_is_said_with_the_ways_out() -> None:
    for old, new in (("2024.06", "2025.01"), ("1.0.0", None), ("2024.06", "3.0.0")):
        found_all = diff_sides(side({"a": BASE, "b": BASE}, old), side({"a": BASE}, new))
        (found,) = [f for f in found_all if f.rule == "version-not-bumped"]
        assert "e.g. 2.0.0" in found.message and "--no-version-check" in found.message, found.message
        # The old side is a past revision: writing it again is no way out.
        assert ("write it as one" in found.message or "set it" in found.message) == (old == "1.0.0")


def test_version_check_can_be_turned_off_and_ignores_apply() -> None:
    from mcpstub.diff import Ignore  # noqa: PLC0415

    old, new = side({"a": BASE, "b": BASE}), side({"a": BASE})
    assert {f.rule for f in diff_sides(old, new, DiffOptions(check_version=False))} == {"tool-removed"}
    ignored = DiffOptions(ignore=(Ignore("b", "tool-removed", "b was never released"),))
    assert diff_sides(old, new, ignored) == []
    everywhere = DiffOptions(ignore=(Ignore("*", "tool-removed", "nothing is released yet"),))
    assert diff_sides(old, new, everywhere) == []
    other = DiffOptions(ignore=(Ignore("a", "tool-removed", "only a"),))
    assert {f.rule for f in diff_sides(old, new, other)} == {"tool-removed", "version-not-bumped"}


def union(*kinds: str) -> dict[str, Any]:
    branches = [obj({"kind": {"const": k}, "v": S}, ("kind",)) for k in kinds]
    return obj({"p": {"oneOf": branches}}, ("p",))


def test_discriminated_union_gains_a_branch() -> None:
    assert not breaking(run_input(union("a", "b"), union("a", "b", "c"), check_version=False))
    found = breaking(run_output(union("a", "b"), union("a", "b", "c"), check_version=False))
    assert found == {("output-widened", "output", "/outputSchema/properties/p/oneOf/2")}
    [finding] = [f for f in run_output(union("a", "b"), union("a", "b", "c")) if f.severity == "breaking"][:1]
    assert finding.has_counterexample and finding.counterexample["p"]["kind"] == "c"


def test_nullable_spelled_another_way_is_no_change() -> None:
    old = obj({"a": {"type": ["string", "null"]}})
    new = obj({"a": {"anyOf": [S, {"type": "null"}]}})
    for first, second in ((old, new), (new, old)):
        assert not [f for f in run_input(first, second) if f.severity != "info"]
        assert not [f for f in run_output(first, second) if f.severity != "info"]


def test_default_change_is_info() -> None:
    old = obj({"a": {"type": "integer", "default": 3}})
    new = obj({"a": {"type": "integer", "default": 7}})
    assert [(f.rule, f.severity, f.path) for f in run_input(old, new)] == [
        ("schema-default-changed", "info", "/inputSchema/properties/a/default")
    ]


P_DEF = {"$defs": {"P": {"enum": ["low", "high"], "description": "how urgent"}}}
P_INLINE = {"enum": ["low", "high"], "description": "how urgent"}


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ({"$ref": "#/$defs/P", "default": "low"}, {"$ref": "#/$defs/P", "default": "high"},
         "/properties/a/default"),
        ({"$ref": "#/$defs/P"}, {"$ref": "#/$defs/P", "default": "high"}, "/properties/a/default"),
        ({"$ref": "#/$defs/P", "description": "x"}, {"$ref": "#/$defs/P", "description": "y"},
         "/properties/a/description"),
        ({"$ref": "#/$defs/P", "description": "x"}, {"$ref": "#/$defs/P"}, "/properties/a/description"),
        ({"$ref": "#/$defs/P", "default": "low"}, {**P_INLINE, "default": "high"}, "/properties/a/default"),
        ({"$ref": "#/$defs/P", "default": "low"}, {**P_INLINE, "default": "low"}, None),
        ({"$ref": "#/$defs/P", "description": "how urgent"}, {"$ref": "#/$defs/P"},
         "/properties/a/description"),
    ],
)  # fmt: skip
def test_an_annotation_written_beside_a_reference_is_that_place_s(
    old: Any, new: Any, said: str | None
) -> None:
    # `{$ref: P, default: low}` holds its own default (which the models take) and its own words;
    # where it writes none, its reference's are the ones it shows.
    for run, key in ((run_input, "/inputSchema"), (run_output, "/outputSchema")):
        a, b = {**P_DEF, **obj({"a": old})}, {**P_DEF, **obj({"a": new})}
        found = [(f.rule, f.path) for f in run(a, b, check_version=False) if f.rule.startswith("schema-")]
        assert [path for _, path in found] == ([] if said is None else [key + said]), (old, new, found)
        back = [f.rule for f in run(b, a, check_version=False) if f.rule.startswith("schema-")]
        assert back == [rule for rule, _ in found], (new, old, back)


def test_each_annotation_along_a_reference_is_compared_where_it_is_written() -> None:
    # The node's own and each definition's it passes through: a change in one is said there, and
    # one of the node's does not hide one of the definition's (both are on the wire).
    def side(own: dict[str, Any], a: dict[str, Any], p: dict[str, Any]) -> dict[str, Any]:
        defs = {"A": {"$ref": "#/$defs/P", **a}, "P": {"enum": ["low", "high"], **p}}
        return {"$defs": defs, **obj({"x": {"$ref": "#/$defs/A", **own}})}

    mine = {"description": "mine"}
    for old, new, said in (
        (side(mine, {}, {"description": "old"}), side(mine, {}, {"description": "new"}),
         "/$defs/P/description"),
        (side({"default": "high"}, {}, {"default": "low"}), side({}, {}, {"default": "low"}),
         "/properties/x/default"),
        (side({}, {"default": "low"}, {}), side({}, {"default": "high"}, {}), "/$defs/A/default"),
    ):  # fmt: skip
        found = [(f.rule, f.path) for f in run_input(old, new, check_version=False)]
        assert [path for _, path in found] == [f"/inputSchema{said}"], found


def test_an_alias_put_in_or_taken_out_of_a_reference_s_way_hides_no_annotation_of_its_ends() -> None:
    # x -> P became x -> A -> P (and back): what x shows before P is compared with what it showed
    # (its own, else the alias's), and P's with P's, each said where NEW shows it.
    def side(own: dict[str, Any], p: dict[str, Any], alias: dict[str, Any] | None) -> dict[str, Any]:
        defs = {"P": {"enum": ["low", "high"], **p}}
        if alias is not None:
            defs["A"] = {"$ref": "#/$defs/P", **alias}
        target = "A" if alias is not None else "P"
        return {"$defs": defs, **obj({"x": {"$ref": f"#/$defs/{target}", **own}, "y": {"$ref": "#/$defs/P"}})}

    mine, alias = {"default": "low", "description": "mine"}, {"description": "an alias"}
    for old, new, said, back in (
        # P's own change, whichever way x reaches it (y reaches it straight): said at P.
        (side(mine, {"description": "old"}, None), side(mine, {"description": "new"}, {}),
         ["/$defs/P/description"], None),
        (side(mine, {"default": "low"}, None), side(mine, {"default": "high"}, {}),
         ["/$defs/P/default"], None),
        (side({}, {"description": "old"}, None), side({}, {"description": "new"}, alias),
         ["/$defs/A/description", "/$defs/P/description"],
         ["/properties/x/description", "/$defs/P/description"]),
        # x's own: said at x.
        (side(mine, {"default": "low"}, None), side({**mine, "default": "high"}, {"default": "low"}, {}),
         ["/properties/x/default"], None),
        # What the alias shows is what x showed before P: new where x wrote none.
        (side(mine, {}, None), side(mine, {}, alias), [], None),
        (side({}, {}, None), side({}, {}, alias), ["/$defs/A/description"], ["/properties/x/description"]),
        # Words moved from the alias onto x, or nothing changed: nothing a client sees changed.
        (side({}, {"title": "P"}, alias), side(alias, {"title": "P"}, None), [], None),
        (side(mine, {"title": "P"}, None), side(mine, {"title": "P"}, {}), [], None),
    ):  # fmt: skip
        for a, b, paths in ((old, new, said), (new, old, back or said)):
            found = [f.path for f in run_input(a, b, check_version=False) if f.rule.startswith("schema-")]
            assert sorted(found) == sorted(f"/inputSchema{path}" for path in paths), (a, b, found)


def test_words_along_a_long_chain_of_references_are_compared() -> None:
    def side(title: str, links: int = 10, first: str = "al") -> dict[str, Any]:
        defs: dict[str, Any] = {f"D{i}": {"$ref": f"#/$defs/D{i + 1}"} for i in range(links)}
        defs["D0"]["description"] = first
        defs[f"D{links}"] = {"type": "string"}
        return {"$defs": defs, **obj({"p": {"$ref": "#/$defs/D0", "title": title}})}

    def said(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
        return [(f.path, f.message) for f in run_input(old, new) if f.rule.startswith("schema-")]

    titled = said(side("Old"), side("New"))
    assert titled == [("/inputSchema/properties/p/title", 'schema title changed: "Old" -> "New"')]
    assert said(side("T", 9), side("T", 10)) == []  # (an alias put in: the same words shown)
    assert said(side("T", 2), side("T", 12)) == []
    assert said(side("T", 120), side("T", 121)) == []  # (however long: no link dropped, none shifted)
    changed = said(side("T", 12, "o"), side("T", 12, "n"))
    assert changed == [("/inputSchema/$defs/D0/description", 'schema description changed: "o" -> "n"')]


WEIRD: list[Any] = [
    5, None, "x", [], True, False, {"type": 5}, {"type": "object", "properties": [1]},
    {"type": "object", "required": "a"}, {"properties": {"a": {"$ref": "#/nowhere"}}}, {"anyOf": 3},
    {"allOf": [True, False]}, {"enum": 3}, {"minimum": "x"}, {"additionalProperties": 3}, {"$ref": "#"},
    {"type": "object", "properties": {"a": {"$ref": "#"}}}, {"items": [{"type": "string"}]},
]  # fmt: skip


def test_malformed_sides_never_raise() -> None:
    """Sides read from a live server or a snapshot are not checked like a toolset."""
    for a in WEIRD:
        for b in WEIRD:
            old = Side("1", {"t": {"name": "t", "inputSchema": a, "outputSchema": b}})
            new = Side("x", {"t": {"name": "t", "inputSchema": b, "outputSchema": a}})
            diff_sides(old, new, DiffOptions(search=False))


# Undecided rewrites whose counterexample is a value one of the schemas names: random drawing
# seldom meets it ("root" among all strings), the values named at the node are tried first.
NAMED_BREAKS: list[tuple[str, Any, Any, Any]] = [
    (
        "not-enum-grows",
        obj({"v": {"type": "string", "not": {"enum": ["admin"]}}}),
        obj({"v": {"type": "string", "not": {"enum": ["admin", "root"]}}}),
        {"v": "root"},
    ),
    (
        "not-const-moves",
        obj({"v": {"type": "string", "not": {"const": "admin"}}}),
        obj({"v": {"type": "string", "not": {"const": "x-legacy-mode"}}}),
        {"v": "x-legacy-mode"},
    ),
    (
        "if-then-tightens",
        {**obj({"kind": S, "n": I}), "if": obj({"kind": {"const": "bulk"}}, ("kind",)),
         "then": obj({"n": {"minimum": 1000}})},
        {**obj({"kind": S, "n": I}), "if": obj({"kind": {"const": "bulk"}}, ("kind",)),
         "then": obj({"n": {"minimum": 5000}})},
        None,  # some {"kind": "bulk", "n": 1000..4999}
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "looser", "stricter", "witness"), NAMED_BREAKS, ids=[p[0] for p in NAMED_BREAKS]
)
def test_undecided_rewrite_finds_the_named_value(name: str, looser: Any, stricter: Any, witness: Any) -> None:
    # No time to draw instances at all: the named values alone settle it.
    for opts in ({}, {"search_budget_seconds": 0}):
        [found] = [
            f for f in run_input(looser, stricter, check_version=False, **opts) if f.severity == "breaking"
        ]
        assert found.rule == "input-narrowed" and found.has_counterexample, (found, opts)
        if witness is not None:
            assert found.counterexample == witness
        else:
            assert found.counterexample["kind"] == "bulk" and 1000 <= found.counterexample["n"] < 5000
        # As an output, the change breaks only where the new schema lets a value out it refused.
        out = [
            f for f in run_output(looser, stricter, check_version=False, **opts) if f.severity == "breaking"
        ]
        if name == "not-const-moves":
            assert [(f.rule, f.counterexample) for f in out] == [("output-widened", {"v": "admin"})]
        else:
            assert not out


def test_the_search_time_of_one_diff_is_bounded() -> None:
    # A loosened `not` has no counterexample: each such change would draw for its own time; a
    # diff's searches share one budget, and past it the changes are warnings that say so.
    old = obj({"v": {"type": "string", "not": {"enum": ["admin", "root"]}}})
    new = obj({"v": {"type": "string", "not": {"enum": ["admin"]}}})
    tools_old = {f"t{i}": {"name": f"t{i}", "inputSchema": old} for i in range(3)}
    tools_new = {f"t{i}": {"name": f"t{i}", "inputSchema": new} for i in range(3)}
    found = diff_sides(
        Side("1.0.0", tools_old), Side("1.0.0", tools_new), DiffOptions(search_budget_seconds=0)
    )
    assert [(f.rule, f.severity) for f in found] == [("input-undecided", "warning")] * 3
    assert all("search time (0 s of CPU) is spent" in f.message for f in found)


def test_a_spent_search_budget_bounds_the_whole_diff() -> None:
    # Many tools, each with a nested undecided change inside an object that takes work to draw
    # an instance of: once the (tiny) budget is spent, nothing more is drawn for any tool, not
    # even the instance a named value would be planted into.
    inner = {"type": "string", "not": {"enum": ["admin", "root"]}}
    deps = {"dependentRequired": {"a": ["b", "c"]}}
    old = obj({"a": I, "b": I, "c": I, "v": inner}, ("a", "v"), **deps)
    new = obj({"a": I, "b": I, "c": I, "v": {**inner, "not": {"enum": ["admin"]}}}, ("a", "v"), **deps)
    count = 150
    tools_old = {f"t{i}": {"name": f"t{i}", "inputSchema": old} for i in range(count)}
    tools_new = {f"t{i}": {"name": f"t{i}", "inputSchema": new} for i in range(count)}
    options = DiffOptions(search_budget_seconds=0.3, search_seconds=10)
    start = time.process_time()
    found = diff_sides(Side("1.0.0", tools_old), Side("1.0.0", tools_new), options)
    spent = time.process_time() - start
    assert [(f.rule, f.severity) for f in found] == [("input-undecided", "warning")] * count
    assert sum("search time (0.3 s of CPU) is spent" in f.message for f in found) >= count - 2
    assert spent < 3, spent  # the budget, one search's overshoot and the rules, not a draw per tool


def test_a_search_whose_draws_are_all_filtered_away_keeps_to_its_time() -> None:
    # hypothesis-jsonschema draws arrays of objects and throws each away (`not` refuses them all):
    # no draw reached the check of the time left, and a search of 1 s took two minutes.
    items = {"type": "array", "items": {"type": "object", "required": ["a"]}}
    never = {**items, "minItems": 2, "not": items}
    start = time.process_time()
    found = run_output(S, never, search_budget_seconds=1, search_seconds=1)
    spent = time.process_time() - start
    assert spent < 4, spent
    assert "output-undecided" in {f.rule for f in found}, found


def test_a_node_is_searched_when_no_instance_of_the_old_schema_can_be_drawn() -> None:
    # A recursive definition: no whole instance of A can be drawn (hypothesis-jsonschema refuses
    # recursive references), but the changed node alone can, planted into nothing.
    tree = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}}

    def schema(pattern: str) -> dict[str, Any]:
        return {
            "$defs": {"tree": tree},
            **obj({"t": {"$ref": "#/$defs/tree"}, "v": {**S, "pattern": pattern}}),
        }

    [found] = [f for f in run_input(schema("^[a-z]+$"), schema("^[a-y]+$"), check_version=False)]
    assert (found.severity, found.path, found.has_counterexample) == (
        "breaking",
        "/inputSchema/properties/v/pattern",
        True,
    )
    assert "z" in found.counterexample["v"]
    # At the root too: the root alone, with no instance to plant into, is still drawn.
    root_old, root_new = {**S, "pattern": "^[a-z]+$"}, {**S, "pattern": "^[a-y]+$"}
    [found] = run_input(
        {"$defs": {"tree": tree}, **root_old}, {"$defs": {"tree": tree}, **root_new}, check_version=False
    )
    assert found.severity == "breaking" and "z" in found.counterexample


def test_an_undecided_change_points_at_the_keyword_that_changed() -> None:
    _, looser, stricter, _ = NAMED_BREAKS[2]  # only `then` differs, `if` is the same
    [found] = [f for f in run_input(looser, stricter, check_version=False) if f.severity == "breaking"]
    assert (found.path, found.message.split(":")[0]) == ("/inputSchema/then", "then changed")
    [found] = [f for f in run_output(stricter, looser, check_version=False) if f.severity == "breaking"]
    assert (found.path, found.message.split(":")[0]) == ("/outputSchema/then", "then changed")


# A keyword whose value is a map or list of schemas, equal as text on both sides, still changes
# when what it holds changes: a definition behind the same `$ref`, a pattern property's schema,
# the names a dependentRequired asks for.
SAME_TEXT_CHANGED: list[tuple[str, Any, Any, Any]] = [
    (
        "anyOf-ref-target",
        {"$defs": {"Id": I}, **obj({"id": {"anyOf": [{"$ref": "#/$defs/Id"}, S]}})},
        {"$defs": {"Id": {**I, "minimum": 0}}, **obj({"id": {"anyOf": [{"$ref": "#/$defs/Id"}, S]}})},
        {"id": -1},
    ),
    (
        "allOf-ref-target",
        {"$defs": {"Id": I}, **obj({"id": {"allOf": [{"$ref": "#/$defs/Id"}]}})},
        {"$defs": {"Id": {**I, "minimum": 0}}, **obj({"id": {"allOf": [{"$ref": "#/$defs/Id"}]}})},
        {"id": -1},
    ),
    (
        "pattern-property-schema",
        {"type": "object", "patternProperties": {"^x_": {"type": ["string", "integer"]}}},
        {"type": "object", "patternProperties": {"^x_": S}},
        None,
    ),
    (
        "dependent-required-names",
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        {"type": "object", "dependentRequired": {"a": ["b", "c"]}},
        None,
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "looser", "stricter", "witness"), SAME_TEXT_CHANGED, ids=[p[0] for p in SAME_TEXT_CHANGED]
)
def test_a_change_inside_a_keyword_written_the_same_is_seen(
    name: str, looser: Any, stricter: Any, witness: Any
) -> None:
    found = [f for f in run_input(looser, stricter, check_version=False) if f.severity == "breaking"]
    assert found, name
    if witness is not None and found[0].has_counterexample:
        assert found[0].counterexample == witness
    assert not breaking(run_output(looser, stricter, check_version=False))


# A name a pattern matches escapes additionalProperties, and a declared property is judged by the
# patterns too: patterns decide which of each side's keywords judge a name.
XI = {"^x": I}


def po(**keywords: Any) -> dict[str, Any]:
    return {"type": "object", **keywords}


PATTERN_PAIRS: list[tuple[str, Any, Any, bool]] = [
    (
        "pattern-dropped-open-name-now-additional",
        po(additionalProperties={"const": "a"}, patternProperties={"^a": {"type": "number"}}),
        po(additionalProperties={"const": "a"}),
        True,
    ),
    (
        "declared-name-the-old-pattern-judged",
        po(additionalProperties=S, patternProperties=XI),
        po(properties={"x1": S}, additionalProperties=S, patternProperties=XI),
        True,
    ),
    (
        "closed-object-declared-name-the-pattern-judged",
        po(additionalProperties=False, patternProperties=XI),
        po(properties={"x1": S}, additionalProperties=False, patternProperties=XI),
        True,
    ),
    (
        "same-patterns-looser-property",
        po(properties={"a": S}, patternProperties=XI, additionalProperties=False),
        po(properties={"a": {"type": ["string", "null"]}}, patternProperties=XI, additionalProperties=False),
        False,
    ),
]


@pytest.mark.parametrize(("name", "old", "new", "breaks"), PATTERN_PAIRS, ids=[p[0] for p in PATTERN_PAIRS])
def test_pattern_properties_decide_which_keywords_judge_a_name(
    name: str, old: Any, new: Any, breaks: bool
) -> None:
    found = [f for f in run_input(old, new, check_version=False) if f.severity != "info"]
    if breaks:
        assert [f for f in found if f.severity == "breaking" and f.has_counterexample], found
    else:
        assert found == []


def test_malformed_sides_never_raise_with_the_search_on() -> None:
    odd: list[Any] = [
        *WEIRD,
        {"type": "object", "patternProperties": {"((": {}}},
        {
            "anyOf": [{"type": "object", "additionalProperties": S}, {"type": "null"}],
            "additionalProperties": {"minLength": 2},
        },
        {"not": {"$ref": "#/nowhere"}},
        {"if": 5, "then": [], "else": "x"},
        {"dependentRequired": {"a": "b"}},
        {"dependencies": {"a": 3}},
        # An anyOf branch merged with its siblings: a reason there has no pointer of its own.
        {
            "anyOf": [{"type": "object"}, {"type": "null"}],
            "additionalProperties": {"type": "string", "pattern": "^a"},
        },
        {"type": ["object", "null"], "additionalProperties": {"type": "string", "pattern": "^b"}},
    ]
    quick = DiffOptions(max_examples=10, search_seconds=0.2, search_budget_seconds=1)
    for a in odd:
        for b in odd:
            old = Side("1", {"t": {"name": "t", "inputSchema": a, "outputSchema": b}})
            new = Side("x", {"t": {"name": "t", "inputSchema": b, "outputSchema": a}})
            diff_sides(old, new, quick)


def test_optional_property_added_to_an_open_input_object_warns_unless_strict() -> None:
    old, new = obj({"a": S}), obj({"a": S, "b": I})
    (found,) = [f for f in run_input(old, new, check_version=False) if f.rule == "input-property-added"]
    assert (found.severity, found.path) == ("warning", "/inputSchema/properties/b")
    assert found.has_counterexample and found.counterexample == {"b": None}
    assert "additionalProperties: false" in found.message
    # Closed in the same change (itself a break): the advice to close it is no advice.
    closing = run_input(old, {**new, "additionalProperties": False})
    (found,) = [f for f in closing if f.rule == "input-property-added"]
    assert "additionalProperties: false" not in found.message and found.severity == "warning", found
    assert "input-additional-properties-closed" in {f.rule for f in closing}
    for names in ({"enum": ["a", "b"]}, {"const": "b"}):  # (closed by naming what it takes)
        found_all = run_input(old, {**new, "propertyNames": names})
        listing = [f for f in found_all if f.rule == "input-property-added"]
        assert listing and all("additionalProperties: false" not in f.message for f in listing), listing
    strict = run_input(old, new, check_version=False, open_objects="strict")
    assert ("input-property-added", "input", "/inputSchema/properties/b") in breaking(strict)
    # A closed object gains the property without any client breaking: information only.
    closed = run_input(
        obj({"a": S}, additionalProperties=False), obj({"a": S, "b": I}, additionalProperties=False)
    )
    assert [(f.severity, f.rule) for f in closed] == [("info", "input-property-allowed")]
    # As an output, a property no longer declared may come back with any value: breaking.
    out = breaking(run_output(new, old, check_version=False))
    assert ("output-property-removed", "output", "/outputSchema/properties/b") in out
    # ... shown with a value the old output refused there (as a known break always is)
    (removed,) = [f for f in run_output(new, old, check_version=False) if f.rule == "output-property-removed"]
    assert removed.has_counterexample and removed.counterexample == {"b": None}


SAFE = [
    ("input-enum-widened", "/properties/a/enum", obj({"a": {"enum": ["x"]}}),
     obj({"a": {"enum": ["x", "y"]}})),
    ("input-constraint-relaxed", "/properties/a/maximum", obj({"a": {**I, "maximum": 3}}),
     obj({"a": {**I, "maximum": 5}})),
    ("input-type-widened", "/properties/a/type", obj({"a": I}), obj({"a": {"type": "number"}})),
    ("input-required-removed", "/properties/a", obj({"a": S}, ("a",)), obj({"a": S})),
    ("input-schema-rewritten", "", obj({"a": S}), obj({"a": {"$ref": "#/$defs/A"}}, **{"$defs": {"A": S}})),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "path", "old", "new"), SAFE, ids=[s[0] for s in SAFE])
def test_every_compatible_change_is_an_info_finding(rule: str, path: str, old: Any, new: Any) -> None:
    found = [(f.severity, f.rule, f.direction, f.path) for f in run_input(old, new)]
    assert found == [("info", rule, "input", "/inputSchema" + path)]
    # The same change to an output narrows what clients receive: information too, never a break.
    assert {f.severity for f in run_output(new, old)} == {"info"}


def test_a_hint_flipped_to_the_safer_side_is_info() -> None:
    def side(hints: dict[str, Any]) -> Side:
        return Side("1.0.0", {"t": {"name": "t", "inputSchema": {"type": "object"}, "annotations": hints}})

    found = diff_sides(side({"destructiveHint": True}), side({"destructiveHint": False}))
    assert [(f.severity, f.rule) for f in found] == [("info", "annotation-destructiveHint-safer")]
    assert diff_sides(side({}), side({})) == []


def test_diff_leaves_both_sides_as_they_were() -> None:
    # The counterexample search draws with hypothesis-jsonschema, which resolves references in the
    # schema it is given: it must be given a copy.
    old = obj({"a": {"$ref": "#/$defs/X"}}, **{"$defs": {"X": obj({"b": S})}})
    new = obj({"a": {"$ref": "#/$defs/X"}}, **{"$defs": {"X": obj({"b": S}, ("b",))}})
    before = json.dumps([old, new])
    assert breaking(run_input(old, new, check_version=False))
    assert breaking(run_output(new, old, check_version=False))
    assert json.dumps([old, new]) == before


def test_a_changed_server_version_is_a_difference() -> None:
    tool = {"t": {"name": "t", "inputSchema": {"type": "object"}}}
    (found,) = diff_sides(Side("1.0.0", tool), Side("1.1.0", tool))
    assert (found.rule, found.severity, found.path) == ("server-version-changed", "info", "/server/version")


# Schemas whose references or dialect the rules do not follow: a nested `$schema` or `$id`, an
# anchor, a dynamic or recursive reference, a `$ref` that is not a JSON pointer into the schema.
# Each pair changes what one side accepts only through such a construct; whatever the rules would
# say of the rest, the change is never called compatible: breaking with a counterexample the
# server's validators agree with, or a warning that the rules could not decide.
_STRING_DEF = {"$defs": {"S": S}}
_SHORT_DEF = {"$defs": {"S": {"type": "string", "maxLength": 2}}}
UNFOLLOWED: list[tuple[str, Any, Any]] = [
    ("nested-schema",
     obj({"a": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "uuid"}}),
     obj({"a": {"type": "string", "format": "uuid"}})),
    ("nested-schema-in-definition",
     {**obj({"a": {"$ref": "#/$defs/D"}}),
      "$defs": {"D": {"$schema": "http://json-schema.org/draft-07/schema#", "format": "duration"}}},
     {**obj({"a": {"$ref": "#/$defs/D"}}), "$defs": {"D": {"format": "duration"}}}),
    ("dynamic-ref-pointer",
     {**obj({"a": {"$dynamicRef": "#/$defs/S"}}), **_STRING_DEF},
     {**obj({"a": {"$dynamicRef": "#/$defs/S"}}), **_SHORT_DEF}),
    ("dynamic-anchor",
     {**obj({"a": {"$dynamicRef": "#n"}}), "$defs": {"S": {"$dynamicAnchor": "n", **S}}},
     {**obj({"a": {"$dynamicRef": "#n"}}), "$defs": {"S": {"$dynamicAnchor": "n", **S, "maxLength": 2}}}),
    ("nested-id",
     {**obj({"a": {"$id": "https://example.com/a", **_SHORT_DEF, "$ref": "#/$defs/S"}}), **_STRING_DEF},
     {**obj({"a": {"$id": "https://example.com/a", "$defs": {"S": {"type": "string", "maxLength": 1}},
                   "$ref": "#/$defs/S"}}), **_STRING_DEF}),
    ("anchor",
     {**obj({"a": {"$ref": "#foo"}}), "$defs": {"S": {"$anchor": "foo", **S}}},
     {**obj({"a": {"$ref": "#foo"}}), "$defs": {"S": {"$anchor": "foo", **S, "maxLength": 2}}}),
    ("id-reference",
     {**obj({"a": {"$ref": "urn:x:s"}}), "$defs": {"S": {"$id": "urn:x:s", **S}}},
     {**obj({"a": {"$ref": "urn:x:s"}}), "$defs": {"S": {"$id": "urn:x:s", **S, "maxLength": 2}}}),
    ("unresolved-pointer",
     obj({"a": {"$ref": "#/$defs/Gone"}, "b": S}),
     obj({"a": {"$ref": "#/$defs/Gone"}, "b": {"type": "string", "maxLength": 2}})),
    # Where no schema keyword leads, but a `$ref` may point.
    ("dynamic-ref-under-an-unknown-keyword",
     {**obj({"a": {"$ref": "#/$defs/X"}}), "$defs": {
         "X": {"x-inner": {"$dynamicRef": "#/$defs/A"}, "$ref": "#/$defs/X/x-inner"}, "A": I}},
     {**obj({"a": {"$ref": "#/$defs/X"}}), "$defs": {
         "X": {"x-inner": {"$dynamicRef": "#/$defs/A"}, "$ref": "#/$defs/X/x-inner"}, "A": S}}),
    ("metaschema-under-an-unknown-keyword",
     {**obj({"a": {"$ref": "#/x"}}), "x": {"$ref": "https://json-schema.org/draft/2020-12/schema"}},
     {**obj({"a": {"$ref": "#/x"}}), "x": {"$ref": "#"}}),
    ("pointer-not-a-uri",
     {**obj({"a": {"$ref": "#/$defs/a%20b"}}), "$defs": {"a b": S}},
     {**obj({"a": {"$ref": "#/$defs/a b"}}), "$defs": {"a b": S}}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "old", "new"), UNFOLLOWED, ids=[u[0] for u in UNFOLLOWED])
@pytest.mark.parametrize("direction", ["input", "output"])
def test_what_the_rules_do_not_follow_is_never_called_compatible(
    name: str, old: Any, new: Any, direction: str
) -> None:
    from mcpstub.diff.semantics import server_validator  # noqa: PLC0415

    looser, stricter = (old, new) if direction == "input" else (new, old)
    run = run_input if direction == "input" else run_output
    # A short search: what it finds must be a counterexample; what it does not, a warning.
    found = [
        f
        for f in run(old, new, check_version=False, search_seconds=0.5, search_budget_seconds=1)
        if f.severity != "info"
    ]
    assert found, f"{name}: called compatible"
    for finding in found:
        if finding.rule.endswith("-schema-uncompiled"):  # (no server could validate with NEW)
            with pytest.raises(Exception):  # noqa: B017 - whatever the validator says
                server_validator(new)
        elif finding.severity == "breaking":
            assert finding.has_counterexample, finding
            instance = finding.counterexample
            assert server_validator(looser).is_valid(instance), (name, instance)
            assert not server_validator(stricter).is_valid(instance), (name, instance)
        else:
            assert "rules could not decide" in finding.message, finding


def test_a_counterexample_is_a_whole_instance_where_the_schema_cannot_be_drawn() -> None:
    """A recursive `$ref` that instances cannot be drawn for: the witness is planted into the least
    instance the schema's required properties make, and shown whole."""
    from mcpstub.diff.semantics import server_validator  # noqa: PLC0415

    node = {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}

    def schema(units: list[str]) -> dict[str, Any]:
        props = {"name": S, "unit": {"enum": units}, "tree": {"$ref": "#/$defs/Node"}}
        return {**obj(props, ("name",)), "$defs": {"Node": node}}

    old, new = schema(["a", "b", "c"]), schema(["a", "b"])
    [found] = [f for f in run_input(old, new, check_version=False) if f.severity == "breaking"]
    assert found.counterexample == {"name": "", "unit": "c"}, found
    assert server_validator(old).is_valid(found.counterexample)
    assert not server_validator(new).is_valid(found.counterexample)


@pytest.mark.parametrize(
    ("pinned", "whole"),
    [
        ({"minimum": 1, "maximum": 1}, True),
        ({"minimum": 2.0, "maximum": 2.0}, True),
        ({"minimum": 1.5, "maximum": 1.5}, False),
    ],
)
def test_a_number_pinned_to_one_value_is_judged_by_that_value(pinned: dict[str, Any], whole: bool) -> None:
    """A number whose bounds meet holds one value: an integer schema takes it exactly when it is
    whole, both ways round, and a break names that value."""
    number = obj({"a": {"type": "number", **pinned}})
    integer = obj({"a": I})
    as_input, as_output = run_input(number, integer), run_output(integer, number)
    if whole:
        assert not breaking(as_input) and not breaking(as_output)
    else:
        for found in (as_input, as_output):
            [finding] = [f for f in found if f.severity == "breaking"]
            assert finding.counterexample == {"a": 1.5}, finding
            assert finding.rule in ("input-type-narrowed", "output-type-widened"), finding
            assert finding.path.endswith("/properties/a/type") and "type number" in finding.message, finding


D2020 = "https://json-schema.org/draft/2020-12/schema"
D07 = "http://json-schema.org/draft-07/schema#"
TUPLE = {"type": "array", "prefixItems": [I, S], "minItems": 2, "items": False}
DRAWN = [  # (name, dialect, looser node, stricter node): a break only a drawn instance shows
    (
        "prefix-closed",
        None,
        {"type": "array", "prefixItems": [S, S]},
        {"type": "array", "prefixItems": [S], "items": False},
    ),
    (
        "items-after-prefix",
        None,
        {"type": "array", "prefixItems": [{"const": "k"}, S], "items": I, "minItems": 3},
        {"type": "array", "prefixItems": [{"const": "k"}, S], "items": {"type": "integer", "maximum": 0}},
    ),
    ("prefix-not", None, TUPLE, {**TUPLE, "not": {"prefixItems": [{"const": 0}]}}),
    ("prefix-not-2020-12-declared", D2020, TUPLE, {**TUPLE, "not": {"prefixItems": [{"const": 0}]}}),
    (  # `additionalItems` applies to no items beside `prefixItems` in 2020-12
        "additional-items-inert",
        None,
        {"type": "array", "prefixItems": [I], "additionalItems": False},
        {"type": "array", "prefixItems": [I], "additionalItems": False, "not": {"minItems": 2}},
    ),
    (  # `dependentRequired` is no draft-07 keyword: it does not narrow what is drawn there
        "dependent-required-inert-in-draft-07",
        D07,
        {"type": "object", "properties": {"b": {"type": "object"}}, "dependentRequired": {"b": ["c"]}},
        {"type": "object", "properties": {"b": {"type": "object"}}, "dependencies": {"b": ["c"]}},
    ),
]


@pytest.mark.parametrize("direction", ["input", "output"])
@pytest.mark.parametrize(("name", "dialect", "open_", "closed"), DRAWN, ids=[d[0] for d in DRAWN])
def test_a_break_only_a_drawn_instance_shows_has_a_counterexample(
    name: str, dialect: str | None, open_: Any, closed: Any, direction: str
) -> None:
    """Instances are drawn by the keywords the schema's dialect applies (2020-12's tuples handed to
    the drawing in draft-07's spelling, whatever `$schema` says), so such a break comes with one,
    which both validators judge."""
    from mcpstub.diff.semantics import server_validator  # noqa: PLC0415

    head = {"$schema": dialect} if dialect else {}
    looser, stricter = {**head, **obj({"a": open_}, ("a",))}, {**head, **obj({"a": closed}, ("a",))}
    found = run_input(looser, stricter) if direction == "input" else run_output(stricter, looser)
    broken = [f for f in found if f.severity == "breaking"]
    assert broken and all(f.has_counterexample for f in broken), found
    for finding in broken:
        assert server_validator(looser).is_valid(finding.counterexample), finding
        assert not server_validator(stricter).is_valid(finding.counterexample), finding


def test_a_counterexample_is_whole_or_not_shown() -> None:
    """A witness that cannot be made into a whole instance (a required property the least instance
    fails, a recursive `$ref` nothing is drawn for) is no counterexample: the break is shown without."""
    node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}

    def schema(a: Any) -> dict[str, Any]:
        props = {"a": a, "s": {"type": "string", "pattern": "^x"}, "r": {"$ref": "#/$defs/N"}}
        return {**obj(props, ("a", "s", "r")), "$defs": {"N": node}}

    pinned = schema({"type": "number", "minimum": 1.5, "maximum": 1.5})
    for search in (True, False):
        [finding] = [f for f in run_input(pinned, schema(I), search=search) if f.severity == "breaking"]
        assert finding.rule == "input-type-narrowed", finding
        assert not finding.has_counterexample and finding.counterexample is None, finding


@pytest.mark.parametrize(
    ("old", "new", "named"),
    [
        ({"minimum": 1, "maximum": 1}, {"minimum": 2, "maximum": 2}, "/minimum"),
        ({"minimum": 2, "maximum": 2}, {"exclusiveMaximum": 2}, "/exclusiveMaximum"),
        ({"minimum": 1, "maximum": 1}, {"multipleOf": 0.3}, "/multipleOf"),
        ({"minimum": 5, "maximum": 5}, {"maximum": 4, "minimum": 0}, "/maximum"),
    ],
)
def test_a_changed_bound_names_the_keyword_that_refuses(
    old: dict[str, Any], new: dict[str, Any], named: str
) -> None:
    found = run_input(obj({"a": {"type": "number", **old}}), obj({"a": {"type": "number", **new}}))
    [finding] = [f for f in found if f.severity == "breaking"]
    assert finding.path == "/inputSchema/properties/a" + named, finding
    assert finding.message.startswith(named[1:] + " "), finding


def test_a_pinned_number_beside_another_type_loses_only_that_type() -> None:
    found = run_input(obj({"a": {"type": ["number", "string"], "minimum": 1, "maximum": 1}}), obj({"a": I}))
    [finding] = [f for f in found if f.severity == "breaking"]
    assert "type string no longer accepted" in finding.message and "number" not in finding.message, finding


def test_a_renamed_definition_is_one_info_finding() -> None:
    """docs/evolution.md: moving or renaming a definition breaks nothing; it is said once, as info."""
    old = obj({"a": {"$ref": "#/$defs/A"}}, **{"$defs": {"A": S}})
    for new in (obj({"a": {"$ref": "#/$defs/B"}}, **{"$defs": {"B": S}}), obj({"a": S})):
        found = run_input(old, new)
        assert [(f.rule, f.severity) for f in found] == [("input-schema-rewritten", "info")], found
        assert "without changing which values it accepts" in found[0].message


def _json_schema_library_store() -> str:
    """jsonschema's meta-schemas and specification documents, as text."""
    from jsonschema.validators import _META_SCHEMAS, SPECIFICATIONS  # noqa: PLC0415

    documents = {uri: each.contents for uri, each in SPECIFICATIONS.items()}
    documents.update((uri, each.META_SCHEMA) for uri, each in _META_SCHEMAS.items())
    return json.dumps(documents, sort_keys=True, default=str)


@pytest.mark.parametrize("dialect", [None, "https://json-schema.org/draft/2020-12/schema"])
def test_a_reference_to_a_meta_schema_leaves_the_process_s_meta_schemas_alone(dialect: str | None) -> None:
    """The counterexample search must not change the documents jsonschema keeps for the whole
    process (the toolset check validates every schema against them)."""
    before = _json_schema_library_store()
    head = {"$schema": dialect} if dialect else {}
    meta = {"$ref": "https://json-schema.org/draft/2020-12/schema"}
    old = {**head, **obj({"a": meta})}
    new = {**head, **obj({"a": {**meta, "not": {"type": "string"}}})}
    run_input(old, new, search_seconds=0.5, search_budget_seconds=1)
    assert _json_schema_library_store() == before


# Schemas that accept nothing, each in a way its own keywords tell: a change to one breaks nobody.
CROSSED = {"type": "array", "minItems": 2, "maxItems": 1}
NOTHING = {
    "object-bounds-cross": {"type": "object", "minProperties": 1, "maxProperties": 0},
    "more-required-than-allowed": obj({"a": S, "b": S}, ("a", "b"), maxProperties=1),
    "enum-outside-type": {"type": "string", "enum": [1, 2]},
    "all-of-const-and-type": {"allOf": [{"const": 1}, S]},
    "all-of-bounds-cross": {"type": "integer", "allOf": [{"minimum": 3}, {"maximum": 1}]},
    "required-accepts-nothing": obj({"a": {"type": "string", "enum": [1]}}, ("a",)),
    "required-deeper": obj({"a": obj({"b": CROSSED}, ("b",))}, ("a",)),
    "not-anything": {"not": {}},
    "items-refused": {"type": "array", "minItems": 1, "items": False},
    "first-item-refused": {"type": "array", "prefixItems": [False], "minItems": 1},
    "items-not-anything": {"type": "array", "minItems": 1, "items": {"not": True}},
    "one-of-two-anythings": {"oneOf": [True, {}]},
    "one-of-twins": {"oneOf": [I, {"type": "integer"}]},
}
OTHERS = [False, {"const": 2}, S, obj({"z": I}, ("z",)), {"type": "object", "maxProperties": 0}]


@pytest.mark.parametrize("empty", NOTHING.values(), ids=list(NOTHING))
@pytest.mark.parametrize("other", OTHERS, ids=["false", "const", "string", "required", "max-0"])
def test_a_change_from_or_to_a_schema_that_accepts_nothing_breaks_nobody(empty: Any, other: Any) -> None:
    # No instance of an input that accepts nothing can be refused by the next; no output that
    # accepts nothing sends anything. (A breaking finding here had no counterexample to show.)
    assert not breaking(run_input(obj({"p": empty}, ("p",)), obj({"p": other}, ("p",))))
    assert not breaking(run_output(obj({"p": other}), obj({"p": empty}, ("p",))))
    whole = empty if empty.get("type") == "object" else obj({"p": empty}, ("p",))
    other_whole = other if other is not False else {"type": "object", "maxProperties": 0}
    assert not breaking(run_input(whole, other_whole))


def test_an_allof_whose_part_of_few_values_the_rest_refuses_accepts_nothing() -> None:
    # Read as undecided, and searched for a value to show until the time ran out.
    few = {"anyOf": [{"const": "1"}, {"enum": [-1, None]}]}
    never = {"oneOf": [{"allOf": [few, {"allOf": [{"type": "array"}]}]}]}
    values = {"oneOf": [{"enum": [1, ""]}]}
    for found in (run_output(values, never), run_input(never, values)):
        assert {f.severity for f in found} == {"info"}, found


def test_what_only_seems_to_accept_nothing_still_breaks() -> None:
    # Bounds that meet, an enum value that fits, an optional property that accepts nothing and the
    # siblings of a draft-07 $ref (which do not apply) leave instances to refuse.
    meet = {"type": "object", "minProperties": 1, "maxProperties": 1}
    assert breaking(run_input(meet, {"type": "object", "maxProperties": 0}))
    assert breaking(run_input(obj({"p": {"type": "string", "enum": [1, "a"]}}), obj({"p": {"const": 2}})))
    optional = obj({"a": {"type": "string", "enum": [1]}, "q": S})
    assert breaking(run_input(optional, obj({"a": False, "q": I})))
    d7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"N": I},
        **obj({"p": {"$ref": "#/definitions/N", "type": "string"}}, ("p",)),
    }
    assert breaking(run_input(d7, {**d7, "properties": {"p": {"const": 2}}}))


def test_a_search_whose_time_is_gone_still_shows_the_counterexample_the_least_instance_makes() -> None:
    # The first diff of a process spends its search time importing the instance generator: the
    # counterexample must not depend on that (a required sibling makes planting into nothing fail).
    old, new = obj({"a": S, "b": S, "c": I}, ("a", "b", "c")), obj({"a": S, "b": I, "c": I}, ("a", "b", "c"))
    for seconds in (1e-9, 0.5):
        (found,) = [f for f in run_input(old, new, search_seconds=seconds) if f.severity == "breaking"]
        assert found.has_counterexample and found.counterexample == {"a": "", "b": "", "c": 0}, found


def test_a_counterexample_is_planted_into_an_object_where_the_drawn_instance_is_none() -> None:
    # An input without `type: object` may be drawn as 0 or null: planting the refused value into
    # it makes no instance; the least object its required properties make still does.
    old = {"properties": {"a": True, "b": {}}, "required": ["a"]}
    new = obj({"a": True, "b": S}, ("a",))
    for seconds in (1e-9, 0.5):
        found = {f.path: f for f in run_input(old, new, search_seconds=seconds) if f.severity == "breaking"}
        assert found["/inputSchema/properties/b/type"].has_counterexample, found
        assert found["/inputSchema/properties/b/type"].counterexample["a"] is None


JSON_TEXT = {"contentMediaType": "application/json"}


@pytest.mark.parametrize("content", [JSON_TEXT, {"contentEncoding": "base64", **JSON_TEXT}])
def test_a_string_whose_content_draft_07_checks_is_shown_with_one_it_accepts(content: dict[str, str]) -> None:
    # Draft-07's validator checks content: "" is no JSON, so the counterexample must be one that is.
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
    short = {"maxLength": 4 if "contentEncoding" in content else 1}  # the shortest JSON (in base64)
    old, new = {**d7, **obj({"c": {"type": "string", **content, **short}})}, {**d7, **obj({"c": I})}
    (found,) = [f for f in run_input(old, new, search_seconds=1e-9) if f.severity == "breaking"]
    assert found.has_counterexample and isinstance(found.counterexample["c"], str), found


@pytest.mark.parametrize(
    "new",
    [
        obj({"a": S}, allOf=[{"additionalProperties": False}]),  # a closed part sees no properties
        obj({}, additionalProperties=False),
        obj({"b": I}, ("b",), additionalProperties=False),
    ],
    ids=["closed-part", "closed", "closed-other-required"],
)
def test_a_property_a_closed_object_now_refuses_is_shown_with_an_object_that_has_it(new: Any) -> None:
    # The object refuses the name whatever its value: the counterexample is an object holding it.
    old = obj({"a": S, "b": I}, additionalProperties=False)
    for seconds in (1e-9, 0.5):
        found = [f for f in run_input(old, new, search_seconds=seconds) if f.rule == "input-property-removed"]
        assert found and all(f.has_counterexample for f in found), found
        assert all(f.path.rsplit("/", 1)[1] in f.counterexample for f in found), found
    required = obj({"a": S}, ("a",))
    for seconds in (1e-9, 0.5):
        found = [f for f in run_input(required, new, search_seconds=seconds) if f.severity == "breaking"]
        assert found and all(f.has_counterexample for f in found), (seconds, found)


@pytest.mark.parametrize(
    "old",
    [obj({"a": S}), obj({"a": S}, patternProperties={"^u": I}), obj({"a": S}, additionalProperties=I)],
    ids=["open", "patterns", "typed-additional"],
)
def test_an_object_closed_is_shown_with_a_property_it_no_longer_lists(old: Any) -> None:
    # Found without drawing: a name neither side lists nor matches by a pattern, valued as A takes it.
    new = {**old, "additionalProperties": False}
    (found,) = [f for f in run_input(old, new, search_seconds=1e-9) if f.severity == "breaking"]
    assert found.rule == "input-additional-properties-closed" and found.has_counterexample, found
    assert set(found.counterexample) - {"a"}, found


def test_the_least_instance_takes_required_properties_said_in_an_allof_part_with_their_content() -> None:
    # Planted into without drawing: a required property declared in an allOf part, whose draft-07
    # content check refuses "", still makes an instance of OLD.
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
    parts = {"a": {"type": "string", **JSON_TEXT}, "c": {"type": "number"}}
    old = {**d7, "type": "object", "required": ["a"], "allOf": [{"properties": parts}]}
    new = {**d7, **obj({"a": S, "c": S}, ("a",))}
    (found,) = [f for f in run_input(old, new, search_seconds=1e-9) if f.severity == "breaking"]
    assert found.has_counterexample and found.counterexample == {"a": "0", "c": 0}, found


@pytest.mark.parametrize("keyword", ["maximum", "exclusiveMinimum", "multipleOf", "maxLength", "const"])
def test_an_integer_past_a_float_s_range_is_a_number_like_any(keyword: str) -> None:
    # A saved or live listing may carry one (a toolset refuses it): diffed, not a traceback.
    huge = {"type": "object", "properties": {"n": {"type": "integer", keyword: 10**400}}}
    small = {"type": "object", "properties": {"n": {"type": "integer", keyword: 1000}}}
    for old, new in ((huge, small), (small, huge), (huge, obj({"n": I}))):
        assert all(f.rule for f in run_input(old, new, search_seconds=0.05) + run_output(old, new))
    bounded = obj({"n": {"type": "integer", "maximum": 10**400}})
    tightened = breaking(run_input(bounded, obj({"n": I | {"maximum": 9}})))
    assert tightened == {("input-constraint-tightened", "input", "/inputSchema/properties/n/maximum")}


def test_a_value_one_oneof_branch_names_is_no_counterexample_where_two_branches_take_it() -> None:
    # {m: 2} is in both branches: OLD (oneOf) refuses it, so it cannot show a break.
    branches = [{"enum": [{"m": 1}, {"m": 2}]}, {"enum": [{"m": 2}, {"m": 3}]}]
    old, new = {"type": "object", "oneOf": branches}, {"type": "object", "enum": [{"m": 1}, {"m": 3}]}
    assert not breaking(run_input(old, new))
    assert not breaking(run_output({"enum": [1, 3]}, {"oneOf": [{"enum": [1, 2]}, {"enum": [2, 3]}]}))


def test_an_exclusive_bound_added_beside_an_inclusive_one_is_placed_at_itself() -> None:
    # Only exclusiveMinimum changed: the finding points there, not at the minimum left as it was.
    number = {"type": "number", "minimum": 0}
    found = breaking(run_input(obj({"n": number}), obj({"n": {**number, "exclusiveMinimum": 5}})))
    assert found == {("input-constraint-tightened", "input", "/inputSchema/properties/n/exclusiveMinimum")}
    number = {"type": "number", "maximum": 10, "exclusiveMaximum": 20}
    found = breaking(run_input(obj({"n": number}), obj({"n": {**number, "maximum": 5}})))
    assert found == {("input-constraint-tightened", "input", "/inputSchema/properties/n/maximum")}


def test_a_node_referring_into_the_root_is_judged_in_place() -> None:
    # `{$ref: "#", const: ...}` merged or split is no schema of its own: taken apart from the root,
    # `#` would point into the node itself, and the change below was called compatible.
    def shape(preset_args: list[Any]) -> dict[str, Any]:
        preset = {"$ref": "#", "const": {"op": "seq", "args": preset_args}}
        props = {"op": S, "args": {"type": "array", "items": {"$ref": "#"}}, "preset": preset}
        return obj(props, ("op",))

    found = run_input(shape([{"op": "x"}]), shape([]))
    assert any(f.severity == "breaking" for f in found), found
    shown = [f.counterexample for f in found if f.severity == "breaking" and f.has_counterexample]
    assert shown and all(s["preset"]["args"] == [{"op": "x"}] for s in shown), shown


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (obj({"a": S}, additionalProperties={"not": {}}), obj({"a": S}, additionalProperties=False)),
        (obj({"a": {"type": "array", "items": {"not": {}}}}), obj({"a": {"type": "array", "maxItems": 0}})),
        (obj({"a": {"type": "string", "maxLength": 0}}), obj({"a": {"const": ""}})),
        (obj({"a": {"type": "array", "maxItems": 0}}), obj({"a": {"const": []}})),
        (obj({"a": {"type": ["object", "null"], "maxProperties": 0}}), obj({"a": {"enum": [{}, None]}})),
    ],
    ids=["closed-by-not", "no-items-by-not", "empty-string", "empty-array", "empty-object-or-null"],
)
def test_a_rewrite_that_accepts_the_same_values_breaks_nobody(old: Any, new: Any) -> None:
    assert not breaking(run_input(old, new)) and not breaking(run_output(new, old))


COLOR = {
    "$defs": {"Color": {"enum": ["red", "green"]}, "Small": {"type": "integer", "minimum": 0, "maximum": 3}}
}


@pytest.mark.parametrize(
    ("conjunction", "same"),
    [
        ({"allOf": [{"$ref": "#/$defs/Color"}]}, {"$ref": "#/$defs/Color"}),
        ({"allOf": [{"const": "a"}]}, {"const": "a"}),
        ({"allOf": [{"enum": ["a", "b", "c"]}, {"enum": [{"x": 1}, "b", "a"]}]}, {"enum": ["a", "b"]}),
        ({"allOf": [{"$ref": "#/$defs/Small"}, {"maximum": 2}]}, {"enum": [0, 1, 2]}),
    ],
    ids=["ref-of-an-enum", "const", "two-enums", "bounds-of-a-definition"],
)
def test_a_finite_schema_written_as_an_allof_or_not_is_the_same_schema(conjunction: Any, same: Any) -> None:
    # The values of an allOf were only counted before its parts were merged: a refactor of
    # `allOf: [{$ref: Color}]` to `$ref: Color` was a break each way (enum added, enum removed).
    one, other = obj({"c": conjunction}, **COLOR), obj({"c": same}, **COLOR)
    for old, new in ((one, other), (other, one)):
        assert [f.rule for f in run_input(old, new)] == ["input-schema-rewritten"]
        assert [f.rule for f in run_output(old, new)] == ["output-schema-rewritten"]


CONSTS = {"anyOf": [{"const": "a"}, {"const": "b"}]}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (CONSTS, {"type": "string", **CONSTS}),
        ({"oneOf": [{"const": "a"}, {"enum": ["b", "c"]}]}, {"enum": ["c", "b", "a"]}),
        ({"anyOf": [{"const": 1}, {"anyOf": [{"const": 2.0}, False]}]}, {"enum": [2, 1]}),
    ],
    ids=["type-beside-consts", "oneof-of-consts", "nested-consts"],
)
def test_branches_of_few_values_are_those_values(old: Any, new: Any) -> None:
    # An anyOf of consts was taken to hold any type: a redundant `type` beside it was a break
    # without a counterexample.
    for one, other in ((obj({"c": old}), obj({"c": new})), (obj({"c": new}), obj({"c": old}))):
        assert [f.rule for f in run_input(one, other)] == ["input-schema-rewritten"]
        assert [f.rule for f in run_output(one, other)] == ["output-schema-rewritten"]


@pytest.mark.parametrize(
    "either",
    [
        {"anyOf": [{"type": "string", "enum": ["a", None]}, {"type": "integer"}]},
        {"oneOf": [{"type": "integer", "enum": [0, 1, True]}, {"type": "string"}]},
        {"anyOf": [{"type": "string", "const": 1}, {"type": "string", "minLength": 3}]},
    ],
    ids=["null-its-type-refuses", "boolean-its-type-refuses", "const-its-type-refuses"],
)
def test_a_value_a_branch_lists_and_its_type_refuses_is_no_type_it_takes(either: Any) -> None:
    # The types of a branch's listed values were read without its own type: a `type` written
    # beside the anyOf was a break for a null (a boolean, an integer) no branch ever took.
    typed = {**either, "type": ["integer", "string"]}
    for one, other in ((obj({"c": either}), obj({"c": typed})), (obj({"c": typed}), obj({"c": either}))):
        assert [f.rule for f in run_input(one, other)] == ["input-schema-rewritten"]
        assert [f.rule for f in run_output(one, other)] == ["output-schema-rewritten"]


HUGE = 2**64 - 1  # past 2**53: the server takes it as one value with some floats and integers


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"const": HUGE}, {"const": HUGE, "description": "an id"}),
        ({"enum": [1, HUGE]}, {"$ref": "#/$defs/Id"}),
        ({"items": {"const": HUGE}}, {"items": {"allOf": [{"const": HUGE}]}}),
        ({"enum": [0, HUGE]}, {"type": "integer", "enum": [0, HUGE]}),
        ({"enum": [0, HUGE]}, {"anyOf": [{"const": 0}, {"const": HUGE}]}),
        ({"enum": [2**60]}, {"type": "integer", "minimum": 2**60, "maximum": 2**60}),
        ({"enum": [2.0**63]}, {"const": 2.0**63}),
    ],
    ids=["description", "moved-to-defs", "in-allof", "type-beside", "anyof-of-consts", "range", "float"],
)
def test_a_value_past_2_53_rewritten_is_the_same_value(old: Any, new: Any) -> None:
    # A const or enum holding one was taken to hold any value: any change to the tool, even a
    # description, was "const added: only ... accepted", a break with no counterexample.
    defs = {"$defs": {"Id": {"enum": [1, HUGE]}}}
    one, other = obj({"c": old}, ("c",), **defs), obj({"c": new}, ("c",), **defs)
    rules = (["schema-wording-changed"],) * 2 if "description" in new else None
    for a, b in ((one, other), (other, one)):
        said = [f.rule for f in run_input(a, b)], [f.rule for f in run_output(a, b)]
        assert said == (rules or (["input-schema-rewritten"], ["output-schema-rewritten"]))
    changed = obj({"c": {"const": HUGE + 1}}, ("c",))
    (found,) = breaking(run_input(obj({"c": {"const": HUGE}}, ("c",)), changed))
    assert found == ("input-enum-narrowed", "input", "/inputSchema/properties/c/const")


def breaking_findings(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.severity == "breaking" and f.rule != "version-not-bumped"]


def test_enums_of_an_allof_past_2_53_are_not_intersected_as_text() -> None:
    # The server takes 1.8446744073709552e+19 and 18446744073709552000 as one value; compared as
    # text, the intersection lost it, and its removal was "changed without changing" anything.
    both = {"allOf": [{"enum": [1.8446744073709552e19, "x"]}, {"enum": [18446744073709552000, "x"]}]}
    found = breaking_findings(run_input(obj({"c": both}, ("c",)), obj({"c": {"const": "x"}}, ("c",))))
    assert found and all(f.counterexample == {"c": 1.8446744073709552e19} for f in found), found


@pytest.mark.parametrize(
    ("items", "same"),
    [
        ({"oneOf": [{"enum": ["a", "b"]}, {"const": "b"}]}, {"const": "a"}),  # "b": in two branches
        ({"type": "string", "enum": ["a", "b", 1]}, {"enum": ["a", "b"]}),  # 1: not a string
    ],
)
def test_unique_items_count_only_the_values_the_items_take(items: Any, same: Any) -> None:
    # Every listed value was counted: `maxItems` written at the true count was "tightened".
    most = 1 if "const" in same else 2
    old = obj({"c": {"type": "array", "uniqueItems": True, "items": items}}, ("c",))
    new = obj({"c": {"type": "array", "uniqueItems": True, "items": same, "maxItems": most}}, ("c",))
    assert [f.rule for f in run_input(old, new)] == ["input-schema-rewritten"]


def test_branches_through_shared_definitions_are_read_once() -> None:
    # 10,000 ways down to one enum of 1,000 values: a description added took half a minute.
    defs: dict[str, Any] = {"E": {"enum": [f"v{i}" for i in range(1000)]}}
    for level, below in (("L1", "E"), ("L2", "L1"), ("L3", "L2"), ("L4", "L3")):
        defs[level] = {"anyOf": [{"$ref": f"#/$defs/{below}"}] * 10}
    old = obj({"c": {"$ref": "#/$defs/L4"}}, **{"$defs": defs})
    new = obj({"c": {"$ref": "#/$defs/L4", "description": "d"}}, **{"$defs": defs})
    start = time.process_time()
    assert [(f.rule, f.path) for f in run_input(old, new)] == [
        ("schema-wording-changed", "/inputSchema/properties/c/description")
    ]
    assert time.process_time() - start < 8


def test_a_type_beside_a_branch_of_consts_names_the_type_it_refuses() -> None:
    either = {"anyOf": [{"const": "a"}, {"type": "integer"}]}
    found_all = run_input(obj({"c": either}), obj({"c": {"type": "string", **either}}))
    (found,) = [f for f in found_all if f.severity == "breaking"]
    assert found.message.startswith("type integer no longer accepted") and found.has_counterexample, found


def test_a_bound_an_allof_adds_is_said_with_its_value() -> None:
    old = obj({"n": {"allOf": [{"$ref": "#/$defs/Small"}, {"maximum": 2}]}}, **COLOR)
    new = obj({"n": {"$ref": "#/$defs/Small"}}, **COLOR)
    (found,) = [f for f in run_output(old, new) if f.severity == "breaking"]
    assert found.message.startswith("maximum 2 -> 3: value 3 may now be returned"), found
    (found,) = [f for f in run_input(new, old) if f.severity == "breaking"]
    assert found.message.startswith("maximum 3 -> 2: value 3 no longer accepted"), found


def test_a_schema_that_is_its_reference_and_what_it_holds_is_placed_in_the_definition() -> None:
    # `outputSchema: {$ref: Task}` is advertised as `{type: object, $ref: Task}`: a change in Task
    # is placed where Task is written, as for a tool that refers to it deeper.
    def task(**more: Any) -> dict[str, Any]:
        return {"type": "object", "properties": {"id": S}, **more}

    def whole(t: dict[str, Any], **beside: Any) -> dict[str, Any]:
        return {"type": "object", "$ref": "#/$defs/Task", "$defs": {"Task": t}, **beside}

    closed, opened = task(additionalProperties=False), task()
    assert breaking(run_output(whole(closed), whole(opened))) == {
        ("output-additional-properties-opened", "output", "/outputSchema/$defs/Task")
    }
    assert {p for _, _, p in breaking(run_input(whole(opened), whole(task(required=["id"]))))} == {
        "/inputSchema/$defs/Task/properties/id"
    }
    # A keyword beside that the definition does not hold is a conjunct of its own: said at its node.
    said = breaking(run_output(whole(closed, required=["id"]), whole(opened, required=["id"])))
    assert {p for _, _, p in said} == {"/outputSchema"}, said
    # So is one the definition holds too whose meaning takes from the keywords beside it: alone
    # beside the $ref, `additionalProperties: false` refuses every property, `items` covers every
    # position, `contains` asks for one at least.
    tuple_ = {"type": "array", "prefixItems": [I], "items": S}
    some = {"type": "array", "contains": I, "minContains": 0}
    for target, beside, value in (
        (closed, {"additionalProperties": False}, {"id": "a"}),
        (tuple_, {"items": S}, [1]),
        (some, {"contains": I}, ["a"]),
    ):
        old = {"$defs": {"T": target}, **obj({"p": {"$ref": "#/$defs/T"}})}
        new = {"$defs": {"T": target}, **obj({"p": {"$ref": "#/$defs/T", **beside}})}
        found = [f for f in run_input(old, new) if f.severity == "breaking"]
        assert found and all(f.has_counterexample for f in found), (beside, found)
        assert validator_for(old).is_valid({"p": value}) and not validator_for(new).is_valid({"p": value})


def test_a_reference_in_a_keyword_s_data_is_no_reference_the_rules_must_follow() -> None:
    # `x-extra: {$ref: ...}` is data: no validator reads it, so it points nowhere unharmed (an
    # old release's `outputSchema` indented into its input schema, say); the change is decided.
    extra = {"x-extra": {"$ref": "#/$defs/Note"}}
    old, new = obj({"id": S}, **extra), obj({"id": S})
    for first, second in ((old, new), (new, old)):
        assert [f.rule for f in run_input(first, second)] == ["input-schema-rewritten"]
    assert breaking(run_input(old, obj({"id": S}, ("id",)))), "a real change beside it is still seen"
    # A pointer the rules do not read (`+0`) that the validator does, as item 0: no data, but a
    # reference, whose change is no rewrite.
    def lib(most: int) -> dict[str, Any]:
        return {**obj({"p": {"$ref": "#/x-lib/+0"}}), "x-lib": [{"type": "string", "maxLength": most}]}

    long = {"p": "a" * 9}
    assert validator_for(lib(10)).is_valid(long) and not validator_for(lib(2)).is_valid(long)
    assert [f.severity for f in run_input(lib(10), lib(2))] in (["breaking"], ["warning"])
    # The same pointer in data, beside a change of words: data still, judged where it is.
    data = {**obj({"q": S}), "x-lib": [S], "x-extra": {"$ref": "#/x-lib/+0"}}
    said = [f.rule for f in run_input(data, {**data, "description": "hi"})]
    assert said == ["schema-wording-changed"], said


def test_a_reference_cycle_beside_other_keywords_hides_no_change() -> None:
    # A listing may carry `$ref: "#"` beside the root's keywords (a toolset refuses it): the pair
    # must not be taken to hold of itself, or every change inside is called compatible.
    def cyclic(maximum: int) -> dict[str, Any]:
        return {"$ref": "#", **obj({"n": {"type": "integer", "maximum": maximum}})}

    (found,) = [f for f in run_input(cyclic(10), cyclic(5)) if f.severity == "breaking"]
    assert found.has_counterexample and found.counterexample["n"] > 5, found
    assert not breaking(run_input(cyclic(5), cyclic(10)))
    assert run_input(cyclic(5), cyclic(5)) == []
    recursive = obj({"n": I, "next": {"$ref": "#"}})  # a cycle through a property: no warning
    assert run_input(recursive, recursive) == []
    assert breaking(run_input(recursive, obj({"n": I | {"maximum": 3}, "next": {"$ref": "#"}})))


def test_a_bound_tightened_where_only_fractions_are_accepted_is_shown_with_one_below_it() -> None:
    # OLD takes no integer (oneOf: integers match both branches): the counterexample is -0.5.
    one_of = {"oneOf": [True, I]}
    findings = run_input(obj({"b": one_of}), obj({"b": {**one_of, "minimum": 0}}), search_seconds=1e-9)
    (found,) = [f for f in findings if f.severity == "breaking"]
    assert found.has_counterexample and found.counterexample == {"b": -0.5}, found


def test_a_property_declared_in_an_open_output_is_said_of_what_a_client_gets() -> None:
    # The open-object rule's words are of what a client sends: "a client that sent 'x' ... is
    # never returned" made no sense of an output.
    old, new = obj({"a": S}), obj({"a": S, "message": S})
    (found,) = run_output(old, new)
    assert found.rule == "output-property-declared" and "client that sent" not in found.message, found
    assert found.message.startswith("property 'message' declared in an object"), found


D7 = {"$schema": "http://json-schema.org/draft-07/schema#"}


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        (  # merged, the allOf parts would decode content that each part alone never checks
            {**D7, **obj({"a": {"allOf": [{"const": "1234", "contentEncoding": "base64"},
                                          {"contentMediaType": "application/json"}]}})},
            {**D7, **obj({"a": I})},
            {"a": "1234"},
        ),
        (  # a listing's draft-06 is judged as the server's validator judges it (2020-12)
            {"$schema": "http://json-schema.org/draft-06/schema#",
             **obj({"a": {"type": "string", "maxLength": 0, "contentMediaType": "application/json"}})},
            {"$schema": "http://json-schema.org/draft-06/schema#", **obj({"a": I})},
            {"a": ""},
        ),
        (obj({"a": {"minimum": 10**400, "maximum": 10**400}}), obj({"a": I}), None),  # (a traceback)
    ],
    ids=["allof-content", "draft-06", "huge-whole-bound"],
)  # fmt: skip
def test_what_only_looks_empty_still_breaks(old: Any, new: Any, shown: Any) -> None:
    found = [f for f in run_input(old, new) if f.severity == "breaking"]
    assert found and all(f.has_counterexample for f in found), found
    assert shown is None or shown in [f.counterexample for f in found], found


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"type": "object", "properties": {"x": {"not": {}}, "y": {}}, "additionalProperties": False},
         {"type": "object", "properties": {"y": {}}, "additionalProperties": False}),
        ({"type": "object", "properties": {"a": {}}, "additionalProperties": {"not": {}}, "required": ["b"]},
         {"type": "integer"}),
    ],
    ids=["property-accepting-nothing-removed", "required-name-refused-by-not"],
)  # fmt: skip
def test_not_anything_counts_as_false_wherever_false_does(old: Any, new: Any) -> None:
    assert not breaking(run_input(old, new))


def test_a_node_with_definitions_of_its_own_is_judged_in_place() -> None:
    # `#/$defs/S` is the root's S wherever it is written: taken apart with its own `$defs`, the
    # node found its own S, and a break was called compatible.
    own = {"$defs": {"S": {"type": "null"}}, "type": ["string", "null"], "not": {"$ref": "#/$defs/S"}}
    old = {"type": "object", "$defs": {"S": I}, "properties": {"p": own}}
    new = {"type": "object", "$defs": {"S": I}, "properties": {"p": {"anyOf": [S, I]}}}
    found = [f for f in run_input(old, new) if f.severity == "breaking"]
    assert found and found[0].counterexample == {"p": None}, found


def test_a_change_read_through_a_root_reference_is_placed_inside_the_definition() -> None:
    # A root `$ref` beside `type` (an output written as `$ref: other.yaml#/$defs/Message`, bundled)
    # is merged by the rules: the finding's pointer must still exist in the tool.
    def message(name: str) -> dict[str, Any]:
        defs = {"Message": {"type": "object", "properties": {name: S}, "required": [name]}}
        return {"type": "object", "$ref": "#/$defs/Message", "$defs": defs}

    found = run_output(message("text"), message("body"))
    paths = {f.path for f in found if f.severity == "breaking"}
    assert paths and all(p.startswith("/outputSchema/$defs/Message/") for p in paths), found
    new_tool = {"outputSchema": message("body")}
    for path in {f.path for f in found}:  # every pointer resolves in the tool, or names what went
        parts = path.split("/")[1:]
        assert parts[-1] == "text" or resolve(new_tool, parts)[0], path


@pytest.mark.parametrize("where", ["beside-properties", "all-of"])
def test_every_finding_s_pointer_exists_in_the_new_tool(where: str) -> None:
    # The rules merge a node with its `$ref` target or `allOf` parts: a finding about a part must
    # still name the place in the tool where that part is written.
    def schema(kind: str) -> dict[str, Any]:
        if where == "all-of":
            return {"type": "object", "allOf": [{"properties": {"q": {"type": kind}}}, {"required": ["q"]}]}
        defs = {"Msg": {"type": "object", "properties": {"text": {"type": kind}}}}
        return {"$ref": "#/$defs/Msg", "type": "object", "properties": {"extra": S}, "$defs": defs}

    old, new = schema("string"), schema("integer")
    for found in (run_output(old, new), run_input(old, new)):
        assert found
        key = "outputSchema" if found[0].direction == "output" else "inputSchema"
        for finding in found:
            assert resolve({key: schema("integer")}, finding.path.split("/")[1:])[0], finding


@pytest.mark.parametrize(
    "sibling",
    [
        {"type": "string", "minLength": 2},
        {"type": "string", "format": "date"},
        I | {"minimum": 3},
        {"type": "array", "prefixItems": [I | {"minimum": 1}, S | {"minLength": 1}], "minItems": 2},
        {"type": "array", "items": I | {"minimum": 5}, "uniqueItems": True, "minItems": 3},
        {"type": "array", "items": {"type": "string", "maxLength": 1}, "uniqueItems": True, "minItems": 2},
        {"type": "object", "minProperties": 2},
        {"type": "object", "properties": {"p": I, "q": S}, "additionalProperties": False, "minProperties": 2},
        {"type": "object", "additionalProperties": I | {"minimum": 1}, "minProperties": 1},
    ],
    ids=["min-length", "format", "minimum", "prefix-items", "unique-numbers", "unique-strings",
         "min-properties", "min-properties-closed", "min-properties-additional"],
)
def test_the_least_instance_meets_a_required_sibling_s_own_bounds(sibling: dict[str, Any]) -> None:
    # With no search time left, the counterexample is planted into the least instance of OLD: a
    # required sibling's minLength, format or minimum must not make that no instance at all.
    old, new = obj({"r": sibling, "x": S}, ("r",)), obj({"r": sibling, "x": I}, ("r",))
    (found,) = [f for f in run_input(old, new, search_seconds=1e-9) if f.severity == "breaking"]
    assert found.has_counterexample and found.counterexample["x"] == "", found


def test_a_bound_of_a_type_no_branch_takes_breaks_nobody() -> None:
    # Every instance is a string (each anyOf branch says so): a minimum constrains none of them.
    strings = {"anyOf": [S, {"type": "string", "maxLength": 3}]}
    assert not breaking(run_input(obj({"b": strings}), obj({"b": {**strings, "minimum": 0}})))
    twins = {"oneOf": [I, I, S]}  # an integer is in both twins: none is taken
    assert not breaking(run_input(obj({"b": twins}), obj({"b": {**twins, "minimum": 0}})))
    mixed = {"anyOf": [S, {"type": "number"}]}
    found = breaking(run_input(obj({"b": mixed}), obj({"b": {**mixed, "minimum": 0}})))
    assert found == {("input-constraint-tightened", "input", "/inputSchema/properties/b/minimum")}


def test_keywords_beside_an_overlapping_oneof_are_decided_by_a_counterexample() -> None:
    # OLD takes only integers above 0 (0 and below match both branches): a minimum of 0 refuses
    # none of them, one of 5 refuses 1. Breaking is said only with the instance that shows it.
    one_of = {"oneOf": [I, I | {"maximum": 0}]}
    assert not breaking(run_input(obj({"b": one_of}), obj({"b": {**one_of, "minimum": 0}})))
    (found,) = [f for f in run_input(obj({"b": one_of}), obj({"b": {**one_of, "minimum": 5}}))
                if f.severity == "breaking"]  # fmt: skip
    assert found.has_counterexample and 0 < found.counterexample["b"] < 5, found


BIG, BIG_FLOAT = 2**62, float(2**62)  # one value to JSON Schema; two to jsonschema-rs, as the server judges


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"enum": [1, BIG]}, {"enum": [1, BIG_FLOAT]}),
        ({"enum": [1, BIG_FLOAT]}, {"enum": [1, BIG]}),
        ({"const": BIG}, {"enum": [BIG_FLOAT]}),
        ({"type": "array", "items": {"enum": [BIG]}}, {"type": "array", "items": {"const": BIG_FLOAT}}),
        # (each was called compatible: the two were one value, or a float bound took no integer)
        ({"not": {"const": float(2**63)}}, {"not": {"const": 2**63}}),
        ({"oneOf": [{"const": BIG}, {"const": BIG_FLOAT}]}, S),
        ({"type": "integer", "minimum": 1e30, "maximum": 1e30}, S),
        # (const 4611686018427388000 takes the float 4.611686018427388e+18 too, which the server
        # reads as that integer; a range of integers bounded by it does not: they were "equal")
        ({"const": 4611686018427388000}, {"type": "integer", "minimum": 4611686018427388000,
                                          "maximum": 4611686018427388000}),
        # (past 2**53 the server places the float 2.0**60 + 256 below the integer: not the same)
        ({"type": "integer", "exclusiveMinimum": 2**60 + 255}, {"type": "integer", "minimum": 2**60 + 256}),
    ],
)
def test_a_big_integer_and_its_float_are_two_values_as_the_server_judges(old: Any, new: Any) -> None:
    assert breaking(run_input(old, new)) and breaking(run_output(new, old))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"not": {"minimum": 9223372036854776000}}, {"not": {"minimum": 2.0**63}}),
        # (an integer bound beside a float one past 2**53: which binds is the server's to say)
        ({"type": "integer", "maximum": 2.0**60},
         {"type": "integer", "maximum": 2.0**60, "exclusiveMaximum": 2**60 + 1}),
        ({"minimum": -(2.0**64)}, {"minimum": -(2.0**64), "exclusiveMinimum": -(2**64) - 2}),
    ],
)
def test_a_bound_and_its_float_past_2_53_are_never_called_one(old: Any, new: Any) -> None:
    # `minimum: 9223372036854776000` refuses the float 2.0**63, `minimum: 2.0**63` takes it: the
    # change was "changed without changing which values it accepts"; the rules cannot compare it.
    for found in (run_input(old, new), run_output(new, old)):
        assert [f for f in found if f.severity != "info"], found


@pytest.mark.parametrize(
    ("old_add", "new_add", "declared"),
    [
        (True, S, {}),
        ({}, I, {"unlisted": S}),  # the name the search picks first is declared: another is used
        (S, {"type": "string", "maxLength": 1}, {"x": I}),
    ],
)
def test_a_narrowed_additional_properties_is_shown_with_an_unlisted_property(
    old_add: Any, new_add: Any, declared: dict[str, Any]
) -> None:
    old = {**obj(declared), "additionalProperties": old_add}
    new = {**obj(declared), "additionalProperties": new_add}
    for seconds in (1e-9, 0.5):
        found = [f for f in run_input(old, new, search_seconds=seconds) if f.severity == "breaking"]
        assert found and all(f.has_counterexample for f in found), found
        (name,) = set(found[0].counterexample) - set(declared)
        assert name not in declared and not validator_for(new).is_valid(found[0].counterexample)


@pytest.mark.parametrize(
    "sibling",
    [
        {"contentEncoding": "base64", "minLength": 1},
        {"contentEncoding": "base64", "minLength": 9},
        {"contentEncoding": "base64", "contentMediaType": "application/json", "minLength": 10},
        {"contentMediaType": "application/json", "minLength": 3},
        {"format": "date", "minLength": 4},
    ],
)
def test_a_required_sibling_whose_content_draft_07_checks_still_lets_the_break_be_shown(
    sibling: dict[str, Any],
) -> None:
    # The least instance carries the sibling: a string of its length draft-07 reads as its content.
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
    old = {**d7, **obj({"s": {"type": "string", **sibling}, "c": {"type": "array"}}, ("s",))}
    new = {**d7, **obj({"s": {"type": "string", **sibling}, "c": {"type": "array", "items": S}}, ("s",))}
    for seconds in (1e-9, 0.5):
        (found,) = [f for f in run_input(old, new, search_seconds=seconds) if f.severity == "breaking"]
        assert found.has_counterexample, found
        assert validator_for(old).is_valid(found.counterexample) and not validator_for(new).is_valid(
            found.counterexample
        )


D7 = {"$schema": "http://json-schema.org/draft-07/schema#"}


@pytest.mark.parametrize(
    ("apart", "together"),
    [
        ({"contentMediaType": "application/json", "allOf": [{"contentEncoding": "base64"}]},
         {"contentMediaType": "application/json", "contentEncoding": "base64"}),
        ({"allOf": [{"contentMediaType": "application/json"}, {"contentEncoding": "base64"}]},
         {"contentMediaType": "application/json", "contentEncoding": "base64"}),
        ({"anyOf": [{"contentEncoding": "base64"}], "contentMediaType": "application/json"},
         {"contentMediaType": "application/json", "contentEncoding": "base64"}),
    ],
)  # fmt: skip
def test_content_keywords_are_read_in_their_own_node(apart: dict[str, Any], together: dict[str, Any]) -> None:
    # Draft-07 decodes with the encoding its own node names: split, "1234" is base64 and JSON text;
    # joined, it decodes to bytes that are no JSON. Either way round, one side refuses what the other takes.
    split, joined = {**D7, "type": "string", **apart}, {**D7, "type": "string", **together}
    for old, new in ((split, joined), (joined, split)):
        for found in (run_input(old, new), run_output(new, old)):
            shown = [f for f in found if f.severity == "breaking"]
            assert shown and all(f.has_counterexample for f in shown), found
            witness = shown[0].counterexample
            assert validator_for(old).is_valid(witness) and not validator_for(new).is_valid(witness)


@pytest.mark.parametrize("big", [2**63, 2**64, 2**60, 10**19])
@pytest.mark.parametrize("keyword", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"])
@pytest.mark.parametrize("kind", ["integer", "number"])
def test_an_integer_bound_and_its_float_past_2_53_are_not_called_the_same(
    big: int, keyword: str, kind: str
) -> None:
    # The server rounds an integer instance to compare it with a float bound: -2**63 - 3 passes
    # `minimum: -9.223372036854776e18` and fails `minimum: -9223372036854775808`.
    value = -big if "inimum" in keyword else big
    as_int, as_float = {"type": kind, keyword: value}, {"type": kind, keyword: float(value)}
    nearby = [value + step for step in range(-4, 5)]
    for old, new in ((as_int, as_float), (as_float, as_int)):
        found = [f for f in run_input(old, new) if f.severity in ("breaking", "warning")]
        refused = [n for n in nearby if validator_for(old).is_valid(n) and not validator_for(new).is_valid(n)]
        assert found or not refused, (old, new, refused)
        if refused:
            assert [f.rule for f in found if f.severity == "breaking" and f.has_counterexample], found
        for f in found:
            if f.has_counterexample:
                assert validator_for(old).is_valid(f.counterexample)
                assert not validator_for(new).is_valid(f.counterexample)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ({"allOf": [False]}, {"allOf": [False, False]}),
        ({"allOf": [{"allOf": [{"not": {}}]}], "type": "string"}, {"type": "string", "maxLength": 1}),
        (
            obj({"v": {"allOf": [S, False]}}, ("v",)),
            {**obj({"v": {"allOf": [S, False]}}, ("v",)), "maxProperties": 0},
        ),
        (obj({"v": {"allOf": [S, False]}}), obj({"v": {"allOf": [{**S, "maxLength": 1}, False]}})),
    ],
)
def test_a_conjunction_with_a_part_that_accepts_nothing_breaks_nobody(old: Any, new: Any) -> None:
    # Nothing passes a `false` part (or one that is empty in turn), so nothing passed OLD there.
    assert not breaking(run_input(old, new)) and not breaking(run_output(new, old))


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        ({}, {"patternProperties": {"f.*o": I}}, lambda x: any("f" in k and "o" in k for k in x)),
        (obj({"v": {"oneOf": [S, {"type": "null"}]}}),
         obj({"v": {"oneOf": [S, {"type": "null"}, {"type": "string", "format": "date"}]}}),
         lambda x: isinstance(x.get("v"), str)),
        ({}, {"contains": {"const": 1}, "minContains": 0, "maxContains": 0}, lambda x: x == [1]),
    ],
)  # fmt: skip
def test_a_break_found_by_a_name_a_pattern_matches_a_formatted_value_or_a_list_of_one(
    old: Any, new: Any, shown: Any
) -> None:
    (found,) = [f for f in run_input(old, new, search_seconds=1e-9) if f.severity == "breaking"]
    assert found.has_counterexample and shown(found.counterexample), found
    assert validator_for(old).is_valid(found.counterexample) and not validator_for(new).is_valid(
        found.counterexample
    )


@pytest.mark.parametrize("name", ["$ref", "$anchor", "$dynamicRef", "$recursiveAnchor", "$id", "$schema"])
def test_a_property_named_like_a_reference_keyword_is_compared_by_the_rules(name: str) -> None:
    # A mapping under such a name is a property's schema, not a reference the rules cannot follow.
    old, new = (
        obj({name: {"type": "object", "properties": {"q": S}}}),
        obj({name: {"type": "object", "properties": {"q": {**S, "maxLength": 1}}}}),
    )
    found = run_input(old, new)
    assert [(f.rule, f.path) for f in found] == [
        (
            "input-constraint-tightened",
            f"/inputSchema/properties/{name.replace('~', '~0')}/properties/q/maxLength",
        )
    ], found


def test_items_past_a_tuple_are_shown_past_it() -> None:
    # additionalItems (or items after prefixItems) judges the items after the tuple: the
    # counterexample has one there, also when the search has no time to draw.
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
    old = {**d7, **obj({"b": {"type": "array", "items": [True]}})}
    new = {**d7, **obj({"b": {"type": "array", "items": [True], "additionalItems": False}})}
    for seconds in (1e-9, 0.5):
        (found,) = [f for f in run_input(old, new, search_seconds=seconds) if f.severity == "breaking"]
        assert found.has_counterexample and len(found.counterexample["b"]) >= 2, found


@pytest.mark.parametrize("new", [obj({"a": {**S, "pattern": "("}}), "nope", obj({"a": {"type": "nope"}})])
def test_a_new_schema_the_server_cannot_compile_is_breaking(new: Any) -> None:
    # A saved answer or a live server may hold one: the generated server could not validate with it.
    found = run_input(obj({"a": S}), new)
    assert [(f.rule, f.severity, f.path) for f in found] == [
        ("input-schema-uncompiled", "breaking", "/inputSchema")
    ]
    found = run_output(obj({"a": S}), new)
    assert [(f.rule, f.severity) for f in found] == [("output-schema-uncompiled", "breaking")]


@pytest.mark.parametrize("name", ["$ref", "$dynamicRef", "$id"])
@pytest.mark.parametrize("schema", [True, False])
def test_a_property_named_like_a_reference_keyword_may_be_true_or_false(name: str, schema: bool) -> None:
    old, new = obj({name: schema, "y": S}), obj({name: schema, "y": {"type": ["string", "integer"]}})
    assert [(f.rule, f.severity) for f in run_input(old, new)] == [("input-type-widened", "info")]
    assert [(f.rule, f.path) for f in run_input(new, old)] == [
        ("input-type-narrowed", "/inputSchema/properties/y/type")
    ]


def test_a_double_negation_is_what_it_negates_twice() -> None:
    twice = obj({"b": {"not": {"not": {"anyOf": [S, S]}}}})
    once = obj({"b": {"anyOf": [S, S]}})
    assert [f.rule for f in run_input(twice, once)] == ["input-schema-rewritten"]
    assert [f.rule for f in run_input(once, twice)] == ["input-schema-rewritten"]


@pytest.mark.parametrize(
    "evaluated",
    [
        ("unevaluatedProperties", {"properties": {"a": True}}),
        ("unevaluatedItems", {"prefixItems": [True]}),
    ],
    ids=["properties", "items"],
)
@pytest.mark.parametrize("within", ["allOf", "anyOf"])
def test_a_double_negation_evaluates_nothing_where_that_counts(evaluated: Any, within: str) -> None:
    # What a `not` holds evaluates nothing for unevaluatedProperties/Items: `not: {not: X}` is X
    # as a filter, but the names or items X would evaluate are unevaluated then.
    keyword, part = evaluated
    kind = "object" if keyword == "unevaluatedProperties" else "array"
    old = {"type": kind, within: [part], keyword: False}
    new = {"type": kind, within: [{"not": {"not": part}}], keyword: False}
    (found,) = [f for f in run_input(old, new) if f.severity == "breaking"]
    assert found.has_counterexample, found
    assert validator_for(old).is_valid(found.counterexample)
    assert not validator_for(new).is_valid(found.counterexample)


def test_what_a_reference_beside_other_keywords_refuses_everything_stays_so() -> None:
    # The target accepts nothing, so does the property: a change beside the reference breaks nobody.
    never = {"$defs": {"Never": False}}
    old = obj({"a": {"$ref": "#/$defs/Never", "type": "string"}}, **never)
    new = obj({"a": {"$ref": "#/$defs/Never", "type": "string", "minLength": 2}}, **never)
    for found in (run_input(old, new), run_input(new, old), run_output(old, new), run_output(new, old)):
        assert [f.severity for f in found] == ["info"], found


def test_a_required_property_of_no_type_but_its_branches_has_a_least_value() -> None:
    # The least instance takes the first branch's least value: the break is shown without drawing.
    d7 = {"$schema": "http://json-schema.org/draft-07/schema#"}
    either = {"anyOf": [I, S]}
    old = {**d7, **obj({"a": either, "b": True}, ("a", "b"))}
    new = {**d7, **obj({"a": {**either, "type": "string"}, "b": True}, ("a", "b"))}
    (found,) = [f for f in run_input(old, new, search_seconds=1e-9) if f.severity == "breaking"]
    assert found.has_counterexample and found.counterexample["a"] == 0, found


@pytest.mark.parametrize(
    "anything",
    [
        {"allOf": [True, {}]},
        {"not": False},
        {"not": {"anyOf": [False, {"allOf": [{"not": {}}]}]}},
        {"anyOf": [True, False]},
        {"oneOf": [False, {}]},
        {"if": {}, "then": {}},
        {"if": False, "then": False},
        {"if": True, "else": False},
        {"type": ["null", "boolean", "object", "array", "number", "string"]},
    ],
)
def test_a_oneof_of_two_branches_that_take_anything_however_written_accepts_nothing(anything: Any) -> None:
    # A value is in both branches, so in neither alone: the oneOf accepts nothing, and a change
    # beside it breaks nobody.
    old = obj({"a": True, "c": {"oneOf": [anything, True]}}, ("c",))
    assert [f.severity for f in run_input(old, {**old, "additionalProperties": False})] == ["info"]


def test_a_oneof_of_two_branches_that_take_anything_written_alike_accepts_nothing() -> None:
    # `allOf: [true, true]` takes anything, as `true` does: a value is in both branches, so in neither alone.
    either = {"oneOf": [True, {"allOf": [True, {}]}]}
    old = {**obj({"a": True, "c": either}, ("c",))}
    assert not breaking(run_input(old, {**old, "additionalProperties": False}))


def _pattern(p: str) -> dict[str, Any]:
    return {"type": "string", "pattern": p}


# A change the rules cannot compare, found breaking by its counterexample, in several places.
UNCOMPARED: list[tuple[str, Any, Any]] = [
    ("anyOf", obj({"v": {"anyOf": [_pattern("^[a-z]+$"), I]}}),
     obj({"v": {"anyOf": [_pattern("^[a-y]+$"), I]}})),
    ("oneOf", obj({"v": {"oneOf": [_pattern("^[a-z]+$"), I]}}),
     obj({"v": {"oneOf": [_pattern("^[a-y]+$"), I]}})),
    ("plain", obj({"v": _pattern("^[a-z]+$")}), obj({"v": _pattern("^[a-y]+$")})),
    ("items", obj({"v": {"type": "array", "items": {"anyOf": [_pattern("^[a-z]+$"), I]}}}),
     obj({"v": {"type": "array", "items": {"anyOf": [_pattern("^[a-y]+$"), I]}}})),
    ("not", obj({"v": {"type": "string", "not": {"anyOf": [_pattern("^z"), I]}}}),
     obj({"v": {"type": "string", "not": {"anyOf": [_pattern("^[yz]"), I]}}})),
]  # fmt: skip


def test_a_widening_the_rules_know_below_a_breaking_change_is_still_said() -> None:
    # z newly required (breaking, at /properties/y/properties/z) and its maximum relaxed (info).
    old = obj({"y": obj({"z": {"type": "integer", "maximum": 5}})})
    new = obj({"y": obj({"z": {"type": "integer", "maximum": 10}}, ("z",))})
    said = {(f.rule, f.path) for f in run_input(old, new, check_version=False)}
    assert ("input-constraint-relaxed", "/inputSchema/properties/y/properties/z/maximum") in said, said
    # As an output: r no longer required (breaking) and its enum narrowed (info).
    old_out = obj({"r": {"enum": ["a", "b"]}}, ("r",))
    new_out = obj({"r": {"enum": ["a"]}})
    said = {(f.rule, f.path) for f in run_output(old_out, new_out, check_version=False)}
    assert any(rule == "output-enum-narrowed" for rule, _ in said), said


@pytest.mark.parametrize(("name", "looser", "stricter"), UNCOMPARED, ids=[c[0] for c in UNCOMPARED])
def test_a_change_is_reported_once(name: str, looser: Any, stricter: Any) -> None:
    # Narrowed (an input) or widened (an output) is breaking at its place; the same change is not
    # also said to go the other way at or below that place ("perhaps widened").
    for run, old, new in ((run_input, looser, stricter), (run_output, stricter, looser)):
        found = run(old, new, check_version=False, max_examples=300)
        broken = [f.path for f in found if f.severity == "breaking"]
        assert len(broken) == 1, (name, found)
        below = [f for f in found if f.path == broken[0] or f.path.startswith(broken[0] + "/")]
        assert [f.severity for f in below] == ["breaking"], (name, found)


CLOSED = {"additionalProperties": False}
X = obj({"x": S})
XY = obj({"x": S, "y": False})
AB = obj({"a": False, "b": S})


@pytest.mark.parametrize(
    ("old", "new"),
    [  # each pair accepts the same values: no breaking finding either way, as input or output
        ({**X, **CLOSED, "minProperties": 1}, {**X, "required": ["x"], **CLOSED, "minProperties": 1}),
        ({**XY, **CLOSED, "minProperties": 1}, {**XY, "required": ["x"], **CLOSED}),
        ({**AB, **CLOSED}, {**AB, **CLOSED, "maxProperties": 1}),
        ({"type": "object", **CLOSED}, {"const": {}}),
        ({**obj({"a": False}), **CLOSED}, {"enum": [{}]}),
    ],
)
def test_an_object_whose_names_its_closure_decides_is_no_breaking_change(old: Any, new: Any) -> None:
    # (each was "breaking" with no counterexample: `x` newly required where the object could only
    # hold `x`, "maxProperties 2 -> 1" where `a: false` left one name, `const: {}` added)
    for first, second in ((old, new), (new, old)):
        assert not breaking(run_input(obj({"o": first}), obj({"o": second})))
        assert not breaking(run_output(obj({"o": first}), obj({"o": second})))
    # One name more, and each is a change with a counterexample.
    wider = {**old, "properties": {**old.get("properties", {}), "z": S}}
    narrower = {**new, "properties": new.get("properties", {})}
    assert breaking(run_input(obj({"o": wider}), obj({"o": narrower})))


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ({}, {"pattern": "^[A-Z]"}, 'pattern changed: (none) -> "^[A-Z]"'),
        ({"pattern": "^[A-Z]"}, {}, 'pattern changed: "^[A-Z]" -> (none)'),
        ({"pattern": "^a"}, {"pattern": "^b"}, 'pattern changed: "^a" -> "^b"'),
        ({"type": "number"}, {"type": "number", "multipleOf": 2}, "multipleOf tightened: (none) -> 2"),
    ],
)
def test_a_pattern_added_or_removed_is_said_as_none_not_null(
    old: dict[str, Any], new: dict[str, Any], said: str
) -> None:
    string = {"type": "string"}
    for run in (run_input, run_output):
        found = run({**string, **old}, {**string, **new})
        messages = [f.message for f in found if f.rule.endswith(("pattern-changed", "constraint-tightened"))]
        assert messages and all(m.startswith(said) for m in messages), found
        assert not any("null" in f.message for f in found), found


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # A bound tightened beside a required string property of some minLength.
        (obj({"c": {**S, "minLength": 1}, "d": {"type": "integer", "maximum": 14}}, ("c",)),
         obj({"c": {**S, "minLength": 1}, "d": {"type": "integer", "maximum": 7}}, ("c",))),
        # A property added to an open object, beside required ones of each kind.
        (obj({"c": {**S, "format": "email"}, "n": {"type": "number", "minimum": 2}}, ("c", "n")),
         obj({"c": {**S, "format": "email"}, "n": {"type": "number", "minimum": 2}, "x": S}, ("c", "n"))),
        # An enum value removed below an array of required objects.
        (obj({"l": {"type": "array", "items": obj({"k": {"enum": ["p", "q"]}}, ("k",))}}, ("l",)),
         obj({"l": {"type": "array", "items": obj({"k": {"enum": ["p"]}}, ("k",))}}, ("l",))),
    ],
)
def test_a_decided_change_shows_one_counterexample_whatever_the_search_time_left(old: Any, new: Any) -> None:
    # The counterexample of a change the rules decide is planted into an instance of OLD: the same
    # one whether the search has its time, almost none, or none left in the diff, so a report
    # does not vary with the machine's load.
    shown = {
        repr(opts): [(f.rule, f.path, f.counterexample) for f in run_input(old, new, **opts)]
        for opts in ({}, {"search_seconds": 1e-9}, {"search_budget_seconds": 0})
    }
    first = next(iter(shown.values()))
    assert first and all(example is not None for _, _, example in first), shown
    assert all(value == first for value in shown.values()), shown


D7 = {"$schema": "http://json-schema.org/draft-07/schema#"}


@pytest.mark.parametrize(
    ("old", "new", "place"),
    [
        # draft-07 checks no uuid: the least id is "", which NEW takes (not a uuid longer than 10).
        ({**D7, **obj({"id": {**S, "format": "uuid"}, "days": {**I, "maximum": 14}}, ("id",))},
         {**D7, **obj({"id": {**S, "format": "uuid", "maxLength": 10}, "days": {**I, "maximum": 7}},
                      ("id",))},
         "days"),
        # 2020-12 checks no base64: the least content is "aaaaa", which NEW takes too.
        (obj({"c": {**S, "contentEncoding": "base64", "minLength": 5}}, ("c",)),
         obj({"c": {**S, "contentEncoding": "base64", "minLength": 5, "maxLength": 6}, "x": I}, ("c",)),
         "x"),
        # A closed object loses `y` while `c`'s minimum rises: planted into an instance NEW takes.
        (obj({"c": {**I, "minimum": 1}, "y": S}, ("c",), additionalProperties=False),
         obj({"c": {**I, "minimum": 2}}, ("c",), additionalProperties=False),
         "y"),
        # A least number that is a multiple above an exclusive bound.
        (obj({"n": {**I, "exclusiveMinimum": 4, "minimum": 4, "multipleOf": 2}, "d": {**I, "maximum": 14}},
             ("n",)),
         obj({"n": {**I, "exclusiveMinimum": 4, "minimum": 4, "multipleOf": 2}, "d": {**I, "maximum": 7}},
             ("n",)),
         "d"),
        # Bounds the least guess meets: an exclusive minimum, a number of items.
        (obj({"n": {"type": "number", "exclusiveMinimum": 0}, "l": {"type": "array", "minItems": 2},
              "d": {**I, "maximum": 14}}, ("n", "l")),
         obj({"n": {"type": "number", "exclusiveMinimum": 0}, "l": {"type": "array", "minItems": 2},
              "d": {**I, "maximum": 7}}, ("n", "l")),
         "d"),
    ],
)  # fmt: skip
def test_a_counterexample_is_refused_for_the_change_it_shows_alone(old: Any, new: Any, place: str) -> None:
    # Old takes it and NEW refuses it, and without the part at the finding's place NEW takes it:
    # the rest of it is not what NEW refuses. The same whatever the search time left.
    in_old, in_new = validator_for(old).is_valid, validator_for(new).is_valid
    shown = []
    for opts in ({}, {"search_seconds": 1e-9}, {"search_budget_seconds": 0}):
        findings = run_input(old, new, **opts)
        found = [f for f in findings if f"/properties/{place}" in f.path and f.has_counterexample]
        assert found, (opts, findings)
        example = found[0].counterexample
        rest = {k: v for k, v in example.items() if k != place}
        assert in_old(example) and not in_new(example) and in_new(rest), (opts, example)
        shown.append(example)
    assert shown[0] == shown[1] == shown[2], shown


def test_when_the_diff_s_search_time_is_spent_nothing_is_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpstub.diff import search  # noqa: PLC0415

    drawn: list[Any] = []

    def refuse(*args: Any, **kwargs: Any) -> Any:
        drawn.append(args)
        raise AssertionError("an instance was drawn")

    monkeypatch.setattr(search, "_run_find", refuse)
    fields = {"n": {"type": "number", "exclusiveMinimum": 0}, "s": {**S, "minLength": 2}}
    old, new = obj(fields, ("n", "s")), obj({**fields, "x": I}, ("n", "s"))
    findings = run_input(old, new, search_budget_seconds=0)
    assert [f.rule for f in findings] == ["input-property-added"] and not drawn, (findings, drawn)
    assert findings[0].counterexample == {"n": 1, "s": "aa", "x": None}  # (planted, not drawn)


def test_a_searched_change_is_planted_into_the_least_instance_the_new_schema_takes() -> None:
    # A pattern change needs the search; its counterexample is planted into `c` of three letters,
    # which NEW takes, not the shortest `c`, which NEW refuses for its new minLength.
    old = obj({"c": S, "p": {**S, "pattern": "^a"}}, ("c",))
    new = obj({"c": {**S, "minLength": 3}, "p": {**S, "pattern": "^ab"}}, ("c",))
    (found,) = [f for f in run_input(old, new) if f.path.endswith("/p/pattern") and f.has_counterexample]
    example = found.counterexample
    in_old, in_new = validator_for(old).is_valid, validator_for(new).is_valid
    assert in_old(example) and not in_new(example), example
    assert in_new({k: v for k, v in example.items() if k != "p"}), example


def test_a_property_added_and_required_is_said_once_as_the_break_it_is() -> None:
    # Newly required is the break; that it is also added to an object open to others is not said
    # again at the same place.
    old, new = obj({"a": S}), obj({"a": S, "style": S}, ("style",))
    found = [(f.rule, f.severity, f.path) for f in run_input(old, new)]
    assert found == [("input-required-added", "breaking", "/inputSchema/properties/style")], found
    # An added property that is not required is still said for the open object.
    assert [f.rule for f in run_input(old, obj({"a": S, "style": S}))] == ["input-property-added"]


S1, S2 = {"type": "string", "minLength": 1}, {"type": "string", "minLength": 2}


@pytest.mark.parametrize(
    ("old", "new", "broken"),
    [
        # the branch tightened alone: a break, shown with a counterexample, said at its bound
        ({"anyOf": [S1, {"type": "integer"}]}, {"anyOf": [S2, {"type": "integer"}]}, "/anyOf/0/minLength"),
        # another branch takes what the tightened one refuses: no break
        ({"anyOf": [S1, {"type": "string"}]}, {"anyOf": [S2, {"type": "string"}]}, None),
        ({"oneOf": [S1, {"type": "integer"}]}, {"oneOf": [S2, {"type": "integer"}]}, "/oneOf/0/minLength"),
        # reordered as well: no branch is at its place, nor is a change said at one (`/anyOf/0/type`
        # was said of the integer branch, a rule name an ignore entry of the user's then hid)
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]},
         {"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": 3}]}, "/anyOf"),
        ({"oneOf": [{"properties": {"t": {"const": "a"}}, "required": ["t"]},
                    {"properties": {"t": {"const": "b"}}, "required": ["t"]}]},
         {"oneOf": [{"properties": {"t": {"const": "b"}}, "required": ["t"]},
                    {"properties": {"t": {"const": "a"}}, "required": ["t"], "maxProperties": 1}]}, "/oneOf"),
    ],
)  # fmt: skip
def test_a_branch_changed_in_place_is_said_at_its_change(old: Any, new: Any, broken: str | None) -> None:
    # "anyOf rewritten: the rules cannot compare it" was all a change inside one branch got.
    props = {"type": "object", "properties": {"v": old}}
    found = run_input(props, {"type": "object", "properties": {"v": new}})
    shown = [f for f in found if f.severity == "breaking"]
    if broken is None:
        assert not shown and not [f for f in found if f.severity == "warning"], found
        return
    assert [f.path for f in shown] == [f"/inputSchema/properties/v{broken}"], found
    witness = shown[0].counterexample
    assert shown[0].has_counterexample and validator_for(props).is_valid(witness), found
    assert not validator_for({"type": "object", "properties": {"v": new}}).is_valid(witness), found



@pytest.mark.parametrize(
    ("old", "added"),
    [
        ({"anyOf": [{"anyOf": [{"type": "number"}]}]}, {"minLength": 1}),
        ({"oneOf": [{"anyOf": [{"type": "boolean"}, {"type": "null"}]}]}, {"minItems": 1}),
        # (a branch of integers that must be null takes nothing: the other takes objects alone)
        ({"anyOf": [{"anyOf": [{"type": "null"}], "type": "integer"}, {"type": "object"}]}, {"maximum": 3}),
    ],
)  # fmt: skip
def test_a_keyword_of_a_type_no_branch_takes_at_any_depth_breaks_nothing(old: Any, added: Any) -> None:
    # Read one level down only, a nested anyOf took any type: `minLength` beside numbers alone was
    # a break without a counterexample.
    found = run_input(old, {**old, **added})
    assert not [f for f in found if f.severity != "info"], found


TREE = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/Tree"}}]}


@pytest.mark.parametrize(
    "old",
    [{"type": "array"}, {"type": "array", "items": {}}, {"type": ["array", "string"]},
     {"type": "object"}, {"type": "object", "additionalProperties": {"type": "array"}}],
)  # fmt: skip
def test_a_recursive_schema_against_one_that_leaves_items_out_is_decided_at_once(old: Any) -> None:
    # What A leaves out (its items) was a new `{}` at each step: a recursion into B's `Tree` was not
    # seen, and the walk went 200 levels down, branch by branch: the diff never ended.
    tree = {"anyOf": [*TREE["anyOf"], {"type": "object", "additionalProperties": {"$ref": "#/$defs/Tree"}}]}
    new = {"type": "object", "$defs": {"Tree": tree}, "properties": {"v": {"$ref": "#/$defs/Tree"}}}
    start = time.process_time()
    found = run_input({"type": "object", "properties": {"v": old}}, new)
    assert time.process_time() - start < 20, found
    shown = [f for f in found if f.severity == "breaking"]
    assert shown and all(f.has_counterexample for f in shown), found
    for f in shown:
        assert validator_for({"type": "object", "properties": {"v": old}}).is_valid(f.counterexample)
        assert not validator_for(new).is_valid(f.counterexample), f
