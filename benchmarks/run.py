"""Run every benchmark and write the figures as a markdown table.

`python -m benchmarks.run [SECTION ...]` (sections: generate, noop, calls, startup, http, workers, diff;
default all) prints the table and writes it to benchmarks/results.md. fastmcp is installed, pinned, in its
own virtualenv (benchmarks/.venv-fastmcp) with the project's constraints, so it never enters the
test dependencies; the per-call benchmark runs there when it installs, and without it otherwise.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks.bench_diff import bench_diff
from benchmarks.bench_edit import bench_shapes, bench_watch, table_rows, watch_rows
from benchmarks.bench_generate import bench_noop
from benchmarks.bench_http import bench_http, bench_workers
from benchmarks.bench_startup import bench_startup
from benchmarks.common import BENCH, PYTHON, ROOT, WORK, env, fresh_dir, generate_package, machine
from benchmarks.toolset import SHAPES, mcpserver_source, write_toolset

FASTMCP_VENV = BENCH / ".venv-fastmcp"
FASTMCP_REQUIREMENTS = BENCH / "requirements-fastmcp.txt"
# (shape, tools, cold rounds, edit rounds): every shape at 100 and 500 tools, the real corpus as is.
GENERATE_PLAN = [
    # Runs of one to three seconds at 100 tools: more rounds, so that one slow round moves no median.
    *((shape, n, 5 if n == 100 else 3, 3) for n in (100, 500) for shape in SHAPES if shape != "corpus"),
    ("corpus", 117, 5, 3),
    ("mixed+yaml", 500, 3, 3),  # the same tools written in YAML block style, as people write them
]
SECTIONS = ("generate", "noop", "calls", "startup", "http", "workers", "diff")


def fastmcp_python() -> tuple[str, str]:
    """The interpreter for the per-call benchmark, and a note when fastmcp is not in it."""
    python = FASTMCP_VENV / "bin" / "python"
    stamp = FASTMCP_VENV / ".installed"
    wanted = FASTMCP_REQUIREMENTS.read_text() + (ROOT / "constraints.txt").read_text()
    if stamp.exists() and stamp.read_text() == wanted:
        return str(python), ""
    try:
        if not python.exists():
            venv.create(FASTMCP_VENV, with_pip=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "-c", str(ROOT / "constraints.txt"),
             "-r", str(FASTMCP_REQUIREMENTS)],
            check=True, timeout=600, capture_output=True, text=True,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        print(f"fastmcp did not install; per-call runs without it:\n{detail[-2000:]}", file=sys.stderr)
        return PYTHON, "fastmcp skipped: it did not install beside the pinned mcp (see the log)"
    stamp.write_text(wanted)
    return str(python), ""


def bench_calls(rounds: int = 15, batch: int = 100) -> tuple[dict[str, Any], str]:
    """Benchmark 3, in a child process (the fastmcp virtualenv when available)."""
    folder = fresh_dir(WORK / "calls")
    write_toolset(folder / "tools.json", 10)
    generate_package(folder / "tools.json", folder / "stub10")
    (folder / "mcpserver10.py").write_text(mcpserver_source(10), encoding="utf-8")
    python, note = fastmcp_python()
    done = subprocess.run(
        [python, "-m", "benchmarks.bench_calls", str(folder), str(rounds), str(batch)],
        # The fastmcp virtualenv has the runtime's dependencies, not the runtime: its source is used.
        env=env(ROOT / "runtime"), cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"per-call benchmark failed:\n{done.stderr[-3000:]}")
    results: dict[str, Any] = json.loads(done.stdout)
    for key, value in results.items():
        us = ", ".join(f"{n} {t * 1e6:.0f} µs" for n, t in value["per_call"].items())
        print(f"  calls {key}: {us}", file=sys.stderr)
    return results, note


@contextmanager
def _load_noted(results: dict[str, Any], section: str) -> Iterator[None]:
    """Run a section, noting the machine's 1-minute load average as it starts and ends."""
    start = os.getloadavg()[0]
    yield
    results["notes"].append(
        f"{section}: 1-minute load average {start:.2f} as it started, {os.getloadavg()[0]:.2f} as it ended"
    )


def _verdict(value: float, target: float) -> str:
    return "met" if value <= target else f"**missed** by {(value / target - 1) * 100:.0f}%"


def table(results: dict[str, Any]) -> str:
    """The markdown report."""
    lines = [
        f"Measured {results['date']} on {results['machine']}, commit {results['commit']}.",
        "Medians of interleaved runs; ratios are medians of same-round ratios (mcpstub / other).",
        "",
        "| # | benchmark | mcpstub | compared with | ratio | target | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += table_rows(results.get("generate", []), _verdict)
    lines += watch_rows(results.get("watch", []), _verdict)
    if "noop" in results:
        row = results["noop"]
        lines.append(
            f"| 2 | no-op `mcpstub generate`, {row['tools']} tools | {row['noop']:.2f} s "
            f"| `mcpstub --version` {row['version']:.2f} s | - | ≤ 0.3 s | {_verdict(row['noop'], 0.3)} |"
        )
    names = {"low-level": ("low-level `Server`, no validation", 1.10),
             "validating": ("low-level `Server` validating as mcpstub does", None),
             "MCPServer": ("`MCPServer`", 0.80), "fastmcp": ("fastmcp 4.1.6", None)}
    for key, value in results.get("calls", {}).items():
        mode, view = key.split()
        era = "2026-07-28 (`Client(server)`)" if mode == "auto" else "2025-11-25 (`mode=\"legacy\"`)"
        seen = "as the SDK client sees it" if view == "client-validates" else "client-side output check off"
        ours = value["per_call"]["mcpstub"] * 1e6
        for name, ratio in value["ratio"].items():
            label, target = names[name]
            theirs = value["per_call"][name] * 1e6
            low, high = value["spread"][name]
            lines.append(
                f"| 3 | per call, {era}, {seen} | {ours:.0f} µs | {label} {theirs:.0f} µs "
                f"| {ratio:.2f}x ({low:.2f}-{high:.2f}) "
                f"| {f'≤ {target:.2f}x' if target else '-'} | {_verdict(ratio, target) if target else '-'} |"
            )
    for row in results.get("startup", []):
        lines.append(
            f"| 4 | start-up to first tools/list, {row['tools']} tools | {row['mcpstub']:.2f} s "
            f"| `MCPServer` {row['mcpserver']:.2f} s | {row['ratio']:.2f}x | ≤ 0.5x "
            f"| {_verdict(row['ratio'], 0.5)} |"
        )
    for row in results.get("http", []):
        era = "2026-07-28" if row["mode"] == "auto" else "2025-11-25"
        lines.append(
            f"| 5 | streamable HTTP, {era}: {row['calls']} calls, 50 in flight | "
            f"{row['throughput']:.0f} calls/s, p50 {row['p50'] * 1000:.0f} ms, "
            f"p95 {row['p95'] * 1000:.0f} ms "
            f"| - | - | zero failures | {row['failures']} failures |"
        )
    if "workers" in results:
        row = results["workers"]
        low, high = row["spread"]
        lines.append(
            f"| 5 | stateless HTTP, 2026-07-28, {row['calls']} calls, 50 in flight: `--workers 2` "
            f"| {row['two']:.0f} calls/s | 1 worker {row['one']:.0f} calls/s "
            f"| {row['ratio']:.2f}x throughput ({low:.2f}-{high:.2f}) | - | - |"
        )
    if "diff" in results:
        row = results["diff"]
        lines.append(
            f"| 6 | `mcpstub diff`, {row['tools']} tools, {row['changed']} changed "
            f"| {row['in_process']:.2f} s (cold command {row['cold']:.2f} s) | - | - | ≤ 5 s "
            f"| {_verdict(row['cold'], 5.0)} |"
        )
    if results.get("notes"):
        lines += ["", *(f"- {note}" for note in results["notes"])]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    sections = argv or list(SECTIONS)
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        print(f"unknown section(s): {', '.join(unknown)}; choose from {', '.join(SECTIONS)}", file=sys.stderr)
        return 2
    WORK.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    results: dict[str, Any] = {
        "date": datetime.date.today().isoformat(), "machine": machine(), "commit": commit, "notes": [],
    }
    if "generate" in sections:
        with _load_noted(results, "generate"):
            print("1. cold generation", file=sys.stderr)
            results["generate"] = bench_shapes(GENERATE_PLAN)
            watched = ("mixed", "shared", "enums", "mixed+yaml")
            results["watch"] = [bench_watch(shape, 500, 5) for shape in watched]
    if "noop" in sections:
        with _load_noted(results, "noop"):
            print("2. no-op regeneration", file=sys.stderr)
            results["noop"] = bench_noop(500, 3)
    if "calls" in sections:
        with _load_noted(results, "calls"):
            print("3. per call, in memory", file=sys.stderr)
            results["calls"], note = bench_calls()
            if note:
                results["notes"].append(note)
    if "startup" in sections:
        with _load_noted(results, "startup"):
            print("4. start-up", file=sys.stderr)
            results["startup"] = bench_startup({100: 7, 500: 5})
    if "http" in sections:
        with _load_noted(results, "http"):
            print("5. streamable HTTP", file=sys.stderr)
            results["http"] = bench_http()
    if "workers" in sections:
        with _load_noted(results, "workers"):
            print("5. stateless HTTP, 1 worker against 2", file=sys.stderr)
            results["workers"] = bench_workers()
    if "diff" in sections:
        with _load_noted(results, "diff"):
            print("6. mcpstub diff", file=sys.stderr)
            results["diff"] = bench_diff()
    text = table(results)
    sys.stdout.write(text)
    (BENCH / "results.md").write_text(text, encoding="utf-8")
    (WORK / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
