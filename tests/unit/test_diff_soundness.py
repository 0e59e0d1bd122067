"""Soundness of `diff`, tested differentially against the server's own validator.

Schema pairs are generated across the keywords of both dialects (dialect switches, `$ref` chains,
`allOf`/`anyOf`/`oneOf`/`not`/`if`, `prefixItems` and draft-07 item arrays, `unevaluated*`,
`propertyNames`, `min/maxProperties`, `contains`/`minContains`, `dependentSchemas`, formats and
content keywords, `const` against a one-value `enum`, number against integer): a base schema,
and a copy with one to three edits. Instances are judged by validators built as the generated
server builds them (`semantics.server_validator`).

- Where the rules call a change compatible (no reason at all), no instance may exist that OLD
  accepts and NEW refuses: instances drawn from OLD by hypothesis-jsonschema (which reads patterns
  with Python's `re`, so each is judged again by the server's ECMA-262 validator), values both
  schemas name, and mutations of all of these are tried.
- Where `diff` says breaking, it shows a counterexample, and the server's validators agree.

`make diff-soundness` runs a long budget and prints its figures (MCPSTUB_SOUNDNESS_EXAMPLES).
"""

from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import HealthCheck, Phase, Verbosity, assume, find, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from mcpstub.diff import DiffOptions, Side, diff_sides
from mcpstub.diff.compare import Subset
from mcpstub.diff.semantics import server_validator

EXAMPLES = int(os.environ.get("MCPSTUB_SOUNDNESS_EXAMPLES", "60"))
D7 = "http://json-schema.org/draft-07/schema#"
D20 = "https://json-schema.org/draft/2020-12/schema"
NAMES = ("a", "b", "c")
PATTERNS = ("^a", "^[a-z]+$", "b$", "^\\d+$", "^\\p{L}+$")
FORMATS = ("date", "email", "uuid", "duration", "regex", "zip")
POOL: list[Any] = [
    None, True, False, 0, 1, 1.0, 2, 3, 5, 10, 11, -1, 0.5, 2.5, 1e9,
    "", "a", "ab", "abc", "b", "zz", "aaaaaaaaaa", "2020-01-01", "x@y.org", "P1D", "é", "٣",
    "123e4567-e89b-12d3-a456-426614174000", "eyJ9", "!", "{}", "(",
    [], [1], [1, 1], ["a", "b"], ["a", 1], [None], [1, 2, 3, 4, 5],
    {}, {"a": 1}, {"a": "a"}, {"b": None}, {"a": "ab", "b": 2}, {"z": 1}, {"c": []},
]  # fmt: skip
STRING_KEYWORDS: dict[str, st.SearchStrategy[Any]] = {
    "pattern": st.sampled_from(PATTERNS),
    "format": st.sampled_from(FORMATS),
    "contentEncoding": st.just("base64"),
    "contentMediaType": st.just("application/json"),
}
FIGURES: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def figures() -> Iterator[None]:
    """With a long budget, the figures for the README."""
    yield
    if "MCPSTUB_SOUNDNESS_EXAMPLES" in os.environ:
        print(f"\ndiff soundness: {dict(sorted(FIGURES.items()))}")


OBJECT_KEYWORDS = [
    "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
    "dependentRequired", "dependentSchemas", "dependencies", "unevaluatedProperties",
]  # fmt: skip
BOUNDS = [
    "minimum", "maximum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems",
    "minProperties", "maxProperties", "multipleOf",
]  # fmt: skip


def some(keywords: list[str]) -> st.SearchStrategy[set[str]]:
    """Up to two of the keywords."""
    return st.sets(st.sampled_from(keywords), max_size=2)


def small(draw: st.DrawFn) -> Any:
    return draw(st.sampled_from([0, 1, 2, 3, 0.5, 2.5, 10]))


@st.composite
def node(draw: st.DrawFn, depth: int, d7: bool) -> Any:
    """A schema node using keywords of the dialect (and some of the other, which it ignores)."""
    if depth > 2 or draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([True, {"type": "string"}, {"type": "integer"}, {}, {"const": 1}]))
    kind = draw(st.sampled_from(["string", "integer", "number", "array", "object", "combo", "literal"]))
    out: dict[str, Any] = {}
    if kind == "string":
        out["type"] = "string"
        for key in draw(
            some(["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"])
        ):
            out[key] = draw(STRING_KEYWORDS.get(key, st.integers(0, 3)))
    elif kind in ("integer", "number"):
        out["type"] = draw(st.sampled_from([kind, [kind, "null"], [kind, "string"]]))
        for key in draw(some(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"])):
            out[key] = draw(st.sampled_from([1, 2, 0.5])) if key == "multipleOf" else small(draw)
    elif kind == "array":
        out["type"] = "array"
        if d7 and draw(st.booleans()):
            out["items"] = [draw(node(depth + 1, d7))]
            out["additionalItems"] = draw(st.sampled_from([False, {"type": "integer"}, True]))
        elif draw(st.booleans()):
            out["prefixItems"] = [draw(node(depth + 1, d7))]
            out["items"] = draw(node(depth + 1, d7))
        else:
            out["items"] = draw(node(depth + 1, d7))
        for key in draw(
            some(["minItems", "maxItems", "uniqueItems", "contains", "minContains", "unevaluatedItems"])
        ):
            if key == "uniqueItems":
                out[key] = True
            elif key in ("contains", "unevaluatedItems"):
                out[key] = draw(st.sampled_from([{"type": "string"}, {"const": 1}, False]))
            else:
                out[key] = draw(st.integers(0, 2))
    elif kind == "object":
        out.update(draw(obj(depth + 1, d7)))
    elif kind == "literal":
        value = draw(st.sampled_from([1, 1.0, "a", None, True, [1], {"a": 1}]))
        out.update(draw(st.sampled_from([{"const": value}, {"enum": [value]}, {"enum": [value, "b", 2]}])))
    else:
        word = draw(st.sampled_from(["allOf", "anyOf", "oneOf", "not", "if"]))
        first, second = draw(node(depth + 1, d7)), draw(node(depth + 1, d7))
        if word == "not":
            out["not"] = first
        elif word == "if":
            out.update({"if": first, "then": second})
            if draw(st.booleans()):
                out["else"] = {"type": "string"}
        else:
            out[word] = [first, second]
    return out


@st.composite
def obj(draw: st.DrawFn, depth: int, d7: bool) -> dict[str, Any]:
    names = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
    out: dict[str, Any] = {"type": "object", "properties": {n: draw(node(depth + 1, d7)) for n in names}}
    if names:
        out["required"] = draw(st.lists(st.sampled_from(names), max_size=len(names), unique=True))
    for key in draw(some(OBJECT_KEYWORDS)):
        if key in ("additionalProperties", "unevaluatedProperties"):
            out[key] = draw(st.sampled_from([False, {"type": "string"}, True]))
        elif key == "patternProperties":
            out[key] = {draw(st.sampled_from(PATTERNS)): draw(node(depth + 1, d7))}
        elif key == "propertyNames":
            out[key] = draw(st.sampled_from([{"pattern": "^[a-b]$"}, {"maxLength": 1}, {"enum": ["a", "z"]}]))
        elif key in ("minProperties", "maxProperties"):
            out[key] = draw(st.integers(0, 2))
        elif key == "dependentSchemas":
            out[key] = {draw(st.sampled_from(NAMES)): draw(node(depth + 1, d7))}
        else:
            out[key] = {
                draw(st.sampled_from(NAMES)): draw(st.lists(st.sampled_from(NAMES), max_size=2, unique=True))
            }
    return out


def _nodes(schema: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths of every schema node (dict) inside a schema."""
    found = [path] if isinstance(schema, dict) else []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key in ("properties", "patternProperties", "$defs", "dependentSchemas") and isinstance(
                value, dict
            ):
                for name, sub in value.items():
                    found += _nodes(sub, (*path, key, name))
            elif key in ("allOf", "anyOf", "oneOf", "prefixItems", "items") and isinstance(value, list):
                for i, sub in enumerate(value):
                    found += _nodes(sub, (*path, key, i))
            elif isinstance(value, dict) and key not in (
                "const",
                "enum",
                "dependentRequired",
                "dependencies",
            ):
                found += _nodes(value, (*path, key))
    return found


def _get(schema: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        schema = schema[part]
    return schema


@st.composite
def edited(draw: st.DrawFn, schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of `schema` with one to three edits."""
    new = json.loads(json.dumps(schema))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_nodes(new)))
        at = _get(new, path)
        d7 = new.get("$schema") == D7
        edit = draw(st.sampled_from([
            "dialect", "replace", "drop", "bound", "type", "literal", "ref", "allof-split", "wrap",
            "format", "content", "required", "additional", "number-integer", "property",
        ]))  # fmt: skip
        parent = _get(new, path[:-1]) if path else None
        if edit == "dialect":
            new["$schema"] = D20 if d7 else D7
        elif edit == "replace" and parent is not None:
            parent[path[-1]] = draw(node(2, d7))
        elif edit == "drop" and set(at) - {"$defs", "$schema"}:
            del at[draw(st.sampled_from(sorted(set(at) - {"$defs", "$schema"})))]
        elif edit == "bound":
            key = draw(st.sampled_from(BOUNDS))
            at[key] = draw(st.sampled_from([1, 2, 0.5])) if key == "multipleOf" else small(draw)
        elif edit == "type":
            at["type"] = draw(st.sampled_from(["string", "integer", "number", "object", ["string", "null"]]))
        elif edit == "literal":
            if "const" in at:
                at["enum"] = [at.pop("const")]
            elif isinstance(at.get("enum"), list) and at["enum"]:
                at["const"] = at.pop("enum")[0]
            else:
                at["enum"] = draw(
                    st.lists(st.sampled_from(["a", "b", 1, 1.0, 2, None]), min_size=1, max_size=3)
                )
        elif edit == "ref" and parent is not None:
            name = f"D{len(new.get('$defs', {}))}"
            defs = new.setdefault("$defs", {}) if not d7 else new.setdefault("definitions", {})
            defs[name] = at
            where = "$defs" if not d7 else "definitions"
            if draw(st.booleans()):  # a chain: a definition that refers to another
                defs[name + "x"] = {"$ref": f"#/{where}/{name}"}
                name += "x"
            parent[path[-1]] = {"$ref": f"#/{where}/{name}"}
        elif edit == "allof-split" and len(set(at) - {"$defs", "$schema", "definitions"}) >= 2:
            keys = sorted(set(at) - {"$defs", "$schema", "definitions"})
            moved = draw(st.sampled_from(keys))
            at["allOf"] = [*at.get("allOf", []), {moved: at.pop(moved)}]
        elif edit == "wrap" and parent is not None:
            word = draw(st.sampled_from(["anyOf", "oneOf", "allOf", "not"]))
            parent[path[-1]] = {"not": {"not": at}} if word == "not" else {word: [at, draw(node(2, d7))]}
        elif edit == "format":
            at["format"] = draw(st.sampled_from(FORMATS))
        elif edit == "content":
            at[draw(st.sampled_from(["contentEncoding", "contentMediaType"]))] = draw(
                st.sampled_from(["base64", "application/json"])
            )
        elif edit == "required":
            at["required"] = draw(st.lists(st.sampled_from(NAMES), max_size=3, unique=True))
        elif edit == "additional":
            at[draw(st.sampled_from(["additionalProperties", "unevaluatedProperties"]))] = draw(
                st.sampled_from([False, True, {"type": "string"}])
            )
        elif edit == "number-integer":
            at["type"] = "integer" if at.get("type") == "number" else "number"
            if draw(st.booleans()):
                at["multipleOf"] = 1
        elif edit == "property":
            at.setdefault("properties", {})[draw(st.sampled_from(NAMES))] = draw(node(2, d7))
    return new


def _mutants(value: Any, rng: random.Random, depth: int = 0) -> Iterator[Any]:
    """Values near `value`: a part replaced, a key added or taken away, an item added."""
    yield rng.choice(POOL)
    if isinstance(value, dict) and depth < 3:
        for key in list(value)[:4]:
            yield {**value, key: rng.choice(POOL)}
            yield {k: v for k, v in value.items() if k != key}
            for inner in list(_mutants(value[key], rng, depth + 1))[:3]:
                yield {**value, key: inner}
        yield {**value, rng.choice([*NAMES, "z"]): rng.choice(POOL)}
    elif isinstance(value, list) and depth < 3:
        yield [*value, rng.choice(POOL)]
        if value:
            yield [rng.choice(POOL), *value[1:]]
            yield value[:-1]


def _instances(old: Any) -> list[Any]:
    """Instances of OLD (drawn by hypothesis-jsonschema, when it takes the schema), the pool, and
    mutations of both. They are drawn apart from the test's own data, the same for the same OLD:
    hypothesis-jsonschema keeps state of its own (it resolves references in the schema it is given,
    in place), so drawing them from the test's data made replays draw unlike the first run."""
    drawn: list[Any] = []

    def kept(instance: Any) -> bool:
        drawn.append(instance)
        return len(drawn) >= 6

    quiet = settings(
        max_examples=12, derandomize=True, database=None, deadline=None,
        suppress_health_check=list(HealthCheck), phases=[Phase.generate], verbosity=Verbosity.quiet,
    )  # fmt: skip
    try:
        find(from_schema(copy.deepcopy(old)), kept, settings=quiet)
    except Exception:  # none found, or a schema hypothesis-jsonschema refuses: the rest still runs
        pass
    rng = random.Random(len(json.dumps(old)))
    seeds = [*drawn, *POOL, {n: rng.choice(POOL) for n in NAMES}]
    found = list(seeds)
    for value in seeds:
        found.extend(_mutants(value, rng))
    return found


@st.composite
def pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    d7 = draw(st.booleans())
    old = draw(obj(0, d7))
    old["$schema"] = D7 if d7 else D20
    new = draw(edited(old))
    if draw(st.booleans()):
        old, new = new, old
    return old, new


def _valid(schema: Any) -> bool:
    try:
        server_validator(schema)
    except Exception:
        return False
    return bool(jsonschema_rs.meta.is_valid(schema))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize="MCPSTUB_SOUNDNESS_EXAMPLES" not in os.environ,  # longer runs explore new seeds
)
@given(pairs())
def test_compatible_means_no_counterexample_under_the_servers_validator(
    pair: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    old, new = pair
    assume(_valid(old) and _valid(new))
    FIGURES["pairs"] += 1
    if Subset(old, new, a_is_old=True).run():
        return
    FIGURES["compatible"] += 1
    in_old, in_new = server_validator(old).is_valid, server_validator(new).is_valid
    for instance in _instances(old):
        if in_old(instance) and not in_new(instance):
            FIGURES["counterexamples"] += 1
            raise AssertionError(
                f"called compatible, yet {instance!r} is accepted by\n{old}\nrefused by\n{new}"
            )


@settings(max_examples=max(EXAMPLES // 3, 10), deadline=None, suppress_health_check=list(HealthCheck),
          derandomize="MCPSTUB_SOUNDNESS_EXAMPLES" not in os.environ)  # fmt: skip
@given(pairs())
def test_breaking_is_shown_with_a_counterexample_the_server_agrees_with(
    pair: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    old, new = pair
    assume(_valid(old) and _valid(new))
    options = DiffOptions(check_version=False, max_examples=40, search_seconds=0.5, search_budget_seconds=1.5)
    sides = [Side("1.0.0", {"t": {"name": "t", "inputSchema": s}}) for s in (old, new)]
    in_old, in_new = server_validator(old).is_valid, server_validator(new).is_valid
    for finding in diff_sides(*sides, options):
        if finding.severity != "breaking":
            continue
        FIGURES["breaking"] += 1
        assert finding.has_counterexample, finding
        shown = finding.counterexample
        assert in_old(shown) and not in_new(shown), (finding, old, new)
