"""Run a generated package as a real server process: over stdio, or over HTTP on a free port."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import uvicorn
from mcp import StdioServerParameters

from mcpstub_runtime import create_app


def server_env(root: Path) -> dict[str, str]:
    """The environment in which `python -m PACKAGE` finds packages generated under `root`."""
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**os.environ, "PYTHONPATH": path}


def stdio_params(root: Path, package: str) -> StdioServerParameters:
    """What `mcp.Client` needs to start `python -m package` and talk to it over stdio."""
    return StdioServerParameters(
        command=sys.executable, args=["-m", package], env=server_env(root), cwd=str(root)
    )


def free_port() -> int:
    """A loopback port for a server this test starts, which no other test of the run is given.

    A port asked of the kernel (bind to port 0) and freed at once can be handed to the next process
    that asks, another test's server, before this test's server binds it: the test then talks to the
    wrong server. So ports come from below the kernel's range for port 0 (32768 up, the default
    ip_local_port_range), each pytest-xdist worker from a block of its own, in turn, skipping one in
    use; the start within the block varies by process, so two runs at once rarely meet."""
    while True:
        port = next(_PORTS)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port


def _ports() -> Iterator[int]:
    worker = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", "gw0"))
    block = 12000 + (int(worker[1]) if worker else 0) % 20 * 1000
    start = os.getpid() % 1000
    return itertools.cycle([block + (start + n) % 1000 for n in range(1000)])


_PORTS = _ports()


def opening(capabilities: dict[str, Any] | None = None) -> list[str]:
    """The lines a 2025-11-25 client opens a stdio session with (`initialize` is id 0)."""
    hello = {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities or {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return [
        json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]


class StdioPeer:
    """`python -m package` over stdio, driven line by line: what it writes is read as it comes, by a
    thread of its own, and what is sent goes by a thread too, so that neither side's full pipe
    blocks the test; a message missing after `timeout` seconds fails the test, not hangs it."""

    def __init__(self, root: Path, package: str, timeout: float = 60) -> None:
        self.timeout = timeout
        self.process = subprocess.Popen(
            [sys.executable, "-m", package], cwd=root, env=server_env(root), text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        self._messages: queue.Queue[Any] = queue.Queue()
        self._reading: threading.Thread | None = None

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._messages.put(json.loads(line))

    def send(self, lines: list[str], *, unread: bool = False) -> None:
        """Write the lines, one message each, from a thread (the server may not be reading). With
        `unread`, as a client that reads nothing until it has written all: the writing must end
        before anything is read."""
        stdin = self.process.stdin
        assert stdin is not None

        def write() -> None:
            with contextlib.suppress(OSError, ValueError):  # (killed meanwhile)
                stdin.write("".join(line + "\n" for line in lines))
                stdin.flush()

        writing = threading.Thread(target=write, daemon=True)
        writing.start()
        if unread:
            assert self._reading is None
            writing.join(self.timeout)
            assert not writing.is_alive(), f"the server read no more input within {self.timeout} s"

    def receive(self, count: int = 1) -> list[Any]:
        """The next `count` messages the server writes."""
        if self._reading is None:
            self._reading = threading.Thread(target=self._read, daemon=True)
            self._reading.start()
        deadline = time.monotonic() + self.timeout
        got: list[Any] = []
        try:
            while len(got) < count:
                got.append(self._messages.get(timeout=max(0.0, deadline - time.monotonic())))
        except queue.Empty:
            raise AssertionError(f"{len(got)} of {count} messages within {self.timeout} s: {got}") from None
        return got

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


def stdio_exchange(
    root: Path, package: str, lines: list[str], answers: int, *, unread: bool = False
) -> list[Any]:
    """Send `lines` to `python -m package` over stdio (`unread`: all before reading anything) and
    read `answers` messages back; input stays open until they are in (the server's calls run at
    once, and it ends at end of input)."""
    peer = StdioPeer(root, package)
    try:
        peer.send(lines, unread=unread)
        return peer.receive(answers)
    finally:
        peer.close()


class HttpServer:
    """A running `python -m package --http 127.0.0.1:PORT`."""

    def __init__(self, url: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.url = url
        self.process = process
        self.log = log

    def stderr(self) -> str:
        """What the server has written to stderr so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def http_server(
    root: Path, package: str, *args: str, env: dict[str, str] | None = None
) -> Iterator[HttpServer]:
    """`python -m package --http 127.0.0.1:0 ARGS` running until the block ends. The server takes
    a port of its own and says its URL once it listens: no other server can answer in its place
    (a port chosen here and freed could be taken by another test's server first)."""
    log = root / f"http-{next(_LOGS)}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", package, "--http", "127.0.0.1:0", *args],
            env={**server_env(root), **(env or {})},
            cwd=root,
            stderr=sink,
        )
    try:
        deadline = time.monotonic() + 30
        while (said := _SERVING.search(log.read_text(encoding="utf-8", errors="replace"))) is None:
            if process.poll() is not None or time.monotonic() > deadline:
                output = log.read_text(encoding="utf-8", errors="replace")
                raise RuntimeError(f"server did not start: {output}") from None
            time.sleep(0.05)
        yield HttpServer(said[1], process, log)
    finally:
        process.terminate()
        process.wait(timeout=10)


_SERVING = re.compile(r"serving MCP over streamable HTTP at (http://\S+/mcp)")
_LOGS = itertools.count()


# The serving command line in one process, run on each argument list in turn (the package and its
# libraries load once): prints [exit code, standard error] for each, as JSON.
_PARSE_EACH = """\
import contextlib, io, json, sys, traceback
from mcpstub_runtime.serve import main
said = []
for args in json.loads(sys.stdin.read()):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            main(sys.argv[1], args)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            code = 1
    said.append([code, err.getvalue()])
print(json.dumps(said))
"""


def command_lines(
    root: Path, package: str, argument_lists: list[list[str]], env: dict[str, str]
) -> list[tuple[int, str]]:
    """(exit code, standard error) of `python -m PACKAGE ARGS...` for each argument list, run in
    one process: for command lines that stop before serving (usage errors)."""
    done = subprocess.run(
        [sys.executable, "-c", _PARSE_EACH, package], input=json.dumps(argument_lists),
        cwd=root, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [(code, err) for code, err in json.loads(done.stdout)]


@contextmanager
def http_app(server: Any, **options: Any) -> Iterator[str]:
    """A low-level `server` served in this process by the runtime's `create_app(server, **options)`
    on a loopback port, until the block ends; yields its URL."""
    port = free_port()
    runner = uvicorn.Server(
        uvicorn.Config(create_app(server, **options), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not runner.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the HTTP app did not start"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        runner.should_exit = True
        thread.join(timeout=10)
