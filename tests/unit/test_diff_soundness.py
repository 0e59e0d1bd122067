"""Soundness of the `diff` rules over a generated corpus of schema pairs.

A base schema is drawn, then mutated by random rule-relevant edits (bounds moved, types or enum
values added or removed, required names, additionalProperties, formats, patterns, nullability,
definitions moved behind `$ref`, anyOf wrappers). For every pair the rules call compatible (A ⊆ B:
no reason at all), no instance may exist that A accepts and B refuses: many instances built from
boundary values are judged by jsonschema-rs. Where the rules claim an exact break and name a
witness value, that value must really be a counterexample at its node.

`MCPSTUB_SOUNDNESS_EXAMPLES=2000 pytest tests/unit/test_diff_soundness.py` runs a longer search.
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import jsonschema_rs
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mcpstub.diff.compare import Subset

EXAMPLES = int(os.environ.get("MCPSTUB_SOUNDNESS_EXAMPLES", "100"))
NAMES = ("a", "b", "c")
PATTERNS = ("^a", "^[a-z]+$", "b$", "^.{2,}$")
FORMATS = ("date", "email", "uuid")
POOL: list[Any] = [
    None, True, False, 0, 1, 2, 3, 5, 10, 11, -1, -3, 0.5, 2.5, -1.5, 1e9,
    "", "a", "ab", "abc", "b", "zz", "aaaaaaaaaaaa", "2020-01-01", "x@y.org", "ÿ",
    "123e4567-e89b-12d3-a456-426614174000", [], [1], [1, 1], ["a", "b"], ["a", "a"], [None],
    [1, 2, 3, 4, 5, 6], {}, {"a": 1}, {"a": "a"}, {"b": None}, {"a": "ab", "b": 2}, {"z": 1},
]  # fmt: skip

leaf_types = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object"])


@st.composite
def leaf(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    """A small schema with constraints the rules model."""
    kind = draw(leaf_types if depth < 2 else st.sampled_from(["string", "integer", "number"]))
    node: dict[str, Any] = {"type": kind}
    if draw(st.booleans()) and kind in ("string", "integer", "number"):
        other = draw(st.sampled_from([t for t in ("null", "integer", "string") if t != kind]))
        node["type"] = [kind, other]
    if kind == "string":
        for key in draw(st.sets(st.sampled_from(["minLength", "maxLength", "pattern", "format", "enum"]))):
            if key == "pattern":
                node[key] = draw(st.sampled_from(PATTERNS))
            elif key == "format":
                node[key] = draw(st.sampled_from(FORMATS))
            elif key == "enum":
                node[key] = draw(
                    st.lists(st.sampled_from(["a", "ab", "b", "zz"]), min_size=1, max_size=3, unique=True)
                )
            else:
                node[key] = draw(st.integers(0, 4))
    elif kind in ("integer", "number"):
        for key in draw(
            st.sets(
                st.sampled_from(
                    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const"]
                )
            )
        ):
            if key == "multipleOf":
                node[key] = draw(st.sampled_from([1, 2, 5, 0.5]))
            elif key == "const":
                node[key] = draw(st.integers(-1, 3))
            else:
                node[key] = draw(st.sampled_from([-1, 0, 1, 2, 2.5, 10]))
    elif kind == "array":
        node["items"] = draw(leaf(depth + 1))
        for key in draw(st.sets(st.sampled_from(["minItems", "maxItems", "uniqueItems"]))):
            node[key] = True if key == "uniqueItems" else draw(st.integers(0, 3))
    elif kind == "object":
        node.update(draw(object_schema(depth + 1)))
    if draw(st.integers(0, 9)) == 0:
        node = {"anyOf": [node, {"type": "null"}]}
    return node


@st.composite
def object_schema(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
    node: dict[str, Any] = {"type": "object", "properties": {n: draw(leaf(depth + 1)) for n in names}}
    if names:
        node["required"] = draw(st.lists(st.sampled_from(names), max_size=len(names), unique=True))
    extra = draw(st.sampled_from([None, False, {"type": "string"}]))
    if extra is not None:
        node["additionalProperties"] = extra
    if draw(st.integers(0, 5)) == 0:
        node["maxProperties"] = draw(st.integers(0, 3))
    return node


def _nodes(schema: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every schema node (dict) inside a schema."""
    found = [path] if isinstance(schema, dict) else []
    if isinstance(schema, dict):
        for key in ("items", "additionalProperties"):
            found += _nodes(schema.get(key), (*path, key))
        for name, sub in (schema.get("properties") or {}).items():
            found += _nodes(sub, (*path, "properties", name))
        for i, sub in enumerate(schema.get("anyOf") or []):
            found += _nodes(sub, (*path, "anyOf", i))
        for key in ("$defs", "patternProperties"):  # a definition both sides refer to by one name
            for name, sub in (schema.get(key) or {}).items():
                found += _nodes(sub, (*path, key, name))
    return found


def _get(schema: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        schema = schema[part]
    return schema


@st.composite
def mutated(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of `schema` with one to three rule-relevant edits."""
    new = json.loads(json.dumps(schema))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_nodes(new)))
        node = _get(new, path)
        edit = draw(
            st.sampled_from(
                ["bound", "drop", "type", "enum", "required", "additional", "format", "pattern", "nullable",
                 "ref", "anyof", "const", "property", "pattern-property", "dependent"]
            )
        )  # fmt: skip
        if edit == "bound":
            key = draw(
                st.sampled_from(
                    [
                        "minimum",
                        "maximum",
                        "exclusiveMinimum",
                        "exclusiveMaximum",
                        "minLength",
                        "maxLength",
                        "minItems",
                        "maxItems",
                        "multipleOf",
                        "maxProperties",
                    ]
                )
            )
            node[key] = (
                draw(st.sampled_from([0, 1, 2, 3, 0.5, 2.5, 10]))
                if key != "multipleOf"
                else draw(st.sampled_from([1, 2, 0.5, 5]))
            )
        elif edit == "drop" and set(node) - {"$defs"}:
            del node[draw(st.sampled_from(sorted(set(node) - {"$defs"})))]
        elif edit == "type":
            node["type"] = draw(
                st.sampled_from(
                    [
                        "string",
                        "integer",
                        "number",
                        "null",
                        ["string", "null"],
                        ["integer", "string"],
                        ["number", "array"],
                    ]
                )
            )
        elif edit == "enum":
            node["enum"] = draw(
                st.lists(
                    st.sampled_from(["a", "ab", "b", 1, 2, None, True]),
                    min_size=1,
                    max_size=4,
                    unique_by=json.dumps,
                )
            )
        elif edit == "required":
            node["required"] = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
        elif edit == "additional":
            node["additionalProperties"] = draw(
                st.sampled_from([False, True, {"type": "string"}, {"type": "integer"}])
            )
        elif edit == "format":
            node["format"] = draw(st.sampled_from(FORMATS))
        elif edit == "pattern":
            node["pattern"] = draw(st.sampled_from(PATTERNS))
        elif edit == "nullable" and path:
            parent = _get(new, path[:-1])
            parent[path[-1]] = {"anyOf": [node, {"type": "null"}]}
        elif edit == "ref" and path:
            parent = _get(new, path[:-1])
            name = f"D{len(new.get('$defs', {}))}"
            new.setdefault("$defs", {})[name] = node
            parent[path[-1]] = {"$ref": f"#/$defs/{name}"}
        elif edit == "anyof" and path:
            parent = _get(new, path[:-1])
            parent[path[-1]] = {"anyOf": [node, draw(leaf(2))]}
        elif edit == "const":
            node["const"] = draw(st.sampled_from(["a", 1, 2, None]))
        elif edit == "property":
            node.setdefault("properties", {})[draw(st.sampled_from(NAMES))] = draw(leaf(2))
        elif edit == "pattern-property":
            node.setdefault("patternProperties", {})[draw(st.sampled_from(["^a", "b$"]))] = draw(leaf(2))
        elif edit == "dependent":
            node["dependentRequired"] = {
                draw(st.sampled_from(NAMES)): draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True))
            }
    return new


def _values_for(schema: Any, rng: random.Random, depth: int = 0) -> list[Any]:
    """Boundary values for one schema node, plus the pool."""
    values = list(POOL)
    if isinstance(schema, dict):
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "const"):
            v = schema.get(key)
            if isinstance(v, int | float) and not isinstance(v, bool):
                values += [v, v - 1, v + 1, v - 0.5, v + 0.5, v * 2]
        for key in ("minLength", "maxLength"):
            v = schema.get(key)
            if isinstance(v, int):
                values += ["a" * max(v - 1, 0), "a" * v, "a" * (v + 1), "b" * v]
        for v in schema.get("enum", []) if isinstance(schema.get("enum"), list) else []:
            values.append(v)
        if depth < 2:
            props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
            for _ in range(6):
                obj = {
                    n: rng.choice(_values_for(s, rng, depth + 1))
                    for n, s in props.items()
                    if rng.random() < 0.7
                }
                values.append(obj)
            items = schema.get("items")
            if isinstance(items, dict):
                inner = _values_for(items, rng, depth + 1)
                values += [[rng.choice(inner) for _ in range(rng.randint(0, 4))] for _ in range(4)]
    return values


def _instances(a: dict[str, Any], b: dict[str, Any], seed: int) -> list[Any]:
    """Objects built from boundary values of both schemas' properties."""
    rng = random.Random(seed)
    defs = {**(a.get("$defs") or {}), **(b.get("$defs") or {})}

    def resolve(node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        return node

    per_name: dict[str, list[Any]] = {}
    for schema in (a, b):
        for name, written in (schema.get("properties") or {}).items():
            sub = resolve(written)
            branches = sub.get("anyOf", [sub]) if isinstance(sub, dict) else [sub]
            for branch in branches:
                per_name.setdefault(name, []).extend(_values_for(resolve(branch), rng))
    per_name.setdefault("z", list(POOL))
    found: list[Any] = [{}]
    for _ in range(300):
        found.append({n: rng.choice(vs) for n, vs in per_name.items() if rng.random() < 0.6})
    return found


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize="MCPSTUB_SOUNDNESS_EXAMPLES" not in os.environ,  # longer runs explore new seeds
)
@given(st.data())
def test_compatible_means_no_counterexample(data: st.DataObject) -> None:
    a = data.draw(object_schema())
    if data.draw(st.booleans()):  # both sides may then hold definitions, anyOf, patternProperties
        a = data.draw(mutated(a))
    b = data.draw(mutated(a))
    if data.draw(st.booleans()):
        a, b = b, a
    assume(jsonschema_rs.meta.is_valid(a) and jsonschema_rs.meta.is_valid(b))
    subset = Subset(a, b, a_is_old=True)
    reasons = subset.run()
    in_a = jsonschema_rs.validator_for(a, validate_formats=True)
    in_b = jsonschema_rs.validator_for(b, validate_formats=True)
    if not reasons:
        for instance in _instances(a, b, seed=len(json.dumps([a, b]))):
            assert not (in_a.is_valid(instance) and not in_b.is_valid(instance)), (
                f"rules call A ⊆ B but {instance!r} is in A and not in B\nA={a}\nB={b}"
            )
    for reason in reasons:
        # A node merged from parts (an anyOf branch with its siblings) has no pointer to check at.
        if reason.exact and reason.has_witness and subset.a.lookup(reason.a_ptr)[0]:
            node_a = subset.a.validator(subset.a.lookup(reason.a_ptr)[1], reason.a_ptr)
            node_b = subset.b.validator(subset.b.lookup(reason.b_ptr)[1], reason.b_ptr)
            assert node_a is not None and node_b is not None
            assert node_a(reason.witness) and not node_b(reason.witness), (reason, a, b)
