"""Run a generated package as a real server process: over stdio, or over HTTP on a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mcp import StdioServerParameters


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
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
    """`python -m package --http 127.0.0.1:PORT ARGS` running until the block ends."""
    port = free_port()
    log = root / f"http-{port}.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", package, "--http", f"127.0.0.1:{port}", *args],
            env={**server_env(root), **(env or {})},
            cwd=root,
            stderr=sink,
        )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = log.read_text(encoding="utf-8", errors="replace")
                    raise RuntimeError(f"server did not start: {output}") from None
                time.sleep(0.05)
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", process, log)
    finally:
        process.terminate()
        process.wait(timeout=10)
