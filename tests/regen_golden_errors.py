"""Rewrite tests/golden/errors/*/expected.txt from what `mcpstub validate tools.yaml` prints now.

A case of warnings only (the summary line says `0 errors`) expects exit 0.

Run as `python -m tests.regen_golden_errors` from the project root, then review the diff like code.
"""

from __future__ import annotations

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
