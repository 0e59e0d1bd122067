"""A handler's own BaseException is an isError answer; a client's cancellation still cancels.

Tried in memory, over stdio and over HTTP (real server processes): after each failure the same
server answers later calls, and over HTTP another session carries on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import anyio
import pytest
from mcp import Client, types

from tests.functional.helpers import imported, write_package
from tests.functional.servers import http_server, stdio_params

PACKAGE = "fx_handler_failures"

TOOLSET = """\
mcpstub: 1
server: {name: failing, version: 0.1.0}
tools:
  - name: boom
    inputSchema:
      type: object
      properties: {kind: {type: string}}
      required: [kind]
  - name: wait
    inputSchema:
      type: object
      properties: {marker: {type: string}}
      required: [marker]
  - name: echo
    inputSchema:
      type: object
      properties: {text: {type: string}}
      required: [text]
"""

BOOM = """\
from __future__ import annotations

import asyncio

import anyio

from ..models import BoomInput
from ..results import BoomResult
from ..server import ToolContext


class Custom(BaseException):
    pass


async def boom(args: BoomInput, ctx: ToolContext) -> BoomResult | str:
    if args.kind == "SystemExit":
        raise SystemExit(3)
    if args.kind == "KeyboardInterrupt":
        raise KeyboardInterrupt
    if args.kind == "GeneratorExit":
        raise GeneratorExit
    if args.kind == "BaseException":
        raise BaseException("plain base exception")
    if args.kind == "Custom":
        raise Custom("custom base exception")
    if args.kind == "CancelledError":
        raise asyncio.CancelledError
    if args.kind == "anyio-cancelled":
        raise anyio.get_cancelled_exc_class()()
    if args.kind == "ExceptionGroup":
        raise BaseExceptionGroup("group", [SystemExit(1), KeyboardInterrupt()])
    return "no exception"
"""

WAIT = """\
from __future__ import annotations

from pathlib import Path

import anyio

from ..models import WaitInput
from ..results import WaitResult
from ..server import ToolContext


async def wait(args: WaitInput, ctx: ToolContext) -> WaitResult | str:
    marker = Path(args.marker)
    marker.write_text("started", encoding="utf-8")
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        marker.write_text("cancelled", encoding="utf-8")
        raise
    return "never"
"""

ECHO = """\
from __future__ import annotations

from ..models import EchoInput
from ..results import EchoResult
from ..server import ToolContext


async def echo(args: EchoInput, ctx: ToolContext) -> EchoResult | str:
    return args.text
"""

KINDS = [
    "SystemExit",
    "KeyboardInterrupt",
    "GeneratorExit",
    "BaseException",
    "Custom",
    "CancelledError",
    "anyio-cancelled",
    "ExceptionGroup",
]
GENERIC = "internal error in tool boom"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("failures")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    for name, text in {"boom": BOOM, "wait": WAIT, "echo": ECHO}.items():
        (folder / "handlers" / f"{name}.py").write_text(text, encoding="utf-8")
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


async def _every_kind_is_an_error_and_the_server_carries_on(client: Client) -> None:
    for kind in KINDS:
        with anyio.fail_after(30):
            result = await client.call_tool("boom", {"kind": kind})
        assert result.is_error is True, kind
        assert _text(result) == GENERIC, kind
        echoed = await client.call_tool("echo", {"text": f"after {kind}"})
        assert echoed.is_error is not True and _text(echoed) == f"after {kind}"


async def _a_client_cancellation_cancels_the_handler(client: Client, marker: Path) -> None:
    async def call() -> None:
        await client.call_tool("wait", {"marker": str(marker)})

    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            group.start_soon(call)
            while not marker.exists():
                await anyio.sleep(0.02)
            group.cancel_scope.cancel()
        while marker.read_text(encoding="utf-8") != "cancelled":
            await anyio.sleep(0.02)
    echoed = await client.call_tool("echo", {"text": "still here"})
    assert _text(echoed) == "still here"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_in_memory(pkg: ModuleType, mode: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger=f"{PACKAGE}.server")
    async with Client(pkg.create_server(), mode=mode) as client:
        await _every_kind_is_an_error_and_the_server_carries_on(client)
    logged = [r for r in caplog.records if r.exc_info]
    assert len(logged) == len(KINDS)
    assert any(isinstance(r.exc_info[1], SystemExit) for r in logged if r.exc_info)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_in_memory_cancellation(
    pkg: ModuleType, mode: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger=f"{PACKAGE}.server")
    async with Client(pkg.create_server(), mode=mode) as client:
        await _a_client_cancellation_cancels_the_handler(client, tmp_path / "marker")
    # a cancellation is not a handler failure: it goes on, nothing is logged as one
    assert not [r for r in caplog.records if r.exc_info]


@pytest.mark.anyio
async def test_stdio(root: Path, tmp_path: Path) -> None:
    async with Client(stdio_params(root, PACKAGE)) as client:
        await _every_kind_is_an_error_and_the_server_carries_on(client)
        await _a_client_cancellation_cancels_the_handler(client, tmp_path / "marker")
        assert _text(await client.call_tool("echo", {"text": "end"})) == "end"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_http(root: Path, tmp_path: Path, mode: str) -> None:
    with http_server(root, PACKAGE) as server:
        async with Client(server.url, mode=mode) as bystander, Client(server.url, mode=mode) as client:
            assert _text(await bystander.call_tool("echo", {"text": "before"})) == "before"
            await _every_kind_is_an_error_and_the_server_carries_on(client)
            await _a_client_cancellation_cancels_the_handler(client, tmp_path / "marker")
            assert _text(await bystander.call_tool("echo", {"text": "after"})) == "after"
        assert server.process.poll() is None
        deadline = time.monotonic() + 10
        while "SystemExit" not in server.stderr() and time.monotonic() < deadline:
            time.sleep(0.05)
        log = server.stderr()
    assert "Traceback" in log and "SystemExit" in log and "custom base exception" in log
