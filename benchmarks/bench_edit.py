"""Generation on toolsets of several shapes: cold runs against bare datamodel-code-generator, edits.

For each shape and size: a cold `mcpstub generate --no-cache` (fresh process, empty output) against
a fresh process making the one `datamodel_code_generator.generate()` call of the same schemas,
interleaved; the peak RSS of the mcpstub run (its largest process); then, with the model cache
warm, the whole `mcpstub generate` process after 1 and after 10 tools changed. Every figure comes
with its spread (min-max over the rounds).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from benchmarks.bench_generate import BARE, capture_call
from benchmarks.common import MCPSTUB, PYTHON, WORK, env, fresh_dir
from benchmarks.toolset import build_shaped, edit_tools

CPU: dict[str, list[float]] = {}  # CPU seconds (user + system, children included) of every run, by label


def _peak_kb(pid: int) -> int:
    """VmHWM (peak resident set, kB) of a live process and of its live children (Linux /proc)."""
    peak = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peak = int(line.split()[1])
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except (OSError, ValueError):
        return peak
    return max([peak, *(_peak_kb(int(c)) for c in children)])


def run(argv: list[str], cwd: Path, extra: dict[str, str], label: str = "") -> tuple[float, float]:
    """Run a fresh process; its wall time (s) and the peak RSS of its largest process (MB).

    The peak is each process's own VmHWM, read while it runs (it only grows), and mcpstub's own
    as it ends (`peak_probe`): `ru_maxrss` would count the resident pages of this benchmark
    process, which the child shares until it execs.
    """
    probe = None
    if argv[0] == MCPSTUB:  # the process reports its own peak as it ends (`peak_probe`)
        handle, name = tempfile.mkstemp(prefix="peak-", dir=cwd)
        os.close(handle)
        probe = Path(name)
        argv = [PYTHON, "-m", "benchmarks.peak_probe", str(probe), *argv[1:]]  # env() adds ROOT
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env={**env(), **extra}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    peak_kb = 0
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        peak_kb = max(peak_kb, _peak_kb(proc.pid))
        time.sleep(0.005)
    elapsed = time.perf_counter() - start
    if probe is not None:
        reported = probe.read_text().strip()
        probe.unlink()
        peak_kb = max(peak_kb, int(reported or 0))
    proc.returncode = os.waitstatus_to_exitcode(status)
    CPU.setdefault(label, []).append(usage.ru_utime + usage.ru_stime)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}):\n{err[-3000:]}")
    return elapsed, peak_kb / 1024


def spread(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


class _PlainDumper(yaml.SafeDumper):
    """YAML as people write it: a value the toolset builder reuses is written out each time,
    not as an anchor and aliases."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _write(toolset: Path, doc: dict[str, Any]) -> None:
    """JSON for `tools.json`; YAML block style, as people write it, for `tools.yaml`."""
    if toolset.suffix == ".yaml":
        text = yaml.dump(doc, Dumper=_PlainDumper, sort_keys=False, allow_unicode=True, width=100)
    else:
        text = json.dumps(doc, indent=1) + "\n"
    toolset.write_text(text, encoding="utf-8")


def bench_shape(shape: str, n: int, reps: int, edits: int) -> dict[str, Any]:
    """`shape` is one of `toolset.SHAPES`, written as JSON; `SHAPE+yaml` writes it as YAML."""
    base, _, written = shape.partition("+")
    folder = fresh_dir(WORK / f"shape-{base}-{written or 'json'}-{n}")
    toolset = folder / ("tools.yaml" if written == "yaml" else "tools.json")
    doc = build_shaped(base, n)
    _write(toolset, doc)
    capture_call(toolset, folder / "call.pickle")
    bare_script = WORK / "bare_dmcg.py"
    bare_script.write_text(BARE, encoding="utf-8")
    cache = {"MCPSTUB_CACHE_DIR": str(folder / "cache")}
    gen = [MCPSTUB, "generate", str(toolset), "--out", str(folder / "out" / "pkg")]
    ours, theirs, ratios, rss = [], [], [], []
    CPU.clear()
    for rep in range(reps + 1):  # the first round warms caches (.pyc, page cache) and is dropped
        fresh_dir(folder / "out")
        a, peak = run([*gen, "--no-cache"], folder, cache, "cold" if rep else "")
        b, _ = run(
            [PYTHON, str(bare_script), str(folder / "call.pickle"), str(folder / "bare.py")], folder, {}
        )
        if rep:
            ours.append(a)
            theirs.append(b)
            ratios.append(a / b)
            rss.append(peak)
    run([*gen, "--force"], folder, cache)  # fills the cache (without --force: "up to date", nothing filled)
    one, ten = [], []
    for rep in range(edits):
        for count, times in ((1, one), (10, ten)):
            chosen = [(rep * 37 + k * 53 + count) % n for k in range(count)]
            edited = edit_tools(doc, chosen, rep * 100 + count)
            _write(toolset, edited)
            t, _ = run(gen, folder, cache, f"edit{count}")
            times.append(t)
    row = {
        "shape": shape,
        "tools": n,
        "mcpstub": spread(ours),
        "bare": spread(theirs),
        "ratio": spread(ratios),
        "rss": max(rss),
        "edit1": spread(one),
        "edit10": spread(ten),
        "reps": reps,
        "edits": edits,
    }
    r = row["ratio"]
    print(
        f"  {shape} {n}: cold {row['mcpstub']['median']:.2f}s, bare {row['bare']['median']:.2f}s, ratio "
        f"{r['median']:.2f} ({r['min']:.2f}-{r['max']:.2f}), peak RSS {row['rss']:.0f} MB, 1 edit "
        f"{row['edit1']['median']:.2f}s, 10 edits {row['edit10']['median']:.2f}s",
        file=sys.stderr,
    )
    return row


def bench_shapes(plan: list[tuple[str, int, int, int]]) -> list[dict[str, Any]]:
    """Every (shape, tools, cold rounds, edit rounds) of the plan."""
    return [bench_shape(*item) for item in plan]


def _rng(values: dict[str, float], unit: str = "s", digits: int = 2) -> str:
    return f"{values['median']:.{digits}f}{unit} ({values['min']:.{digits}f}-{values['max']:.{digits}f})"


def _cpu(row: dict[str, Any], label: str) -> str:
    cpu = row.get("cpu", {}).get(label)
    return f"{cpu['median']:.2f}s" if cpu else "-"


def table_rows(rows: list[dict[str, Any]], verdict: Any) -> list[str]:
    """Markdown rows: cold ratio, edits, memory."""
    lines = []
    for row in rows:
        what = f"{row['shape']}, {row['tools']} tools"
        r = row["ratio"]
        lines.append(
            f"| 1 | cold `mcpstub generate --no-cache`, {what} | {_rng(row['mcpstub'])} | bare "
            f"datamodel-code-generator `generate()` {row['bare']['median']:.2f} s | {_rng(r, 'x')} | ≤ 1.0x "
            f"| {verdict(r['median'], 1.0)} |"
        )
        lines.append(
            f"| 1e | 1 tool changed, {what} (cache warm) | {_rng(row['edit1'])}, CPU {_cpu(row, 'edit1')} "
            f"| - | - | ≤ 1.5 s "
            f"| {verdict(row['edit1']['median'], 1.5)} |"
        )
        lines.append(
            f"| 1e | 10 tools changed, {what} (cache warm) | {_rng(row['edit10'])}, "
            f"CPU {_cpu(row, 'edit10')} "
            f"| - | - | ≤ 2.5 s "
            f"| {verdict(row['edit10']['median'], 2.5)} |"
        )
        lines.append(
            f"| 1m | peak RSS, cold, {what} | {row['rss']:.0f} MB | - | - | < 400 MB "
            f"| {verdict(row['rss'], 400)} |"
        )
    return lines


def _cpu_seconds(pid: int) -> float:
    """CPU time of a process and its reaped children so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def bench_watch(shape: str, n: int, rounds: int) -> dict[str, Any]:
    """`mcpstub generate --watch`: time from saving a one-tool edit to its models being written
    (`SHAPE+yaml`: the toolset written as block YAML, as people write it)."""
    base, _, written = shape.partition("+")
    folder = WORK / f"shape-{base}-{written or 'json'}-{n}"
    toolset = folder / ("tools.yaml" if written == "yaml" else "tools.json")
    doc = build_shaped(base, n)
    if not toolset.exists():
        fresh_dir(folder)
    _write(toolset, doc)
    models = folder / "out" / "pkg" / "models.py"
    proc = subprocess.Popen(
        [MCPSTUB, "generate", str(toolset), "--out", str(folder / "out" / "pkg"), "--watch"],
        cwd=folder, env={**env(), "MCPSTUB_CACHE_DIR": str(folder / "cache")},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    times, cpu = [], []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            if "watching" in line:
                break
        else:
            raise RuntimeError("mcpstub generate --watch ended before watching")
        for rep in range(rounds + 1):  # the first edit warms what the first run did not import
            marker = f"added_{9000 + rep}"
            # Each save changes one tool of the file as the last save left it, as a user edits.
            doc = edited = edit_tools(doc, [(rep * 37 + 11) % n], 9000 + rep)
            temp = toolset.with_name(".saving" + toolset.suffix)
            _write(temp, edited)
            start, used = time.perf_counter(), _cpu_seconds(proc.pid)
            os.replace(temp, toolset)
            while marker not in models.read_text("utf-8"):
                time.sleep(0.005)
                if time.perf_counter() - start > 300:
                    raise RuntimeError("no regeneration within 300 s")
            if rep:
                times.append(time.perf_counter() - start)
            time.sleep(0.3)
            if rep:
                cpu.append(_cpu_seconds(proc.pid) - used)  # let the run finish writing the other files
    finally:
        proc.send_signal(2)  # SIGINT, as Ctrl-C
        code = proc.wait(timeout=60)
    if code != 0:
        raise RuntimeError(f"--watch exited {code} on Ctrl-C")
    row = {"shape": shape, "tools": n, "latency": spread(times), "cpu": spread(cpu), "rounds": rounds}
    print(f"  watch {shape} {n}: {_rng(row['latency'])}", file=sys.stderr)
    return row


def watch_rows(rows: list[dict[str, Any]], verdict: Any) -> list[str]:
    """Markdown rows for the watch latency."""
    return [
        f"| 1w | `--watch`: save of a 1-tool edit to models written, {row['shape']}, {row['tools']} tools "
        f"| {_rng(row['latency'])}, CPU {row['cpu']['median']:.2f}s | - | - | ≤ 0.3 s "
        f"| {verdict(row['latency']['median'], 0.3)} |"
        for row in rows
    ]
