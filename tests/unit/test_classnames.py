"""Class names are unique by construction: toolsets whose derived class names would clash generate,
each tool bound to the classes of its own schemas, the same bytes in one call or in groups."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from mcpstub.classnames import IMPORTED, Namer, class_name, extending, imported_free, root_names
from mcpstub.engine import model_groups
from mcpstub.engine.model_groups import start_models
from mcpstub.ir import Toolset
from mcpstub.model_merge import split_source
from mcpstub.models import render_models
from mcpstub.pipeline import check_toolset
from tests.unit.test_models import load

S = {"type": "string"}
I = {"type": "integer"}  # noqa: E741


def obj(required: bool = True, **props: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = sorted(props)
    return schema


def arr(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


def tool(
    name: str, input_schema: dict[str, Any], output_schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "inputSchema": input_schema}
    if output_schema is not None:
        entry["outputSchema"] = output_schema
    return entry


def checked(folder: Path, tools: list[dict[str, Any]], defs: dict[str, Any] | None = None) -> Toolset:
    doc: dict[str, Any] = {"mcpstub": 1, "server": {"name": "s"}, "tools": tools}
    if defs:
        doc["$defs"] = defs
    path = folder / "tools.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    result = check_toolset(path)
    assert result.toolset is not None, [d.format() for d in result.diagnostics]
    return result.toolset


def grouped(toolset: Toolset) -> str:
    """The models as the cache builds them: one tool per group, merged."""
    saved = model_groups.GROUP_MAX, model_groups.WORKERS
    model_groups.GROUP_MAX, model_groups.WORKERS = 1, False
    try:
        return start_models(toolset, None).result().source
    finally:
        model_groups.GROUP_MAX, model_groups.WORKERS = saved


def definitions(source: str) -> dict[tuple[str, ...], str]:
    """Every class and alias of a models module, by name."""
    return {names: text for kind, names, text in split_source(source) if kind in {"class", "alias"}}


def wire(model: type[BaseModel]) -> set[str]:
    return {f.alias or n for n, f in model.model_fields.items()}


def assert_bound(value: Any, schema: Any, instance: Any, where: str) -> None:
    """`value` (parsed from `instance`) is made of the classes generated from `schema`."""
    if not isinstance(schema, dict):
        return
    if "allOf" in schema:  # objects only: the merged class has every part's properties
        merged: dict[str, list[Any]] = {}
        for part in schema["allOf"]:
            for k, v in part.get("properties", {}).items():
                merged.setdefault(k, []).append(v)
        props = {k: v[0] if len(v) == 1 else {"allOf": v} for k, v in merged.items()}
        assert_bound(value, {"type": "object", "properties": props}, instance, where)
    elif "anyOf" in schema:
        branches = [b for b in schema["anyOf"] if b.get("type") == "object"]
        branch = next(b for b in branches if set(b["properties"]) == set(instance))
        assert_bound(value, branch, instance, where)
    elif schema.get("type") == "object" and schema.get("properties"):
        assert isinstance(value, BaseModel), where
        assert wire(type(value)) == set(schema["properties"]), f"{where}: {type(value).__name__}"
        by_alias = {f.alias or n: n for n, f in type(value).model_fields.items()}
        for name, sub in schema["properties"].items():
            if name in instance:
                assert_bound(getattr(value, by_alias[name]), sub, instance[name], f"{where}.{name}")
    elif schema.get("type") == "array":
        for i, (item, raw) in enumerate(zip(value, instance, strict=True)):
            assert_bound(item, schema["items"], raw, f"{where}[{i}]")


def inline(schema: Any, defs: dict[str, Any]) -> Any:
    """A schema with its references to shared definitions replaced by them (none are recursive)."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return inline(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: inline(v, defs) for k, v in schema.items()}
    if isinstance(schema, list):
        return [inline(v, defs) for v in schema]
    return schema


def deep_merge(values: list[Any]) -> Any:
    """One object with the members of all, objects under one name merged too."""
    if not all(isinstance(v, dict) for v in values):
        return values[-1]
    keys = dict.fromkeys(k for v in values for k in v)
    return {k: deep_merge([v[k] for v in values if k in v]) for k in keys}


def instance_of(schema: dict[str, Any], seed: int = 0) -> Any:
    """A value of a schema made of `obj`, `arr`, anyOf of objects, strings and integers."""
    if "allOf" in schema:
        return deep_merge([instance_of(part, seed) for part in schema["allOf"]])
    if "anyOf" in schema:
        return instance_of(schema["anyOf"][seed % len(schema["anyOf"])], seed)
    kind = schema.get("type")
    if kind == "object":
        return {k: instance_of(v, seed + i) for i, (k, v) in enumerate(schema.get("properties", {}).items())}
    if kind == "array":
        return [instance_of(schema["items"], seed), instance_of(schema["items"], seed + 1)]
    return seed if kind == "integer" else f"v{seed}"


def assert_generates_and_binds(
    folder: Path, tools: list[dict[str, Any]], defs: dict[str, Any] | None = None
) -> Any:
    toolset = checked(folder, tools, defs)
    result = render_models(toolset)
    assert [d.format() for d in result.diagnostics if d.is_error] == []
    # Grouped, each tool generated on its own, every class has the same name and text.
    assert definitions(grouped(toolset)) == definitions(result.source)
    # Every class is named after the root it belongs to: a tool's class or a shared definition.
    roots = tuple(class_name(r) for r in root_names(toolset))  # `<name>Model` starts with `<name>`
    for names in definitions(result.source):
        assert all(n.startswith(roots) or n.startswith("_") for n in names), names
    module = load(result)
    for entry, ir in zip(tools, toolset.tools, strict=True):
        for raw, name in (
            (entry["inputSchema"], ir.input_class),
            (entry.get("outputSchema"), ir.output_class),
        ):
            if raw is None or name is None:
                continue
            schema = inline(raw, defs or {})
            model = getattr(module, name)
            for seed in range(3):
                value = instance_of(schema, seed)
                parsed = model.model_validate(value)
                assert parsed.model_dump(by_alias=True, mode="json") == value
                assert_bound(parsed, schema, value, f"{entry['name']}:{name}")
    for name, schema in (defs or {}).items():
        if schema.get("type") == "object":
            value = instance_of(schema)
            spelled = class_name(name)
            model = getattr(module, spelled + "Model" if spelled in IMPORTED else spelled)
            assert_bound(model.model_validate(value), schema, value, name)
    return module


HOSTILE: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {
    "nested input takes a tool's input class": (
        [tool("foo", obj(input=obj(a=S))), tool("foo_input", obj(b=I))],
        {},
    ),
    "the longer tool first": (
        [tool("foo_input", obj(b=I, input=obj(z=I))), tool("foo", obj(input=obj(a=S), b=obj(c=S)))],
        {},
    ),
    "three levels spell another tool and its nested class": (
        [
            tool("a", obj(b=obj(input=obj(c=obj(d=S))))),
            tool("a_input_b", obj(c=obj(e=I))),
            tool("a_b", obj(f=I)),
        ],
        {},
    ),
    "camel and snake spellings": (
        [tool("foo", obj(barInput=obj(x=S), bar_input=obj(y=S))), tool("foo-input-bar", obj(z=I))],
        {},
    ),
    "a shared definition named like a nested class": (
        [tool("foo", obj(bar=obj(a=S), point={"$ref": "#/$defs/FooInputBar"}))],
        {"FooInputBar": obj(x=I, y=I)},
    ),
    "a shared definition whose nested class is a tool's class": (
        [tool("foo", obj(a=S)), tool("thing", obj(t={"$ref": "#/$defs/Foo"}))],
        {"Foo": obj(input=obj(q=S))},
    ),
    "a shared definition whose class name is not its key": (
        [tool("field_x", obj(y=obj(b=I))), tool("t", obj(u={"$ref": "#/$defs/_x"}))],
        {"_x": obj(input_y=obj(a=S))},
    ),
    "shared definitions named like what models.py imports": (
        [
            tool("t", obj(s={"$ref": "#/$defs/StrictStr"}, b={"$ref": "#/$defs/BaseModel"}, **{"class": S})),
            tool("base_model_model", obj(input=obj(c=I))),
        ],
        {"StrictStr": obj(a=S), "BaseModel": obj(input=obj(b=I))},
    ),
    "arrays and anyOf branches of objects": (
        [
            tool("list", obj(input=arr(obj(a=S)), pick={"anyOf": [obj(p=S), obj(q=I)]})),
            tool("list_input", obj(b=I), obj(r=S)),
            tool("list_input_input_item", obj(c=I)),
            tool("list_input_pick", obj(d=I)),
        ],
        {},
    ),
    "output nesting against input and output classes": (
        [
            tool("foo", obj(a=S), obj(output=obj(x=S), input=arr(obj(y=I)))),
            tool("foo_output", obj(b=I), obj(z=S)),
            tool("foo_output_input", obj(c=I)),
        ],
        {},
    ),
    "keyword and non-ASCII property names": (
        [
            tool("foo", obj(**{"class": obj(a=S), "ünï": obj(b=S), "input": obj(c=S)})),
            tool("foo_input_class", obj(d=I)),
            tool("foo_input", obj(e=I)),
        ],
        {},
    ),
    "merged allOf in two tools and a shared definition of its name": (
        [
            tool("one", obj(zzz={"allOf": [obj(h=S), obj(i=S)]})),
            tool("two", obj(zzz={"allOf": [obj(j=I)]})),
            tool("three", obj(z={"$ref": "#/$defs/Zzz"})),
        ],
        {"Zzz": obj(k=S)},
    ),
    "classes inside merged allOfs": (
        [
            tool("one", obj(m={"allOf": [obj(z=obj(a=S)), obj(w=S)]}), obj(o={"allOf": [obj(z=obj(c=S))]})),
            tool("two", obj(m={"allOf": [obj(z=obj(b=I), y=arr(obj(d=I)))]})),
            # One property in two parts: a map in one, an object in the other, merged into one class.
            tool(
                "three",
                obj(
                    m={
                        "allOf": [
                            obj(z={"type": "object", "additionalProperties": I}),
                            obj(z=obj(f=I)),
                        ]
                    }
                ),
            ),
        ],
        {},
    ),
    "one property declared by two merged parts": (
        [
            tool("one", obj(m={"allOf": [obj(z=obj(a=S)), obj(z=obj(b=I), w=S)]})),
            tool("two", obj(m={"allOf": [obj(z=obj(c=S)), obj(z=obj(d=I))]}), obj(z=S)),
        ],
        {"Z": obj(k=S)},
    ),
    "nested names that are the marker words": (
        [
            tool("foo", obj(input=obj(a=S), nested_input=obj(b=S))),
            tool("foo_input", obj(c=I)),
            tool("foo_input_nested_input", obj(d=I)),
        ],
        {},
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_shapes_generate_each_tool_bound_to_its_own_schema(tmp_path: Path, case: str) -> None:
    tools, defs = HOSTILE[case]
    module = assert_generates_and_binds(tmp_path, tools, defs)
    # No class was renamed by the model generator (`Name1` beside `Name`): every name was free.
    names = {n for n, v in vars(module).items() if isinstance(v, type) and v.__module__ == module.__name__}
    assert not [n for n in names if n.endswith("1") and n[:-1] in names]


def test_an_allof_of_true_alone_is_named_after_its_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The generator names such an allOf after its property alone: three tools each had a `Value`,
    # their groups defined it differently, and the whole toolset was generated in one call.
    shapes = [
        {"allOf": [True, True]},
        {"allOf": [True], "unevaluatedItems": False},
        {"properties": {"foo": S}, "allOf": [True], "unevaluatedProperties": False},
    ]
    toolset = checked(tmp_path, [tool(f"t{i}", obj(value=shape)) for i, shape in enumerate(shapes)])
    monkeypatch.setattr(model_groups, "GROUP_MAX", 1)
    monkeypatch.setattr(model_groups, "WORKERS", False)
    pending = start_models(toolset, None)
    source = pending.result().source
    assert pending.merged, "the groups' models clashed"
    assert definitions(source) == definitions(render_models(toolset).source)
    assert not [names for names in definitions(source) if not names[0].startswith(("T", "_"))]


def test_a_nested_class_that_would_take_a_tool_class_is_named_apart(tmp_path: Path) -> None:
    module = assert_generates_and_binds(
        tmp_path, [tool("foo", obj(input=obj(a=S))), tool("foo_input", obj(b=I))]
    )
    assert wire(module.FooInputInput) == {"b"}
    assert wire(module.FooInputNestedInput) == {"a"}
    assert module.FooInput.model_fields["input"].annotation is module.FooInputNestedInput


def test_class_names_of_a_toolset_without_clashes_are_the_generators(tmp_path: Path) -> None:
    module = assert_generates_and_binds(
        tmp_path,
        [tool("foo", obj(input=obj(a=S), items=arr(obj(b=S)))), tool("bar", obj(c=S), obj(d=obj(e=S)))],
    )
    for name in ("FooInputInput", "FooInputItem", "BarOutputD"):
        assert isinstance(getattr(module, name), type)


def test_names_avoid_every_longer_root() -> None:
    roots = ["FooInput", "FooInputInput", "FooInputNestedInput", "FooInputInnerInput", "FooInputNInput"]
    namer = Namer(roots)
    taken: set[str] = set(roots)
    name = namer.fresh("FooInput", "FooInputInput", taken)
    assert not any(name.casefold().startswith(r.casefold()) for r in roots[1:])
    assert name.startswith("FooInput") and name not in roots
    # A root that is every marker's start still gets a name no other root starts.
    crowd = ["FooInput", "FooInputA", "FooInputN", "FooInputI", "FooInputS", "FooInputV"]
    other = Namer(crowd).fresh("FooInput", "FooInputAb", set(crowd))
    assert not any(other.casefold().startswith(r.casefold()) for r in crowd[1:])
    assert extending(["Foo"], ["FooBar", "Bar", "foo_baz", "Foo"]) == {"FooBar", "foo_baz"}


_WORDS = st.sampled_from(["foo", "input", "output", "bar", "item", "nested", "x"])
_NAME = st.lists(_WORDS, min_size=1, max_size=3).map("_".join)


@st.composite
def _schema(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    names = draw(st.lists(_NAME, min_size=1, max_size=3, unique=True))
    props: dict[str, Any] = {}
    for name in names:
        kind = draw(st.sampled_from(["s", "i", "obj", "arr", "any"] if depth < 2 else ["s", "i"]))
        if kind == "obj":
            props[name] = draw(_schema(depth + 1))
        elif kind == "arr":
            props[name] = arr(draw(_schema(depth + 1)))
        elif kind == "any":
            props[name] = {"anyOf": [obj(**{f"{name}_a": S}), obj(**{f"{name}_b": I})]}
        else:
            props[name] = S if kind == "s" else I
    return obj(**props)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    tools=st.lists(
        st.tuples(_NAME, _schema(), st.none() | _schema()), min_size=1, max_size=5, unique_by=lambda t: t[0]
    ),
    shared=st.lists(
        st.sampled_from(["FooInputBar", "FooInput", "Foo", "BarOutputX", "InputItem"]), unique=True
    ),
)
def test_random_clashing_names_generate_bound_and_identically_grouped(
    tmp_path_factory: pytest.TempPathFactory, tools: list[Any], shared: list[str]
) -> None:
    folder = tmp_path_factory.mktemp("hostile")
    entries = [tool(name, schema, output) for name, schema, output in tools]
    defs = {name: obj(**{f"s_{name}": S}) for name in shared}
    uses = obj(**{n: {"$ref": f"#/$defs/{n}"} for n in shared})
    doc_tools = [*entries, tool("uses_shared", uses)] if shared else entries
    path = folder / "tools.json"
    path.write_text(json.dumps({"mcpstub": 1, "server": {"name": "s"}, "$defs": defs, "tools": doc_tools}))
    result = check_toolset(path)
    if result.toolset is None:  # tool names that map to one Python name, or a shared def's name
        assert {d.code for d in result.diagnostics if d.is_error} <= {"name-collision"}
        return
    assert_generates_and_binds(folder, doc_tools, defs)


# A recursive nullable definition: its alias needs `Optional`/`Union` (forward references).
NULLABLE_JSON = {"anyOf": [S, {"type": "null"}, arr({"$ref": "#/$defs/Json"})]}


def imported_names_toolset(names: list[str]) -> dict[str, Any]:
    """A toolset where each name models.py imports is a shared definition, a nested class (a
    definition named like its head with a property spelling the rest), a tool and a property,
    beside a recursive nullable definition."""
    defs: dict[str, Any] = {"Json": NULLABLE_JSON}
    for name in names:
        defs.setdefault(name, obj(required=False))["properties"]["v"] = I
        for i in range(1, len(name)):
            if name[i].isupper():  # `TypeAlias`: a definition `Type` with a property `alias`
                head = defs.setdefault(name[:i], obj(required=False))
                head["properties"][name[i].lower() + name[i + 1 :]] = obj(w=I)
    properties = {f"d_{d}": {"$ref": f"#/$defs/{d}"} for d in defs}
    properties.update({name: S for name in names})
    tools = [tool("t", obj(required=False, **properties), obj(required=False, **properties))]
    tools += [tool(name, obj(**{name: {"$ref": f"#/$defs/{name}"}})) for name in names]
    return {"mcpstub": 1, "server": {"name": "s"}, "$defs": defs, "tools": tools}


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_a_definition_named_like_an_import_of_models_py_generates_a_module_that_imports(
    name: str, tmp_path: Path
) -> None:
    doc = imported_names_toolset([name])
    toolset = checked(tmp_path, doc["tools"], doc["$defs"])
    result = render_models(toolset)
    assert [d.format() for d in result.diagnostics if d.is_error] == []
    defined = {n for names in definitions(result.source) for n in names}
    assert IMPORTED.isdisjoint(defined), sorted(IMPORTED & defined)
    assert definitions(grouped(toolset)) == definitions(result.source)  # the same names in groups
    module = load(result)
    for key, schema in doc["$defs"].items():
        if key == "Json":
            continue
        model = getattr(module, class_name(imported_free(key)))
        assert model.__module__ == module.__name__, key
        assert wire(model) == set(schema["properties"]), key
    assert imported_free(name) == class_name(name) + "Model"
    value: dict[str, Any] = {f"d_{name}": {"v": 1}, "d_Json": ["a", None, [None, ["b"]]], name: "x"}
    for key in doc["$defs"]:
        if key not in {name, "Json"}:
            value[f"d_{key}"] = {p: {"w": 2} for p in doc["$defs"][key]["properties"] if p != "v"}
    for cls in ("TInput", "TOutput"):
        parsed = getattr(module, cls).model_validate(value)
        assert parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == value
        field = next(f for f, info in type(parsed).model_fields.items() if (info.alias or f) == f"d_{name}")
        assert type(getattr(parsed, field)).__name__ == class_name(name) + "Model"


def test_a_definition_named_like_a_python_constant_leaves_the_name_after_it_alone(tmp_path: Path) -> None:
    # The generator renames `None` to `None1` itself: without `NoneModel`, a definition `None1`
    # would silently become another class.
    defs = {"None": obj(a=S), "None1": obj(b=S), "True": obj(c=S)}
    properties = {f"d_{d}": {"$ref": f"#/$defs/{d}"} for d in defs}
    toolset = checked(tmp_path, [tool("t", obj(required=False, **properties))], defs)
    result = render_models(toolset)
    assert [d.format() for d in result.diagnostics if d.is_error] == []
    module = load(result)
    assert wire(module.NoneModel) == {"a"} and wire(module.None1) == {"b"} and wire(module.TrueModel) == {"c"}
