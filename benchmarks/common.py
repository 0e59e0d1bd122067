"""Shared helpers: paths, fresh-process timing, medians, generated packages, the machine."""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
WORK = BENCH / ".work"  # scratch: toolsets, generated packages (git-ignored)
PYTHON = sys.executable
MCPSTUB = str(Path(PYTHON).with_name("mcpstub"))


def median(values: Sequence[float]) -> float:
    """The median."""
    return statistics.median(values)


def env(*paths: Path) -> dict[str, str]:
    """The environment for a child process, with `paths` and the repository importable."""
    extra = [str(p) for p in paths] + [str(ROOT)]
    old = os.environ.get("PYTHONPATH")
    # Bytecode is written, as an installed package has it: the warm-up rounds that are dropped
    # compile mcpstub's modules once, not every measured run again.
    inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    path = os.pathsep.join([*extra, *([old] if old else [])])
    # Stateless workers share the key that seals the state of calls that ask their user.
    return {**inherited, "PYTHONPATH": path, "MCPSTUB_REQUEST_STATE_KEYS": "k" * 32}


def timed_run(argv: Sequence[str], *, timeout: float = 300, **kwargs: object) -> tuple[float, str]:
    """Run a fresh process to completion; its wall time in seconds and its stdout."""
    start = time.perf_counter()
    done = subprocess.run(
        list(argv), capture_output=True, text=True, timeout=timeout, check=False, **kwargs  # type: ignore[arg-type]
    )
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return elapsed, done.stdout


def fresh_dir(path: Path) -> Path:
    """An empty folder at `path`."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def generate_package(toolset: Path, out: Path) -> None:
    """Generate a package with the real command line (the way a user would)."""
    timed_run([MCPSTUB, "generate", str(toolset), "--out", str(out)], cwd=out.parent.parent)


def machine() -> str:
    """One line describing this machine: cores, CPU model, Python."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores (nproc), {model}, Python {platform.python_version()}, {platform.system()}"
