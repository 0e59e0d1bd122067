"""Tests for generator.models: one generate() call, faithful dumps, names, fallbacks."""

from __future__ import annotations

import ast
import itertools
import json
import keyword
import re
import subprocess
import sys
import traceback
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from pydantic import BaseModel, TypeAdapter, ValidationError

from mcpstub import model_schemas, model_source
from mcpstub.diagnostics import Location, Severity
from mcpstub.ir import Tool, Toolset, make_tool_names
from mcpstub.keywords import subschemas
from mcpstub.models import ModelsResult, _check_binding, render_models
from mcpstub.pointers import split
from tests.conftest import MypyRun

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus" / "github.json"
_counter = itertools.count()


def make_tool(
    name: str,
    input_schema: dict[str, Any],
    output_schema: dict[str, Any] | None = None,
    *,
    shared: tuple[str, ...] = (),
    dialect: str = "2020-12",
) -> Tool:
    """A Tool IR object as validate.py would build it."""
    identifier, prefix = make_tool_names(name)
    return Tool(
        name=name,
        identifier=identifier,
        class_prefix=prefix,
        input_class=type(prefix)(prefix + "Input"),
        output_class=type(prefix)(prefix + "Output") if output_schema is not None else None,
        result_class=type(prefix)(prefix + "Result"),
        dialect=dialect,  # type: ignore[arg-type]
        input_schema=input_schema,
        output_schema=output_schema,
        advertised={"name": name},
        shared_def_names=frozenset(shared),
    )


def make_toolset(*tools: Tool, shared_defs: dict[str, Any] | None = None) -> Toolset:
    """A Toolset IR object."""
    return Toolset("test", None, None, shared_defs or {}, tuple(tools))


def load(result: ModelsResult) -> types.ModuleType:
    """Import generated source as a fresh module (registered, so deferred builds resolve)."""
    name = f"_mcpstub_models_{next(_counter)}"
    module = types.ModuleType(name)
    sys.modules[name] = module
    exec(compile(result.source, f"<{name}>", "exec"), module.__dict__)
    return module


def canon(value: Any) -> Any:
    """JSON value with numbers compared by value (1 == 1.0) but booleans kept apart."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return ("number", float(value))
    if isinstance(value, list):
        return [canon(v) for v in value]
    return {k: canon(v) for k, v in value.items()}


def round_trip(model: type[BaseModel], value: Any) -> Any:
    """Validate then dump, the way the server does."""
    return model.model_validate(value).model_dump(mode="json", by_alias=True)


def assert_round_trips(model: type[BaseModel], value: Any, schema: dict[str, Any] | None = None) -> None:
    """The dump equals the input, key for key and value for value.

    Given the schema, top-level properties left out that have a default may appear with it.
    """
    dumped = round_trip(model, value)
    if schema is not None and isinstance(value, dict):
        for name, prop in schema.get("properties", {}).items():
            if name not in value and isinstance(prop, dict) and "default" in prop:
                assert canon(dumped.pop(name)) == canon(prop["default"])
    assert canon(dumped) == canon(value)


# A table of schemas and instances that must come back unchanged.
OBJ = "object"
FIDELITY: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "nested": (
        {
            "type": OBJ,
            "properties": {
                "a": {
                    "type": OBJ,
                    "properties": {"b": {"type": "array", "items": {"type": "integer"}}},
                    "required": ["b"],
                },
                "s": {"type": "string", "minLength": 1},
            },
        },
        [{}, {"a": {"b": []}}, {"a": {"b": [1, 2]}, "s": "x"}],
    ),
    "arrays": (
        {
            "type": OBJ,
            "properties": {
                "m": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
                "o": {"type": "array", "items": {"type": OBJ, "properties": {"k": {}}}},
            },
        },
        [{"m": [[1, 2.5], []]}, {"o": [{"k": None}, {"k": [1, "a"]}, {}]}],
    ),
    "enums": (
        {
            "type": OBJ,
            "properties": {
                "e": {"enum": ["a", "b"]},
                "i": {"type": "integer", "enum": [1, 2]},
                "mixed": {"enum": ["x", 1, None, True]},
            },
        },
        [{"e": "a", "i": 2}, {"mixed": None}, {"mixed": 1}, {"mixed": True}, {"mixed": "x"}],
    ),
    "formats": (
        {
            "type": OBJ,
            "properties": {
                f: {"type": "string", "format": f}
                for f in (
                    "date date-time time uri email uuid ipv4 ipv6 hostname duration byte binary "
                    "password decimal"
                ).split()
            },
        },
        [
            {"date": "2026-01-01", "date-time": "2026-01-01T00:00:00+00:00", "time": "10:00:00Z"},
            {"date-time": "2026-01-01t10:00:00.000z", "uri": "http://example.com"},
            {"email": "A@Example.COM", "uuid": "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"},
            {"ipv6": "::FFFF:1.2.3.4", "ipv4": "1.2.3.4", "hostname": "x.example"},
            {"duration": "P1D", "byte": "aGk=", "binary": "\u00ff", "password": "hunter2"},
            {"decimal": "1.50", "date": "not a date: formats are annotations"},
        ],
    ),
    "numeric_formats": (
        {
            "type": OBJ,
            "properties": {
                "i": {"type": "integer", "format": "int64"},
                "t": {"type": "integer", "format": "date-time"},
                "d": {"type": "number", "format": "decimal"},
                "f": {"type": "number", "format": "float"},
            },
        },
        [{"i": 1, "t": 1700000000, "d": 1.5, "f": 2}],
    ),
    "nullable": (
        {
            "type": OBJ,
            "properties": {
                "a": {"type": ["string", "null"]},
                "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "c": {"type": "null"},
            },
            "required": ["a"],
        },
        [{"a": None}, {"a": "x", "b": None, "c": None}, {"a": "", "b": 3}],
    ),
    "unions": (
        {
            "type": OBJ,
            "properties": {
                "u": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "boolean"}]},
                "o": {
                    "oneOf": [
                        {
                            "type": OBJ,
                            "properties": {"kind": {"const": "a"}, "x": {"type": "string"}},
                            "required": ["kind"],
                        },
                        {
                            "type": OBJ,
                            "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}},
                            "required": ["kind"],
                        },
                    ]
                },
            },
        },
        [
            {"u": "1"},
            {"u": 1},
            {"u": True},
            {"o": {"kind": "a", "x": "s"}},
            {"o": {"kind": "b", "y": 2}},
        ],
    ),
    "maps": (
        {
            "type": OBJ,
            "properties": {
                "open": {"type": OBJ},
                "typed": {"type": OBJ, "additionalProperties": {"type": "integer"}},
                "mixed": {
                    "type": OBJ,
                    "properties": {"name": {"type": "string"}},
                    "additionalProperties": {"type": "integer"},
                },
                "pattern": {"type": OBJ, "patternProperties": {"^x-": {"type": "string"}}},
            },
        },
        [
            {"open": {"a": [1, {"b": None}]}, "typed": {"a": 1, "b": 2}},
            {"mixed": {"name": "n", "extra": 3}, "pattern": {"x-a": "s", "other": 1}},
            {"unknown": {"top": "level"}, "open": {}},
        ],
    ),
    "keywords_models_skip": (
        {
            "type": OBJ,
            "properties": {
                "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "objs": {"type": "array", "items": {"type": OBJ}, "uniqueItems": True},
                "counted": {"type": OBJ, "minProperties": 1, "maxProperties": 2},
                "grouped": {
                    "type": OBJ,
                    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                    "dependentRequired": {"a": ["b"]},
                    "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
                },
                "cond": {
                    "type": OBJ,
                    "if": {"properties": {"k": {"const": 1}}},
                    "then": {"required": ["v"]},
                    "not": {"required": ["z"]},
                },
            },
        },
        [
            {"tags": ["b", "a", "c"], "objs": [{"x": 1}, {"x": 2}]},
            {"counted": {"x": 1}, "grouped": {"a": "1", "b": "2"}, "cond": {"k": 1, "v": 2}},
        ],
    ),
    "closed": (
        {
            "type": OBJ,
            "properties": {"a": {"type": "string"}},
            "additionalProperties": False,
        },
        [{}, {"a": "x"}],
    ),
    "const": (
        {
            "type": OBJ,
            "properties": {
                "s": {"const": "x"},
                "n": {"const": 1},
                "o": {"const": {"a": [1, 2]}},
                "z": {"const": None},
            },
        },
        [{"s": "x", "n": 1, "o": {"a": [1, 2]}, "z": None}, {"n": 1.0}],
    ),
    "defaults_given": (
        {
            "type": OBJ,
            "properties": {
                "d": {"type": "integer", "default": 3},
                "s": {"type": "string", "default": "x"},
            },
        },
        [{"d": 5, "s": "y"}, {"d": 3, "s": "x"}],
    ),
    "integers": (
        {
            "type": OBJ,
            "properties": {
                "i": {"type": "integer"},
                "n": {"type": "number"},
                "big": {"type": "integer"},
            },
        },
        [{"i": 1.0}, {"i": -7, "n": 1}, {"n": 2.5}, {"big": 2**70}],
    ),
    "recursive": (
        {
            "type": OBJ,
            "properties": {
                "value": {"type": "integer"},
                "children": {"type": "array", "items": {"$ref": "#"}},
            },
        },
        [{"value": 1, "children": [{"value": 2, "children": [{"children": []}]}]}],
    ),
    "booleans": (
        {
            "type": OBJ,
            "properties": {"b": {"type": "boolean"}, "anything": True},
        },
        [{"b": False, "anything": [1]}, {"anything": None}],
    ),
    "odd_names": (
        {
            "type": OBJ,
            "properties": {
                n: {"type": "integer"}
                for n in [
                    *"class from a-b $meta 1st @type model_config json schema copy dict".split(),
                    *"fields model_fields validate MISSING root _private __dunder__ Field".split(),
                    *("a b", "ünï"),
                ]
            },
        },
        [
            {"class": 1, "from": 2, "a-b": 3, "$meta": 4, "1st": 5, "@type": 6},
            {"model_config": 1, "json": 2, "schema": 3, "copy": 4, "dict": 5, "fields": 6},
            {"model_fields": 1, "validate": 2, "MISSING": 3, "root": 4, "_private": 5},
            {"__dunder__": 1, "Field": 2, "a b": 3, "ünï": 4},
        ],
    ),
}


@pytest.fixture(scope="module")
def fidelity_module() -> types.ModuleType:
    """All fidelity schemas as tools of one toolset, generated once."""
    tools = [make_tool(name, schema) for name, (schema, _) in FIDELITY.items()]
    result = render_models(make_toolset(*tools))
    assert result.diagnostics == []
    return load(result)


@pytest.mark.parametrize(
    ("case", "index"),
    [(case, i) for case, (_, values) in FIDELITY.items() for i in range(len(values))],
)
def test_valid_instances_dump_unchanged(fidelity_module: types.ModuleType, case: str, index: int) -> None:
    schema, values = FIDELITY[case]
    model = getattr(fidelity_module, make_tool(case, schema).input_class)
    assert_round_trips(model, values[index])


def test_defaults_fill_in_absent_fields(fidelity_module: types.ModuleType) -> None:
    model = fidelity_module.DefaultsGivenInput
    args = model.model_validate({})
    assert (args.d, args.s) == (3, "x")
    assert round_trip(model, {}) == {"d": 3, "s": "x"}


def test_integer_fields_accept_integral_floats_only(fidelity_module: types.ModuleType) -> None:
    model = fidelity_module.IntegersInput
    assert model.model_validate({"i": 1.0}).i == 1
    with pytest.raises(ValidationError):
        model.model_validate({"i": 1.5})


def test_password_stays_a_plain_string(fidelity_module: types.ModuleType) -> None:
    args = fidelity_module.FormatsInput.model_validate({"password": "hunter2"})
    assert args.password == "hunter2"
    assert "hunter2" in args.model_dump_json(by_alias=True)


def test_odd_property_names_use_aliases(fidelity_module: types.ModuleType) -> None:
    model = fidelity_module.OddNamesInput
    args = model.model_validate({"class": 1, "model_config": 2, "a-b": 3})
    assert args.class_ == 1
    assert round_trip(model, {"class": 1, "model_config": 2, "a-b": 3}) == {
        "class": 1,
        "model_config": 2,
        "a-b": 3,
    }
    assert model.model_config.get("defer_build") is True  # pydantic's own config is intact


def test_closed_objects_refuse_unknown_properties(fidelity_module: types.ModuleType) -> None:
    with pytest.raises(ValidationError):
        fidelity_module.ClosedInput.model_validate({"a": "x", "b": 1})


def test_unset_optional_fields_stay_absent(fidelity_module: types.ModuleType) -> None:
    assert round_trip(fidelity_module.NestedInput, {}) == {}


CITY = {"type": "string", "minLength": 1, "description": "City name"}
ADDRESS = {"type": "object", "properties": {"street": {"type": "string"}}}


@pytest.fixture(scope="module")
def weather() -> tuple[ModelsResult, types.ModuleType]:
    """A toolset with shared, local, pointer and draft-07 references."""
    forecast = make_tool(
        "get_forecast",
        {
            "type": "object",
            "properties": {
                "city": {"$ref": "#/$defs/City"},
                "home": {"$ref": "#/$defs/Address"},
                "work": {"$ref": "#/properties/home"},
                "point": {"type": "object", "properties": {"lat": {"type": "number"}}},
                "again": {"$ref": "#/properties/point"},
                "tag": {"$ref": "#/$defs/my~1tag"},
            },
            "required": ["city"],
            "$defs": {"City": CITY, "Address": ADDRESS, "my/tag": {"type": "string"}},
        },
        {
            "type": "object",
            "properties": {"city": {"$ref": "#/$defs/City"}, "other": {"$ref": "#/$defs/MyCity"}},
            "$defs": {"City": CITY, "MyCity": {"type": "integer"}},
        },
        shared=("City",),
    )
    alerts = make_tool(
        "alerts",
        {
            "type": "object",
            "properties": {
                "city": {"$ref": "#/$defs/City"},
                # Same name as a shared def but a different schema: a local def, not City.
                "address": {"$ref": "#/$defs/Address"},
            },
            "$defs": {"City": CITY, "Address": {"type": "string"}},
        },
        shared=("City",),
    )
    tree = make_tool(
        "tree",
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"root": {"$ref": "#/definitions/Node", "description": "the root"}},
            "definitions": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "kids": {"type": "array", "items": {"$ref": "#/definitions/Node"}},
                    },
                }
            },
        },
        dialect="draft-07",
    )
    zod = make_tool(  # zod-to-json-schema's shape: the root is a $ref into definitions
        "zod_style",
        {
            "$ref": "#/definitions/Args",
            "definitions": {
                "Args": {
                    "type": "object",
                    "properties": {"q": {"type": "string"}, "next": {"$ref": "#/definitions/Args"}},
                    "required": ["q"],
                    "additionalProperties": False,
                }
            },
            "$schema": "http://json-schema.org/draft-07/schema#",
        },
        dialect="draft-07",
    )
    shared = {"City": CITY, "my-region": {"type": "object", "properties": {"r": {"type": "string"}}}}
    result = render_models(make_toolset(forecast, alerts, tree, zod, shared_defs=shared))
    return result, load(result)


def test_shared_definition_is_one_class(weather: tuple[ModelsResult, types.ModuleType]) -> None:
    result, module = weather
    assert result.diagnostics == []
    assert result.source.count("\nCity: TypeAlias = ") == 1
    assert round_trip(module.GetForecastInput, {"city": "Paris"}) == {"city": "Paris"}
    assert module.GetForecastInput(city="Paris").city == "Paris"  # a plain str, no `.root`
    with pytest.raises(ValidationError):
        module.GetForecastInput.model_validate({"city": ""})
    assert hasattr(module, "MyRegion")  # sanitized to a class name


def test_local_definitions_get_prefixed_names(
    weather: tuple[ModelsResult, types.ModuleType],
) -> None:
    _, module = weather
    assert module.GetForecastInputAddress.model_validate({"street": "x"})
    assert TypeAdapter(module.GetForecastOutputMyCity).validate_python(3.0) == 3  # an integer alias
    args = module.AlertsInput.model_validate({"address": "Main St"})
    assert args.address == "Main St"  # the local Address, a string, not the shared one


def test_pointer_refs_reuse_the_class_they_point_at(
    weather: tuple[ModelsResult, types.ModuleType],
) -> None:
    _, module = weather
    fields = module.GetForecastInput.model_fields
    assert fields["work"].annotation == fields["home"].annotation
    assert fields["again"].annotation == fields["point"].annotation
    value = {"city": "P", "work": {"street": "s"}, "again": {"lat": 1.5}, "tag": "t"}
    assert_round_trips(module.GetForecastInput, value)


def test_draft07_definitions_and_recursion(
    weather: tuple[ModelsResult, types.ModuleType],
) -> None:
    _, module = weather
    tree = {"root": {"name": "a", "kids": [{"name": "b", "kids": []}, {}]}}
    assert_round_trips(module.TreeInput, tree)
    assert_round_trips(module.ZodStyleInput, {"q": "a", "next": {"q": "b"}})
    with pytest.raises(ValidationError):
        module.ZodStyleInput.model_validate({"q": "a", "extra": 1})


def test_models_defer_schema_building(weather: tuple[ModelsResult, types.ModuleType]) -> None:
    result, _ = weather
    module = load(result)
    classes = [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == module.__name__
    ]
    assert classes
    assert all(c.model_config.get("defer_build") for c in classes)


def test_source_has_no_header_and_no_experimental_import(
    weather: tuple[ModelsResult, types.ModuleType],
) -> None:
    result, _ = weather
    assert not result.source.startswith("#")
    assert "experimental" not in result.source


def test_unsupported_schema_falls_back_to_a_permissive_model() -> None:
    dynamic = make_tool(
        "dyn",
        {
            "type": "object",
            "$dynamicAnchor": "node",
            "properties": {"child": {"$dynamicRef": "#node"}, "name": {"type": "string"}},
            "required": ["name"],
        },
    )
    anchor = make_tool(
        "anchored",
        {"type": "object", "properties": {"a": {"$ref": "#thing"}, "b": {"$anchor": "thing"}}},
    )
    fine = make_tool("fine", {"type": "object", "properties": {"x": {"type": "integer"}}})
    result = render_models(make_toolset(dynamic, anchor, fine))
    assert [(d.severity, d.code) for d in result.diagnostics] == [
        (Severity.WARNING, "models-fallback"),
        (Severity.WARNING, "models-fallback"),
    ]
    assert "dyn" in result.diagnostics[0].message
    module = load(result)
    value = {"name": "n", "child": {"name": "c", "anything": [1]}, "more": True}
    assert_round_trips(module.DynInput, value)
    assert module.DynInput.model_validate(value).name == "n"
    assert_round_trips(module.AnchoredInput, {"a": 1, "zz": "x"})
    assert_round_trips(module.FineInput, {"x": 1})


def test_a_schema_that_breaks_the_generator_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpstub import models  # noqa: PLC0415

    real = models._generate

    def flaky(units: dict[str, dict[str, Any]], wire: frozenset[str] = frozenset()) -> str:
        if any("Broken" in key for entries in units.values() for key in entries):
            if any("x-explode" in json.dumps(e) for e in units.values()):
                raise RuntimeError("boom")
        return real(units, wire)

    monkeypatch.setattr(models, "_generate", flaky)
    exploding = {"type": "string", "description": "x-explode"}
    broken = make_tool("broken", {"type": "object", "properties": {"a": exploding}})
    fine = make_tool("fine", {"type": "object", "properties": {"x": {"type": "integer"}}})
    result = render_models(make_toolset(fine, broken))
    assert [d.code for d in result.diagnostics] == ["models-fallback"]
    assert "BrokenInput" in result.diagnostics[0].message
    module = load(result)
    assert_round_trips(module.BrokenInput, {"a": 5, "b": [1]})
    assert "x: _Integral" in result.source


@pytest.mark.parametrize(
    "schema",
    [
        {"allOf": [True, False]},
        {"type": "object", "properties": {"a": {"allOf": [{"type": "string"}, False]}}},
        {"anyOf": [False, False]},
        {"type": "object", "properties": {"a": {"oneOf": [False, {"$ref": "#/$defs/No"}]}}, 
         "$defs": {"No": False}},
        {
            "type": "object",
            "properties": {"a": {"allOf": [{"$ref": "#/$defs/Never"}]}},
            "$defs": {"Never": {"allOf": [False]}},  # (as bundling copies the shared one)
        },
    ],
    ids=["allOf", "nested-allOf", "anyOf", "oneOf-by-ref", "shared-by-ref"],
)
def test_a_schema_accepting_nothing_falls_back_said_why_as_bisection_would_without_it(
    schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """datamodel-code-generator refuses a schema that accepts nothing (an `allOf` with `false`, an
    `anyOf`/`oneOf` of only `false`, also through a `$ref`): it is found by reading, in two generator
    calls, not by bisecting the group (a call a step), and the models are those bisection makes."""
    from mcpstub import models  # noqa: PLC0415

    def toolset() -> Toolset:
        fine = {"type": "object", "properties": {"x": {"type": "integer"}}}
        tools = [make_tool(f"fine{i}", fine) for i in range(6)]
        never = make_tool("never", schema, shared=("Never",) if "Never" in json.dumps(schema) else ())
        return make_toolset(*tools[:3], never, *tools[3:], shared_defs={"Never": {"allOf": [False]}})

    calls = []
    real = models._generate
    monkeypatch.setattr(models, "_generate", lambda *a, **k: calls.append(1) or real(*a, **k))
    result = render_models(toolset())
    warned = [d.message for d in result.diagnostics if d.code == "models-fallback"]
    # (a tool refusing only through the shared definition keeps its model: the definition's is `{}`)
    through_shared = "Never" in json.dumps(schema)
    assert any("'never'" in m and "it accepts nothing" in m for m in warned) != through_shared, warned
    assert any("'Never'" in m and "it accepts nothing: an allOf holds false" in m for m in warned), warned
    assert len(calls) <= 4, f"{len(calls)} generator calls"
    module = load(result)
    assert_round_trips(module.Fine5Input, {"x": 1})
    monkeypatch.setattr(models, "_accepting_nothing", lambda units: {})
    bisected = render_models(toolset())
    assert bisected.source == result.source
    assert len(bisected.diagnostics) == len(result.diagnostics)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"b": {"not": {"allOf": [False]}}}},
        {"type": "object", "properties": {"b": {"type": "array", "items": {"allOf": [False]}}}},
        {"type": "object", "additionalProperties": {"allOf": [False]}},
        {"type": "object", "properties": {"b": {"if": {"allOf": [False]}, "then": {"type": "string"}}}},
        {"type": "object", "propertyNames": {"allOf": [False]}, "dependentSchemas": {"a": {"allOf": [{}]}}},
        {"type": "object", "properties": {"b": {"anyOf": [{"not": {"allOf": [False]}}, {"type": "string"}]}}},
        {"type": "object", "properties": {"b": {"type": "array", "contains": {"anyOf": [False]}}}},
    ],
    ids=["not", "items", "additionalProperties", "if", "propertyNames", "anyOf-not", "contains"],
)
def test_a_schema_the_generator_takes_keeps_its_model_beside_one_accepting_nothing(
    schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`false` where the generator does not read a type (`not`, `if`, `items`, ...) is modelled:
    only the tool it refuses falls back, as bisection finds."""
    from mcpstub import models  # noqa: PLC0415

    def toolset() -> Toolset:
        never = make_tool("never", {"type": "object", "properties": {"z": {"allOf": [False]}}})
        keep = {**schema, "properties": {**schema.get("properties", {}), "keep": {"type": "integer"}}}
        return make_toolset(never, make_tool("taken", keep))

    result = render_models(toolset())
    assert [d.message.split(":")[0] for d in result.diagnostics] == ["tool 'never' (NeverInput)"]
    assert "keep: _Integral" in result.source or "keep: int" in result.source, result.source
    monkeypatch.setattr(models, "_accepting_nothing", lambda units: {})
    assert render_models(toolset()).source == result.source


@pytest.mark.parametrize("read", [True, False], ids=["read", "bisected"])
def test_an_output_not_an_object_that_falls_back_accepts_any_value(
    read: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list output the generator refuses fell back to an object model, and a check of the
    binding called the toolset a bug of mcpstub's (exit 1): it is any value, said so."""
    from mcpstub import models  # noqa: PLC0415

    if not read:
        monkeypatch.setattr(models, "_accepting_nothing", lambda units: {})
    items = {"type": "object", "properties": {"a": {"allOf": [False]}}}
    empty = make_tool("empty", {"type": "object"}, {"type": "array", "items": items})
    fine = make_tool("fine", {"type": "object", "properties": {"x": {"type": "integer"}}})
    result = render_models(make_toolset(empty, fine))
    assert [(d.code, d.message.rpartition("; ")[2]) for d in result.diagnostics] == [
        ("models-fallback", "it accepts any value")
    ]
    assert "EmptyOutput: TypeAlias = Any" in result.source
    assert load(result).EmptyInput.model_validate({}) is not None


@pytest.mark.parametrize("read", [True, False], ids=["read", "bisected"])
def test_a_definition_named_like_an_import_is_warned_of_by_its_own_name(
    read: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Generated as `AnyModel` (models.py imports `Any`), it was warned of by that name, at 1:1.
    from mcpstub import models  # noqa: PLC0415

    if not read:
        monkeypatch.setattr(models, "_accepting_nothing", lambda units: {})
    shared = {"Any": {"type": "object", "properties": {"a": {"allOf": [False]}}}}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/Any"}}, "$defs": shared}
    result = render_models(make_toolset(make_tool("get", schema, shared=("Any",)), shared_defs=shared))
    assert [(d.message.split(":")[0], d.subject) for d in result.diagnostics] == [
        ("shared definition 'Any'", ("$defs", "Any"))
    ]


@pytest.mark.parametrize("shared", [{}, True, {"description": "anything"}])
def test_an_output_that_refers_to_a_definition_of_any_value_generates(shared: Any) -> None:
    # `GetOutput = Anything`, `Anything = Any`: the binding check followed the alias on to `Any`
    # and called the toolset a bug of mcpstub's.
    output = {"$ref": "#/$defs/Anything", "$defs": {"Anything": shared}}  # (as bundling copies it)
    tool = make_tool("get", {"type": "object"}, output, shared=("Anything",))
    result = render_models(make_toolset(tool, shared_defs={"Anything": shared}))
    assert not result.diagnostics, [d.message for d in result.diagnostics]
    module = load(result)
    assert TypeAdapter(module.GetOutput).validate_python([1, "x"]) == [1, "x"]


def test_class_clash_is_an_error() -> None:
    tool = make_tool("get", {"type": "object"})
    result = render_models(make_toolset(tool, shared_defs={"GetInput": {"type": "string"}}))
    assert [d.code for d in result.diagnostics] == ["models-class-clash"]
    assert result.diagnostics[0].is_error


def test_generation_is_deterministic() -> None:
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]);"
        "from tests.unit.test_models import *;"
        "t = make_tool('t', {'type': 'object', 'properties': {'b': {'enum': ['x', 'y']},"
        " 'a': {'type': 'object', 'properties': {'c': {}}}}}, {'type': 'object'});"
        "print(render_models(make_toolset(t, shared_defs={'S': {'type': 'integer'}})).source)"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code, str(ROOT)],
            env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1


def test_github_corpus_generates_in_one_call() -> None:
    corpus = json.loads(CORPUS.read_text())
    tools = [make_tool(t["name"], t["inputSchema"]) for t in corpus]
    result = render_models(make_toolset(*tools))
    assert result.diagnostics == []
    module = load(result)
    for tool, raw in zip(tools, corpus, strict=True):
        model = getattr(module, tool.input_class)
        required = raw["inputSchema"].get("required", [])
        props = raw["inputSchema"].get("properties", {})
        if all(p in props for p in required):
            sample = {name: _sample(props[name]) for name in required}
            assert_round_trips(model, sample, raw["inputSchema"])


def _sample(schema: dict[str, Any]) -> Any:
    """A small valid value for the simple schemas the corpus uses in required properties."""
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return _sample(schema[key][0])
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "array":
        return [_sample(schema.get("items", {}))] * schema.get("minItems", 0)
    if kind == "object":
        props = schema.get("properties", {})
        return {n: _sample(props.get(n, {})) for n in schema.get("required", [])}
    return {"string": "s", "integer": 1, "number": 1.5, "boolean": True}.get(kind, {})


HYPOTHESIS_SCHEMAS = [FIDELITY[c][0] for c in ("nested", "enums", "nullable", "maps", "integers")]


@pytest.fixture(scope="module")
def corpus_models() -> tuple[list[dict[str, Any]], types.ModuleType]:
    """The corpus schemas and the module generated from them."""
    corpus = json.loads(CORPUS.read_text()) if CORPUS.exists() else []
    schemas = [t["inputSchema"] for t in corpus] + HYPOTHESIS_SCHEMAS
    tools = [make_tool(f"t{i}", s) for i, s in enumerate(schemas)]
    return schemas, load(render_models(make_toolset(*tools)))


@settings(
    max_examples=300,
    deadline=None,
    # (the oracle's own failures are rejected; a draw of schemas it fails on often is no failure)
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],
)
@given(data=st.data())
def test_generated_instances_round_trip(
    corpus_models: tuple[list[dict[str, Any]], types.ModuleType], data: st.DataObject
) -> None:
    schemas, module = corpus_models
    index = data.draw(st.integers(0, len(schemas) - 1))
    try:
        value = data.draw(_strategy(json.dumps(schemas[index], sort_keys=True)))
    except AssertionError as failed:  # hypothesis-jsonschema's own assertion: the oracle, not mcpstub
        if "hypothesis_jsonschema" not in "".join(traceback.format_tb(failed.__traceback__)):
            raise
        reject()
    assert_round_trips(getattr(module, f"T{index}Input"), value, schemas[index])


_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {}


def _strategy(key: str) -> st.SearchStrategy[Any]:
    """hypothesis-jsonschema strategies are slow to build; build each once."""
    if key not in _STRATEGIES:
        _STRATEGIES[key] = from_schema(json.loads(key))
    return _STRATEGIES[key]


def test_generated_source_passes_mypy_strict(
    tmp_path: Path, weather: tuple[ModelsResult, types.ModuleType], mypy_strict: MypyRun
) -> None:
    tools = [make_tool(name, schema) for name, (schema, _) in FIDELITY.items()]
    fidelity = render_models(make_toolset(*tools))
    for name, result in (("fidelity", fidelity), ("weather", weather[0])):
        (tmp_path / f"{name}_models.py").write_text(result.source + "\n")
    run = mypy_strict("fidelity_models.py", "weather_models.py", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


def _wire(model: type[BaseModel]) -> set[str]:
    return {f.alias or n for n, f in model.model_fields.items()}


def test_a_derived_class_name_that_takes_a_tool_name_generates_bound_to_each_schema() -> None:
    nested = {"type": "object", "properties": {"a": {"type": "string"}}}
    foo = make_tool("foo", {"type": "object", "properties": {"input": nested}})
    foo_input = make_tool("foo_input", {"type": "object", "properties": {"b": {"type": "integer"}}})
    result = render_models(make_toolset(foo, foo_input))
    assert result.diagnostics == []
    module = load(result)
    assert _wire(module.FooInputInput) == {"b"}
    assert _wire(type(module.FooInput.model_validate({"input": {"a": "x"}}).input)) == {"a"}


def test_the_binding_check_refuses_a_tool_bound_to_another_schemas_class() -> None:
    # The last line of defence, given a module where a tool's name holds another schema's class.
    foo_input = make_tool("foo_input", {"type": "object", "properties": {"b": {"type": "integer"}}})
    alias = make_tool("alias", {"$ref": "#/$defs/Shared"})
    toolset = make_toolset(foo_input, alias)
    source = "class FooInputInput(BaseModel):\n    a: str\n\n\nAliasInput: TypeAlias = Other\n"
    units = {
        "FooInputInput": {"FooInputInput": foo_input.input_schema},
        "AliasInput": {"AliasInput": {"$ref": "#/$defs/Shared"}},
    }
    where = Location("tools.yaml", 1, 1)
    problems = _check_binding(source, units, toolset, where)
    assert [d.code for d in problems] == ["models-binding", "models-binding"]
    assert (
        "foo_input" in problems[0].message and "does not have its schema's properties" in problems[0].message
    )
    assert "alias" in problems[1].message and "(Shared)" in problems[1].message
    assert all(d.is_error for d in problems)


_PARTS = st.sampled_from(["foo", "input", "output", "in", "put", "x", "item", "a", "result", "Input"])
_NAME = st.lists(_PARTS, min_size=1, max_size=3).map("_".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tools=st.lists(
        st.tuples(_NAME, st.lists(_NAME, min_size=1, max_size=3, unique=True), st.booleans()),
        min_size=1,
        max_size=4,
        unique_by=lambda t: make_tool_names(t[0])[1],
    ),
    shared=st.lists(_NAME, max_size=3, unique_by=lambda n: make_tool_names(n)[1]),
)
def test_hostile_names_bind_every_tool_to_its_own_schema(
    tools: list[tuple[str, list[str], bool]], shared: list[str]
) -> None:
    taken = {make_tool_names(n)[1] + s for n, _, _ in tools for s in ("Input", "Output", "Result")}
    shared_defs = {
        str(make_tool_names(n)[1]): {"type": "object", "properties": {f"s_{n}": {"type": "string"}}}
        for n in shared
        if make_tool_names(n)[1] not in taken
    }
    built = []
    for name, props, with_output in tools:
        properties: dict[str, Any] = {}
        for i, prop in enumerate(props):
            # Nested objects whose derived class names collide with tools and shared names.
            fields = {f"{prop}_{j}": {"type": "integer"} for j in range(i + 1)}
            inner = {"type": "object", "properties": fields}
            properties[prop] = inner if i % 2 == 0 else {"type": "array", "items": inner}
        schema = {"type": "object", "properties": properties}
        out_props = {f"out_{name}": {"type": "string"}}
        output = {"type": "object", "properties": out_props} if with_output else None
        built.append((make_tool(name, schema, output), schema, output))
    result = render_models(make_toolset(*(t for t, _, _ in built), shared_defs=shared_defs))
    assert [d.format() for d in result.diagnostics if d.is_error] == []
    module = load(result)
    for tool, schema, output in built:
        model = getattr(module, tool.input_class)
        assert _wire(model) == set(schema["properties"])
        value = {
            p: {f"{p}_0": 1} if i % 2 == 0 else [{f"{p}_0": 1}] for i, p in enumerate(schema["properties"])
        }
        assert_round_trips(model, value)
        if output is not None:
            assert _wire(getattr(module, str(tool.output_class))) == set(output["properties"])
    for name, schema in shared_defs.items():
        assert _wire(getattr(module, name)) == set(schema["properties"])


RECURSIVE_VALUES: dict[str, list[Any]] = {
    "json": [None, "a", ["a", None, [None, ["b"]]]],
    "nulllist": [None, [], [None, [None, []]]],
    "nullonly": [None, [None, [[]]]],
    "value": [None, {"x": [1, 2.5, None, {"y": True, "z": "s"}]}],
    "node": [{"next": {"next": None}, "kids": [{}, {"kids": []}]}],
    "nodeornull": [None, {"next": None}],
    "map": [None, {"a": None, "b": {"c": None, "d": {}}}],
    "a": [None, [1, [None, [2, []]]]],
    "b": [3, [None, [4]]],
    "grid": [[], [[]], [[[], [[]]]]],
    "deep": [[None, [None, [[None]]]]],
    "pair": [["a", ["b", None]]],
    "choice": [None, {"v": {"v": None}}],
    "enumish": ["a", None, ["a", [None]]],
    "union": [{"u": None}, {"u": {"u": ["a", None]}}],
    "via": ["a", ["a", ["b", []]]],
    "viaalias": [[], ["a", ["b"]]],
    "viaarray": [[], ["a", ["b"]]],
    "typed": ["a", ["a", ["b", []]]],
    "maporint": [1, {"a": 1, "b": {"c": {}}}],
    "items": ["a", ["a", ["b", []]]],
    "itemsalias": ["a", [[], "b"]],
    "inline": [None, ["a"]],
    "defaulted": [None, [None]],
}


def test_recursive_definitions_of_every_shape_take_every_value_their_schema_takes(tmp_path: Path) -> None:
    """Null, nested lists and maps, mutual recursion: as the schema says (a recursive type list
    with null used to refuse null)."""
    import jsonschema_rs  # noqa: PLC0415

    from mcpstub.pipeline import check_toolset  # noqa: PLC0415
    from tests.unit.test_black_stable import CASES  # noqa: PLC0415

    toolset = check_toolset(CASES["recursion"](tmp_path)).toolset
    assert toolset is not None
    result = render_models(toolset)
    assert [d.format() for d in result.diagnostics] == []
    module = load(result)
    tool = next(t for t in toolset.tools if t.name == "all")
    validator = jsonschema_rs.Draft202012Validator(tool.input_schema)
    assert set(RECURSIVE_VALUES) == set(tool.input_schema["properties"])
    for name, values in RECURSIVE_VALUES.items():
        for value in values:
            assert validator.is_valid({name: value}), (name, value)
            for cls in (module.AllInput, module.AllOutput):
                assert round_trip(cls, {name: value}) == {name: value} | (
                    {"defaulted": None} if name != "defaulted" else {}
                ), (name, value)


def test_type_names_inside_strings_are_text_not_types() -> None:
    """`Union[...]`/`Optional[...]` in an enum value, a default or a description stay as written."""
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "enum": ["Union[a, b]", "Optional[x]"], "default": "Union[a, b]",
                  "description": "Union[int, str] or Optional[int] # Union[q, r]"},
            "j": {"$ref": "#/$defs/J"},
        },
    }  # fmt: skip
    items = {"$ref": "#/$defs/J"}
    shared = {"J": {"anyOf": [{"type": "string"}, {"type": "null"}, {"type": "array", "items": items}]}}
    tool = make_tool("t", {**schema, "$defs": shared}, shared=("J",))
    module = load(render_models(make_toolset(tool, shared_defs=shared)))
    assert module.TInput.model_fields["a"].description == "Union[int, str] or Optional[int] # Union[q, r]"
    for value in ("Union[a, b]", "Optional[x]"):
        assert round_trip(module.TInput, {"a": value, "j": [None]}) == {"a": value, "j": [None]}


_REFS = st.sampled_from(
    ["#/$defs/A", "#/$defs/B", "#/definitions/A", "#/$defs", "#/properties", "#/$defs/A/properties/x"]
)
_NODE = st.recursive(
    st.fixed_dictionaries(
        {}, optional={"type": st.just("object"), "$ref": _REFS, "$dynamicRef": st.just("#x")}
    ),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            "properties": st.dictionaries(st.sampled_from(["x", "a/b", "~"]), inner, max_size=2),
            "items": inner,
            "anyOf": st.lists(inner, max_size=2),
            "$defs": st.dictionaries(st.sampled_from(["A", "B", "$dynamicRef", "a/b"]), inner, max_size=2),
            "definitions": st.dictionaries(st.sampled_from(["A", "C"]), inner, max_size=2),
        },
    ),
    max_leaves=12,
)


def _plain_targets(node: Any) -> Any:
    """Every `$ref` target, walking every copy (the rule spelled out directly)."""
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        target = model_schemas._pointer(node["$ref"])
        if model_schemas._names_a_map(split(target) or ()):
            raise model_schemas.Unsupported(f"$ref target #{target} is not a schema")
        yield target
    for _, sub in model_schemas.children(node):
        yield from _plain_targets(sub)


def _plain_unsupported(node: Any) -> bool:
    """A keyword the model generator misreads, anywhere a subschema is (a definition, a property
    named `$dynamicRef` or a `const` holding one is none), with no definition read once."""
    keys = model_schemas._UNSUPPORTED_KEYS
    return isinstance(node, dict) and (
        not keys.isdisjoint(node) or any(_plain_unsupported(sub) for _, _, sub in subschemas(node))
    )


def _read(schema: Any, targets: Any, unsupported: Any) -> tuple[list[str], str | None, bool]:
    found: list[str] = []
    try:
        for target in targets(schema):
            found.append(target)
        refused = None
    except model_schemas.Unsupported as exc:
        refused = str(exc)
    return found, refused, unsupported(schema)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(schemas=st.lists(_NODE, min_size=1, max_size=4))
def test_what_is_read_from_definitions_once_is_what_each_copy_gives(schemas: list[Any]) -> None:
    # Definitions are read once per distinct content: the targets (in order), the refusal at the
    # same point and the unsupported keywords must be those a walk of every copy finds.
    expected = [_read(schema, _plain_targets, _plain_unsupported) for schema in schemas]
    for _ in range(2):  # the second time, from what was kept
        got = [_read(s, model_schemas._ref_targets, model_schemas.uses_unsupported) for s in schemas]
        assert got == expected


def _generator_instructions() -> list[str]:
    """Keys the model generator reads beyond JSON Schema: its own fields, and the `x-` keys it
    looks up by name (typed imports, base classes, enum member names)."""
    from datamodel_code_generator.parser.jsonschema import JsonSchemaObject  # noqa: PLC0415

    from mcpstub.keywords import KNOWN_2020_12, KNOWN_DRAFT_07  # noqa: PLC0415

    fields = {f.alias or n for n, f in JsonSchemaObject.model_fields.items()}
    looked_up = {"x-python-type", "x-python-import", "x-is-base-class", "x-is-classvar", "x-python-name"}
    return sorted((fields | looked_up) - KNOWN_2020_12 - KNOWN_DRAFT_07)


_INSTRUCTION_VALUES = st.one_of(
    st.sampled_from(["os.system", "os", "subprocess.Popen", "builtins.eval", "A", ""]),
    st.booleans(),
    st.lists(st.sampled_from(["os.system", "RED", "x y", None]), max_size=3),
    st.just({"type": "string"}),
    st.just({"module": "os", "name": "system"}),
)
_WHERE = ("root", "property", "items", "shared", "output")


def _with_key(where: str, key: str, value: Any) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(input schema, output schema, shared definitions) with `key: value` at one schema position."""
    extra = {} if where == "" else {key: value}
    shared = {"Color": {"type": "string", "enum": ["red", "blue"], **(extra if where == "shared" else {})}}
    items = {"type": "integer", **(extra if where == "items" else {})}
    prop = {"type": "string", "enum": ["a", "b"], **(extra if where == "property" else {})}
    schema = {
        "type": "object",
        "properties": {
            "name": prop,
            "tags": {"type": "array", "items": items},
            "color": {"$ref": "#/$defs/Color"},
        },
        **(extra if where == "root" else {}),
    }
    output = {"type": "object", "properties": {"n": {"type": "integer"}}}
    output.update(extra if where == "output" else {})
    return schema, output, shared


def _models_of(where: str, key: str, value: Any) -> str:
    schema, output, shared = _with_key(where, key, value)
    tool = make_tool("paint", schema, output, shared=("Color",))
    result = render_models(make_toolset(tool, shared_defs=shared))
    assert not [d for d in result.diagnostics if d.severity is Severity.ERROR], result.diagnostics
    return result.source


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    key=st.one_of(st.sampled_from(_generator_instructions()), st.from_regex(r"\Ax-[a-z-]{1,12}\Z")),
    value=_INSTRUCTION_VALUES,
    where=st.sampled_from(_WHERE),
)
def test_keys_outside_json_schema_never_change_the_models(key: str, value: Any, where: str) -> None:
    """No validator reads a vendor keyword, so neither do the models: the generator's own
    instructions (`customTypePath: os.system` would import `system` from `os` into models.py,
    `nullable` would admit null, `x-enum-varnames` would rename) are not followed."""
    assert _models_of(where, key, value) == _models_of("", key, value)


def test_a_schema_cannot_import_into_models_py() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"customTypePath": "os.system"},
            "b": {"type": "string", "x-python-type": "subprocess.Popen", "x-python-import": "subprocess"},
            "c": {"type": "object", "customBasePath": "os.PathLike", "properties": {"z": {"type": "string"}}},
        },
    }
    source = render_models(make_toolset(make_tool("evil", schema))).source
    imported = {line.split()[1] for line in source.splitlines() if line.startswith(("from ", "import "))}
    assert imported <= {"typing", "pydantic", "__future__"}, imported
    assert "os" not in source.split() and "arbitrary_types_allowed" not in source


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "object", "default": {}},
        {"type": "object", "default": {"x": 1, "y": [{"z": None}]}},
        {"type": "array", "items": {"type": "object"}, "default": [{"a": "b"}]},
        {"type": "object", "properties": {"n": {"type": "integer"}}, "default": {"n": 2}},
    ],
)
def test_a_json_object_default_is_the_only_field_call_and_imports(prop: dict[str, Any]) -> None:
    """A default holding a JSON object becomes `Field(default_factory=...)`, also when nothing else
    in models.py uses `Field`: the module imports and fills the default in."""
    schema = {"type": "object", "properties": {"opts": prop}}
    module = load(render_models(make_toolset(make_tool("conf", schema))))
    assert module.ConfInput.model_validate({}).model_dump(mode="json")["opts"] == prop["default"]


# ECMA-262 atoms that Python's `re` or pydantic's Rust engine read otherwise (Unicode `\s`, `\W`,
# `\D`, `\b`; `\cJ`; `$` before a final newline), and strings that tell them apart.
_REGEX_ATOMS = [r"\s", r"\S", r"\w", r"\W", r"\d", r"\D", r"\b", r"\B", r"\cJ", ".", "[^a]", "a", "é", "$"]
_ODD_CHARS = "a\n\r\u2028\ufeff\x85\u00a0é\u0661😀_ "


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    atoms=st.lists(st.sampled_from(_REGEX_ATOMS), min_size=1, max_size=4),
    quantifier=st.sampled_from(["", "+", "*"]),
    values=st.lists(st.text(alphabet=_ODD_CHARS, max_size=4), min_size=1, max_size=8),
)
def test_a_pattern_never_makes_a_model_refuse_what_the_schema_takes(
    atoms: list[str], quantifier: str, values: list[str]
) -> None:
    """`pattern` is ECMA-262; what the validator takes, the input and output models take too."""
    import jsonschema_rs  # noqa: PLC0415

    pattern = "".join(f"(?:{a}){quantifier}" if a != "$" else a for a in ["^", *atoms])
    prop = {"type": "string", "pattern": pattern}
    schema = {"type": "object", "properties": {"s": prop, "t": {"type": "array", "items": prop}}}
    module = load(render_models(make_toolset(make_tool("match", schema, schema))))
    validator = jsonschema_rs.Draft202012Validator(schema)
    for value in values:
        for instance in ({"s": value}, {"t": [value]}):
            if validator.is_valid(instance):
                module.MatchInput.model_validate(instance)
                module.MatchOutput.model_validate(instance)


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "integer", "multipleOf": 2, "default": 3},
        {"type": "string", "pattern": "^a$", "default": "b"},
        {"type": "array", "prefixItems": [{"type": "integer"}], "default": ["x"]},
        {"type": "object", "unevaluatedProperties": False, "default": {"x": 1}},
    ],
)
def test_a_default_the_schema_refuses_is_never_filled_in(prop: dict[str, Any]) -> None:
    """Also when the keyword it breaks is one the model leaves to the validator."""
    schema = {"type": "object", "properties": {"v": prop}}
    module = load(render_models(make_toolset(make_tool("fill", schema))))
    assert "v" not in module.FillInput.model_validate({}).model_dump()


_ANNOTATIONS = ["readOnly", "writeOnly", "deprecated", "examples", "example", "discriminator", "xml",
                "externalDocs", "contentMediaType", "contentEncoding", "contentSchema",
                "$comment"]  # fmt: skip


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    key=st.sampled_from(_ANNOTATIONS),
    value=st.one_of(
        st.just(True),
        st.sampled_from(["application/octet-stream", "base64", "os.system", '"""\n# type: ignore']),
        st.just(["a", {"b": 1}]),
        st.just({"propertyName": "name", "mapping": {"a": "http://127.0.0.1:9/x.json"}}),
        st.just({"type": "integer"}),
    ),
    where=st.sampled_from(_WHERE),
)
def test_annotations_never_change_the_models(key: str, value: Any, where: str) -> None:
    """No validator reads an annotation, so no model acts on one: `readOnly` froze a field,
    `deprecated` warned on every read, `discriminator` made a union refuse what `oneOf` takes,
    and the rest copied user data into models.py."""
    assert _models_of(where, key, value) == _models_of("", key, value)


def test_annotated_fields_behave_as_plain_ones() -> None:
    import warnings  # noqa: PLC0415

    branch = {"type": "object", "properties": {"kind": {"const": "a"}}, "required": ["kind"]}
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "readOnly": True},
            "old": {"type": "string", "deprecated": True},
            "pick": {"oneOf": [branch], "discriminator": {"propertyName": "missing"}},
        },
    }
    module = load(render_models(make_toolset(make_tool("annotated", schema, schema))))
    for model in (module.AnnotatedInput, module.AnnotatedOutput):
        value = model.model_validate({"id": 1, "old": "x", "pick": {"kind": "a"}})
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert value.old == "x"
        value.id = 2
        assert value.model_dump(mode="json") == {"id": 2, "old": "x", "pick": {"kind": "a"}}


_PROTECTED_NAMES = ["model_dump", "model_dump_path", "model_dump_", "model_validate", "model_validated",
                    "model_validate_json", "modelDumpPath", "ModelValidate", "model_name", "field_model_dump",
                    "\uff4dodel_dump", "copy", "name"]  # fmt: skip


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.sampled_from(_PROTECTED_NAMES), min_size=1, max_size=6, unique=True))
def test_no_property_name_makes_pydantic_warn_on_import(names: list[str]) -> None:
    """A property named in pydantic's protected namespaces (`model_dump_path`) gets a field name
    of its own: models.py imports without a warning, and every property is its own field."""
    import warnings  # noqa: PLC0415

    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in names}}
    result = render_models(make_toolset(make_tool("named", schema, schema)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = load(result)
        for model in (module.NamedInput, module.NamedOutput):
            value = model.model_validate({n: i for i, n in enumerate(names)})
            assert value.model_dump(by_alias=True) == {n: i for i, n in enumerate(names)}


_SCALARS = [0, 1, 0.0, 1.0, 1.5, -1, True, False, "1", None]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    members=st.lists(st.sampled_from(_SCALARS), min_size=1, max_size=4),
    beside=st.sampled_from([None, "boolean", "integer", "number"]),
    as_const=st.booleans(),
)
def test_booleans_and_numbers_in_enums_stay_apart(
    members: list[Any], beside: str | None, as_const: bool
) -> None:
    """JSON tells true from 1: a value an enum or const takes comes out as the same JSON value
    (numbers by value), also beside a boolean or number type; pydantic's Literal took 1.0 as
    true beside 1, and true as 1 beside a boolean type."""
    import jsonschema_rs  # noqa: PLC0415

    prop: dict[str, Any] = {"const": members[0]} if as_const else {"enum": members}
    if beside is not None:
        prop = {"anyOf": [prop, {"type": beside}]}
    schema = {"type": "object", "properties": {"v": prop}}
    result = render_models(make_toolset(make_tool("pick", schema, schema)))
    module = load(result)
    validator = jsonschema_rs.Draft202012Validator(schema)
    for value in _SCALARS:
        if not validator.is_valid({"v": value}):
            continue
        for model in (module.PickInput, module.PickOutput):
            dumped = model.model_validate({"v": value}).model_dump(mode="json")["v"]
            assert canon(dumped) == canon(value), (value, dumped, result.source)


_CASED_NAMES = ["name", "Name", "NAME", "any", "Any", "é", "É", "copy", "copy_", "id", "Id", "ID", "_id",
                "field_id", "HTTPServer", "http_server", "httpServer", "MISSING", "missing", "x", "class",
                "Class", "CLASS", "json", "Json", "from", "From", "from_", "from__1", "in", "In",
                "in_1", "name_1", "Name_1", "a", "A", "a_1", "A_1", "a_2", "a-2", "name-1"]  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=st.lists(st.sampled_from(_CASED_NAMES), min_size=1, max_size=6, unique=True))
def test_a_property_named_as_a_plain_field_is_that_field(names: list[str]) -> None:
    """`args.name` is the property `name`, also beside `Name` (which the model generator spells
    `name` too, and which came first): it took `name` and left `name_1` to `name`. Likewise
    `args.class_` is `class` beside `Class`, and `args.json_` is `json` beside `Json`."""
    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in names}}
    result = render_models(make_toolset(make_tool("cased", schema, schema)))
    module = load(result)
    for model in (module.CasedInput, module.CasedOutput):
        value = model.model_validate({n: i for i, n in enumerate(names)})
        assert value.model_dump(by_alias=True) == {n: i for i, n in enumerate(names)}
        for i, name in enumerate(names):
            plain = name.isidentifier() and name == name.lower() and not name.startswith("_")
            if plain and name not in dir(BaseModel) and not keyword.iskeyword(name):
                assert getattr(value, name) == i, (name, result.source)
            elif plain and f"{name}_" not in names and (keyword.iskeyword(name) or name in ("json", "copy")):
                assert getattr(value, f"{name}_") == i, (name, result.source)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.lists(st.sampled_from(_CASED_NAMES), min_size=2, max_size=6, unique=True),
    order=st.randoms(use_true_random=False),
)
def test_field_names_do_not_depend_on_the_order_properties_are_written_in(
    names: list[str], order: Any
) -> None:
    """Reordering properties changes nothing on the wire: `args.name_1` must stay the property it
    was (`Name` and `NAME` both `str`, a swap would pass mypy unseen)."""

    def fields(written: list[str]) -> dict[str, str]:
        schema = {"type": "object", "properties": {n: {"type": "integer"} for n in written}}
        model = load(render_models(make_toolset(make_tool("ordered", schema, None)))).OrderedInput
        return {field.alias or name: name for name, field in model.model_fields.items()}

    shuffled = list(names)
    order.shuffle(shuffled)
    assert fields(names) == fields(shuffled), (names, shuffled)


@pytest.mark.parametrize(
    "names",
    [["name", "Name", "Name_1"], ["name_1", "Name", "name"], ["Name", "NAME", "name_1"],
     ["a", "A", "a_1", "a_2", "A_1"], ["A", "a_1", "a", "a-2"], ["_x", "field-x"], ["-", "_", "field"],
     ["json", "json-", "Json"]],
)
def test_field_names_are_one_in_every_order_of_these(names: list[str]) -> None:
    # (sets found after the rule above was written: the generator's leftover names, or a lone
    # property's own numbered one, depended on the order; `a-2` was named `a_2` beside the `a_2` the
    # generator gave `A` or `a` in some orders, and the models failed)
    def fields(written: tuple[str, ...]) -> dict[str, str]:
        schema = {"type": "object", "properties": {n: {"type": "string"} for n in written}}
        model = load(render_models(make_toolset(make_tool("every", schema, None)))).EveryInput
        return {field.alias or name: name for name, field in model.model_fields.items()}

    assert len({json.dumps(fields(order), sort_keys=True) for order in itertools.permutations(names)}) == 1


@pytest.mark.parametrize(
    "names",
    [["a__1", "a_1", "a", "A", "a_2", "a 2", "A-2"], ["A_1", "a", "A", "a__1", "a1", "a-2", "a-1"],
     ["x", "X", "x-1", "x_1", "x-2", "x_2_1", "x-2-1"], ["class", "Class", "class-1", "class_1", "Class-2"]],
)
def test_a_property_spelt_as_a_name_the_generator_numbers_is_a_field_of_its_own(names: list[str]) -> None:
    """The generator numbers a name taken before it (`A` beside `a` and `a_1` is `a_2`, and `a_2`
    then `a_2_1`): a name chosen for a property that is no identifier (`a-2`, `a 2`) is none of
    those, in any order (the models failed: "Alias 'a_2' for field 'a-2' conflicts")."""
    said = set()
    for order in (names, names[::-1], sorted(names), names[1:] + names[:1]):
        schema = {"type": "object", "properties": {n: {"type": "string"} for n in order}}
        model = load(render_models(make_toolset(make_tool("every", schema, None)))).EveryInput
        value = {n: str(i) for i, n in enumerate(names)}
        assert model.model_validate(value).model_dump(by_alias=True) == value
        fields = {f.alias or name: name for name, f in model.model_fields.items()}
        said.add(json.dumps(fields, sort_keys=True))
    assert len(said) == 1, said


@pytest.mark.parametrize(
    "names",
    [["json", "json-"], ["mro", "mro-"], ["model_fields", "model-fields"], ["_1", "1"], ["_1a", "1a"],
     ["_a", "field-a"], ["_class", "field-class"], ["_", "Field", " "], ["", "_", "-"], ["İ", "\u2160", "i"],
     ["İ", "i_"], ["I_", "İ"], ["i\u0307", "İ"], ["İ", "I_", "i_", "i", "i\u0307", "aİ", "ai_"]],
)  # fmt: skip
def test_a_name_chosen_where_the_generator_spells_another_its_own_way_is_chosen_again(
    names: list[str],
) -> None:
    """The model generator spells some names its own way (`json` is `json_`, `_a` is `field_a`,
    `İ` is `i̇` and then `i_`): a name chosen for a property that is no identifier and that it gives
    another property is refused by it, and chosen again; the models failed (or, for `İ` beside
    `i_`, gave both one field: the first property's value was taken as the second's)."""
    for order in (names, names[::-1]):
        schema = {"type": "object", "properties": {n: {"type": "string"} for n in order}}
        result = render_models(make_toolset(make_tool("every", schema, None)))
        assert not result.diagnostics, result.diagnostics
        value = {n: str(i) for i, n in enumerate(names)}
        model = load(result).EveryInput
        assert model.model_validate(value).model_dump(by_alias=True) == value
        wire = [name if field.alias is None else field.alias for name, field in model.model_fields.items()]
        assert sorted(wire) == sorted(names)  # (one field each)


def test_no_property_spelt_as_a_pydantic_attribute_gives_a_field_pydantic_warns_of() -> None:
    """A property whose name is no identifier and reads as an attribute of pydantic's models, or of
    their class's (`mro-`, `register-`), alone in its tool: its field shadows none (pydantic warned
    as the package was imported, "Field name "mro" ... shadows an attribute in parent")."""
    import warnings  # noqa: PLC0415

    names = sorted(n for n in {*dir(BaseModel), *dir(type(BaseModel))} if not n.startswith("_"))
    assert {"mro", "register", "copy", "model_dump"} <= set(names)
    schemas = [{"type": "object", "properties": {f"{name}-": {}}} for name in names]
    tools = [make_tool(f"t{i}", schema, None) for i, schema in enumerate(schemas)]
    result = render_models(make_toolset(*tools))
    assert not result.diagnostics, result.diagnostics
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        module = load(result)
    for i, name in enumerate(names):
        model = getattr(module, f"T{i}Input")
        assert model.model_validate({f"{name}-": 1}).model_dump(by_alias=True) == {f"{name}-": 1}


@pytest.mark.parametrize("name", ["properties", "definitions", "patternProperties", "items", "allOf"])
def test_a_definition_named_as_a_keyword_is_a_typed_class(name: str, tmp_path: Path) -> None:
    # `#/$defs/properties` names a definition, a schema; only `#/properties` itself names none
    # (the model fell back to accepting anything).
    definition = {"type": "string", "maxLength": 4}
    schema = {"type": "object", "properties": {"p": {"$ref": f"#/$defs/{name}"}}, "$defs": {name: definition}}
    result = render_models(make_toolset(make_tool("t", schema, None)))
    assert not result.diagnostics, result.diagnostics
    model = load(result).TInput
    assert model.model_validate({"p": "abcd"}).model_dump() == {"p": "abcd"}
    with pytest.raises(ValidationError):
        model.model_validate({"p": "abcde"})
    # and a definition of the toolset, or of another file, of that name
    from mcpstub.pipeline import generate  # noqa: PLC0415

    (tmp_path / "common.json").write_text(json.dumps({"$defs": {name: definition}}))
    refs = {"p": {"$ref": f"#/$defs/{name}"}, "q": {"$ref": f"common.json#/$defs/{name}"}}
    toolset = {"mcpstub": 1, "server": {"name": "s"}, "$defs": {name: definition},
               "tools": [{"name": "t", "inputSchema": {"type": "object", "properties": refs}}]}  # fmt: skip
    (tmp_path / "tools.json").write_text(json.dumps(toolset))
    generated = generate(tmp_path / "tools.json")
    assert generated.ok and not generated.diagnostics, generated.diagnostics


@pytest.mark.parametrize("name", ["properties", "definitions"])
def test_a_draft_07_dependency_named_as_a_keyword_is_a_schema(name: str) -> None:
    # `#/dependencies/properties` is the dependency of a property named so: a schema.
    d7 = "http://json-schema.org/draft-07/schema#"
    schema = {"$schema": d7, "type": "object", "properties": {"p": {"$ref": f"#/dependencies/{name}"}},
              "dependencies": {name: {"type": "object", "required": ["z"]}}}  # fmt: skip
    result = render_models(make_toolset(make_tool("t", schema, None)))
    assert not result.diagnostics, result.diagnostics


@pytest.mark.parametrize(
    ("properties", "expected"),
    [
        (["Step 2", "step 1"], {"Step 2": "step_2", "step 1": "step_1"}),  # (no clash: names as spelt)
        (["Item-2", "item-1"], {"Item-2": "item_2", "item-1": "item_1"}),
        (["Content-Type", "content_type", "page_1"],
         {"Content-Type": "content_type_", "content_type": "content_type", "page_1": "page_1"}),
        (["A", "a_1", "a"], {"A": "a_2", "a_1": "a_1", "a": "a"}),
    ],
)  # fmt: skip
def test_names_that_do_not_clash_are_kept_whatever_else_is_numbered(
    properties: list[str], expected: dict[str, str]
) -> None:
    # (renumbering by spelling gave `Step 2` the field step_1; a numbered name anywhere in the
    # models renamed `Content-Type` to content_type_1)
    schema = {"type": "object", "properties": {n: {"type": "integer"} for n in properties}}
    other = {"type": "object", "properties": {"page_1": {"type": "integer"}, "Page": {"type": "integer"}}}
    toolset = make_toolset(make_tool("kept", schema, None), make_tool("other", other, None))
    models = load(render_models(toolset))
    assert {field.alias or name: name for name, field in models.KeptInput.model_fields.items()} == expected


@pytest.mark.parametrize(
    "rule",
    [
        {"maxProperties": 1},
        {"dependentRequired": {"a": ["c"]}},
        {"not": {"required": ["a", "b"]}},
        {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
        {"if": {"required": ["a"]}, "then": {"required": ["c"]}},
    ],
)
def test_a_default_never_makes_a_valid_object_invalid(rule: dict[str, Any]) -> None:
    """A default filled in is one more property: where the object counts what is present, a
    valid value stays valid (as output, it would have failed its own check)."""
    import jsonschema_rs  # noqa: PLC0415

    shared = {"Mode": {"type": "string", "default": "x"}}
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "default": "x"}, "b": {"type": "string"}, "c": {}},
        **rule,
    }
    schema["properties"]["m"] = {"$ref": "#/$defs/Mode"}
    schema["$defs"] = shared  # as bundled
    tool = make_tool("count", schema, schema, shared=("Mode",))
    result = render_models(make_toolset(tool, shared_defs=shared))
    assert not result.diagnostics
    module = load(result)
    validator = jsonschema_rs.Draft202012Validator(schema)
    for model in (module.CountInput, module.CountOutput):
        dumped = model.model_validate({"b": "y"}).model_dump(mode="json", by_alias=True)
        assert validator.is_valid(dumped), dumped


@pytest.mark.parametrize("branches", [2, 3, 6])
@pytest.mark.parametrize("combinator", ["anyOf", "oneOf"])
def test_an_object_of_combinators_only_is_an_open_class_however_long_its_alias(
    branches: int, combinator: str
) -> None:
    """An object-rooted tool schema made only of object branches comes out of the generator as a
    type alias, over several lines once it is long; it becomes one open model class."""
    options = [
        {"type": "object", "properties": {f"p{i}": {"type": "string"}}, "required": [f"p{i}"]}
        for i in range(branches)
    ]
    tool = make_tool("a_tool", {"type": "object", combinator: options})
    result = render_models(make_toolset(tool))
    assert not result.diagnostics, result.diagnostics
    module = load(result)
    model = module.AToolInput
    assert issubclass(model, BaseModel)
    value = {"p1": "x", "other": 1}
    assert model.model_validate(value).model_dump(exclude_unset=True) == value


def test_wide_number_enums_beside_booleans_generate_in_linear_time() -> None:
    """A Literal's members are spelled from lines split once per source: spelling each member
    from a fresh split of the whole source made a 4,000-member enum beside a boolean take minutes."""
    import time  # noqa: PLC0415

    wide = list(range(4000))
    schema = {
        "type": "object",
        "properties": {
            "guarded": {"enum": [*wide, True]},  # numbers beside a boolean: guarded
            "plain": {"enum": wide},
            "flag": {"type": "boolean"},
        },
    }
    started = time.perf_counter()
    result = render_models(make_toolset(make_tool("wide", schema)))
    elapsed = time.perf_counter() - started
    assert not result.diagnostics, result.diagnostics
    module = load(result)
    assert module.WideInput.model_validate({"guarded": True, "plain": 3999}).guarded is True
    assert elapsed < 20, f"{elapsed:.1f} s"


@pytest.mark.parametrize(
    "source",
    [
        "from a import b\nimport c\n\n\nclass X:\n    pass\n",
        "from a import (\n    b,\n    c,\n)\n# a comment\nfrom d import e\n\nX = 1\n",
        "class X:\n    pass\n",
        "from a import b\n",
        "",
        'from a import b\nX = """\nfrom c import d\n"""\nimport e\n',
        "from a import b\nif True:\n    import c\nimport d\n",
    ],
)
def test_helpers_go_after_the_imports_the_module_starts_with(source: str) -> None:
    # Where the imports end is found by parsing only them: the same place a whole parse finds.
    tree = ast.parse(source)
    last = 0
    for node in tree.body:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        last = node.end_lineno or node.lineno
    assert model_source._imports_end(source.split("\n")) == last


@pytest.mark.parametrize("local", [False, True], ids=["shared", "local"])
def test_an_all_of_with_a_typed_branch_is_a_model_of_that_type(tmp_path: Path, local: bool) -> None:
    """`allOf: [{$ref: Node}, {properties: ...}]`: every instance is an object (Node's type), so
    the field is the class alone, not a union of every JSON type; it still takes what the
    schema takes, and refuses a string, as the schema does."""
    from mcpstub.pipeline import check_toolset  # noqa: PLC0415

    node = "{type: object, properties: {name: {type: string}}, required: [name]}"
    defs = f"      $defs:\n        Node: {node}\n" if local else ""
    (tmp_path / "tools.yaml").write_text(
        "mcpstub: 1\nserver: {name: s}\n"
        + ("" if local else f"$defs:\n  Node: {node}\n")
        + "tools:\n  - name: tree\n    inputSchema:\n      type: object\n      properties:\n"
        "        both: {allOf: [{$ref: '#/$defs/Node'}, {properties: {extra: {type: boolean}}}]}\n"
        "        typed: {allOf: [{type: integer}, {}]}\n" + defs,
        "utf-8",
    )
    checked = check_toolset(tmp_path / "tools.yaml")
    assert checked.toolset is not None, checked.diagnostics
    result = render_models(checked.toolset)
    assert not result.diagnostics, result.diagnostics
    module = load(result)
    assert re.search(r"\n    both: \w+ \| MISSING = MISSING\n", result.source), result.source
    assert_round_trips(module.TreeInput, {"both": {"name": "n", "extra": True, "more": 1}, "typed": 3})
    for refused in ({"both": "a string"}, {"typed": "x"}):
        with pytest.raises(ValidationError):
            module.TreeInput.model_validate(refused)


def test_a_model_fallback_is_said_where_the_schema_is_written(tmp_path: Path) -> None:
    """The models are made without the document; the warning is placed at the tool's schema (and
    a shared definition's at the definition), the same from the model cache as cold."""
    from mcpstub.pipeline import generate  # noqa: PLC0415

    (tmp_path / "tools.yaml").write_text(
        "mcpstub: 1\nserver: {name: s}\n$defs:\n"
        "  Dyn: {$dynamicAnchor: y, type: object, properties: {n: {$dynamicRef: '#y'}}}\n"
        "tools:\n  - name: a\n    inputSchema: {type: object, properties: {x: {$ref: '#/$defs/Dyn'}}}\n"
        "  - name: b\n    inputSchema:\n      $dynamicAnchor: x\n      type: object\n"
        "      properties: {d: {$dynamicRef: '#x'}}\n    outputSchema:\n      $dynamicAnchor: x\n"
        "      type: object\n      properties: {e: {$dynamicRef: '#x'}}\n",
        "utf-8",
    )
    for _ in range(2):  # cold, then from the cache
        done = generate(tmp_path / "tools.yaml", "tools.yaml", cache_dir=tmp_path / "cache")
        placed = [(d.location.line, d.location.col, d.message.split(":")[0]) for d in done.diagnostics
                  if d.code == "models-fallback"]  # fmt: skip
        dyn = (4, 3, "shared definition 'Dyn'")
        assert placed == [dyn, (7, 5, "tool 'a'"), (9, 5, "tool 'b'"), (13, 5, "tool 'b'")], placed


@pytest.mark.parametrize(
    "start", ["", "from typing import (\n    Any,\n)\n\n", "from decimal import Decimal\n\n"]
)
def test_imports_added_in_any_order_stand_in_one_order(start: str) -> None:
    # (a models module is made along two paths, which add them in different orders: the bytes
    # differed, `from typing` above `from decimal`)
    source = start + "from pydantic import BaseModel\n\n\nclass A(BaseModel):\n    x: int\n"
    wanted = [("decimal", ["Decimal"]), ("typing", ["Annotated"]), ("pydantic", ["Field"])]
    made = set()
    for order in itertools.permutations(wanted):
        text = source
        for module, names in order:
            text = model_source.add_imports(text, module, names)
        made.add(text)
    assert len(made) == 1
    head = made.pop().split("\n\n\n")[0]
    standard = r"from decimal import Decimal\nfrom typing import [^\n]*(\n[^\n]*)*?"
    assert re.fullmatch(standard + r"\n\nfrom pydantic .*", head, re.S), head
