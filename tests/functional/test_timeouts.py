"""A per-tool time limit (`timeout` in the toolset) and a server-wide default (`create_server`).

When it runs out the handler is cancelled and the client gets an isError answer; the server carries
on. Tried in memory, over stdio and over HTTP.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client, types

from mcpstub.pipeline import generate
from tests.functional.helpers import imported, write_package
from tests.functional.servers import http_server, stdio_params

PACKAGE = "fx_timeouts"

TOOLSET = """\
mcpstub: 1
server: {name: timeouts, version: 0.1.0}
tools:
  - name: limited
    timeout: 0.5
    inputSchema:
      type: object
      properties: {marker: {type: string}, seconds: {type: number}}
      required: [marker, seconds]
  - name: unlimited
    inputSchema:
      type: object
      properties: {marker: {type: string}, seconds: {type: number}}
      required: [marker, seconds]
"""

HANDLER = """\
from __future__ import annotations

from pathlib import Path

import anyio

from ..models import {cls}Input
from ..results import {cls}Result
from ..server import ToolContext


async def {name}(args: {cls}Input, ctx: ToolContext) -> {cls}Result | str:
    marker = Path(args.marker)
    marker.write_text("started", encoding="utf-8")
    try:
        await anyio.sleep(args.seconds)
    except anyio.get_cancelled_exc_class():
        marker.write_text("cancelled", encoding="utf-8")
        raise
    return "done"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("timeouts")
    folder, toolset = write_package(root, PACKAGE, TOOLSET)
    assert [tool.timeout for tool in toolset.tools] == [0.5, None]
    for name in ("limited", "unlimited"):
        text = HANDLER.format(name=name, cls=name.capitalize())
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


async def _call(
    client: Client, tool: str, marker: Path, seconds: float
) -> tuple[types.CallToolResult, float]:
    started = time.monotonic()
    with anyio.fail_after(30):
        result = await client.call_tool(tool, {"marker": str(marker), "seconds": seconds})
    return result, time.monotonic() - started


async def _the_tool_limit_holds(client: Client, tmp_path: Path) -> None:
    marker = tmp_path / "limited"
    result, took = await _call(client, "limited", marker, 60)
    assert result.is_error is True and _text(result) == "tool limited timed out after 0.5 s"
    assert 0.4 < took < 10
    assert marker.read_text(encoding="utf-8") == "cancelled"
    quick, _ = await _call(client, "limited", tmp_path / "quick", 0.01)
    assert quick.is_error is not True and _text(quick) == "done"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_in_memory(pkg: ModuleType, mode: str, tmp_path: Path) -> None:
    async with Client(pkg.create_server(), mode=mode) as client:
        await _the_tool_limit_holds(client, tmp_path)
        # no limit of its own and no default: it runs as long as it takes
        slow, took = await _call(client, "unlimited", tmp_path / "slow", 1.0)
        assert _text(slow) == "done" and took >= 1.0


@pytest.mark.anyio
async def test_server_wide_default(pkg: ModuleType, tmp_path: Path) -> None:
    # the default applies to tools without a limit of their own; the tool's own limit wins
    async with Client(pkg.create_server(timeout=0.3)) as client:
        result, took = await _call(client, "unlimited", tmp_path / "unlimited", 60)
        assert _text(result) == "tool unlimited timed out after 0.3 s" and took < 10
        assert (tmp_path / "unlimited").read_text(encoding="utf-8") == "cancelled"
    async with Client(pkg.create_server(timeout=5)) as client:
        await _the_tool_limit_holds(client, tmp_path)


@pytest.mark.parametrize("bad", [0, -1, float("inf"), float("nan"), "5", True])
def test_a_bad_default_is_refused_at_create_server(pkg: ModuleType, bad: Any) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        pkg.create_server(timeout=bad)


@pytest.mark.anyio
async def test_stdio(root: Path, tmp_path: Path) -> None:
    async with Client(stdio_params(root, PACKAGE)) as client:
        await _the_tool_limit_holds(client, tmp_path)


@pytest.mark.anyio
async def test_http(root: Path, tmp_path: Path) -> None:
    with http_server(root, PACKAGE) as server:
        async with Client(server.url) as client:
            await _the_tool_limit_holds(client, tmp_path)


@pytest.mark.parametrize("value", ["0", "-1", "'5'", "true", "100000", "[1]"])
def test_a_bad_timeout_is_a_located_error(tmp_path: Path, value: str) -> None:
    source = tmp_path / "tools.yaml"
    source.write_text(TOOLSET.replace("timeout: 0.5", f"timeout: {value}"), encoding="utf-8")
    generated = generate(source)
    errors = [d for d in generated.diagnostics if d.is_error]
    assert not generated.ok and errors
    assert all("timeout" in d.message for d in errors), errors
    assert errors[0].location.line == 5


def test_timeout_is_not_advertised(pkg: ModuleType) -> None:
    tool = pkg.TOOLS["limited"].tool
    assert pkg.TOOLS["limited"].timeout == 0.5 and pkg.TOOLS["unlimited"].timeout is None
    assert "timeout" not in tool.model_dump(by_alias=True, exclude_none=True)
