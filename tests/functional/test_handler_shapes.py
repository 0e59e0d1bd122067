"""Handlers as FastMCP users write them: `async def` or a plain `def` (run off the event loop).

A handler of the wrong shape given to `create_server(handlers=...)` is refused there, not at call
time. (That mypy refuses it too is checked in test_generated_code.py.)
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client, types

from tests.functional.helpers import imported, write_package
from tests.functional.servers import stdio_params

PACKAGE = "fx_handler_shapes"

TOOLSET = """\
mcpstub: 1
server: {name: shapes, version: 0.1.0}
tools:
  - name: echo
    inputSchema:
      type: object
      properties: {text: {type: string}, seconds: {type: number}}
      required: [text]
  - name: measure
    inputSchema:
      type: object
      properties: {text: {type: string}}
      required: [text]
    outputSchema:
      type: object
      properties: {length: {type: integer}}
      required: [length]
  - name: word-count
    inputSchema: {type: object}
"""

# A plain `def` handler module, as a FastMCP user would write it.
ECHO = """\
from __future__ import annotations

import threading

from ..models import EchoInput
from ..results import EchoResult, ToolError
from ..server import ToolContext


def echo(args: EchoInput, ctx: ToolContext) -> EchoResult | str:
    if args.text == "fail":
        raise ToolError("failed on purpose")
    return f"{args.text} from {threading.current_thread().name}"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("shapes")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "echo.py").write_text(ECHO, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _text(result: types.CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def _off_the_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return threading.current_thread() is not threading.main_thread()
    return False


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_plain_def_handlers_run_off_the_event_loop(pkg: ModuleType, mode: str) -> None:
    models = __import__(f"{PACKAGE}.models", fromlist=["x"])

    waiting, released = threading.Event(), threading.Event()

    def echo(args: Any, ctx: Any) -> Any:
        assert _off_the_loop()
        if args.text == "wait":  # a slow sync handler: it holds its thread until a later call ends it
            waiting.set()
            return "released" if released.wait(20) else "never released"
        if args.text == "release":
            released.set()
        if args.text == "stub":
            raise NotImplementedError
        return args.text.upper()

    def measure(args: Any, ctx: Any) -> Any:
        assert _off_the_loop()
        anyio.from_thread.run(ctx.info, "measuring")  # the context, from the worker thread
        return models.MeasureOutput(length=len(args.text))

    async with Client(pkg.create_server({"echo": echo, "measure": measure}), mode=mode) as client:
        assert _text(await client.call_tool("echo", {"text": "hi"})) == "HI"
        measured = await client.call_tool("measure", {"text": "four"})
        assert measured.structured_content == {"length": 4}
        stub = await client.call_tool("echo", {"text": "stub"})
        assert stub.is_error is True and _text(stub) == "echo is not implemented yet"
        # a slow sync handler does not hold the event loop: another call runs meanwhile, and ends it
        slow: list[str] = []

        async def wait() -> None:
            slow.append(_text(await client.call_tool("echo", {"text": "wait"})))

        async with anyio.create_task_group() as group:
            group.start_soon(wait)
            assert await anyio.to_thread.run_sync(waiting.wait, 20)  # the slow call holds its thread
            assert _text(await client.call_tool("echo", {"text": "release"})) == "RELEASE"
        assert slow == ["released"]


@pytest.mark.anyio
async def test_a_sync_handler_past_its_time_limit_is_answered_at_once(pkg: ModuleType) -> None:
    def echo(args: Any, ctx: Any) -> Any:
        time.sleep(args.seconds)
        return "late"

    async with Client(pkg.create_server({"echo": echo}, timeout=0.3)) as client:
        started = time.monotonic()
        result = await client.call_tool("echo", {"text": "x", "seconds": 10})
    assert _text(result) == "tool echo timed out after 0.3 s"
    assert time.monotonic() - started < 8


@pytest.mark.anyio
async def test_other_callables(pkg: ModuleType) -> None:
    class AsyncCallable:
        async def __call__(self, args: Any, ctx: Any) -> Any:
            return "async object"

    class SyncCallable:
        def __call__(self, args: Any, ctx: Any) -> Any:
            return "sync object" if _off_the_loop() else "on the loop"

    async def coroutine(args: Any, ctx: Any) -> Any:
        return "returned awaitable"

    for handler, expected in [
        (AsyncCallable(), "async object"),
        (SyncCallable(), "sync object"),
        (lambda args, ctx: coroutine(args, ctx), "returned awaitable"),  # noqa: PLW0108 - a def returning an awaitable
        (lambda args, ctx, *rest, **kw: "variadic", "variadic"),
    ]:
        async with Client(pkg.create_server({"echo": handler})) as client:
            assert _text(await client.call_tool("echo", {"text": "x"})) == expected


async def _async_two(args: Any, ctx: Any) -> Any:
    return None


@pytest.mark.parametrize(
    ("handlers", "error", "message"),
    [
        ({"nope": _async_two}, ValueError, "handlers given for unknown tools: 'nope'\n"),
        ({"word_count": _async_two}, ValueError, "tools: 'word_count' (did you mean 'word-count'?)"),
        ({"ecko": _async_two, 3: _async_two}, ValueError, "tools: 'ecko' (did you mean 'echo'?), 3\n"),
        ({"WORD_COUNT": _async_two}, ValueError, "tools: 'WORD_COUNT' (did you mean 'word-count'?)"),
        ({"word-count": _async_two, "word_count": _async_two}, ValueError,
         "tools: 'word_count' (a second handler for 'word-count', given under its name too)\n"),
        ({"echo": _async_two, "ecko": _async_two}, ValueError, "tools: 'ecko' (did you mean 'echo'?)\n"),
        ({"echo": "not a function"}, TypeError, "the handler for tool 'echo' is not callable"),
        ({"echo": None}, TypeError, "the handler for tool 'echo' is not callable"),
        ({"echo": lambda args: args}, TypeError, "must take (args, ctx), not (args)"),
        ({"echo": lambda args, ctx, extra: args}, TypeError, "must take (args, ctx)"),
        ({"echo": lambda *, args, ctx: args}, TypeError, "must take (args, ctx)"),
        ({"measure": lambda: None}, TypeError, "the handler for tool 'measure' must take"),
    ],
)
def test_a_wrong_handler_is_refused_at_create_server(
    pkg: ModuleType, handlers: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as raised:
        pkg.create_server(handlers)
    assert message in str(raised.value) + "\n"


@pytest.mark.anyio
async def test_a_plain_def_handler_module_over_stdio(root: Path) -> None:
    async with Client(stdio_params(root, PACKAGE)) as client:
        echoed = await client.call_tool("echo", {"text": "hi"})
        failed = await client.call_tool("echo", {"text": "fail"})
    assert _text(echoed).startswith("hi from ") and "MainThread" not in _text(echoed)
    assert failed.is_error is True and _text(failed) == "failed on purpose"
