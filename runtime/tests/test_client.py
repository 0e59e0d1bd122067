"""The typed client's machinery, in memory on the fixture package: calls by keyword, outputs as
the declared types (both protocol generations), isError as ToolError, drift reported and refused
in strict mode, server logs routed to Python logging or a callback, targets checked."""

from __future__ import annotations

import dataclasses
import functools
import importlib
import logging
import warnings
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters, types
from mcp.server import Server
from pydantic import ValidationError
from runtime_fixture import INFO

from mcpstub_runtime import ToolContext, ToolError, ToolSpec, create_server
from mcpstub_runtime.client import (
    DriftError,
    DriftWarning,
    ToolsClient,
    UnexpectedOutput,
    arguments,
    compare,
    connect,
)


def client_class(tools: dict[str, ToolSpec]) -> type[ToolsClient]:
    """A client as a generated client.py declares one, on the fixture package's models."""
    models: Any = importlib.import_module("rt_fixture_pkg.models")

    class Client(ToolsClient):
        _tools = tools

        @arguments(models.EchoInput)
        async def echo(self, arguments: Any) -> Any:
            return await self._output("echo", arguments)

        @arguments(models.ItemsInput)
        async def items(self, arguments: Any) -> Any:
            return await self._output("items", arguments)

        @arguments(models.NoteInput)
        async def note(self, arguments: Any) -> list[types.ContentBlock]:
            return await self._content("note", arguments)

    Client.__module__ = "rt_fixture_pkg.client"
    return Client


async def echo(args: Any, ctx: ToolContext) -> Any:
    await ctx.info(f"echoing {args.text}")
    await ctx.debug("a detail")
    if args.text == "fail":
        raise ToolError("no echo today")
    return importlib.import_module("rt_fixture_pkg.models").EchoOutput(text=args.text * 2)


async def items(args: Any, ctx: ToolContext) -> Any:
    item = importlib.import_module("rt_fixture_pkg.models").Item
    return [item(name=f"n{i}") for i in range(args.count)]


async def note(args: Any, ctx: ToolContext) -> str:
    return "a note"


HANDLERS = {"echo": echo, "items": items, "note": note}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_every_tool_is_called_by_keyword_and_answers_its_type(
    tools: dict[str, ToolSpec], mode: str
) -> None:
    async def run() -> tuple[Any, ...]:
        server = create_server(tools, INFO, HANDLERS)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DriftWarning)
            async with connect(client_class(tools), server, mode=mode) as client:
                assert not client.drift
                client_any: Any = client
                return (
                    await client_any.echo(text="ab"),
                    await client_any.items(count=2),
                    await client_any.items(),
                    await client_any.note(),
                )

    echoed, two, default, note_blocks = anyio.run(run)
    models = importlib.import_module("rt_fixture_pkg.models")
    assert echoed == models.EchoOutput(text="abab")
    # A non-object output comes as the declared type on both generations (unwrapped on 2025-11-25).
    assert two == [models.Item(name="n0"), models.Item(name="n1")]
    assert default == [models.Item(name="n0")]
    assert [block.text for block in note_blocks] == ["a note"]


def test_only_the_arguments_given_are_sent(tools: dict[str, ToolSpec]) -> None:
    seen: list[dict[str, Any] | None] = []

    async def run() -> None:
        server = create_server(tools, INFO, HANDLERS)
        async with connect(client_class(tools), server) as client:
            original = client.session.call_tool

            async def spy(name: str, arguments: dict[str, Any] | None = None, **kw: Any) -> Any:
                seen.append(arguments)
                return await original(name, arguments, **kw)

            client.session.call_tool = spy  # type: ignore[method-assign]
            await client.items()  # type: ignore[attr-defined]
            await client.items(count=3)  # type: ignore[attr-defined]

    anyio.run(run)
    # The model's default (count=1) is the server's to apply, not the client's to invent.
    assert seen == [{}, {"count": 3}]


def test_is_error_raises_tool_error_with_its_text(tools: dict[str, ToolSpec]) -> None:
    async def run() -> None:
        async with connect(client_class(tools), create_server(tools, INFO, HANDLERS)) as client:
            await client.echo(text="fail")  # type: ignore[attr-defined]

    with pytest.raises(ToolError, match=r"^no echo today$"):
        anyio.run(run)


def test_arguments_the_schema_refuses_come_back_as_tool_error(tools: dict[str, ToolSpec]) -> None:
    async def run() -> None:
        async with connect(client_class(tools), create_server(tools, INFO, HANDLERS)) as client:
            await client.echo(text="toolong")  # type: ignore[attr-defined]

    with pytest.raises(ToolError, match="text"):
        anyio.run(run)


def test_wrong_keywords_are_refused_before_anything_is_sent(tools: dict[str, ToolSpec]) -> None:
    async def run() -> None:
        async with connect(client_class(tools), create_server(tools, INFO, HANDLERS)) as client:
            await client.echo(txt="x")  # type: ignore[attr-defined]

    with pytest.raises(ValidationError):  # (a closed input: its model refuses it)
        anyio.run(run)


def drifted(tools: dict[str, ToolSpec]) -> dict[str, ToolSpec]:
    """The fixture's tools as a changed server advertises them: echo's text limit raised, its
    description added; note gone; a new tool."""
    echo_input = {**tools["echo"].input_schema, "properties": {"text": {"type": "string", "maxLength": 9}}}
    echo_spec = dataclasses.replace(
        tools["echo"],
        input_schema=echo_input,
        wire={**tools["echo"].wire, "inputSchema": echo_input, "description": "Echo, twice."},
    )
    extra = dataclasses.replace(tools["items"], name="more", wire={**tools["items"].wire, "name": "more"})
    return {"echo": echo_spec, "items": tools["items"], "more": extra}


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_drift_is_warned_naming_each_tool_and_what_differs(
    tools: dict[str, ToolSpec], mode: str
) -> None:
    async def run() -> Any:
        server = create_server(drifted(tools), INFO, {"echo": echo, "items": items, "more": items})
        async with connect(client_class(tools), server, mode=mode) as client:
            await client.echo(text="ab")  # type: ignore[attr-defined]
            return client.drift

    with pytest.warns(DriftWarning) as caught:
        drift = anyio.run(run)
    message = str(caught[0].message)
    assert "the server 'runtime-fixture' advertises tools that differ" in message
    assert (
        'echo: inputSchema /properties/text/maxLength: 5 -> 9; description: (absent) -> "Echo, twice."'
    ) in message
    assert "note: not listed by the server" in message
    assert "not in this client: more" in message
    assert dict(drift.changed)["echo"] == (
        "inputSchema /properties/text/maxLength: 5 -> 9",
        'description: (absent) -> "Echo, twice."',
    )
    assert drift.missing == ("note",) and drift.added == ("more",)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_tool_the_server_does_not_have_raises_drift_error_saying_why(
    tools: dict[str, ToolSpec], mode: str
) -> None:
    # The server runs an older toolset: the warning on connect said so, and the call raises what a
    # program can catch as drift, not the SDK's protocol error of an unknown tool.
    async def run() -> Any:
        server = create_server(drifted(tools), INFO, {"echo": echo, "items": items, "more": items})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DriftWarning)
            async with connect(client_class(tools), server, mode=mode) as client:
                with pytest.raises(DriftError, match=r"^note: the server did not list this tool on connect"):
                    await client.note()  # type: ignore[attr-defined]
                return len(await client.items(count=2))  # type: ignore[attr-defined]

    assert anyio.run(run) == 2  # the connection carries on


def test_a_tool_an_mcpserver_does_not_have_raises_drift_error_too(tools: dict[str, ToolSpec]) -> None:
    # The SDK's MCPServer answers an unknown tool with an isError result, not a protocol error.
    from mcp.server.mcpserver import MCPServer  # noqa: PLC0415

    server = MCPServer("other")

    @server.tool()
    def items(count: int) -> list[dict[str, str]]:
        return [{"name": "n"}] * count

    async def run() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DriftWarning)
            async with connect(client_class(tools), server) as client:
                with pytest.raises(DriftError, match=r"^note: the server did not list this tool on connect"):
                    await client.note()  # type: ignore[attr-defined]

                def note() -> str:
                    raise ValueError("the note failed")

                server.add_tool(note)  # (there now, unlisted on connect: its own error stays its own)
                with pytest.raises(ToolError, match="Error executing tool note"):
                    await client.note()  # type: ignore[attr-defined]

    anyio.run(run)


def test_strict_mode_refuses_drifted_tools_and_calls_the_others(tools: dict[str, ToolSpec]) -> None:
    calls: list[str] = []

    async def counting_echo(args: Any, ctx: ToolContext) -> Any:
        calls.append("echo")
        return await echo(args, ctx)

    async def run(tool: str) -> Any:
        server = create_server(drifted(tools), INFO, {"echo": counting_echo, "items": items, "more": items})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DriftWarning)
            async with connect(client_class(tools), server, strict=True) as client:
                if tool == "items":
                    return await client.items(count=1)  # type: ignore[attr-defined]
                if tool == "note":
                    return await client.note()  # type: ignore[attr-defined]
                return await client.echo(text="ab")  # type: ignore[attr-defined]

    assert len(anyio.run(run, "items")) == 1
    refused = r"echo: not called, .* inputSchema /properties/text/maxLength: 5 -> 9"
    with pytest.raises(DriftError, match=refused):
        anyio.run(run, "echo")
    with pytest.raises(DriftError, match=r"note: not called, .*not listed by the server"):
        anyio.run(run, "note")
    assert calls == []


def test_an_output_the_type_refuses_raises_unexpected_output(tools: dict[str, ToolSpec]) -> None:
    # A server (not made by mcpstub) whose echo now answers a number where the client expects text.
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        output = {"type": "object", "properties": {"text": {"type": "integer"}}, "required": ["text"]}
        return types.ListToolsResult(tools=[tools["echo"].tool.model_copy(update={"output_schema": output})])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text='{"text": 3}')], structured_content={"text": 3}
        )

    async def run() -> None:
        server: Server[Any] = Server("other", on_list_tools=list_tools, on_call_tool=call_tool)
        async with connect(client_class(tools), server, mode="legacy") as client:
            await client.echo(text="a")  # type: ignore[attr-defined]

    refused = "echo: the output does not fit EchoOutput: /text"
    with (
        pytest.warns(DriftWarning, match="echo: outputSchema"),
        pytest.raises(UnexpectedOutput, match=refused),
    ):
        anyio.run(run)


def test_server_logs_reach_python_logging_at_info_and_above(
    tools: dict[str, ToolSpec], caplog: pytest.LogCaptureFixture
) -> None:
    async def run(mode: str, **options: Any) -> None:
        server = create_server(tools, INFO, HANDLERS)
        async with connect(client_class(tools), server, mode=mode, **options) as client:
            await client.echo(text="ab")  # type: ignore[attr-defined]

    for mode in ("auto", "legacy"):
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="rt_fixture_pkg.client"):
            anyio.run(run, mode)
        records = [(r.name, r.levelname, r.getMessage()) for r in caplog.records if r.name.startswith("rt_")]
        assert records == [("rt_fixture_pkg.client", "INFO", "echoing ab")], mode
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="rt_fixture_pkg.client"):
            anyio.run(functools.partial(run, mode, log_level="debug"))
        assert [r.getMessage() for r in caplog.records if r.name.startswith("rt_")] == [
            "echoing ab",
            "a detail",
        ], mode
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="rt_fixture_pkg.client"):
            anyio.run(functools.partial(run, mode, log_level=None))
        assert [r for r in caplog.records if r.name.startswith("rt_")] == [], mode


def test_on_log_receives_the_messages_instead(tools: dict[str, ToolSpec]) -> None:
    got: list[tuple[str, Any]] = []

    async def run() -> None:
        server = create_server(tools, INFO, HANDLERS)
        on_log = lambda params: got.append((params.level, params.data))  # noqa: E731
        async with connect(client_class(tools), server, on_log=on_log, log_level="debug") as client:
            await client.echo(text="ab")  # type: ignore[attr-defined]

    anyio.run(run)
    assert got == [("info", "echoing ab"), ("debug", "a detail")]


@pytest.mark.parametrize(
    ("target", "options", "error", "match"),
    [
        ("python -m my_tools", {}, ValueError, "give a command as a list of arguments"),
        ("ftp://example.com/mcp", {}, ValueError, "http"),
        ("http://127.0.0.1:9/mcp", {"token": "a b"}, ValueError, "printable ASCII"),
        (["python", "-m", "x"], {"token": "t"}, TypeError, "http"),
        (StdioServerParameters(command="python"), {"headers": {}}, TypeError, "http"),
        (42, {}, TypeError, "not int"),
        ([], {}, TypeError, "not list"),
    ],
)
def test_a_target_connect_cannot_use_is_refused_clearly(
    tools: dict[str, ToolSpec], target: Any, options: dict[str, Any], error: type[Exception], match: str
) -> None:
    async def run() -> None:
        async with connect(client_class(tools), target, **options):
            pass

    with pytest.raises(error, match=match):
        anyio.run(run)


def test_compare_reads_json_as_json(tools: dict[str, ToolSpec]) -> None:
    wire = dict(tools["echo"].wire)

    def limited(limit: object) -> dict[str, Any]:
        properties = {"text": {"type": "string", "maxLength": limit}}
        return {**wire, "inputSchema": {**wire["inputSchema"], "properties": properties}}

    assert not compare({"echo": tools["echo"]}, [limited(5.0)], modern=True)
    flag = limited(True)
    drift = compare({"echo": tools["echo"]}, [flag], modern=True)
    assert drift.changed["echo"] == ("inputSchema /properties/text/maxLength: 5 -> true",)


def test_an_output_its_own_listed_schema_refuses_raises_unexpected_output(
    tools: dict[str, ToolSpec],
) -> None:
    # A server (not made by mcpstub) that breaks the output schema it lists itself.
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[tools["echo"].tool])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        text = types.TextContent(type="text", text="{}")
        return types.CallToolResult(content=[text], structured_content={})

    async def run() -> None:
        server: Server[Any] = Server("other", on_list_tools=list_tools, on_call_tool=call_tool)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DriftWarning)
            async with connect(client_class(tools), server, mode="legacy") as client:
                await client.echo(text="a")  # type: ignore[attr-defined]

    with pytest.raises(UnexpectedOutput, match="echo: Invalid structured content"):
        anyio.run(run)
