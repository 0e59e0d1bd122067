"""`python -m PACKAGE --check`: every handler imported and its signature checked before a client
calls it, each one that does not load named with its file and why, and the exit code saying so."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mcpstub_runtime.serve import main as serve
from tests.functional.helpers import imported, write_package

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
    "a wrong signature": (
        "\n\nasync def second(args):\n    return 'x'\n",
        f"must take (args, ctx), not (args) (at {PACKAGE}/handlers/second.py:3)",
    ),
    "a decorated wrong signature": (
        "import functools\n\n\ndef logged(f):\n    @functools.wraps(f)\n    def inner(*a):\n"
        "        return f(*a)\n\n    return inner\n\n\n@logged\nasync def second(args):\n    return 'x'\n",
        f"not (args) (at {PACKAGE}/handlers/second.py:12)",  # (the handler's line, not the wrapper's)
    ),
    "no function": ("VALUE = 1\n", "it defines no function 'second'"),
    "a syntax error": (
        "async def second(args, ctx)\n    return 1\n",
        f"SyntaxError: expected ':' (at {PACKAGE}/handlers/second.py:1:28)",
    ),
    "an error at import": ("raise RuntimeError('no database')\n", "RuntimeError: no database"),
    "an error of several lines": (
        "raise RuntimeError('missing settings:\\n  - API_KEY')\n",
        "RuntimeError: missing settings: - API_KEY (at ",
    ),
    "a BaseException at import": (
        "class Boom(BaseException):\n    pass\n\n\nraise Boom('x')\n", "Boom: x"
    ),
    "an async generator": ("async def second(args, ctx):\n    yield 1\n", "is a generator"),
    "a class": (
        "class second:\n    def __init__(self, args, ctx):\n        pass\n", "is a class"
    ),
    "an exit at import": ("import sys\n\nsys.exit(0)\n", "it exits the process on import (SystemExit: 0)"),
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("handler_check")
    write_package(root, PACKAGE, TOOLSET)
    return root / PACKAGE


@pytest.fixture
def root(tmp_path: Path, generated: Path) -> Path:
    """A fresh copy of the generated package, to break."""
    shutil.copytree(generated, tmp_path / PACKAGE)
    return tmp_path


def check(root: Path) -> subprocess.CompletedProcess[str]:
    """`python -m PACKAGE --check` as a command."""
    return subprocess.run(
        [sys.executable, "-m", PACKAGE, "--check"], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def check_here(root: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[object, str]:
    """The same command line run in this process from `root` (each case its own fresh import): its
    exit code and what it printed to stderr."""
    with imported(root, PACKAGE), contextlib.chdir(root), pytest.raises(SystemExit) as ended:
        serve(PACKAGE, ["--check", *more])
    return ended.value.code, capsys.readouterr().err


def test_stubs_load(root: Path) -> None:
    done = check(root)
    assert done.returncode == 0, done.stderr
    assert "3 tools: every handler loads and takes (args, ctx)" in done.stdout and not done.stderr
    (root / PACKAGE / "handlers" / "second.py").write_text(BROKEN["a wrong signature"][0], "utf-8")
    done = check(root)
    assert done.returncode == 1 and "1 of 3 tools: the handler does not load" in done.stderr


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_handler_that_does_not_load_is_named_with_why(
    root: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    text, why = BROKEN[case]
    (root / PACKAGE / "handlers" / "second.py").write_text(text, "utf-8")
    code, err = check_here(root, capsys)
    assert code == 1, err
    [line] = [line for line in err.splitlines() if line.startswith(f"{PACKAGE}/handlers/")]
    assert line.startswith(f"{PACKAGE}/handlers/second.py: tool 'second': "), err
    assert why in err, err
    assert "1 of 3 tools: the handler does not load" in err
    assert "Traceback" not in err


def test_models_that_do_not_load_are_said_once(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (root / PACKAGE / "models.py").write_text("raise ImportError('broken models')\n", "utf-8")
    code, err = check_here(root, capsys)
    assert code == 1
    assert err.count("broken models") == 1 and f"{PACKAGE}/models.py: ImportError" in err


@pytest.mark.parametrize("option", [["--http", "127.0.0.1:1"], ["--stateless"], ["--grace", "5"]])
def test_check_takes_no_serving_option(
    root: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    code, err = check_here(root, capsys, *option)
    assert code == 2 and f"--check serves nothing: {option[0]} cannot go with it" in err


def test_a_handler_slow_to_import_is_named_while_check_waits(
    root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An import that waits (on a network, say) names its handler after 0.1 s, then after twice
    as long, and so on; the check still waits for it and says how it went."""
    monkeypatch.setattr("mcpstub_runtime.serve.SLOW_IMPORT_SECONDS", 0.1)
    slow = "import time\n\ntime.sleep(0.5)\n\n\nasync def third(args, ctx):\n    return 'x'\n"
    (root / PACKAGE / "handlers" / "third.py").write_text(slow, "utf-8")
    code, err = check_here(root, capsys)
    said = [line for line in err.splitlines() if "still importing" in line]
    where = f"{PACKAGE}/handlers/third.py: tool 'third': still importing after"
    assert said == [f"{where} {t} s (Ctrl-C stops)" for t in ("0.1", "0.2", "0.4")], err
    assert code == 0 and "does not load" not in err  # (the verdict is on standard output)


@pytest.mark.parametrize(
    ("case", "at"),
    [
        ("an import that fails", "second.py:1)"),
        ("a wrong signature", "second.py:3)"),  # (its definition)
        ("an error at import", "second.py:1)"),
        ("an error of several lines", "second.py:1)"),
    ],
)
def test_a_served_handler_that_does_not_load_is_logged_in_one_line(
    root: Path, caplog: pytest.LogCaptureFixture, case: str, at: str | None
) -> None:
    """Its first call answers with an internal error and logs why, once, in a line: the error and
    the handler's own line, not the import machinery's traceback."""
    import anyio  # noqa: PLC0415
    from mcp import Client  # noqa: PLC0415

    text, why = BROKEN[case]
    (root / PACKAGE / "handlers" / "second.py").write_text(text, "utf-8")

    async def call(package: object) -> object:
        async with Client(package.create_server()) as client:  # type: ignore[attr-defined]
            return await client.call_tool("second", {})

    with imported(root, PACKAGE) as package, contextlib.chdir(root):
        answered = anyio.run(call, package)
    assert "internal error in tool second" in str(answered)
    [record] = [r for r in caplog.records if "does not load" in r.getMessage()]
    said = record.getMessage()
    assert said.startswith("tool 'second': handlers/second.py does not load: ") and why in said, said
    assert said.endswith(f" (`python -m {PACKAGE} --check` checks every handler)"), said
    assert ("(at " in said) == (at is not None) and (at is None or f"{at} (`python" in said), said
    assert record.exc_info is None and "Traceback" not in caplog.text


def test_ctrl_c_during_check_stops_it_in_a_line(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What `--check` says of a slow import, "(Ctrl-C stops)", holds: no traceback, exit 130."""
    (root / PACKAGE / "handlers" / "second.py").write_text("raise KeyboardInterrupt\n", "utf-8")
    code, err = check_here(root, capsys)
    assert (code, err.strip().splitlines()[-1]) == (130, "--check stopped (Ctrl-C)"), err
    assert "Traceback" not in err
