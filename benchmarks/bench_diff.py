"""Benchmark: `mcpstub diff` between two 500-tool toolsets with 50 changed tools.

The changes mix what the rules decide (required names, narrowed enums, relaxed output bounds,
wording) with pattern changes the rules cannot decide, so the bounded counterexample search runs
too. Measured in process (`load + diff_sides`, median of rounds) and as one cold command.
`python -m benchmarks.bench_diff [TOOLS] [CHANGED]` prints the figures as JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from benchmarks.common import MCPSTUB, WORK, env, fresh_dir, median
from benchmarks.toolset import build_toolset


def changed_toolset(n: int, changed: int) -> dict[str, Any]:
    """The toolset of `build_toolset(n)` with `changed` tools edited, and a major version bump."""
    doc = build_toolset(n)
    doc["server"]["version"] = "2.0.0"
    step = max(n // max(changed, 1), 1)
    for k in range(changed):
        tool = doc["tools"][(k * step) % n]
        props = tool["inputSchema"]["properties"]
        kind = k % 5
        if kind == 0:
            tool["inputSchema"]["required"].append("limit")
        elif kind == 1:
            props["sort"]["enum"] = ["asc"]
        elif kind == 2:
            tool["description"] += " Results are cached."
        elif kind == 3 and "outputSchema" in tool:
            tool["outputSchema"]["properties"]["total"]["minimum"] = -1
        elif kind == 3:
            props["limit"]["maximum"] = 200
        else:
            props["query"] = {"type": "string", "minLength": 1, "pattern": "^[a-z]"}
    return doc


def bench_diff(tools: int = 500, changed: int = 50, rounds: int = 3) -> dict[str, Any]:
    """Seconds to diff the two toolsets, in process and as a cold command, and what was found."""
    from mcpstub.diff import diff_sides  # noqa: PLC0415
    from mcpstub.diff.command import load_side  # noqa: PLC0415

    folder = fresh_dir(WORK / "diff")
    old_path, new_path = folder / "old.json", folder / "new.json"
    old_path.write_text(json.dumps(build_toolset(tools)), encoding="utf-8")
    new_path.write_text(json.dumps(changed_toolset(tools, changed)), encoding="utf-8")
    times, findings = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        findings = diff_sides(load_side(str(old_path)), load_side(str(new_path)))
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    done = subprocess.run(
        [MCPSTUB, "diff", str(old_path), str(new_path), "--format", "json"],
        capture_output=True, text=True, timeout=600, check=False, env=env(),
    )  # fmt: skip
    cold = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"mcpstub diff failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return {
        "tools": tools,
        "changed": changed,
        "in_process": median(times),
        "cold": cold,
        "findings": len(findings),
        "breaking": sum(f.severity == "breaking" for f in findings),
        "counterexamples": sum(f.has_counterexample for f in findings),
    }


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    print(json.dumps(bench_diff(*args), indent=1))
