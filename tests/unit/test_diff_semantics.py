"""`diff` judges as the generated server validates: its dialect, its format and content checks.

Each pair below is a change that breaks clients under the server's own validator (built here as
the server builds it): the verdict must be breaking, with a counterexample that OLD's validator
accepts and NEW's refuses. The false alarms must give no breaking finding.
"""

from __future__ import annotations

from typing import Any

import pytest

from mcpstub.diff import DiffOptions, Side, diff_sides
from mcpstub.diff.semantics import active_keywords, asserts_format, content_check, server_validator

D7 = "http://json-schema.org/draft-07/schema#"
D20 = "https://json-schema.org/draft/2020-12/schema"


def props(schema: dict[str, Any], dialect: str | None = None, **more: Any) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "object", "properties": {"a": schema}, **more}
    if dialect:
        node["$schema"] = dialect
    return node


def branch(value: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"k": {"const": value}}, "required": ["k"]}


def findings(old: Any, new: Any) -> list[Any]:
    old_side = Side("1.0.0", {"t": {"name": "t", "inputSchema": old}})
    new_side = Side("1.0.0", {"t": {"name": "t", "inputSchema": new}})
    return diff_sides(old_side, new_side, DiffOptions(check_version=False))


UUID = {"type": "string", "format": "uuid"}
ID = {"$defs": {"Id": UUID}}
BREAKING = [
    ("max-properties-filled-by-required",
     {"type": "object", "required": ["x"], "maxProperties": 1},
     {"type": "object", "required": ["x"], "maxProperties": 1, "additionalProperties": False}),
    ("format-asserted-after-dialect-switch",
     props({"type": "string", "format": "uuid"}, D7), props({"type": "string", "format": "uuid"}, D20)),
    ("duration-asserted-after-dialect-switch",
     props({"type": "string", "format": "duration"}, D7), props({"type": "string", "format": "duration"})),
    ("draft-07-content-encoding", props({"type": "string"}, D7),
     props({"type": "string", "contentEncoding": "base64"}, D7)),
    ("draft-07-content-media-type", props({"type": "string"}, D7),
     props({"type": "string", "contentMediaType": "application/json"}, D7)),
    ("number-multiple-of-one-to-bounded-integer", props({"type": "number", "multipleOf": 1}),
     props({"type": "integer", "maximum": 10})),
    ("if-then-apart-then-together",
     props({"allOf": [{"if": {"type": "string"}}, {"then": {"minLength": 3}}]}),
     props({"if": {"type": "string"}, "then": {"minLength": 3}})),
    ("contains-min-contains-apart-then-together",
     props({"type": "array", "allOf": [{"contains": {"type": "string"}}, {"minContains": 2}]}),
     props({"type": "array", "contains": {"type": "string"}, "minContains": 2})),
    ("one-of-branches-equal-by-value", props(branch(1)), props({"oneOf": [branch(1), branch(1.0)]})),
    # The same format (or content keyword) inside a keyword that holds schemas, the dialect switched:
    # written alike, it is asserted on one side only.
    *((f"format-in-{name}-after-dialect-switch", props(node, D7, **ID), props(node, D20, **ID))
      for name, node in [
        ("any-of", {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]}),
        ("one-of", {"oneOf": [{"type": "string", "format": "uuid"}, {"type": "integer"}]}),
        ("all-of", {"allOf": [{"type": "string", "format": "uuid"}]}),
        ("then", {"type": "string", "if": {"minLength": 1}, "then": {"format": "uuid"}}),
        ("contains", {"type": "array", "contains": {"type": "string", "format": "uuid"}}),
        ("property-names", {"type": "object", "propertyNames": {"format": "uuid"}}),
        ("pattern-properties", {"type": "object", "patternProperties": {"^x": UUID}}),
        ("ref", {"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]}),
    ]),
    # A cycle of bare refs (a live server may advertise one) accepts every value.
    ("bare-ref-cycle-draft-07",
     props({"$ref": "#/definitions/D0"}, D7, definitions={"D0": {"$ref": "#/definitions/D0"}}),
     props({"type": "string"}, D7)),
    ("bare-ref-cycle-of-two", props({"$ref": "#/$defs/D0"}, None, **{"$defs": {"D0": {"$ref": "#/$defs/D1"},
                                                                        "D1": {"$ref": "#/$defs/D0"}}}),
     props({"type": "string"})),
    ("content-in-any-of-after-dialect-switch",
     props({"anyOf": [{"type": "string", "contentEncoding": "base64"}, {"type": "null"}]}),
     props({"anyOf": [{"type": "string", "contentEncoding": "base64"}, {"type": "null"}]}, D7)),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), [(o, n) for _, o, n in BREAKING], ids=[c[0] for c in BREAKING])
def test_breaking_under_the_servers_validator(old: Any, new: Any) -> None:
    found = [f for f in findings(old, new) if f.severity == "breaking"]
    assert found, findings(old, new)
    shown = [f for f in found if f.has_counterexample]
    assert shown, found
    for f in shown:
        assert server_validator(old).is_valid(f.counterexample), f
        assert not server_validator(new).is_valid(f.counterexample), f


PAIR = {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": False}
PAIR_07 = {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False}
TAGS = {"type": "array", "items": {"enum": ["red", "blue"]}, "uniqueItems": True}
REPEATS = {**TAGS, "uniqueItems": False}
FALSE_ALARMS = [
    ("uuid-added-to-draft-07", props({"type": "string"}, D7),
     props({"type": "string", "format": "uuid"}, D7)),
    ("content-added-in-2020-12", props({"type": "string"}),
     props({"type": "string", "contentEncoding": "base64"})),
    ("format-the-server-does-not-know", props({"type": "string"}),
     props({"type": "string", "format": "zip"})),
    ("then-without-if", props({"type": "string"}), props({"type": "string", "then": {"minLength": 3}})),
    # A bound the array held already: a closed tuple holds no more than its prefix, unique items no
    # more than the values an item may take.
    ("max-items-of-a-closed-tuple", props(PAIR), props({**PAIR, "maxItems": 2})),
    ("max-items-of-a-closed-draft-07-tuple", props(PAIR_07, D7), props({**PAIR_07, "maxItems": 2}, D7)),
    ("max-items-below-a-closed-tuple", props(PAIR), props({**PAIR, "maxItems": 3})),
    ("max-items-of-unique-enum-items", props(TAGS), props({**TAGS, "maxItems": 2})),
    ("max-items-of-unique-items-after-a-prefix",
     props({**TAGS, "prefixItems": [{"type": "integer"}]}),
     props({**TAGS, "prefixItems": [{"type": "integer"}], "maxItems": 3})),
]  # fmt: skip


@pytest.mark.parametrize(
    ("old", "new"), [(o, n) for _, o, n in FALSE_ALARMS], ids=[c[0] for c in FALSE_ALARMS]
)
def test_no_breaking_where_the_server_accepts_the_same(old: Any, new: Any) -> None:
    assert not [f for f in findings(old, new) if f.severity == "breaking"]


@pytest.mark.parametrize(
    ("old", "new", "bound"),
    [(PAIR, {**PAIR, "maxItems": 1}, "maxItems 2 -> maxItems 1"),
     (TAGS, {**TAGS, "maxItems": 1}, "maxItems 2 -> maxItems 1"),
     (REPEATS, {**REPEATS, "maxItems": 2}, "no maxItems -> maxItems 2")],
)  # fmt: skip
def test_a_bound_below_what_the_array_held_is_still_a_break(old: Any, new: Any, bound: str) -> None:
    found = [f for f in findings(props(old), props(new)) if f.severity == "breaking"]
    assert [f.message for f in found] == [f"maxItems tightened: {bound}"], found
    shown = found[0].counterexample
    assert not found[0].has_counterexample or not server_validator(props(new)).is_valid(shown)


def test_what_each_dialect_checks_is_read_from_the_validator() -> None:
    assert not asserts_format("draft-07", "uuid") and asserts_format("2020-12", "uuid")
    assert asserts_format("draft-07", "date") and not asserts_format("2020-12", "no-such-format")
    assert content_check("draft-07", {"contentEncoding": "base64"}) == {"contentEncoding": "base64"}
    assert content_check("2020-12", {"contentEncoding": "base64"}) == {}
    assert "prefixItems" in active_keywords("2020-12") and "prefixItems" not in active_keywords("draft-07")


@pytest.mark.parametrize(
    ("old", "new"),
    [({"type": "string"}, {"not": {"not": {"type": "string"}}, "minLength": 0}),
     ({"type": "integer", "minimum": 0}, {"type": "integer", "if": {"minimum": 0}, "else": False})],
)  # fmt: skip
def test_a_widening_the_rules_read_off_keywords_they_do_not_sum_up_is_not_claimed_as_fact(
    old: Any, new: Any
) -> None:
    """Each pair accepts the same values; what the rules read off `type` or `minimum` alone is
    said as a perhaps, not as values now accepted."""
    found = findings(props(old), props(new))
    assert not [f for f in found if f.severity == "breaking"], found  # (undecided: a warning says so)
    claimed = [f for f in found if f.rule.endswith(("widened", "relaxed"))]
    assert claimed and all("perhaps" in f.message for f in claimed), found
