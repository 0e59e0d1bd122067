"""Golden trees: each case's generated package, compared file by file with the reviewed copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import MypyRun
from tests.regen_goldens import COMMAND, expected_files, generate_case, tree_cases

CASES = tree_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_generated_tree_matches_golden(case: Path) -> None:
    generated = generate_case(case)
    assert generated.ok, [d.format() for d in generated.diagnostics]
    actual = expected_files(generated)
    expected_dir = case / "expected"
    expected = {
        p.relative_to(expected_dir).as_posix(): p.read_text("utf-8")
        for pattern in ("*.py", "*.json", "py.typed")
        for p in sorted(expected_dir.rglob(pattern))
    }
    hint = f"golden tree {case.name} is out of date; if intended, run `{COMMAND}` and review the diff"
    assert sorted(actual) == sorted(expected), hint
    for rel in sorted(actual):
        assert actual[rel] == expected[rel], f"{rel}: {hint}"


@pytest.mark.parametrize("case", ["awkward", "shapes"])
def test_golden_tree_passes_mypy_strict(tmp_path: Path, case: str, mypy_strict: MypyRun) -> None:
    package = tmp_path / f"{case}_pkg"
    shutil.copytree(Path(__file__).parent / "golden" / "trees" / case / "expected", package)
    done = mypy_strict(f"{case}_pkg", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
