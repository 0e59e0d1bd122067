"""Golden error cases: each folder under tests/golden/errors is one kind of bad input.

`mcpstub validate tools.yaml`, run in the case folder, must exit 1 and print exactly
`expected.txt`; `mcpstub generate` must exit 1 and write nothing. A case of warnings only
(`0 errors` in its summary line) exits 0 instead and prints the same warnings when generating.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.regen_golden_errors import COMMAND, case_dirs, expected_exit, run_mcpstub

CASES = case_dirs()


def test_there_are_enough_kinds_of_bad_input() -> None:
    assert len(CASES) >= 22


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_validate_prints_the_expected_diagnostics(case: Path) -> None:
    result = run_mcpstub(case, "validate", "tools.yaml")
    assert "Traceback" not in result.stderr, result.stderr
    expected_file = case / "expected.txt"
    expected = expected_file.read_text("utf-8") if expected_file.exists() else "<missing expected.txt>"
    assert result.returncode == expected_exit(expected), result.stderr
    if result.returncode == 1:
        assert result.stdout == ""
    assert result.stderr == expected, (
        f"stderr of `mcpstub validate tools.yaml` in {case.name} differs from expected.txt;\n"
        f"if the new output is right, run `{COMMAND}` and review the diff\n\n"
        f"--- expected\n{expected}\n--- actual\n{result.stderr}"
    )


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_generate_writes_nothing(case: Path, tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    result = run_mcpstub(case, "generate", "tools.yaml", "--out", str(out))
    assert "Traceback" not in result.stderr, result.stderr
    if expected_exit((case / "expected.txt").read_text("utf-8")) == 0:  # warnings only: it generates
        assert result.returncode == 0, result.stderr
        assert result.stderr == (case / "expected.txt").read_text("utf-8")
        assert (out / "tools.py").is_file()
        return
    assert result.returncode == 1, result.stderr
    assert not out.exists() or not any(out.iterdir())
    assert sorted(p.name for p in case.iterdir()) == sorted(
        p.name for p in case.iterdir() if p.suffix in {".yaml", ".json", ".txt"}
    ), "generate must not write into the case folder"
