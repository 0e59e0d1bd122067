"""`python -m PACKAGE --check`: every handler imported and its signature checked before a client
calls it, each one that does not load named with its file and why, and the exit code saying so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.functional.helpers import write_package

PACKAGE = "fx_handler_check"

TOOLSET = """\
mcpstub: 1
server: {name: checked, version: 0.1.0}
tools:
  - name: first
    inputSchema: {type: object}
  - name: second
    inputSchema: {type: object}
  - name: third
    inputSchema: {type: object}
"""

BROKEN = {
    "an import that fails": (
        "from ..server import ToolError\n",
        "ImportError: cannot import name 'ToolError'",
    ),
    "a wrong signature": ("async def second(args):\n    return 'x'\n", "must take (args, ctx), not (args)"),
    "no function": ("VALUE = 1\n", "it defines no function 'second'"),
    "a syntax error": ("async def second(args, ctx)\n    return 1\n", "SyntaxError"),
    "an error at import": ("raise RuntimeError('no database')\n", "RuntimeError: no database"),
    "an exit at import": ("import sys\n\nsys.exit(0)\n", "it exits the process on import (SystemExit: 0)"),
}


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", PACKAGE, "--check"], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def test_stubs_load(tmp_path: Path) -> None:
    write_package(tmp_path, PACKAGE, TOOLSET)
    done = check(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "3 tools: every handler loads and takes (args, ctx)" in done.stderr


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_handler_that_does_not_load_is_named_with_why(tmp_path: Path, case: str) -> None:
    folder, _ = write_package(tmp_path, PACKAGE, TOOLSET)
    text, why = BROKEN[case]
    (folder / "handlers" / "second.py").write_text(text, "utf-8")
    done = check(tmp_path)
    assert done.returncode == 1, done.stderr
    [line] = [line for line in done.stderr.splitlines() if line.startswith(f"{PACKAGE}/handlers/")]
    assert line.startswith(f"{PACKAGE}/handlers/second.py: tool 'second': "), done.stderr
    assert why in done.stderr, done.stderr
    assert "1 of 3 tools: the handler does not load" in done.stderr
    assert "Traceback" not in done.stderr


def test_models_that_do_not_load_are_said_once(tmp_path: Path) -> None:
    folder, _ = write_package(tmp_path, PACKAGE, TOOLSET)
    (folder / "models.py").write_text("raise ImportError('broken models')\n", "utf-8")
    done = check(tmp_path)
    assert done.returncode == 1
    assert done.stderr.count("broken models") == 1 and f"{PACKAGE}/models.py: ImportError" in done.stderr


@pytest.mark.parametrize("option", [["--http", "127.0.0.1:1"], ["--stateless"], ["--grace", "5"]])
def test_check_takes_no_serving_option(tmp_path: Path, option: list[str]) -> None:
    write_package(tmp_path, PACKAGE, TOOLSET)
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--check", *option], cwd=tmp_path, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and f"--check serves nothing: {option[0]} cannot go with it" in done.stderr
