"""Generated packages pass black, ruff and mypy --strict with those tools' default settings.

A repository-wide `black --check .` or `ruff check .` with no configuration must leave generated
files alone, so the generator never fights a project's formatter or linter. Every toolset of
`CASES` in test_black_stable.py (the example, the format's examples, the vendored toolsets, an adversarial
toolset, the GitHub server's 117 tools) is written into a folder with no configuration above it and
checked with the pinned black and ruff run as their defaults (`ruff check --isolated`), and with
`mypy --strict` (recursive definitions of every shape, definitions named like what models.py
imports, and the rest).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from mcpstub.layout import LINE_LENGTH
from mcpstub.pipeline import generate
from mcpstub.pytext import text_width
from tests.conftest import MypyRun
from tests.unit.test_black_stable import CASES

BIN = Path(sys.executable).parent


def test_generated_packages_pass_default_black_and_ruff(tmp_path: Path, mypy_strict: MypyRun) -> None:
    assert LINE_LENGTH == 88  # black's and ruff's default
    root = tmp_path / "project"
    for case, make in CASES.items():
        generated = generate(make(tmp_path), emit_tests=True)
        assert generated.ok, [d.format() for d in generated.diagnostics]
        package = root / case.replace("-", "_")
        for rel, text in {**generated.ours, **generated.yours}.items():
            (package / rel).parent.mkdir(parents=True, exist_ok=True)
            (package / rel).write_text(text, "utf-8")
            if rel.startswith("handlers/"):
                # A line can be no shorter than the names on it (a 90-character tool name).
                long = [
                    line
                    for line in text.splitlines()
                    if text_width(line) > LINE_LENGTH
                    and max(map(len, re.findall(r"\w+", line))) < LINE_LENGTH - 20
                ]
                assert not long, f"{case}: {rel}: lines longer than {LINE_LENGTH}: {long}"
    assert not any(p.name in {"pyproject.toml", "ruff.toml", ".ruff.toml"} for p in tmp_path.parents)
    black = subprocess.run(
        [BIN / "black", "--check", "--diff", "."], cwd=root, capture_output=True, text=True, check=False
    )
    assert black.returncode == 0, black.stdout[-4000:] + black.stderr[-2000:]
    ruff = subprocess.run(
        [BIN / "ruff", "check", "--isolated", "--no-cache", "--output-format", "concise", "."],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ruff.returncode == 0, ruff.stdout[-4000:] + ruff.stderr[-2000:]
    mypy = mypy_strict(*sorted(p.name for p in root.iterdir()), cwd=root)
    assert mypy.returncode == 0, mypy.stdout[-4000:] + mypy.stderr[-2000:]
