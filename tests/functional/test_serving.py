"""Production serving: create_app, stateless replicas behind a proxy, auth, host checks, limits,
/healthz and graceful shutdown, through `python -m PACKAGE --http` in real processes."""

from __future__ import annotations

import ast
import asyncio
import contextlib
import http.client
import importlib
import itertools
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package
from tests.functional.servers import command_lines, free_port

PACKAGE = "fx_serving"

TOOLSET = """\
mcpstub: 1
server: {name: serving-server, version: 2.0.0}
tools:
  - name: echo
    inputSchema:
      type: object
      properties: {text: {type: string}}
      required: [text]
    outputSchema:
      type: object
      properties: {text: {type: string}, pid: {type: integer}}
      required: [text, pid]
  - name: slow
    inputSchema:
      type: object
      properties: {seconds: {type: number, minimum: 0, maximum: 10}}
      required: [seconds]
    outputSchema:
      type: object
      properties: {slept: {type: number}}
      required: [slept]
"""

ECHO = """\
from __future__ import annotations

import os

from ..models import EchoInput, EchoOutput
from ..results import EchoResult
from ..server import ToolContext


async def echo(args: EchoInput, ctx: ToolContext) -> EchoOutput | EchoResult:
    return EchoOutput(text=args.text, pid=os.getpid())
"""

SLOW = """\
from __future__ import annotations

import logging

import anyio

from ..models import SlowInput, SlowOutput
from ..results import SlowResult
from ..server import ToolContext


async def slow(args: SlowInput, ctx: ToolContext) -> SlowOutput | SlowResult:
    await anyio.sleep(args.seconds)
    logging.getLogger(__name__).info("slow: slept %s s", args.seconds)
    return SlowOutput(slept=args.seconds)
"""

TOKEN = "s3cret-token-for-tests"


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serving")
    write_package(root, PACKAGE, TOOLSET)
    (root / PACKAGE / "handlers" / "echo.py").write_text(ECHO, "utf-8")
    (root / PACKAGE / "handlers" / "slow.py").write_text(SLOW, "utf-8")
    return root


def _env(root: Path, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # Stateless workers share the key that seals the state of calls that ask their user.
    return {**os.environ, "PYTHONPATH": path, "MCPSTUB_REQUEST_STATE_KEYS": "k" * 32, **extra}


def _wait_for(port: int, process: subprocess.Popen[str], seconds: float = 60, poll: float = 0.05) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None:
                _, err = process.communicate()
                raise AssertionError(f"the server exited {process.returncode}: {err or ''}") from None
            if time.monotonic() > deadline:
                raise AssertionError("the server did not start") from None
            time.sleep(poll)


@contextmanager
def _serving(
    root: Path, *flags: str, env: dict[str, str] | None = None, package: str = PACKAGE
) -> Iterator[int]:
    """`python -m PACKAGE --http 127.0.0.1:PORT FLAGS`, stopped afterwards; yields the port."""
    port = free_port()
    # The server's log goes to a file, never a pipe nobody reads: a full pipe would stall it.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", package, "--http", f"127.0.0.1:{port}", *flags],
            cwd=root,
            env=env or _env(root),
            stdout=subprocess.DEVNULL,
            stderr=log,
            text=True,
        )
        try:
            try:
                _wait_for(port, process)
            except AssertionError as exc:
                log.seek(0)
                raise AssertionError(f"{exc}\n{log.read()[-4000:]}") from None
            yield port
            process.terminate()  # SIGTERM: every server here stops cleanly
            code = process.wait(timeout=30)
            log.seek(0)
            assert code == 0, f"after SIGTERM the server exited {code}\n{log.read()[-4000:]}"
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _request(
    url: str, *, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


_INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
).encode()
_MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _run(*args: str, root: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", PACKAGE, *args],
        cwd=root,
        env=env or _env(root),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# -- the command line refuses what it cannot serve safely ---------------------------------------


USAGE_ERRORS: list[tuple[list[str], str]] = [
    (["--http", "8000"], "--http takes HOST:PORT"),
    (["--http", "127.0.0.1:99999"], "--http takes HOST:PORT"),
    (["--http", "0.0.0.0:8000"], "--allowed-host"),
    (["--http", "[::]:8000"], "--allowed-host"),
    (["--http", "127.0.0.1:8000", "--workers", "2"], "needs --stateless"),
    (["--http", "127.0.0.1:8000", "--workers", "0"], "positive"),
    (["--http", "127.0.0.1:8000", "--stateless", "--workers", "100000"], "at most 64"),
    (["--stateless"], "--stateless only applies with --http"),
    (["--workers", "2"], "--workers only applies with --http"),
    (["--grace", "5"], "--grace only applies with --http"),
    (["--keep-alive", "5"], "--keep-alive only applies with --http"),
    (["--stateless", "--grace", "5"], "--stateless and --grace only apply with --http"),
    (["--workers", "2", "--stateless", "--grace", "5"], "--stateless, --workers and --grace only apply"),
    (["--http", "127.0.0.1:8000", "--auth-token-env", "MCPSTUB_UNSET_VARIABLE"], "not set"),
    (["--http", "127.0.0.1:8000", "--auth-token-env", "MCPSTUB_NEWLINE_TOKEN"], "printable ASCII"),
    (["--http", "127.0.0.1:8000", "--auth-token-env", "MCPSTUB_UNICODE_TOKEN"], "printable ASCII"),
    (["--http", "127.0.0.1:8000", "--max-body-bytes", "0"], "--max-body-bytes takes a positive"),
    (["--http", "127.0.0.1:8000", "--grace", "-1"], "--grace: takes seconds"),
    (["--http", "127.0.0.1:8000", "--grace", "nan"], "--grace: takes seconds"),
    (["--http", "127.0.0.1:8000", "--grace", "inf"], "--grace: takes seconds"),
    (["--http", "127.0.0.1:8000", "--grace", "9" * 400], "--grace takes"),
    (["--http", "127.0.0.1:8000", "--keep-alive", "0"], "--keep-alive takes a number of seconds above 0"),
    (["--http", "127.0.0.1:8000", "--keep-alive", "9" * 400], "--keep-alive takes"),
    # int() and float() read other digits, signs, spaces and `_`: only digits 0-9 are numbers.
    *(
        (["--http", "127.0.0.1:8000", "--stateless", option, value], f"{option}: takes")
        for option in ("--workers", "--max-body-bytes", "--grace", "--keep-alive")
        for value in ("٣", "+3", " 3", "3_0", "\uff13", "1e3", "0x10", "")
    ),
    # Beyond what int() reads (4,300 digits), and long runs of leading zeros.
    *(
        (["--http", "127.0.0.1:8000", "--stateless", option, "9" * 5000], f"{option}: takes a number of")
        for option in ("--workers", "--max-body-bytes")
    ),
    (["--http", "127.0.0.1:" + "9" * 5000], "--http takes HOST:PORT"),
    (["--http", "127.0.0.1:" + "0" * 4998 + "80"], "--http takes HOST:PORT"),
    (["--http", "127.0.0.1:٣٠٠٠"], "--http takes HOST:PORT"),
    (["--http", "127.0.0.1:+80"], "--http takes HOST:PORT"),
    (["--http", "0.0.0.0:8000", "--allowed-host", ""], "non-empty"),
]

@pytest.fixture(scope="module")
def usage_errors(root: Path) -> list[tuple[int, str]]:
    env = _env(root, MCPSTUB_NEWLINE_TOKEN="s3cret\n", MCPSTUB_UNICODE_TOKEN="s\u00e9cret")
    return command_lines(root, PACKAGE, [args for args, _ in USAGE_ERRORS], env)


@pytest.mark.parametrize("case", range(len(USAGE_ERRORS)))
def test_unsafe_or_malformed_serving_options_are_usage_errors(
    usage_errors: list[tuple[int, str]], case: int
) -> None:
    code, err = usage_errors[case]
    assert code == 2, (USAGE_ERRORS[case], err)
    assert USAGE_ERRORS[case][1] in err
    assert "Traceback" not in err


def test_a_usage_error_is_said_by_the_command_itself(root: Path) -> None:
    result = _run("--http", "0.0.0.0:8000", root=root)
    assert result.returncode == 2 and "--allowed-host" in result.stderr, result.stderr
    assert result.stderr.startswith("usage: ") and "Traceback" not in result.stderr


def test_create_app_refuses_a_public_address_without_allowed_hosts(root: Path) -> None:
    with imported(root, PACKAGE) as package:
        with pytest.raises(ValueError, match="allowed_hosts"):
            package.create_app(host="0.0.0.0")
        package.create_app(host="0.0.0.0", allowed_hosts=["mcp.example.com"])
        package.create_app(host="0.0.0.0", allowed_hosts=["*"])


# -- what one process serves --------------------------------------------------------------------


def test_health_route_needs_no_session_and_no_token(root: Path) -> None:
    env = _env(root, MCPSTUB_TEST_TOKEN=TOKEN)
    with _serving(root, "--auth-token-env", "MCPSTUB_TEST_TOKEN", env=env) as port:
        status, body = _request(f"http://127.0.0.1:{port}/healthz")
    assert status == 200
    assert json.loads(body) == {"status": "ok", "name": "serving-server", "version": "2.0.0", "tools": 2}


def test_bearer_token_is_required_and_checked(root: Path) -> None:
    env = _env(root, MCPSTUB_TEST_TOKEN=TOKEN)
    with _serving(root, "--auth-token-env", "MCPSTUB_TEST_TOKEN", env=env) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        assert _request(url, method="POST", body=_INITIALIZE, headers=_MCP_HEADERS)[0] == 401
        wrong = {**_MCP_HEADERS, "Authorization": "Bearer not-the-token"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=wrong)[0] == 401

        async def call() -> Any:
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                return await client.call_tool("echo", {"text": "hi"})

        result = anyio.run(call)
    assert not result.is_error
    assert result.structured_content["text"] == "hi"


def test_host_header_is_checked(root: Path) -> None:
    with _serving(root, "--allowed-host", "mcp.test") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        evil = {**_MCP_HEADERS, "Host": "evil.example"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=evil)[0] == 421
        good = {**_MCP_HEADERS, "Host": "mcp.test"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=good)[0] == 200
        hostile_origin = {**good, "Origin": "http://evil.example"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=hostile_origin)[0] == 403


def test_any_host_still_checks_the_origins_given(root: Path) -> None:
    """'*' switches the Host check off, not the Origin check the same command line asks for."""
    flags = ("--allowed-host", "*", "--allowed-origin", "https://app.example")
    with _serving(root, *flags) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        for host in ("evil.example", "10.1.2.3:8000", "mcp.test"):
            headers = {**_MCP_HEADERS, "Host": host}
            assert _request(url, method="POST", body=_INITIALIZE, headers=headers)[0] == 200
        for origin, status in [
            ("https://app.example", 200),
            ("https://app.example:8443", 200),
            ("http://evil.example", 403),
            ("https://app.example.evil.example", 403),
            ("null", 403),
        ]:
            headers = {**_MCP_HEADERS, "Origin": origin}
            assert _request(url, method="POST", body=_INITIALIZE, headers=headers)[0] == status, origin
    with _serving(root, "--allowed-host", "*") as port:  # no origins given: none checked
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {**_MCP_HEADERS, "Host": "evil.example", "Origin": "http://evil.example"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=headers)[0] == 200


def test_the_default_loopback_server_refuses_foreign_hosts(root: Path) -> None:
    with _serving(root) as port:
        url = f"http://127.0.0.1:{port}/mcp"
        evil = {**_MCP_HEADERS, "Host": "evil.example"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=evil)[0] == 421
        assert _request(url, method="POST", body=_INITIALIZE, headers=_MCP_HEADERS)[0] == 200


def test_request_body_limit(root: Path) -> None:
    with _serving(root, "--max-body-bytes", "2000") as port:
        url = f"http://127.0.0.1:{port}/mcp"
        big = {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": {"x": "y" * 4000}}}
        body = json.dumps(big)
        assert _request(url, method="POST", body=body.encode(), headers=_MCP_HEADERS)[0] == 413


@pytest.mark.parametrize("flags", [[], ["--stateless", "--workers", "2"]], ids=["one process", "two workers"])
def test_sigterm_lets_in_flight_calls_finish_then_exits_0(root: Path, flags: list[str]) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", PACKAGE, "--http", f"127.0.0.1:{port}", "--grace", "20", *flags],
        cwd=root,
        env=_env(root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(port, process)
        url = f"http://127.0.0.1:{port}/mcp"

        async def scenario() -> Any:
            async with Client(url, mode="legacy") as client:
                await client.list_tools()  # the client checks results against the listed schemas
                async with anyio.create_task_group() as group:
                    box: dict[str, Any] = {}

                    async def slow_call() -> None:
                        box["result"] = await client.call_tool("slow", {"seconds": 2.0})

                    group.start_soon(slow_call)
                    await anyio.sleep(0.7)  # the call is in the handler now
                    process.send_signal(signal.SIGTERM)
                return box["result"]

        result = anyio.run(scenario)
        assert not result.is_error, result.content
        assert result.structured_content == {"slept": 2.0}
        assert process.wait(timeout=30) == 0
        # The SDK's lines about sessions (their IDs are what a client holds them by) are not logged.
        err = process.stderr.read() if process.stderr is not None else ""
        assert "session" not in err.lower(), err
        # A handler's own log line is there, in a worker too.
        assert "INFO:fx_serving.handlers.slow:slow: slept 2.0 s" in err, err
        # and it no longer accepts work
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_typed_client_of_a_server_stopped_during_a_call_raises_a_connection_error(root: Path) -> None:
    # The grace period lets the call in flight answer; a call after the stop is a lost connection,
    # said so, not a task group's error.
    port = free_port()
    command = [sys.executable, "-m", PACKAGE, "--http", f"127.0.0.1:{port}", "--grace", "20"]
    process = subprocess.Popen(command, cwd=root, env=_env(root), stderr=subprocess.DEVNULL, text=True)
    try:
        _wait_for(port, process)
        with imported(root, PACKAGE):
            connect = importlib.import_module(f"{PACKAGE}.client").connect
            answered: list[Any] = []

            async def scenario() -> None:
                url = f"http://127.0.0.1:{port}/mcp"
                async with connect(url) as client:
                    async with anyio.create_task_group() as group:
                        group.start_soon(lambda: _into(answered, client.slow(seconds=2.0)))
                        await anyio.sleep(0.7)  # the call is in the handler now
                        process.send_signal(signal.SIGTERM)
                    assert process.wait(timeout=30) == 0
                    await client.slow(seconds=0)

            with pytest.raises(ConnectionError, match="connection to the server was lost"):
                anyio.run(scenario)
            assert len(answered) == 1
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def _into(answers: list[Any], call: Any) -> None:
    answers.append(await call)


def test_a_call_cut_short_by_the_end_of_the_grace_period_is_a_line_not_a_traceback(root: Path) -> None:
    port = free_port()
    command = [sys.executable, "-m", PACKAGE, "--http", f"127.0.0.1:{port}", "--grace", "0.5"]
    process = subprocess.Popen(command, cwd=root, env=_env(root), stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(port, process)

        async def scenario() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
                async with anyio.create_task_group() as group:
                    group.start_soon(client.call_tool, "slow", {"seconds": 10.0})
                    await anyio.sleep(0.7)  # the call is in the handler now
                    process.send_signal(signal.SIGTERM)

        with contextlib.suppress(Exception):  # (the client loses its call: the server is gone)
            anyio.run(scenario)
        assert process.wait(timeout=30) == 0
        err = process.stderr.read() if process.stderr is not None else ""
        assert "Traceback" not in err and "Exception in ASGI application" not in err, err
        assert "a request still running when the grace period (--grace) ended was cut short" in err, err
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_stop_the_moment_the_port_opens_is_a_clean_exit(root: Path, stop: signal.Signals) -> None:
    for _ in range(3):
        port = free_port()
        with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", PACKAGE, "--http", f"127.0.0.1:{port}"],
                cwd=root,
                env=_env(root),
                stdout=subprocess.DEVNULL,
                stderr=log,
                text=True,
            )
            try:
                _wait_for(port, process, poll=0.001)
                process.send_signal(stop)
                code = process.wait(timeout=30)
                log.seek(0)
                err = log.read()
                assert code == 0 and "Traceback" not in err, f"exit {code}\n{err[-4000:]}"
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()


def test_ctrl_c_to_the_terminal_stops_workers_cleanly_at_any_point_of_their_start(root: Path) -> None:
    # A terminal's Ctrl-C reaches every process of the foreground group: the supervisor and each
    # worker, whether it is being spawned, importing or serving.
    for wait in (0.0, 0.05, 0.1, 0.2, 0.3, 0.45, 2.5):  # spawning, importing, serving
        port = free_port()
        command = [sys.executable, "-m", PACKAGE, "--http", f"127.0.0.1:{port}", "--stateless"]
        command += ["--workers", "2"]
        with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
            process = subprocess.Popen(
                command,
                cwd=root,
                env=_env(root),
                stdout=subprocess.DEVNULL,
                stderr=log,
                text=True,
                start_new_session=True,
            )
            try:
                _wait_for(port, process, poll=0.001)
                time.sleep(wait)
                os.killpg(process.pid, signal.SIGINT)
                code = process.wait(timeout=60)
                time.sleep(0.3)  # a worker's last words, if any, reach the log
                log.seek(0)
                err = log.read()
                assert code == 0, f"Ctrl-C after {wait} s: exit {code}\n{err}"
                assert "Traceback" not in err, f"Ctrl-C after {wait} s:\n{err}"
                assert "KeyboardInterrupt" not in err, f"Ctrl-C after {wait} s:\n{err}"
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def test_ctrl_c_stops_a_stdio_server_cleanly(root: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", PACKAGE],
        cwd=root,
        env=_env(root),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(_INITIALIZE + b"\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1  # serving
        process.send_signal(signal.SIGINT)
        # Standard input stays open, as a terminal's does: the server stops without its end.
        code = process.wait(timeout=10)
        process.stdin.close()
        err = process.stderr.read() if process.stderr is not None else b""
        assert code == 0 and b"Traceback" not in err, err.decode()[-4000:]
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_stdio_server_in_a_terminal_says_what_it_is_and_stops_on_ctrl_c(root: Path) -> None:
    """Run by hand in a terminal, it says it waits for an MCP client; Ctrl-C typed there ends it."""
    import pty  # noqa: PLC0415 - POSIX only

    pid, terminal = pty.fork()
    if pid == 0:  # the child: the server, its standard streams the terminal
        os.chdir(root)
        os.execve(sys.executable, [sys.executable, "-m", PACKAGE], _env(root))
    said = b""
    try:
        deadline = time.monotonic() + 30
        while b"Ctrl-C stops it" not in said and time.monotonic() < deadline:
            if select.select([terminal], [], [], 0.1)[0]:
                with contextlib.suppress(OSError):
                    said += os.read(terminal, 4096)
        assert b"is meant to be started by an MCP client" in said, said
        os.write(terminal, b"\x03")  # Ctrl-C, as typed
        deadline = time.monotonic() + 10
        while (ended := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ended[0] == pid, "still running 10 s after Ctrl-C"
        assert os.waitstatus_to_exitcode(ended[1]) == 0
    finally:
        with contextlib.suppress(ChildProcessError, ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        os.close(terminal)


# -- create_app inside a larger app, under uvicorn ----------------------------------------------

DOCS = Path(__file__).resolve().parents[2] / "docs"
# docs/deployment.md's app that mounts the package, run as shown (on this package), with a page
# of its own beside it and the same routes mounted without the MCP app's lifespan.
_MOUNTED = (DOCS / "deployment.md").read_text("utf-8").split("Mounted in a larger app", 1)[1]
MOUNTED = _MOUNTED.split("```python\n", 1)[1].split("```", 1)[0].replace("weather_tools", PACKAGE)
OUTER_APP = f"""\
{MOUNTED}

from starlette.responses import PlainTextResponse
from starlette.routing import Route


async def home(request):
    return PlainTextResponse("the larger app")


app.router.routes.insert(0, Route("/", home))
forgetful = Starlette(routes=app.routes)  # mounted without the MCP app's lifespan
"""


@contextmanager
def _uvicorn(root: Path, target: str) -> Iterator[int]:
    port = free_port()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", target, "--host", "127.0.0.1", "--port", str(port)],
            cwd=root, env=_env(root), stdout=subprocess.DEVNULL, stderr=log, text=True,
        )  # fmt: skip
        try:
            _wait_for(port, process)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=20)


def test_create_app_mounted_in_a_larger_app_under_uvicorn(root: Path) -> None:
    (root / "outer_app.py").write_text(OUTER_APP, "utf-8")
    with _uvicorn(root, "outer_app:app") as port:
        assert _request(f"http://127.0.0.1:{port}/") == (200, b"the larger app")
        status, body = _request(f"http://127.0.0.1:{port}/tools/healthz")
        assert status == 200 and json.loads(body)["name"] == "serving-server"

        async def calls() -> list[Any]:
            results = []
            for mode in ("auto", "legacy"):
                async with Client(f"http://127.0.0.1:{port}/tools/mcp", mode=mode) as client:
                    results.append(await client.call_tool("echo", {"text": mode}))
            return results

        for mode, result in zip(("auto", "legacy"), anyio.run(calls), strict=True):
            assert not result.is_error and result.structured_content["text"] == mode


def test_create_app_mounted_without_its_lifespan_says_how_to_mount_it(root: Path) -> None:
    (root / "outer_app.py").write_text(OUTER_APP, "utf-8")
    with _uvicorn(root, "outer_app:forgetful") as port:
        status, body = _request(
            f"http://127.0.0.1:{port}/tools/mcp", method="POST", body=_INITIALIZE, headers=_MCP_HEADERS
        )
    assert status == 500
    assert b"lifespan=mcp_app.router.lifespan_context)" in body  # (as docs/deployment.md shows)
    assert "lifespan=mcp_app.router.lifespan_context," in MOUNTED


def test_the_mounting_shown_passes_mypy_strict(root: Path, mypy_strict: MypyRun) -> None:
    (root / "mounted.py").write_text(MOUNTED, "utf-8")
    done = mypy_strict("mounted.py", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


# -- horizontal scaling: stateless replicas behind a round-robin proxy --------------------------


class RoundRobinProxy:
    """A TCP proxy on 127.0.0.1 that hands each new connection to the next backend in turn."""

    def __init__(self, backends: list[int]) -> None:
        self.backends = backends
        self.port = free_port()
        self.connections: Counter[int] = Counter()
        self._turn = itertools.cycle(backends)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RoundRobinProxy:
        self._thread.start()
        assert self._ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        assert not self._thread.is_alive()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        server: asyncio.Server | None = None

        async def start() -> None:
            nonlocal server
            server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
            self._ready.set()

        async def shut_down() -> None:
            # Every connection task ends here, in this loop: none is left pending for the garbage
            # collector to finish later at an arbitrary point in another test.
            if server is not None:
                server.close()
            tasks = asyncio.all_tasks() - {asyncio.current_task()}
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            self._loop.run_until_complete(start())
            self._loop.run_forever()
            self._loop.run_until_complete(shut_down())
        finally:
            self._loop.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        backend = next(self._turn)
        self.connections[backend] += 1
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", backend)
        except OSError:
            writer.close()
            return

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def _load(url: str, mode: str, calls: int, in_flight: int) -> tuple[list[str], set[int]]:
    """`calls` echo calls from one client, `in_flight` at a time; the pids that answered."""
    failures: list[str] = []
    pids: set[int] = set()
    remaining = iter(range(calls))
    async with Client(url, mode=mode, read_timeout_seconds=60) as client:
        await client.list_tools()

        async def worker() -> None:
            for number in remaining:
                text = f"call {number} {'é' * (number % 3)}"
                try:
                    with anyio.fail_after(60):
                        result = await client.call_tool("echo", {"text": text})
                except Exception as exc:
                    failures.append(f"{type(exc).__name__}: {exc}")
                    continue
                if result.is_error or result.structured_content["text"] != text:
                    failures.append(f"bad result {result}")
                    continue
                pids.add(result.structured_content["pid"])

        async with anyio.create_task_group() as group:
            for _ in range(in_flight):
                group.start_soon(worker)
    return failures, pids


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_two_stateless_replicas_behind_a_proxy_serve_one_client_without_failures(
    root: Path, mode: str
) -> None:
    with _serving(root, "--stateless") as first, _serving(root, "--stateless") as second:
        with RoundRobinProxy([first, second]) as proxy:
            failures, pids = anyio.run(_load, f"http://127.0.0.1:{proxy.port}/mcp", mode, 1000, 50)
    assert failures == []
    assert len(pids) == 2, "both replicas answered calls"
    assert min(proxy.connections.values()) > 0


def test_an_idle_connection_stays_open_longer_than_a_client_keeps_it(root: Path) -> None:
    # The SDK's client (httpx) sends its next request on a connection idle for up to 5 s: a server
    # closing it at 5 s (uvicorn's own default) may close it as that request arrives.
    with _serving(root) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/healthz")
        assert connection.getresponse().read()
        first = connection.sock
        time.sleep(6)
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        assert response.status == 200 and response.read()
        assert connection.sock is first, "the request went out on the connection kept open"
        connection.close()
    with _serving(root, "--keep-alive", "0.5") as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        assert response.status == 200 and response.read()
        time.sleep(1.5)
        assert connection.sock.recv(1) == b"", "an idle connection is closed after --keep-alive"
        connection.close()


def test_workers_share_one_port(root: Path) -> None:
    with _serving(root, "--stateless", "--workers", "2") as port:
        failures, pids = anyio.run(_load, f"http://127.0.0.1:{port}/mcp", "auto", 200, 20)
    assert failures == []
    assert pids, "calls were answered"


# -- the container recipe -----------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "examples" / "Dockerfile"


def _container_command() -> list[str]:
    """The Dockerfile's CMD, as the shell in the container would run it (variables filled in)."""
    (line,) = [line for line in DOCKERFILE.read_text("utf-8").splitlines() if line.startswith("CMD ")]
    shell = json.loads(line.removeprefix("CMD "))
    assert shell[:2] == ["sh", "-c"] and shell[2].startswith("exec ")
    text = shell[2].removeprefix("exec ")
    text = text.replace("${WORKERS:-2}", "2").replace("${MCP_ALLOWED_HOST:?set MCP_ALLOWED_HOST}", "mcp.test")
    return text.split()


def test_the_container_installs_what_the_package_imports() -> None:
    text = DOCKERFILE.read_text("utf-8")
    assert "COPY runtime /tmp/mcpstub-runtime" in text and '"/tmp/mcpstub-runtime"' in text
    assert '"uvicorn' in text
    # the runtime's dependencies come with it
    installed = {"mcpstub_runtime", "mcp", "pydantic", "jsonschema_rs", "uvicorn"}
    bundled_with_mcp = {"anyio", "starlette", "sse_starlette", "pydantic_core"}
    package = ROOT / "examples" / "weather" / "weather_tools"
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = (
                [a.name for a in node.names] if isinstance(node, ast.Import)
                else [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                else []
            )  # fmt: skip
            for name in names:
                top = name.partition(".")[0]
                assert top in sys.stdlib_module_names | installed | bundled_with_mcp, (path, name)


def test_the_container_command_serves_the_example_with_a_token(tmp_path: Path) -> None:
    command = _container_command()
    assert command[:3] == ["python", "-m", "weather_tools"]
    http = command.index("--http")
    assert command[http + 1] == "0.0.0.0:8000"
    port = free_port()
    command[http + 1] = f"127.0.0.1:{port}"  # tests bind the loopback only
    env = _env(ROOT / "examples" / "weather", MCP_TOKEN=TOKEN)
    process = subprocess.Popen(
        [sys.executable, *command[1:]], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for(port, process)
        url = f"http://127.0.0.1:{port}/mcp"
        no_token = {**_MCP_HEADERS, "Host": "mcp.test"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=no_token)[0] == 401
        foreign = {**_MCP_HEADERS, "Host": "evil.example", "Authorization": f"Bearer {TOKEN}"}
        assert _request(url, method="POST", body=_INITIALIZE, headers=foreign)[0] == 421
        status, body = _request(f"http://127.0.0.1:{port}/healthz", headers={"Host": "mcp.test"})
        assert status == 200 and json.loads(body)["name"] == "weather"

        async def call() -> Any:
            headers = {"Authorization": f"Bearer {TOKEN}", "Host": "mcp.test"}
            http = httpx2.AsyncClient(headers=headers)
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                return await client.call_tool("list_cities", {})

        result = anyio.run(call)
        assert not result.is_error, result.content
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_the_example_as_two_replicas_with_a_token_behind_a_proxy(tmp_path: Path) -> None:
    """The weather example as deployed: two stateless replicas, bearer token, 1,000 calls."""
    example = ROOT / "examples" / "weather"
    env = _env(example, MCP_TOKEN=TOKEN)
    flags = ("--stateless", "--auth-token-env", "MCP_TOKEN")
    failures: list[str] = []
    with (
        _serving(example, *flags, env=env, package="weather_tools") as first,
        _serving(example, *flags, env=env, package="weather_tools") as second,
        RoundRobinProxy([first, second]) as proxy,
    ):
        url = f"http://127.0.0.1:{proxy.port}/mcp"
        assert _request(url, method="POST", body=_INITIALIZE, headers=_MCP_HEADERS)[0] == 401

        async def load() -> None:
            remaining = iter(range(1000))
            http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
            async with http, Client(streamable_http_client(url, http_client=http)) as client:
                await client.list_tools()

                async def worker() -> None:
                    for _ in remaining:
                        try:
                            with anyio.fail_after(60):
                                result = await client.call_tool("get_forecast", {"city": "Paris"})
                        except Exception as exc:
                            failures.append(f"{type(exc).__name__}: {exc}")
                            continue
                        if result.is_error or result.structured_content["city"] != "Paris":
                            failures.append(f"bad result {result}")

                async with anyio.create_task_group() as group:
                    for _ in range(50):
                        group.start_soon(worker)

        anyio.run(load)
    assert failures == []
    assert min(proxy.connections[first], proxy.connections[second]) > 0, "both replicas served"
