"""Benchmark 5: concurrency over streamable HTTP on 127.0.0.1.

The generated package (10 tools, tool 0's handler filled in) serves with
`python -m PACKAGE --http 127.0.0.1:PORT` on a free port; one SDK client sends 1,000 tools/call
requests with 50 in flight, in each protocol generation. Reported: throughput, median and 95th
percentile latency, failures (an exception, a timeout or an error result). Every call has a
timeout and the whole run a deadline, so it always ends; the server process is always stopped.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from benchmarks.common import PYTHON, WORK, env, fresh_dir, generate_package
from benchmarks.toolset import sample_input, sample_output, tool_name, write_toolset

TOOL = tool_name(0)
HANDLER = f'''\
from __future__ import annotations

from ..models import ListOrders0Input, ListOrders0Output
from ..results import ListOrders0Result
from ..server import ToolContext

_OUTPUT = ListOrders0Output.model_validate({sample_output(0)!r})


async def {TOOL}(args: ListOrders0Input, ctx: ToolContext) -> ListOrders0Output | ListOrders0Result:
    return _OUTPUT
'''


def prepare() -> Path:
    """A folder holding the generated package `http10` with tool 0 implemented."""
    folder = fresh_dir(WORK / "http")
    toolset = write_toolset(folder / "tools.json", 10)
    generate_package(toolset, folder / "http10")
    (folder / "http10" / "handlers" / f"{TOOL}.py").write_text(HANDLER, encoding="utf-8")
    return folder


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(port: int, process: subprocess.Popen[bytes], deadline: float) -> None:
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.05)


async def load(url: str, mode: str, calls: int, in_flight: int, call_timeout: float) -> dict[str, Any]:
    """`calls` tools/call requests, `in_flight` at a time, on one client."""
    args = sample_input(0)
    expected = sample_output(0)
    latencies: list[float] = []
    failures: list[str] = []
    next_call = 0
    async with Client(url, mode=mode, read_timeout_seconds=call_timeout) as client:
        await client.list_tools()

        async def worker() -> None:
            nonlocal next_call
            while next_call < calls:
                next_call += 1
                start = time.perf_counter()
                try:
                    with anyio.fail_after(call_timeout):
                        result = await client.call_tool(TOOL, args)
                    if result.is_error or result.structured_content != expected:
                        failures.append("error result")
                except Exception as exc:
                    failures.append(type(exc).__name__)
                latencies.append(time.perf_counter() - start)

        start = time.perf_counter()
        async with anyio.create_task_group() as group:
            for _ in range(in_flight):
                group.start_soon(worker)
        elapsed = time.perf_counter() - start
    latencies.sort()
    return {
        "mode": mode,
        "calls": len(latencies),
        "failures": len(failures),
        "failure_kinds": sorted(set(failures)),
        "seconds": elapsed,
        "throughput": len(latencies) / elapsed,
        "p50": statistics.median(latencies),
        "p95": latencies[int(len(latencies) * 0.95) - 1],
    }


def bench_http(calls: int = 1000, in_flight: int = 50, deadline: float = 240) -> list[dict[str, Any]]:
    """Serve over HTTP in a child process and load it, in both protocol generations."""
    folder = prepare()
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, "-m", "http10", "--http", f"127.0.0.1:{port}"],
        env=env(folder),
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    rows = []
    try:
        wait_for(port, process, time.monotonic() + 60)
        url = f"http://127.0.0.1:{port}/mcp"
        for mode in ("auto", "legacy"):
            row: dict[str, Any] | None = None

            async def run(mode: str = mode) -> None:
                nonlocal row
                with anyio.move_on_after(deadline):
                    row = await load(url, mode, calls, in_flight, call_timeout=30)

            anyio.run(run)
            if row is None:
                row = {"mode": mode, "calls": 0, "failures": calls, "failure_kinds": ["deadline"],
                       "seconds": deadline, "throughput": 0.0, "p50": float("nan"), "p95": float("nan")}
            rows.append(row)
            print(f"  http {mode}: {row['throughput']:.0f} calls/s, {row['failures']} failures, "
                  f"p50 {row['p50'] * 1000:.0f} ms, p95 {row['p95'] * 1000:.0f} ms", file=sys.stderr)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    return rows


def _throughput(folder: Path, flags: list[str], calls: int, in_flight: int, deadline: float) -> float:
    """Calls per second of one load (2026-07-28) against `python -m http10 --http ... FLAGS`."""
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, "-m", "http10", "--http", f"127.0.0.1:{port}", *flags],
        env=env(folder), cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_for(port, process, time.monotonic() + 60)
        row: dict[str, Any] | None = None

        async def run() -> None:
            nonlocal row
            with anyio.move_on_after(deadline):
                row = await load(f"http://127.0.0.1:{port}/mcp", "auto", calls, in_flight, 30)

        anyio.run(run)
        if row is None or row["failures"]:
            raise RuntimeError(f"worker benchmark with {flags} failed: {row}")
        return float(row["throughput"])
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def bench_workers(calls: int = 1000, in_flight: int = 50, rounds: int = 3) -> dict[str, Any]:
    """Stateless HTTP throughput of 1 worker against 2 (`--workers 2`), interleaved rounds."""
    folder = prepare()
    one: list[float] = []
    two: list[float] = []
    for _ in range(rounds):
        one.append(_throughput(folder, ["--stateless"], calls, in_flight, 240))
        two.append(_throughput(folder, ["--stateless", "--workers", "2"], calls, in_flight, 240))
    ratios = sorted(b / a for a, b in zip(one, two, strict=True))
    row = {
        "calls": calls,
        "one": statistics.median(one),
        "two": statistics.median(two),
        "ratio": statistics.median(ratios),
        "spread": (ratios[0], ratios[-1]),
    }
    print(f"  workers: 1 -> {row['one']:.0f} calls/s, 2 -> {row['two']:.0f} calls/s, "
          f"x{row['ratio']:.2f} ({ratios[0]:.2f}-{ratios[-1]:.2f})", file=sys.stderr)
    return row
