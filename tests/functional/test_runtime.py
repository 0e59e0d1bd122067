"""The runtime contract (DESIGN §3), through the official MCP client, in both protocol eras."""

from __future__ import annotations

import functools
import importlib
import json
import logging
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from mcp import Client, MCPError, types

from tests.functional.helpers import imported, write_package

PACKAGE = "fx_runtime_weather"

TOOLSET = """\
mcpstub: 1
server:
  name: weather
  version: 1.2.0
  instructions: Forecasts and alerts for cities.
$defs:
  City: {type: string, minLength: 1, description: City name}
tools:
  - name: get_forecast
    title: Get forecast
    description: Daily forecast for a city.
    inputSchema:
      type: object
      properties:
        city: {$ref: "#/$defs/City"}
        days: {type: integer, minimum: 1, maximum: 14, default: 3}
      required: [city]
      additionalProperties: false
    outputSchema:
      type: object
      properties:
        city: {type: string}
        note: {type: string}
        days:
          type: array
          items:
            type: object
            properties:
              date: {type: string, format: date}
              high_c: {type: number}
              low_c: {type: number}
            required: [date, high_c, low_c]
      required: [city, days]
    annotations: {readOnlyHint: true, openWorldHint: true}
    icons: [{src: "https://example.com/sun.png", mimeType: image/png, sizes: ["48x48"]}]
    _meta: {example.com/owner: weather-team}
  - name: search
    description: Search the archive.
    inputSchema:
      type: object
      properties:
        q: {type: string}
        tags: {type: array, items: {type: string}, uniqueItems: true}
      required: [q]
  - name: broken
    inputSchema: {type: object}
  - name: legacy_check
    inputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object
      properties:
        pair: {type: array, items: [{type: string}, {type: integer}], additionalItems: false}
"""

MODES = ["auto", "legacy"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, Any]]:
    root = tmp_path_factory.mktemp("runtime")
    folder, toolset = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "broken.py").write_text("def broken(:\n", encoding="utf-8")
    with imported(root, PACKAGE) as package:
        yield package, toolset


@pytest.fixture
def pkg(generated: tuple[ModuleType, Any]) -> ModuleType:
    return generated[0]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _models(pkg: ModuleType) -> Any:
    return importlib.import_module(f"{pkg.__name__}.models")


def _forecast(pkg: ModuleType, city: Any, days: int = 1) -> Any:
    models = _models(pkg)
    city = getattr(city, "root", city)  # `City` is a shared definition: maybe a RootModel
    day = models.GetForecastOutputDay(date="2026-01-01", high_c=7.5, low_c=1.0)
    return models.GetForecastOutput(city=city, days=[day] * days)


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def _assert_error(result: types.CallToolResult) -> str:
    assert result.is_error is True
    assert result.structured_content is None
    return _text(result)


# --- tools/list -----------------------------------------------------------------------------


def test_tool_objects_are_the_advertised_ones(generated: tuple[ModuleType, Any]) -> None:
    pkg, toolset = generated
    assert list(pkg.TOOLS) == [tool.name for tool in toolset.tools]
    for tool in toolset.tools:
        spec = pkg.TOOLS[tool.name]
        dumped = spec.tool.model_dump(by_alias=True, mode="json", exclude_none=True)
        assert dumped == tool.advertised
        assert spec.input_schema == tool.input_schema
        assert spec.output_schema == tool.output_schema


@pytest.mark.anyio
async def test_list_tools_sends_the_advertised_tools(generated: tuple[ModuleType, Any], mode: str) -> None:
    pkg, toolset = generated
    async with Client(pkg.create_server(), mode=mode) as client:
        listed = await client.list_tools()
        info = client.session.server_info if mode == "legacy" else None
    assert [tool.name for tool in listed.tools] == ["get_forecast", "search", "broken", "legacy_check"]
    forecast = listed.tools[0].model_dump(by_alias=True, mode="json", exclude_none=True)
    assert forecast == toolset.tools[0].advertised
    if info is not None:
        assert (info.name, info.version) == ("weather", "1.2.0")


# --- tools/call, one test per row of the table -----------------------------------------------


@pytest.mark.anyio
async def test_unknown_tool_is_a_protocol_error(pkg: ModuleType, mode: str) -> None:
    async with Client(pkg.create_server(), mode=mode) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("no_such_tool", {})
    assert caught.value.code == types.INVALID_PARAMS


@pytest.mark.anyio
async def test_invalid_arguments_name_each_path_and_skip_the_handler(pkg: ModuleType, mode: str) -> None:
    calls: list[Any] = []

    async def handler(args: Any, ctx: Any) -> Any:
        calls.append(args)
        return _forecast(pkg, args.city)

    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "", "days": 40, "extra": 1})
        missing = await client.call_tool("get_forecast", {})
    text = _assert_error(result)
    assert "/city" in text and "shorter than 1" in text
    assert "/days" in text and "maximum of 14" in text
    assert "'extra' was unexpected" in text
    assert "city" in _assert_error(missing) and "required" in _assert_error(missing)
    assert calls == []


@pytest.mark.anyio
async def test_arguments_the_schema_accepts_reach_the_handler(pkg: ModuleType, mode: str) -> None:
    seen: list[Any] = []

    async def search(args: Any, ctx: Any) -> Any:
        seen.append(args)
        return pkg.SearchResult.text(f"{args.q}: {len(args.tags)} tags")

    async with Client(pkg.create_server({"search": search}), mode=mode) as client:
        ok = await client.call_tool("search", {"q": "rain", "tags": ["a", "b"]})
        duplicate = await client.call_tool("search", {"q": "rain", "tags": ["a", "a"]})
    assert ok.is_error is not True and _text(ok) == "rain: 2 tags"
    assert "/tags" in _assert_error(duplicate)
    assert len(seen) == 1


@pytest.mark.anyio
async def test_valid_output_is_structured_content_plus_the_same_json_as_text(
    pkg: ModuleType, mode: str
) -> None:
    async def handler(args: Any, ctx: Any) -> Any:
        return _forecast(pkg, args.city, args.days)

    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Paris"})
    assert result.is_error is not True
    expected = _forecast(pkg, "Paris", 3).model_dump(mode="json", by_alias=True)
    assert result.structured_content == expected
    assert "note" not in expected  # an unset optional field is absent, not null
    assert [block.type for block in result.content] == ["text"]
    assert json.loads(_text(result)) == expected


@pytest.mark.anyio
async def test_result_ok_adds_extra_blocks(pkg: ModuleType, mode: str) -> None:
    async def handler(args: Any, ctx: Any) -> Any:
        extra = types.TextContent(type="text", text="mild")
        return pkg.GetForecastResult.ok(_forecast(pkg, args.city), extra)

    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Oslo"})
    assert result.structured_content is not None and result.structured_content["city"] == "Oslo"
    assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
    assert result.content[1] == types.TextContent(type="text", text="mild")


@pytest.mark.anyio
async def test_output_the_schema_refuses_is_an_error_and_a_log_record(
    pkg: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    models = _models(pkg)

    async def handler(args: Any, ctx: Any) -> Any:
        day = models.GetForecastOutputDay.model_construct(date="soon", high_c=1.0, low_c=0.0)
        return models.GetForecastOutput.model_construct(city="Rome", days=[day])

    caplog.set_level(logging.ERROR, logger=f"{PACKAGE}.server")
    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Rome"})
    text = _assert_error(result)
    assert text.startswith("output did not match the declared schema")
    assert "/days/0/date" in text
    assert any("did not match" in r.getMessage() for r in caplog.records)


@pytest.mark.anyio
async def test_returning_the_wrong_type_is_an_output_error(pkg: ModuleType, mode: str) -> None:
    async def handler(args: Any, ctx: Any) -> Any:
        return {"city": "Rome", "days": []}

    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Rome"})
    assert "output did not match the declared schema" in _assert_error(result)


@pytest.mark.anyio
async def test_tool_error_message_reaches_the_client(pkg: ModuleType, mode: str) -> None:
    async def raises(args: Any, ctx: Any) -> Any:
        raise pkg.ToolError("no such city")

    async def returns(args: Any, ctx: Any) -> Any:
        return pkg.GetForecastResult.error("try again later")

    async with Client(pkg.create_server({"get_forecast": raises}), mode=mode) as client:
        raised = await client.call_tool("get_forecast", {"city": "Atlantis"})
    async with Client(pkg.create_server({"get_forecast": returns}), mode=mode) as client:
        returned = await client.call_tool("get_forecast", {"city": "Atlantis"})
    assert _assert_error(raised) == "no such city"
    assert _assert_error(returned) == "try again later"


@pytest.mark.anyio
async def test_other_exceptions_are_generic_and_logged(
    pkg: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def handler(args: Any, ctx: Any) -> Any:
        raise RuntimeError("database password is hunter2")

    caplog.set_level(logging.ERROR, logger=f"{PACKAGE}.server")
    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Paris"})
    text = _assert_error(result)
    assert "hunter2" not in text and "RuntimeError" not in text
    assert any(r.exc_info and "hunter2" in str(r.exc_info[1]) for r in caplog.records)


@pytest.mark.anyio
async def test_the_generated_stub_says_it_is_not_implemented(pkg: ModuleType, mode: str) -> None:
    async with Client(pkg.create_server(), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Paris"})
    assert _assert_error(result) == "get_forecast is not implemented yet"


@pytest.mark.anyio
async def test_only_the_stub_says_not_implemented(
    pkg: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    class Backend:
        def fetch(self) -> Any:
            raise NotImplementedError  # e.g. an abstract method of a library

    async def deep(args: Any, ctx: Any) -> Any:
        return Backend().fetch()

    async def with_text(args: Any, ctx: Any) -> Any:
        raise NotImplementedError("metric units only")

    async def stub_like(args: Any, ctx: Any) -> Any:
        raise NotImplementedError

    caplog.set_level(logging.ERROR, logger=f"{PACKAGE}.server")
    answers = []
    for handler in (deep, with_text, stub_like):
        async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
            answers.append(_assert_error(await client.call_tool("get_forecast", {"city": "Paris"})))
    assert answers[:2] == ["internal error in tool get_forecast"] * 2
    assert answers[2] == "get_forecast is not implemented yet"
    assert sum(isinstance(r.exc_info[1], NotImplementedError) for r in caplog.records if r.exc_info) == 2


@pytest.mark.anyio
async def test_the_stub_behind_a_decorator_partial_or_object_still_says_not_implemented(
    pkg: ModuleType, mode: str
) -> None:
    def logged(handler: Any) -> Any:
        @functools.wraps(handler)
        async def wrapper(args: Any, ctx: Any) -> Any:
            return await handler(args, ctx)

        return wrapper

    @logged
    async def decorated(args: Any, ctx: Any) -> Any:
        raise NotImplementedError

    async def with_setting(args: Any, ctx: Any, setting: int) -> Any:
        raise NotImplementedError

    class Handler:
        async def __call__(self, args: Any, ctx: Any) -> Any:
            raise NotImplementedError

        async def method(self, args: Any, ctx: Any) -> Any:
            raise NotImplementedError

    def sync_stub(args: Any, ctx: Any) -> Any:
        raise NotImplementedError

    handlers = [decorated, functools.partial(with_setting, setting=1), Handler(), Handler().method, sync_stub]
    for handler in handlers:
        async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
            result = await client.call_tool("get_forecast", {"city": "Paris"})
        assert _assert_error(result) == "get_forecast is not implemented yet", handler

    @logged
    async def deep_behind_decorator(args: Any, ctx: Any) -> Any:
        return dict.fromkeys([]).__class__.__missing__  # AttributeError: a failure, not a stub

    async with Client(pkg.create_server({"get_forecast": deep_behind_decorator}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Paris"})
    assert _assert_error(result) == "internal error in tool get_forecast"

# --- content-only tools, results, context ------------------------------------------------------


@pytest.mark.anyio
async def test_content_tools_answer_with_blocks(pkg: ModuleType, mode: str) -> None:
    async def search(args: Any, ctx: Any) -> Any:
        if args.q == "plain":
            return "just text"
        return (
            pkg.SearchResult.text("found")
            + pkg.SearchResult.image(b"\x89PNG", "image/png")
            + pkg.SearchResult.resource_link("file:///a.txt", "a.txt", mime_type="text/plain")
            + pkg.SearchResult.resource("file:///b.bin", blob=b"\x00\x01")
        )

    async with Client(pkg.create_server({"search": search}), mode=mode) as client:
        result = await client.call_tool("search", {"q": "x"})
        plain = await client.call_tool("search", {"q": "plain"})
    assert result.is_error is not True and result.structured_content is None
    assert [block.type for block in result.content] == ["text", "image", "resource_link", "resource"]
    assert result.content[1].data == "iVBORw=="  # type: ignore[union-attr]
    assert result.content[3].resource.blob == "AAE="  # type: ignore[union-attr]
    assert _text(plain) == "just text"


def test_results_are_built_only_through_factories(pkg: ModuleType) -> None:
    with pytest.raises(TypeError):
        pkg.GetForecastResult()
    with pytest.raises(TypeError):
        pkg.GetForecastResult.ok({"city": "Paris", "days": []})
    with pytest.raises(TypeError):
        pkg.SearchResult.resource("file:///x")
    with pytest.raises(TypeError):
        pkg.SearchResult.text("a") + pkg.SearchResult.error("b")
    ok = pkg.GetForecastResult.ok(_forecast(pkg, "Paris"))
    assert not ok.is_error and ok.output.city == "Paris"


@pytest.mark.anyio
async def test_handlers_report_progress(pkg: ModuleType, mode: str) -> None:
    updates: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total, message))

    async def handler(args: Any, ctx: Any) -> Any:
        await ctx.report_progress(1, 2, "halfway")
        await ctx.info("logged")
        return _forecast(pkg, args.city)

    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Paris"}, progress_callback=on_progress)
    assert result.is_error is not True
    assert updates == [(1, 2, "halfway")]


@pytest.mark.anyio
async def test_the_server_declares_logging_and_honours_the_level_a_session_sets(pkg: ModuleType) -> None:
    # Handlers send log messages, so a 2025-11-25 server must declare logging; a client that sets
    # its level gets only messages at that level or above.
    received: list[tuple[str, Any]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        received.append((params.level, params.data))

    async def handler(args: Any, ctx: Any) -> Any:
        await ctx.debug("debug")
        await ctx.info("info")
        await ctx.log("error", {"at": "error"})
        return _forecast(pkg, args.city)

    server = pkg.create_server({"get_forecast": handler})
    async with Client(server, mode="legacy", logging_callback=on_log) as client:
        assert client.server_capabilities is not None and client.server_capabilities.logging is not None
        await client.call_tool("get_forecast", {"city": "Paris"})
        everything = list(received)
        received.clear()
        await client.set_logging_level("warning")
        await client.call_tool("get_forecast", {"city": "Paris"})
        above = list(received)
    assert everything == [("debug", "debug"), ("info", "info"), ("error", {"at": "error"})]
    assert above == [("error", {"at": "error"})]


def test_create_server_checks_its_arguments(pkg: ModuleType) -> None:
    with pytest.raises(ValueError, match="no_such_tool"):
        pkg.create_server({"no_such_tool": lambda args, ctx: None})
    with pytest.raises(TypeError, match="on_call_tool"):
        pkg.create_server(on_call_tool=None)
    server = pkg.create_server(name="renamed", instructions="Other.")
    assert (server.name, server.version, server.instructions) == ("renamed", "1.2.0", "Other.")


@pytest.mark.anyio
async def test_options_reach_the_sdk_server(pkg: ModuleType, mode: str) -> None:
    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(name="greet")])

    server = pkg.create_server(on_list_prompts=list_prompts)
    async with Client(server, mode=mode) as client:
        prompts = await client.list_prompts()
        tools = await client.list_tools()
    assert [p.name for p in prompts.prompts] == ["greet"]
    assert len(tools.tools) == 4


def test_handlers_are_imported_only_when_their_tool_is_called(pkg: ModuleType) -> None:
    # `search` always gets an injected handler in this module, so its stub is never imported.
    assert f"{PACKAGE}.handlers.search" not in sys.modules


@pytest.mark.anyio
async def test_a_broken_handler_module_fails_only_its_tool(
    pkg: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger=f"{PACKAGE}.server")
    async with Client(pkg.create_server(), mode=mode) as client:
        broken = await client.call_tool("broken", {})
        other = await client.call_tool("get_forecast", {"city": "Paris"})
    assert _assert_error(broken) == "internal error in tool broken"
    # (said in a line: the SyntaxError and where, not the import machinery's traceback)
    said = [r.getMessage() for r in caplog.records]
    assert any("does not load: " in m and "SyntaxError" in m for m in said), said
    assert _assert_error(other) == "get_forecast is not implemented yet"


@pytest.mark.anyio
async def test_draft_07_schemas_are_checked_as_draft_07(pkg: ModuleType, mode: str) -> None:
    async def handler(args: Any, ctx: Any) -> Any:
        return pkg.LegacyCheckResult.text("ok")

    async with Client(pkg.create_server({"legacy_check": handler}), mode=mode) as client:
        ok = await client.call_tool("legacy_check", {"pair": ["a", 1]})
        bad = await client.call_tool("legacy_check", {"pair": ["a", "b"]})
        extra = await client.call_tool("legacy_check", {"pair": ["a", 1, 2]})
    assert _text(ok) == "ok"
    assert "/pair/1" in _assert_error(bad)
    assert "/pair" in _assert_error(extra)


@pytest.mark.anyio
async def test_testing_helper_connects_in_memory(pkg: ModuleType) -> None:
    testing = importlib.import_module(f"{PACKAGE}.testing")

    async def search(args: Any, ctx: Any) -> Any:
        return "hit"

    async with testing.connect({"search": search}) as client:
        result = await client.call_tool("search", {"q": "x"})
    assert _text(result) == "hit"


@pytest.mark.anyio
async def test_an_output_that_cannot_even_be_dumped_is_a_generic_error(
    pkg: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    models = _models(pkg)

    async def handler(args: Any, ctx: Any) -> Any:
        return models.GetForecastOutput.model_construct(city=object(), days=[object()])

    caplog.set_level(logging.ERROR, logger=f"{PACKAGE}.server")
    async with Client(pkg.create_server({"get_forecast": handler}), mode=mode) as client:
        result = await client.call_tool("get_forecast", {"city": "Rome"})
    text = _assert_error(result)
    assert "object at 0x" not in text
    assert caplog.records
