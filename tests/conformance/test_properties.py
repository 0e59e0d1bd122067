"""Property-based conformance (DESIGN §3): for schema-generated inputs and outputs, a generated
server accepts what the advertised schemas allow, unchanged, and refuses what they forbid.

Over the bundled example, the GitHub server's 117 tools (inputs only) and tests/conformance/data.
One package is generated per toolset and module; every call goes through the official client.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from mcp import Client, types

from mcpstub.pipeline import generate
from tests.functional.helpers import imported

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus" / "github.json"
TOOLSETS = {
    "weather": ROOT / "examples" / "weather" / "tools.yaml",
    "rich": ROOT / "tests" / "conformance" / "data" / "rich.yaml",
}
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    derandomize=True,  # CI runs the same examples every time; failures reproduce
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
CORPUS_SETTINGS = settings(SETTINGS, max_examples=4)
_TYPES_OF = {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}
_OTHER_VALUES: list[Any] = [None, True, 12345, -0.5, "x", [], {}]
_EXTRA = "zz_not_declared"


# --- generated packages ---------------------------------------------------------------------------


def _write(root: Path, package: str, source: Path) -> None:
    generated = generate(source)
    assert generated.ok, [d.format() for d in generated.diagnostics]
    for relative, text in {**generated.ours, **generated.yours}.items():
        path = root / package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _package(factory: pytest.TempPathFactory, package: str, source: Path) -> Iterator[ModuleType]:
    root = factory.mktemp(package)
    _write(root, package, source)
    logging.getLogger(package).setLevel(logging.CRITICAL)  # refused outputs are logged as errors
    with imported(root, package) as module:
        yield module


@pytest.fixture(scope="module")
def weather(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    yield from _package(tmp_path_factory, "cf_weather", TOOLSETS["weather"])


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    yield from _package(tmp_path_factory, "cf_rich", TOOLSETS["rich"])


@pytest.fixture(scope="module")
def github(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("github")
    toolset = {"mcpstub": 1, "server": {"name": "github"}, "tools": json.loads(CORPUS.read_text("utf-8"))}
    source = root / "tools.yaml"
    source.write_text(json.dumps(toolset), "utf-8")  # JSON is YAML
    yield from _package(tmp_path_factory, "cf_github", source)


def _tools(source: Path, output: bool = False) -> list[str]:
    import yaml  # noqa: PLC0415

    data = yaml.safe_load(source.read_text("utf-8"))
    return [t["name"] for t in data["tools"] if "outputSchema" in t or not output]


def _corpus_tools() -> list[str]:
    return [t["name"] for t in json.loads(CORPUS.read_text("utf-8"))]


TOOLS = [(key, n) for key, source in TOOLSETS.items() for n in _tools(source)]
STRUCTURED = [(key, n) for key, source in TOOLSETS.items() for n in _tools(source, output=True)]


@pytest.fixture(scope="module")
def packages(weather: ModuleType, rich: ModuleType) -> dict[str, ModuleType]:
    return {"weather": weather, "rich": rich}


# --- schemas, instances and mutations -------------------------------------------------------------


def _inline(schema: Any, root: Any, depth: int = 0) -> Any:
    """The schema with local refs inlined; recursion beyond two levels becomes `false`."""
    if isinstance(schema, list):
        return [_inline(s, root, depth) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if isinstance(schema.get("$ref"), str):
        if depth >= 2:
            return False
        target = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        return _inline({**target, **rest} if isinstance(target, dict) else target, root, depth + 1)
    return {
        k: v if k in {"enum", "const", "default", "examples"} else _inline(v, root, depth)
        for k, v in schema.items()
        if k not in {"$defs", "definitions", "$schema"}
    }


@cache
def _strategy(schema_json: str) -> st.SearchStrategy[Any]:
    schema = json.loads(schema_json)
    return from_schema(_inline(schema, schema))


def _validator(schema: dict[str, Any]) -> Any:
    draft7 = "draft-07" in str(schema.get("$schema", ""))
    cls = jsonschema_rs.Draft7Validator if draft7 else jsonschema_rs.Draft202012Validator
    return cls(schema, validate_formats=True)


def _instance(data: st.DataObject, schema: dict[str, Any]) -> Any:
    """A schema-valid instance (checked by the server's own validator, formats asserted)."""
    validator = _validator(schema)
    return data.draw(_strategy(json.dumps(schema, sort_keys=True)).filter(validator.is_valid))


def _nodes(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))


def _replace(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    if not path:
        return new
    copied = copy.deepcopy(value)
    node = copied
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = new
    return copied


def _mutations(instance: Any) -> Iterator[tuple[str, tuple[str | int, ...], Any]]:
    """(kind, path of the change, mutated instance): wrong type, missing property, extra property,
    out of range."""
    for path, value in _nodes(instance):
        if path:
            for other in _OTHER_VALUES:
                if _TYPES_OF.get(type(value)) != _TYPES_OF.get(type(other)):
                    yield "wrong type", path, _replace(instance, path, other)
                    break
        if isinstance(value, dict):
            for key in value:
                yield "missing", path, _replace(instance, path, {k: v for k, v in value.items() if k != key})
            yield "extra", path, _replace(instance, path, {**value, _EXTRA: 1})
        if isinstance(value, int | float) and not isinstance(value, bool):
            for big in (10**12, -(10**12)):
                yield "out of range", path, _replace(instance, path, big)
        if isinstance(value, str):
            yield "out of range", path, _replace(instance, path, value + "#" * 700)


def _invalid(data: st.DataObject, schema: dict[str, Any], instance: Any) -> tuple[str, tuple[Any, ...], Any]:
    validator = _validator(schema)
    candidates = [m for m in _mutations(instance) if not validator.is_valid(m[2])]
    if not candidates:
        return "none", (), None
    return data.draw(st.sampled_from(candidates))


def _pointer_parts(pointer: str) -> tuple[str, ...]:
    if pointer == "(root)":
        return ()
    return tuple(p.replace("~1", "/").replace("~0", "~") for p in pointer[1:].split("/"))


def _reported_paths(text: str) -> list[tuple[str, ...]]:
    """The instance paths an isError text names (`- /a/0: message`)."""
    return [_pointer_parts(line[2:].split(": ", 1)[0]) for line in text.splitlines() if line.startswith("- ")]


def _covers(subset: Any, whole: Any) -> bool:
    """`subset` equals `whole` except for properties `whole` adds (defaults filled in)."""
    if isinstance(subset, dict) and isinstance(whole, dict):
        return all(k in whole and _covers(v, whole[k]) for k, v in subset.items())
    if isinstance(subset, list) and isinstance(whole, list):
        return len(subset) == len(whole) and all(_covers(a, b) for a, b in zip(subset, whole, strict=True))
    if isinstance(subset, bool) or isinstance(whole, bool):
        return subset is whole
    return bool(subset == whole)


# --- calling the server ---------------------------------------------------------------------------


def _text(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def _call(server: Any, name: str, arguments: Any, mode: str = "auto") -> types.CallToolResult:
    async def run() -> types.CallToolResult:
        async with Client(server, mode=mode) as client:
            return await client.call_tool(name, arguments)

    return anyio.run(run)


class _Recorder:
    """A handler that records its arguments and answers with a fixed result."""

    def __init__(self, answer: Any) -> None:
        self.calls: list[Any] = []
        self.answer = answer

    async def __call__(self, args: Any, ctx: Any) -> Any:
        self.calls.append(args)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def _check_valid_input(pkg: ModuleType, name: str, instance: Any, mode: str) -> None:
    spec = pkg.TOOLS[name]
    handler = _Recorder(pkg.ToolError("reached"))
    result = _call(pkg.create_server({name: handler}), name, instance, mode)
    assert _text(result) == "reached", f"valid arguments were refused: {_text(result)}"
    assert len(handler.calls) == 1
    args = handler.calls[0]
    assert isinstance(args, spec.input_model)
    assert args.model_dump(mode="json", by_alias=True, exclude_unset=True) == instance
    assert _covers(instance, args.model_dump(mode="json", by_alias=True))


def _check_invalid_input(
    pkg: ModuleType, name: str, change: tuple[str, tuple[Any, ...], Any], mode: str
) -> None:
    kind, path, mutated = change
    handler = _Recorder(pkg.ToolError("reached"))
    result = _call(pkg.create_server({name: handler}), name, mutated, mode)
    text = _text(result)
    assert result.is_error is True and result.structured_content is None
    assert handler.calls == [], f"the handler ran on invalid arguments ({kind} at {path})"
    assert text.startswith(f"invalid arguments for tool {name}:")
    wanted = tuple(str(p) for p in path)
    assert any(wanted[: len(r)] == r for r in _reported_paths(text)), (kind, path, text)


# --- inputs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("toolset", "name"), TOOLS)
@SETTINGS
@given(data=st.data())
def test_valid_inputs_reach_the_handler_unchanged(
    packages: dict[str, ModuleType], toolset: str, name: str, data: st.DataObject
) -> None:
    pkg = packages[toolset]
    instance = _instance(data, pkg.TOOLS[name].input_schema)
    _check_valid_input(pkg, name, instance, data.draw(st.sampled_from(["auto", "legacy"])))


@pytest.mark.parametrize(("toolset", "name"), TOOLS)
@SETTINGS
@given(data=st.data())
def test_invalid_inputs_are_refused_by_path_before_the_handler(
    packages: dict[str, ModuleType], toolset: str, name: str, data: st.DataObject
) -> None:
    pkg = packages[toolset]
    schema = pkg.TOOLS[name].input_schema
    change = _invalid(data, schema, _instance(data, schema))
    if change[0] != "none":
        _check_invalid_input(pkg, name, change, "auto")


@pytest.mark.parametrize("name", _corpus_tools())
@CORPUS_SETTINGS
@given(data=st.data())
def test_github_inputs(github: ModuleType, name: str, data: st.DataObject) -> None:
    schema = github.TOOLS[name].input_schema
    instance = _instance(data, schema)
    _check_valid_input(github, name, instance, "auto")
    change = _invalid(data, schema, instance)
    if change[0] != "none":
        _check_invalid_input(github, name, change, "auto")


# --- outputs --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("toolset", "name"), STRUCTURED)
@SETTINGS
@given(data=st.data())
def test_valid_outputs_are_sent_as_structured_content_with_a_text_mirror(
    packages: dict[str, ModuleType], toolset: str, name: str, data: st.DataObject
) -> None:
    pkg = packages[toolset]
    spec = pkg.TOOLS[name]
    payload = _instance(data, spec.output_schema)
    output = spec.output_model.model_validate(payload)  # a model refusing it would be a bug
    arguments = _instance(data, spec.input_schema)
    mode = data.draw(st.sampled_from(["auto", "legacy"]))
    # the official client validates structuredContent against the outputSchema itself
    result = _call(pkg.create_server({name: _Recorder(output)}), name, arguments, mode)
    assert result.is_error is not True, _text(result)
    sent = result.structured_content
    assert _validator(spec.output_schema).is_valid(sent)
    assert _covers(payload, sent)
    assert json.loads(result.content[0].text) == sent  # type: ignore[union-attr]


@pytest.mark.parametrize(("toolset", "name"), STRUCTURED)
@SETTINGS
@given(data=st.data())
def test_invalid_outputs_are_never_sent(
    packages: dict[str, ModuleType], toolset: str, name: str, data: st.DataObject
) -> None:
    pkg = packages[toolset]
    spec = pkg.TOOLS[name]
    validator = _validator(spec.output_schema)
    kind, _path, bad = _invalid(data, spec.output_schema, _instance(data, spec.output_schema))
    arguments = _instance(data, spec.input_schema)
    raw = data.draw(st.booleans())
    if kind == "none" or not isinstance(bad, dict):
        return
    # behind the model's back: the raw dict, or a model constructed without validation
    answer = bad if raw else spec.output_model.model_construct(**bad)
    result = _call(pkg.create_server({name: _Recorder(answer)}), name, arguments)
    if result.is_error:
        assert result.structured_content is None
        assert _text(result).startswith("output did not match the declared schema")
    else:  # model_construct drops what the model cannot hold; what is sent must still be valid
        assert not raw
        assert validator.is_valid(result.structured_content)
        assert not validator.is_valid(bad)
        assert result.structured_content != bad


# --- advertised exactly as written -----------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_github_tools_are_advertised_exactly_as_in_the_source(github: ModuleType, mode: str) -> None:
    source = json.loads(CORPUS.read_text("utf-8"))
    async with Client(github.create_server(), mode=mode) as client:  # type: ignore[arg-type]
        listed = await client.list_tools()
    advertised = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in listed.tools]
    assert [t["name"] for t in advertised] == [t["name"] for t in source]
    for got, want in zip(advertised, source, strict=True):
        assert got == want, got["name"]
