"""Dispatch on a hand-declared toolset: the error semantics of a call, in memory, through the SDK
client of both protocol generations."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import types
from mcp.shared.exceptions import MCPError
from runtime_fixture import INFO, PACKAGE

from mcpstub_runtime import ToolError, ToolSpec, create_server
from mcpstub_runtime.testing import assert_conforms, connect


def _call(tools: dict[str, ToolSpec], handlers: dict[str, Any], name: str, arguments: dict[str, Any],
          mode: str = "auto") -> tuple[types.CallToolResult, str]:  # fmt: skip
    async def run() -> tuple[types.CallToolResult, str]:
        async with connect(create_server(tools, INFO, handlers), mode=mode) as client:
            return await client.call_tool(name, arguments), client.protocol_version

    return anyio.run(run)


def _text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


def _models() -> Any:
    return __import__(f"{PACKAGE}.models", fromlist=["x"])


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_model_output_is_sent_as_structured_content(tools: dict[str, ToolSpec], mode: str) -> None:
    async def echo(args: Any, ctx: Any) -> Any:
        return _models().EchoOutput(text=args.text)

    result, version = _call(tools, {"echo": echo}, "echo", {"text": "hi"}, mode)
    assert not result.is_error
    assert result.structured_content == {"text": "hi"}
    assert_conforms(result, tools["echo"], version)


def test_arguments_the_schema_refuses_name_the_path_and_skip_the_handler(tools: dict[str, ToolSpec]) -> None:
    called = []

    async def echo(args: Any, ctx: Any) -> Any:
        called.append(args)
        return _models().EchoOutput(text="x")

    result, _ = _call(tools, {"echo": echo}, "echo", {"text": "too long"})
    assert result.is_error and result.structured_content is None
    assert _text(result).startswith("invalid arguments for tool echo:\n- /text: ")
    assert called == []


def test_the_stub_answers_not_implemented_and_tool_errors_pass_their_message(
    tools: dict[str, ToolSpec],
) -> None:
    result, _ = _call(tools, {}, "echo", {"text": "hi"})  # the handler module: the bare stub
    assert result.is_error and _text(result) == "echo is not implemented yet"

    async def refuse(args: Any, ctx: Any) -> Any:
        raise ToolError("no such thing")

    result, _ = _call(tools, {"echo": refuse}, "echo", {"text": "hi"})
    assert result.is_error and _text(result) == "no such thing"


def test_a_crash_is_a_generic_error_without_internals(tools: dict[str, ToolSpec]) -> None:
    async def crash(args: Any, ctx: Any) -> Any:
        raise RuntimeError("secret path /etc/shadow")

    result, _ = _call(tools, {"echo": crash}, "echo", {"text": "hi"})
    assert result.is_error and _text(result) == "internal error in tool echo"


def test_an_unknown_tool_is_a_protocol_error(tools: dict[str, ToolSpec]) -> None:
    async def run() -> MCPError:
        async with connect(create_server(tools, INFO)) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("nope", {})
        return caught.value

    error = anyio.run(run)
    assert error.code == types.INVALID_PARAMS and "Unknown tool: nope" in str(error)


def test_a_dict_for_an_object_output_is_told_to_return_the_model(tools: dict[str, ToolSpec]) -> None:
    async def echo(args: Any, ctx: Any) -> Any:
        return {"text": args.text}  # matches the schema, but is not the model

    result, _ = _call(tools, {"echo": echo}, "echo", {"text": "hi"})
    assert result.is_error and result.structured_content is None
    assert _text(result) == (
        "output did not match the declared schema: the handler returned a dict; "
        "return EchoOutput(...) (EchoOutput.model_validate(value) makes one from a dict)"
    )


def test_dicts_in_an_array_output_are_told_to_return_the_model_too(tools: dict[str, ToolSpec]) -> None:
    async def items(args: Any, ctx: Any) -> Any:
        return [{"name": "a"}, {"name": "b"}]

    result, _ = _call(tools, {"items": items}, "items", {})
    assert result.is_error
    assert _text(result) == (
        "output did not match the declared schema: the handler returned a dict at /0 where "
        "ItemsOutput declares Item; return Item(...) (Item.model_validate(value) makes one from a dict)"
    )

    async def models(args: Any, ctx: Any) -> Any:
        return [_models().Item(name="a")]

    result, version = _call(tools, {"items": models}, "items", {})
    assert not result.is_error and result.structured_content == [{"name": "a"}]
    assert_conforms(result, tools["items"], version)


def test_a_wrong_type_names_what_to_return(tools: dict[str, ToolSpec]) -> None:
    async def echo(args: Any, ctx: Any) -> Any:
        return 42

    result, _ = _call(tools, {"echo": echo}, "echo", {"text": "hi"})
    assert _text(result) == (
        "output did not match the declared schema: the handler returned int; "
        "return EchoOutput(...) or EchoResult.ok(...)"
    )

    async def note(args: Any, ctx: Any) -> Any:
        return 42

    result, _ = _call(tools, {"note": note}, "note", {})
    assert _text(result) == (
        "output is not text or content (the tool declares no output schema): the handler returned int; "
        "return a str or NoteResult.text(...)"
    )
