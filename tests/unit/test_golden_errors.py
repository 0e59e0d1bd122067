"""Golden error cases: each folder under tests/golden/errors is one kind of bad input.

`mcpstub validate tools.yaml`, run in the case folder, must exit 1 and print exactly
`expected.txt`; `mcpstub generate` must exit 1 and write nothing. A case of warnings only
(`0 errors` in its summary line) exits 0 instead and prints the same warnings when generating.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.regen_golden_errors import COMMAND, case_dirs, expected_exit, run_many, run_mcpstub

CASES = case_dirs()
Completed = subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Completed]:
    """`mcpstub validate` and `mcpstub generate` of every case, run in one process (each as the
    command line's `main` in the case folder); one case of each also runs as the command itself."""
    outs = tmp_path_factory.mktemp("golden_errors")
    runs: list[tuple[Path, list[str]]] = []
    for case in CASES:
        runs.append((case, ["validate", "tools.yaml"]))
        runs.append((case, ["generate", "tools.yaml", "--out", str(outs / case.name / "pkg")]))
    done = run_many(runs)
    return {(case.name, args[0]): result for (case, args), result in zip(runs, done, strict=True)}


def test_there_are_enough_kinds_of_bad_input() -> None:
    assert len(CASES) >= 22


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_validate_prints_the_expected_diagnostics(case: Path, outputs: dict[tuple[str, str], Any]) -> None:
    result = outputs[(case.name, "validate")]
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
def test_generate_writes_nothing(case: Path, outputs: dict[tuple[str, str], Any]) -> None:
    result = outputs[(case.name, "generate")]
    out = Path(result.args[-1])
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


def test_one_case_as_the_command_itself_prints_what_main_does(outputs: dict[tuple[str, str], Any]) -> None:
    case = next(c for c in CASES if c.name == "yaml_syntax")
    for args in (["validate", "tools.yaml"],):
        result = run_mcpstub(case, *args)
        kept = outputs[(case.name, args[0])]
        assert (result.returncode, result.stdout, result.stderr) == (
            kept.returncode, kept.stdout, kept.stderr
        )  # fmt: skip
