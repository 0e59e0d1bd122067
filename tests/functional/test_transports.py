"""`python -m PACKAGE` serves stdio, and streamable HTTP at /mcp with `--http HOST:PORT`."""

from __future__ import annotations

import importlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError

from tests.functional.helpers import imported, write_package
from tests.functional.servers import command_lines, http_server, opening, stdio_exchange

PACKAGE = "fx_transport_echo"

TOOLSET = """\
mcpstub: 1
server: {name: echo-server, version: 0.1.0}
tools:
  - name: echo
    description: Echo a text.
    inputSchema:
      type: object
      properties: {text: {type: string}}
      required: [text]
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("transports")
    write_package(root, PACKAGE, TOOLSET)
    return root


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _env(root: Path) -> dict[str, str]:
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**os.environ, "PYTHONPATH": path}


def _check(result: types.CallToolResult) -> None:
    assert result.is_error is True and result.structured_content is None
    assert result.content == [types.TextContent(type="text", text="echo is not implemented yet")]


@pytest.mark.anyio
async def test_stdio(root: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", PACKAGE], env=_env(root), cwd=str(root)
    )
    async with Client(params) as client:
        tools = await client.list_tools()
        result = await client.call_tool("echo", {"text": "hi"})
    assert [tool.name for tool in tools.tools] == ["echo"]
    _check(result)


def test_what_a_handler_prints_on_stdio_goes_to_stderr_not_into_the_protocol(tmp_path: Path) -> None:
    # (The SDK's stdio transport points standard output at standard error while it serves.)
    folder, _ = write_package(tmp_path, "fx_printing", TOOLSET)
    (folder / "handlers" / "echo.py").write_text(
        "from ..models import EchoInput\n\n\nasync def echo(args: EchoInput, ctx: object) -> str:\n"
        "    print('debugging', args.text)\n    return args.text\n"
    )
    call = {"text": "x"}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": call}},
    ]
    done = subprocess.Popen(
        [sys.executable, "-m", "fx_printing"], cwd=tmp_path, env=_env(tmp_path), text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert done.stdin is not None and done.stdout is not None
    for message in messages:
        done.stdin.write(json.dumps(message) + "\n")
        done.stdin.flush()
    answers = [json.loads(done.stdout.readline()) for _ in range(2)]  # every line is a message
    done.stdin.close()
    assert done.wait(timeout=60) == 0 and done.stderr is not None
    assert answers[1]["id"] == 2 and answers[1]["result"]["content"] == [{"type": "text", "text": "x"}]
    assert "debugging x" in done.stderr.read()


def test_a_request_the_sdk_cannot_read_is_answered_over_stdio(root: Path) -> None:
    # The SDK only logs such a line: its client waited forever (HTTP answers 400 with -32700).
    call = '{"jsonrpc": "2.0", "id": %s, "method": "tools/call", "params": %s}'
    lines = [
        *opening(),
        call % (1, '{"name": "echo", "arguments": {"text": "\\udc80"}}'),  # (a lone surrogate escaped)
        call % ('"two"', "5"),  # (params of no shape MCP defines)
        "not JSON at all",  # (no id to answer: left, as before)
        '{"jsonrpc": "2.0", "id": "\\udc80", "method": "ping"}',  # (an id no JSON text can carry back)
        "[" * 1000,  # (nested past Python's own reader too)
        # (a notification: the id of an object inside it is not its own)
        '{"jsonrpc": "2.0", "method": "notifications/progress", "params": 0,'
        ' "error": {"id": 7, "method": "x"}}',
        '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "\\ud800"}}',
        "\ufeff" + call % (4, "5"),  # (a byte-order mark first)
        '{"jsonrpc": "2.0", "id": 5, "method": 5}',  # (a method that is no string)
        call % (6, '{"name": "echo", "arguments": {"text": 1' + "0" * 5000 + "}}"),  # (past Python's digits)
        call % (3, '{"name": "echo", "arguments": {"text": "fine"}}'),
    ]
    answers = {a["id"]: a for a in stdio_exchange(root, PACKAGE, lines, 7)}
    said = answers[1]["error"]
    assert said["code"] == -32700 and said["message"].startswith("Parse error: "), said
    assert "surrogate" in said["message"], said
    assert answers["two"]["error"] == {"code": -32600, "message": "Invalid request: not one MCP defines"}
    assert answers[3]["result"]["content"] == [{"type": "text", "text": "echo is not implemented yet"}]
    assert answers[4]["error"]["code"] == -32700 and answers[5]["error"]["code"] == -32600
    assert answers[6]["error"]["code"] == -32700, answers[6]


def test_answers_to_unreadable_lines_wait_for_no_reader(root: Path) -> None:
    # (each answer was written before the next line was read: once the client's pipe was full,
    # as a client that writes all before it reads makes it, neither side went on)
    bad = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": 5}'
    lines = [
        *opening(),
        *[bad] * 3000,
        json.dumps({"jsonrpc": "2.0", "id": "last", "method": "ping"}),
    ]
    answers = stdio_exchange(root, PACKAGE, lines, 3002, unread=True)
    assert answers[-1] == {"jsonrpc": "2.0", "id": "last", "result": {}}
    assert sum(a.get("error", {}).get("code") == -32600 for a in answers) == 3000


@pytest.fixture
def http_url(root: Path) -> Iterator[str]:
    with http_server(root, PACKAGE) as server:  # (on a port it takes itself: no other can answer)
        yield server.url


@pytest.mark.anyio
async def test_streamable_http(http_url: str) -> None:
    async with Client(http_url) as client:
        tools = await client.list_tools()
        result = await client.call_tool("echo", {"text": "hi"})
        invalid = await client.call_tool("echo", {"text": 3})
    assert [tool.name for tool in tools.tools] == ["echo"]
    _check(result)
    assert invalid.is_error is True and "/text" in invalid.content[0].text  # type: ignore[union-attr]


BAD_ADDRESSES = [
    "nowhere",
    "8000",
    ":8000",
    "127.0.0.1:",
    "127.0.0.1:99999",
    "localhost:65536",
    "[::1]:123456",
    "localhost:0065536",
    "h:\uff18\uff10",
    "::1:8000",  # IPv6 without brackets: is 8000 the port or part of the address?
    "127.0.0.1:8000:1",
    "[127.0.0.1]:8000",  # brackets hold IPv6 addresses only
    "[localhost]:8000",
    "[]:8000",
    "[[::1]]:8000",
    "[::1:8000",
]


@pytest.fixture(scope="module")
def bad_addresses(root: Path) -> list[tuple[int, str]]:
    return command_lines(root, PACKAGE, [["--http", address] for address in BAD_ADDRESSES], _env(root))


@pytest.mark.parametrize("case", range(len(BAD_ADDRESSES)), ids=BAD_ADDRESSES)
def test_bad_http_address_is_a_usage_error(bad_addresses: list[tuple[int, str]], case: int) -> None:
    code, err = bad_addresses[case]
    assert code == 2 and "--http takes HOST:PORT" in err, err
    assert repr(BAD_ADDRESSES[case]) in err and "Traceback" not in err
    # A port past 65535 is said to be one: the address is written as the example shows.
    out_of_range = BAD_ADDRESSES[case].rpartition(":")[2] in ("99999", "65536", "123456", "0065536")
    assert ("a port of 0 to 65535" in err) is out_of_range, err


def test_a_bad_address_is_said_by_the_command_itself(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--http", "nowhere"],
        env=_env(root), capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "--http takes HOST:PORT" in done.stderr
    assert "'nowhere'" in done.stderr and "Traceback" not in done.stderr


def test_http_says_where_it_listens(root: Path) -> None:
    with http_server(root, PACKAGE) as server:
        deadline = time.monotonic() + 10
        while "serving" not in server.stderr() and time.monotonic() < deadline:
            time.sleep(0.05)
        log = server.stderr()
    assert f"serving MCP over streamable HTTP at {server.url}" in log


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback here")
@pytest.mark.anyio
async def test_an_ipv6_address_in_brackets_is_served(root: Path) -> None:
    with socket.socket(socket.AF_INET6) as probe:
        probe.bind(("::1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", PACKAGE, "--http", f"[::1]:{port}"],
        env=_env(root),
        cwd=root,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("::1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        async with Client(f"http://[::1]:{port}/mcp") as client:
            result = await client.call_tool("echo", {"text": "hi"})
        _check(result)
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_an_address_in_use_is_a_clear_error(root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", PACKAGE, "--http", f"127.0.0.1:{port}"],
            env=_env(root),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1 and f"cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


BIG = """\
mcpstub: 1
server: {name: big}
tools:
  - name: blob
    inputSchema:
      type: object
      properties: {size: {type: integer}}
      required: [size]
    outputSchema:
      type: object
      properties: {data: {type: string}}
      required: [data]
"""

BLOB = """\
from ..models import BlobInput, BlobOutput
from ..server import ToolContext


async def blob(args: BlobInput, ctx: ToolContext) -> BlobOutput:
    await ctx.info("making it")  # (on 2026-07-28 too, the answer then comes as an SSE event)
    return BlobOutput(data="x" * args.size)
"""


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_the_typed_client_takes_an_answer_of_any_size_over_http(tmp_path: Path, mode: str) -> None:
    # As over stdio: past the SDK's 1 MiB for one SSE event, it was a connection lost.
    folder, _ = write_package(tmp_path, "fx_big", BIG)
    (folder / "handlers" / "blob.py").write_text(BLOB, encoding="utf-8")
    with http_server(tmp_path, "fx_big") as server, imported(tmp_path, "fx_big") as package:
        connect = importlib.import_module(f"{package.__name__}.client").connect
        async with connect(server.url, mode=mode, timeout=60) as client:
            for size in (10, 3 * 1024 * 1024):
                assert len((await client.blob(size=size)).data) == size


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_call_the_server_refuses_over_http_is_said_with_its_status(tmp_path: Path, mode: str) -> None:
    # A call past the server's --max-body-bytes was the SDK's bare "Server returned an error response".
    folder, _ = write_package(tmp_path, "fx_small", BIG)
    (folder / "handlers" / "blob.py").write_text(BLOB, encoding="utf-8")
    with http_server(tmp_path, "fx_small", "--max-body-bytes", "4096") as server, imported(
        tmp_path, "fx_small"
    ) as package:
        connect = importlib.import_module(f"{package.__name__}.client").connect
        async with connect(server.url, mode=mode, timeout=60) as client:
            assert (await client.blob(size=3)).data == "xxx"
            refused = r"^blob: the server answered the call HTTP 413 .*: the request is larger .*--max-body"
            with pytest.raises(MCPError, match=refused):
                await client.blob(size=10**4200)  # (an integer of 4,201 digits)
            assert (await client.blob(size=4)).data == "xxxx"  # the connection goes on


def test_a_port_written_with_leading_zeros_is_that_port() -> None:
    from mcpstub_runtime.serve import _address  # noqa: PLC0415

    assert _address("127.0.0.1:00080") == ("127.0.0.1", 80)
    assert _address("[::1]:09999") == ("::1", 9999)
    # (a port is at most 5 digits: `000080` was said to be out of range, which 80 is not)
    said = "a port of 0 to 65535 in at most 5 digits, not '127.0.0.1:000080'"
    assert said in str(_address("127.0.0.1:000080"))
    assert "a port of 0 to 65535 in at most 5 digits" in str(_address("h:" + "0" * 5000 + "80"))
    assert str(_address("h:65536")).endswith("a port of 0 to 65535, not 'h:65536'")
