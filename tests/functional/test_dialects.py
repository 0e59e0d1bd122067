"""Each schema of a tool is checked in its own dialect: input and output may differ."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client
from pydantic import ValidationError

from tests.functional.helpers import imported, write_package

PACKAGE = "fx_dialects"

# 2020-12 input with a tuple (prefixItems), draft-07 output with a tuple (items: [...]), and the
# other way round: each keyword means something else in the other dialect.
TOOLSET = """\
mcpstub: 1
server: {name: dialects, version: 0.1.0}
tools:
  - name: modern_in
    inputSchema:
      type: object
      properties:
        pair: {type: array, prefixItems: [{type: string}, {type: integer}], items: false}
    outputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      properties:
        pair: {type: array, items: [{type: string}, {type: integer}], additionalItems: false}
      required: [pair]
  - name: legacy_in
    inputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      properties:
        pair: {type: array, items: [{type: string}, {type: integer}], additionalItems: false}
    outputSchema:
      type: object
      properties:
        pair: {type: array, prefixItems: [{type: string}, {type: integer}], items: false}
      required: [pair]
  # In draft-07 a `type` beside `$ref` is ignored: the first output takes lists only.
  - name: listed
    inputSchema: {type: object}
    outputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      $ref: "#/definitions/Names"
      definitions:
        Names: {type: array, items: {type: string}}
  - name: indexed  # (through a list: the tuple's first item)
    inputSchema: {type: object}
    outputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      $ref: "#/definitions/Pair/items/0"
      definitions:
        Pair: {type: array, items: [{type: object, properties: {name: {type: string}}, required: [name]}]}
  # Roots that are a chain of bare `$ref`s: each link an alias of where it ends.
  - name: chained
    inputSchema:
      $ref: "#/$defs/A"
      $defs:
        A: {$ref: "#/$defs/B"}
        B: {type: object, properties: {x: {type: string}}, required: [x]}
    outputSchema:
      $ref: "#/$defs/C"
      $defs:
        C: {$ref: "#/$defs/D"}
        D: {$ref: "#/$defs/E"}
        E: {type: array, items: {type: string}}
  - name: chained_07
    inputSchema: {type: object}
    outputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      $ref: "#/definitions/A"
      definitions:
        A: {$ref: "#/definitions/B"}
        B: {type: object, properties: {y: {type: boolean}}}
  - name: named
    inputSchema: {type: object}
    outputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      $ref: "#/definitions/Box"
      definitions:
        Box: {type: object, properties: {name: {type: string}}, required: [name]}
"""


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root: Path = tmp_path_factory.mktemp("dialects")
    write_package(root, PACKAGE, TOOLSET)
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["modern_in", "legacy_in"])
async def test_output_is_checked_in_its_own_dialect(pkg: ModuleType, tool: str) -> None:
    spec = pkg.TOOLS[tool]
    assert (spec.dialect, spec.output_dialect) == (
        ("2020-12", "draft-07") if tool == "modern_in" else ("draft-07", "2020-12")
    )
    models = importlib.import_module(f"{PACKAGE}.models")
    output_model = getattr(models, spec.output_class)
    with pytest.raises(ValidationError):  # the model keeps the tuple's length, in either dialect
        output_model.model_validate({"pair": ["a", 1, 2]})

    async def handler(args: Any, ctx: Any) -> Any:
        pair = args.pair
        if pair is not None and pair[0] == "wrong":
            return output_model.model_construct(pair=[1, "a"])  # the output schema refuses it
        return output_model.model_validate({"pair": ["a", 1]})

    async with Client(pkg.create_server({tool: handler}), mode="legacy") as client:
        good = await client.call_tool(tool, {"pair": ["x", 2]})
        bad_input = await client.call_tool(tool, {"pair": [2, "x"]})
        extra_input = await client.call_tool(tool, {"pair": ["x", 2, 3]})
        bad_output = await client.call_tool(tool, {"pair": ["wrong", 2]})
    assert good.is_error is not True, good.content
    assert good.structured_content == {"pair": ["a", 1]}
    assert bad_input.is_error is True and "/pair/0" in bad_input.content[0].text  # type: ignore[union-attr]
    assert extra_input.is_error is True
    assert bad_output.is_error is True
    assert "output did not match" in bad_output.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_a_draft_07_type_beside_ref_is_what_the_ref_names(pkg: ModuleType, mode: str | None) -> None:
    # The list's model was an object: the schema takes lists only, so every call was an error.
    models = importlib.import_module(f"{PACKAGE}.models")

    async def listed(args: Any, ctx: Any) -> Any:
        return ["a", "b"]

    async def named(args: Any, ctx: Any) -> Any:
        return models.NamedOutput(name="x")

    async def indexed(args: Any, ctx: Any) -> Any:
        return models.IndexedOutput(name="y")

    async def chained(args: Any, ctx: Any) -> Any:
        return [args.x]

    async def chained_07(args: Any, ctx: Any) -> Any:
        return models.Chained07Output(y=True)

    handlers = {"listed": listed, "named": named, "indexed": indexed}
    handlers |= {"chained": chained, "chained_07": chained_07}
    options: dict[str, Any] = {"mode": mode} if mode else {}
    async with Client(pkg.create_server(handlers), **options) as client:
        listing = {tool.name: tool.output_schema for tool in (await client.list_tools()).tools}
        names = await client.call_tool("listed", {})
        box = await client.call_tool("named", {})
        item = await client.call_tool("indexed", {})
        chain = await client.call_tool("chained", {"x": "a"})
        chain_07 = await client.call_tool("chained_07", {})
    # (neither generated: a root's chain of bare `$ref`s lost the tool's class)
    assert chain.is_error is not True and chain.structured_content == ({"result": ["a"]} if mode else ["a"])
    assert chain_07.is_error is not True and chain_07.structured_content == {"y": True}, chain_07.content
    assert item.is_error is not True and item.structured_content == {"name": "y"}, item.content
    assert names.is_error is not True, names.content
    assert names.structured_content == ({"result": ["a", "b"]} if mode else ["a", "b"])
    assert (listing["listed"] or {}).get("required") == (["result"] if mode else None)
    assert box.is_error is not True and box.structured_content == {"name": "x"}
    assert listing["named"] == pkg.TOOLS["named"].output_schema  # (an object: shown as written)
