"""Each tool schema must compile (jsonschema-rs); shared definitions copied into many tools are
compiled once each. The verdicts and messages are those of compiling every schema whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcpstub import pipeline, validate

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
# Shared definitions, some that cannot compile ("(" is no regex), some reached only by pointers
# into another definition, one with its own `$id`.
SHARED: dict[str, Any] = {
    "Ok": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^[a-z]+$"}}},
    "Parent": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Ok"}, "n": {"type": "integer"}}},
    "Bad": {"type": "object", "properties": {"s": {"type": "string", "pattern": "("}}},
    "UsesBad": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Bad"}}},
    "Inner": {"type": "object", "properties": {"deep": {"type": "string", "pattern": "x+"}}},
    "Pointing": {"type": "object", "properties": {"p": {"$ref": "#/$defs/Inner/properties/deep"}}},
    "BadInside": {"type": "object", "properties": {"q": {"type": "string", "pattern": "[z-a]"}}},
    "PointsInBad": {"type": "object", "properties": {"p": {"$ref": "#/$defs/BadInside/properties/q"}}},
    "WithId": {
        "$id": "https://example.com/with-id",
        "type": "object",
        "properties": {"w": {"type": "boolean"}},
    },
    "Loose": {"type": "array", "items": {"$ref": "#/$defs/Parent"}, "minItems": 1},
    # Copied as `Local2` into a tool with a `Local` of its own: reached only through `UsesLocal`.
    "Local": {"type": "string", "$dynamicRef": "#nowhere"},
    "UsesLocal": {"type": "object", "properties": {"l": {"$ref": "#/$defs/Local"}}},
}
OWN: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "string", "pattern": "(("},
    {"type": "integer", "minimum": 0},
    {"type": "object", "properties": {"x": {"$ref": "#/$defs/Local"}}},
]


def _tool(index: int, refs: list[str], own: int, draft07: bool, local_bad: bool) -> dict[str, Any]:
    props: dict[str, Any] = {f"r{k}": {"$ref": f"#/$defs/{name}"} for k, name in enumerate(refs)}
    props["own"] = OWN[own]
    schema: dict[str, Any] = {"type": "object", "properties": props}
    local = {"type": "string", "pattern": "(" if local_bad else "a"}
    if draft07:
        schema["$schema"] = DRAFT_07
        schema["definitions"] = {"Local": local}
        props["own"] = json.loads(json.dumps(props["own"]).replace("#/$defs/Local", "#/definitions/Local"))
    else:
        schema["$defs"] = {"Local": local}
    return {"name": f"tool{index}", "inputSchema": schema}


tools = st.lists(
    st.tuples(
        st.lists(st.sampled_from(sorted(SHARED)), min_size=0, max_size=4),
        st.integers(0, len(OWN) - 1),
        st.booleans(),
        st.integers(0, 9).map(lambda n: n == 0),
    ),
    min_size=1,
    max_size=8,
)


def _codes_and_messages(path: Path) -> list[tuple[str, str, int, int]]:
    checked = pipeline.check_toolset(path)
    return [(d.code, d.message, d.location.line, d.location.col) for d in checked.diagnostics]


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(tools)
def test_compiling_shared_definitions_apart_gives_the_verdicts_of_whole_schemas(
    tmp_path_factory: pytest.TempPathFactory, drawn: list[tuple[list[str], int, bool, bool]]
) -> None:
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "$defs": SHARED,
        "tools": [_tool(i, refs, own, draft07, bad) for i, (refs, own, draft07, bad) in enumerate(drawn)],
    }
    path = tmp_path_factory.mktemp("apart") / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    apart = _codes_and_messages(path)
    real = validate._Checker._compile
    try:
        validate._Checker._compile = lambda self, schema, shared, dialect: validate.validator(schema)  # type: ignore[method-assign]
        whole = _codes_and_messages(path)
    finally:
        validate._Checker._compile = real  # type: ignore[method-assign]
    assert apart == whole


def test_a_shared_definition_is_compiled_once_however_many_tools_copy_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = {
        f"Entity{k}": {"type": "object", "properties": {"id": {"type": "string", "pattern": f"^e{k}"}}}
        for k in range(12)
    }
    refs = {f"e{k}": {"$ref": f"#/$defs/Entity{k}"} for k in range(12)}
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "$defs": shared,
        "tools": [
            {"name": f"t{i}", "inputSchema": {"type": "object", "properties": refs}} for i in range(40)
        ],
    }
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    compiled: list[dict[str, Any]] = []
    real = validate.validator
    monkeypatch.setattr(validate, "validator", lambda schema: compiled.append(schema) or real(schema))
    assert pipeline.check_toolset(path).ok
    alone = [s for s in compiled if set(s) == {"$defs", "$ref"}]
    assert sorted(s["$ref"] for s in alone) == sorted(f"#/$defs/Entity{k}" for k in range(12))
    # Every tool is compiled once, with its twelve copies left empty.
    tools = [s for s in compiled if "properties" in s]
    assert len(tools) == 40
    assert all(v == {} for s in tools for v in s["$defs"].values())


def test_what_a_shared_copy_reaches_under_another_name_is_compiled(tmp_path: Path) -> None:
    """A shared definition that refers to one copied under another name (a tool's own definition
    took its name), or to a referenced file's: the tool's whole schema is compiled, and fails; why
    is said where it is written, at each definition that does not compile, not at the tool."""
    (tmp_path / "other.yaml").write_text("$defs:\n  X: {type: string, $dynamicRef: '#nope'}\n")
    defs = {
        "A": {
            "type": "object",
            "properties": {"b": {"$ref": "#/$defs/B"}, "x": {"$ref": "other.yaml#/$defs/X"}},
        },
        "B": {"type": "string", "$dynamicRef": "#nope"},
        "C": {"type": "integer"},
    }
    schema = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}, "c": {"$ref": "#/$defs/C"}},
        "$defs": {"B": {"type": "string"}},
    }
    path = tmp_path / "tools.json"
    doc = {
        "mcpstub": 1,
        "server": {"name": "s"},
        "$defs": defs,
        "tools": [{"name": "one", "inputSchema": schema}],
    }
    path.write_text(json.dumps(doc), encoding="utf-8")
    said = _codes_and_messages(path)
    assert [(c, m.split(" cannot be compiled")[0], line) for c, m, line, _ in said] == [
        ("invalid-schema", "$defs.X", 2),  # (other.yaml's)
        ("invalid-schema", "$defs.B", 1),  # (the toolset's B, not the tool's own)
    ], said
