"""Rewrite tests/golden/errors/*/expected.txt from what `mcpstub validate tools.yaml` prints now.

A case of warnings only (the summary line says `0 errors`) expects exit 0.

Run as `python -m tests.regen_golden_errors` from the project root, then review the diff like code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "golden" / "errors"
COMMAND = "python -m tests.regen_golden_errors"


def case_dirs() -> list[Path]:
    """Every golden error case folder, in name order."""
    return sorted(p for p in CASES.iterdir() if (p / "tools.yaml").is_file())


def expected_exit(stderr: str) -> int:
    """1 for a case with errors; 0 for a case of warnings only (its last line says `0 errors`)."""
    return 0 if stderr.rstrip("\n").rsplit("\n", 1)[-1].startswith("0 errors,") else 1


def run_mcpstub(case: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m mcpstub ARGS` in the case folder."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    return subprocess.run(
        [sys.executable, "-m", "mcpstub", *args],
        cwd=case,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# Runs each (folder, arguments) as `mcpstub ARGUMENTS` in that folder, one after another in one
# process; prints [exit code, stdout, stderr] of each as JSON.
_EACH = r"""
import contextlib, io, json, os, sys
from mcpstub import cli
from mcpstub.engine import model_groups
model_groups.WORKERS = False  # (a worker forked for each run, to import the model generator, costs 0.25 s)
done = []
for folder, args in json.loads(sys.stdin.read()):
    os.chdir(folder)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(args)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    done.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(done))
"""


def run_many(runs: list[tuple[Path, list[str]]]) -> list[subprocess.CompletedProcess[str]]:
    """`run_mcpstub` for each (folder, arguments), in one process (what each prints is its own)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        [sys.executable, "-c", _EACH], input=json.dumps([[str(f), a] for f, a in runs]),
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [
        subprocess.CompletedProcess(args, code, out, err)
        for (_, args), (code, out, err) in zip(runs, json.loads(done.stdout), strict=True)
    ]


def main() -> int:
    """Regenerate every expected.txt; report which changed."""
    changed = 0
    for case in case_dirs():
        result = run_mcpstub(case, "validate", "tools.yaml")
        if result.returncode != expected_exit(result.stderr):
            print(f"{case.name}: exit {result.returncode}, expected 1 (0 for warnings only)", file=sys.stderr)
            return 1
        target = case / "expected.txt"
        old = target.read_text("utf-8") if target.exists() else None
        if old != result.stderr:
            target.write_text(result.stderr, "utf-8", newline="\n")
            changed += 1
            print(f"updated {target.relative_to(ROOT)}")
    print(f"{len(case_dirs())} cases, {changed} updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
