"""Benchmark 4: server start-up, fresh process: import + create + first tools/list, in memory.

mcpstub's generated package against `MCPServer` with the same tools written as pydantic-typed
functions (`toolset.mcpserver_source`). Each measurement is a fresh process running
`startup_probe.py`, which times from before its first import of the server to the first
tools/list answer; the two kinds alternate, and a first discarded round compiles the `.pyc` files.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from benchmarks.common import BENCH, PYTHON, WORK, env, fresh_dir, generate_package, median, timed_run
from benchmarks.toolset import mcpserver_source, write_toolset

PROBE = str(BENCH / "startup_probe.py")


def prepare(n: int) -> tuple[Path, str, str]:
    """A folder holding the generated package and the MCPServer module for `n` tools."""
    folder = fresh_dir(WORK / f"startup{n}")
    toolset = write_toolset(folder / "tools.json", n)
    package = f"stub{n}"
    generate_package(toolset, folder / package)
    module = f"mcpserver{n}"
    (folder / f"{module}.py").write_text(mcpserver_source(n), encoding="utf-8")
    return folder, package, module


def probe(folder: Path, kind: str, name: str, n: int) -> float:
    """Seconds to the first tools/list answer in a fresh process."""
    _, stdout = timed_run([PYTHON, PROBE, kind, name], env=env(folder), cwd=folder, timeout=120)
    seconds, count = stdout.split()
    assert int(count) == n, f"{kind} listed {count} tools, expected {n}"
    return float(seconds)


def bench_startup(sizes: dict[int, int]) -> list[dict[str, Any]]:
    """Start-up per toolset size (`{tools: repetitions}`)."""
    rows = []
    for n, reps in sizes.items():
        folder, package, module = prepare(n)
        ours, theirs, ratios = [], [], []
        for rep in range(reps + 1):
            first = rep % 2 == 0
            a = b = 0.0
            for kind in (("mcpstub", "mcpserver") if first else ("mcpserver", "mcpstub")):
                if kind == "mcpstub":
                    a = probe(folder, kind, package, n)
                else:
                    b = probe(folder, kind, module, n)
            if rep:
                ours.append(a)
                theirs.append(b)
                ratios.append(a / b)
        rows.append({"tools": n, "mcpstub": median(ours), "mcpserver": median(theirs),
                     "ratio": median(ratios), "reps": reps})
        print(f"  start-up {n}: mcpstub {median(ours):.3f}s, MCPServer {median(theirs):.3f}s, "
              f"ratio {median(ratios):.2f}", file=sys.stderr)
    return rows
