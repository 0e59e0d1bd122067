"""Every output root the protocol allows, through the official client in both protocol generations.

The toolset is the `shapes` golden tree's: arrays, strings, numbers, integers, booleans, null,
mixed `anyOf`, `{}`, `[object, null]`, a draft-07 tuple, and an object that must stay unwrapped.
2026-07-28 clients get each schema and value as written; 2025-11-25 clients get the frozen
`{type: object, properties: {result: S}, required: [result]}` wrapper and `{"result": value}`.
The client validates every structured result against the schema it was shown.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client, types
from pydantic import TypeAdapter

from mcpstub.ir import Toolset
from mcpstub.output_wrapper import legacy_output_schema

from .helpers import imported, write_package

TOOLSET = Path(__file__).resolve().parents[1] / "golden" / "trees" / "shapes" / "tools.yaml"
PACKAGE = "fx_output_shapes"
MODES = {"auto": "2026-07-28", "legacy": "2025-11-25"}
WRAPPED = [
    "list_items",
    "greet",
    "ratio",
    "count",
    "flag",
    "nothing",
    "mixed",
    "anything",
    "any_true",
    "maybe_item",
    "pairs",
]


def good_outputs(models: Any) -> dict[str, tuple[Any, Any]]:
    """Per tool: what the handler returns (plain typed values) and the JSON value it becomes."""
    return {
        "list_items": (
            [models.Item(id=1, name="one"), models.Item(id=2)],
            [{"id": 1, "name": "one"}, {"id": 2}],
        ),
        "greet": ("Hello, Ada", "Hello, Ada"),
        "ratio": (0.25, 0.25),
        "count": (0, 0),
        "flag": (False, False),
        "nothing": (None, None),
        "mixed": ([3, 4], [3, 4]),
        "anything": ({"any": ["thing", 1.5, None]}, {"any": ["thing", 1.5, None]}),
        "any_true": ("anything", "anything"),
        "maybe_item": (None, None),
        "pairs": (["a", 1], ["a", 1]),
        "item": (models.ItemOutput(id=7), {"id": 7}),
    }


# Per tool: a handler return the output schema (or the output type) refuses.
BAD_OUTPUTS: dict[str, Any] = {
    "list_items": [{"name": "no id"}],
    "greet": "",
    "ratio": 1.5,
    "count": -1,
    "flag": "yes",
    "nothing": 0,
    "mixed": 1.5,
    "anything": object(),
    "any_true": object(),
    "maybe_item": "not an object",
    "pairs": ["a", "b"],
    "item": {"id": 7},  # a dict, not the output model
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, Toolset]]:
    root = tmp_path_factory.mktemp("shapes")
    _, toolset = write_package(root, PACKAGE, TOOLSET.read_text("utf-8"))
    with imported(root, PACKAGE) as package:
        yield package, toolset


@pytest.fixture
def pkg(generated: tuple[ModuleType, Toolset]) -> ModuleType:
    return generated[0]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=list(MODES))
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def package_testing(pkg: ModuleType) -> Any:
    return importlib.import_module(f"{pkg.__name__}.testing")


def returning(value: Any) -> Any:
    async def handler(args: Any, ctx: Any) -> Any:
        return value

    return handler


def sent(tool: str, value: Any, mode: str) -> Any:
    """The structuredContent a client of this mode must receive for a tool's JSON value."""
    return {"result": value} if mode == "legacy" and tool in WRAPPED else value


async def raw_tools(client: Client) -> list[dict[str, Any]]:
    """The tools/list answer as it came over the wire, before the SDK's models parse it."""
    answer = await client.session.send_request(types.ListToolsRequest(), TypeAdapter(dict[str, Any]))
    tools: list[dict[str, Any]] = answer["tools"]
    return tools


@pytest.mark.anyio
async def test_each_generation_is_shown_its_form_of_every_tool(
    generated: tuple[ModuleType, Toolset], mode: str
) -> None:
    pkg, toolset = generated
    async with Client(pkg.create_server(), mode=mode) as client:
        assert client.protocol_version == MODES[mode]
        wire = await raw_tools(client)
        parsed = await client.list_tools()  # the SDK's models accept every tool
    assert [tool["name"] for tool in wire] == [tool.name for tool in parsed.tools] == list(pkg.TOOLS)
    for tool, advertised in zip(toolset.tools, wire, strict=True):
        expected = dict(tool.advertised)
        if mode == "legacy":
            expected["outputSchema"] = legacy_output_schema(tool.output_schema or {}, tool.output_dialect)
            assert expected["outputSchema"]["type"] == "object"
        assert advertised == expected, tool.name
        spec = pkg.TOOLS[tool.name]
        assert advertised == (spec.legacy_wire if mode == "legacy" else spec.wire)
        assert spec.wraps_output is (tool.name in WRAPPED)
    any_true = next(tool for tool in wire if tool["name"] == "any_true")
    assert any_true["outputSchema"] == (
        {"type": "object", "properties": {"result": {}}, "required": ["result"]} if mode == "legacy" else {}
    )
    item = next(tool for tool in wire if tool["name"] == "item")
    assert item["outputSchema"]["type"] == "object" and "result" not in item["outputSchema"].get(
        "properties", {}
    )


@pytest.mark.anyio
async def test_handlers_return_plain_values_on_both_generations(pkg: ModuleType, mode: str) -> None:
    models = importlib.import_module(f"{PACKAGE}.models")
    outputs = good_outputs(models)
    handlers = {name: returning(value) for name, (value, _) in outputs.items()}
    async with Client(pkg.create_server(handlers), mode=mode) as client:
        for name, (_, value) in outputs.items():
            result = await client.call_tool(name, {"name": "Ada"} if name == "greet" else {})
            assert result.is_error is not True, (name, result.content)
            expected = sent(name, value, mode)
            assert result.structured_content == expected, name
            assert "structured_content" in result.model_fields_set, name  # null is sent, not left out
            text = result.content[0]
            assert isinstance(text, types.TextContent)
            assert json.loads(text.text) == expected, name  # the text mirrors structuredContent
            package_testing(pkg).assert_conforms(result, name, client.protocol_version)
            package_testing(pkg).assert_conforms(result, name)


@pytest.mark.anyio
async def test_result_wrappers_take_plain_values(pkg: ModuleType, mode: str) -> None:
    block = types.TextContent(type="text", text="and a note")
    handlers = {
        "list_items": returning(pkg.ListItemsResult.ok([], block)),
        "greet": returning(pkg.GreetResult.ok("Hi")),
        "nothing": returning(pkg.NothingResult.ok(None)),
        "count": returning(pkg.CountResult.error("no count today")),
    }
    async with Client(pkg.create_server(handlers), mode=mode) as client:
        items = await client.call_tool("list_items", {})
        greeting = await client.call_tool("greet", {"name": "x"})
        nothing = await client.call_tool("nothing", {})
        failed = await client.call_tool("count", {})
    assert items.structured_content == sent("list_items", [], mode)
    assert [getattr(b, "text", None) for b in items.content][1:] == ["and a note"]
    assert greeting.structured_content == sent("greet", "Hi", mode)
    assert nothing.structured_content == sent("nothing", None, mode)
    assert "structured_content" in nothing.model_fields_set
    assert failed.is_error is True and failed.structured_content is None
    assert failed.content[0].text == "no count today"  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("tool", list(BAD_OUTPUTS))
async def test_an_output_the_schema_refuses_is_never_sent(
    pkg: ModuleType, mode: str, tool: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Client(pkg.create_server({tool: returning(BAD_OUTPUTS[tool])}), mode=mode) as client:
        result = await client.call_tool(tool, {"name": "x"} if tool == "greet" else {})
    assert result.is_error is True
    assert result.structured_content is None
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith("output did not match the declared schema"), text
    assert "output did not match the declared schema" in caplog.text
    package_testing(pkg).assert_conforms(result, tool)


def test_conformance_knows_both_forms(pkg: ModuleType) -> None:
    problems = package_testing(pkg).conformance_problems

    def result(structured: Any) -> types.CallToolResult:
        text = types.TextContent(type="text", text=json.dumps(structured))
        return types.CallToolResult(content=[text], structured_content=structured)

    assert problems(result([{"id": 1}]), "list_items", "2026-07-28") == []
    assert problems(result({"result": [{"id": 1}]}), "list_items", "2025-11-25") == []
    assert problems(result({"result": [{"id": 1}]}), "list_items") == []
    assert problems(result([{"id": 1}]), "list_items") == []
    wrong_form = problems(result([{"id": 1}]), "list_items", "2025-11-25")
    assert any("is not of type" in p for p in wrong_form), wrong_form
    assert any('wrapped as {"result": value}' in p for p in wrong_form)
    assert problems(result({"result": [{"id": 1}]}), "list_items", "2026-07-28")
    bad = problems(result({"result": [{"name": "x"}]}), "list_items")
    assert any(p.startswith("structuredContent at /result/0:") and '"id"' in p for p in bad), bad
    assert problems(result(None), "nothing", "2026-07-28") == []
    assert problems(result(None), "count", "2026-07-28")
    assert problems(result({"id": 1}), "item", "2025-11-25") == []
    missing = types.CallToolResult(content=[types.TextContent(type="text", text="null")])
    assert problems(missing, "nothing") == [
        "structuredContent is missing (the tool declares an outputSchema)"
    ]
