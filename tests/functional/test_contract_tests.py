"""Conformance helpers for users: `assert_conforms` and the tests written by `--emit-tests`."""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import types

from mcpstub.cli import main
from tests.conftest import MypyRun

from .helpers import imported, write_package

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "weather"

TOOLSET = """\
mcpstub: 1
server: {name: conform}
tools:
  - name: count
    inputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
    outputSchema:
      type: object
      properties: {total: {type: integer, minimum: 0}, when: {type: string, format: date}}
      required: [total]
  - name: say
    inputSchema: {type: object}
"""


def result(
    structured: object = None, text: str | None = None, is_error: bool = False
) -> types.CallToolResult:
    content = [types.TextContent(type="text", text=text)] if text is not None else []
    return types.CallToolResult(content=content, structured_content=structured, is_error=is_error)  # type: ignore[arg-type]


def test_assert_conforms_names_every_problem_by_path(tmp_path: Path) -> None:
    write_package(tmp_path, "conform_pkg", TOOLSET)
    with imported(tmp_path, "conform_pkg") as pkg:
        from conform_pkg.testing import assert_conforms, conformance_problems  # noqa: PLC0415

        good = {"total": 3, "when": "2026-01-01"}
        assert_conforms(result(good, '{"total": 3, "when": "2026-01-01"}'), "count")
        assert_conforms(result(None, "no such thing", is_error=True), "count")
        assert_conforms(result(None, "hello"), pkg.TOOLS["say"])

        bad = {"total": -1, "when": "2026-13-01"}
        problems = conformance_problems(result(bad, '{"total": -1}'), "count")
        assert any(p.startswith("structuredContent at /total:") for p in problems)
        assert any(p.startswith("structuredContent at /when:") for p in problems)
        assert "the first text block's JSON differs from structuredContent" in problems
        with pytest.raises(AssertionError, match="result of tool 'count' does not conform"):
            assert_conforms(result(bad, '{"total": -1}'), "count")
        assert conformance_problems(result(good, text=None), "count") == [
            "no text block mirrors structuredContent"
        ]
        assert conformance_problems(result(None, "x"), "count") == [
            "structuredContent is missing (the tool declares an outputSchema)"
        ]
        assert conformance_problems(result(good, "x", is_error=True), "count") == [
            "an isError result carries structuredContent"
        ]
        assert conformance_problems(result({"a": 1}, "{}"), "say") == [
            "structuredContent from a tool that declares no outputSchema"
        ]


def run(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, err.getvalue()


def pytest_on(folder: Path, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target],
        cwd=folder, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_emitted_contract_tests_pass_on_the_example_and_catch_a_broken_handler(
    tmp_path: Path, mypy_strict: MypyRun
) -> None:
    shutil.copy(EXAMPLE / "tools.yaml", tmp_path / "tools.yaml")
    out = tmp_path / "weather_tools"
    assert run("generate", str(tmp_path / "tools.yaml"), "--out", str(out), "--emit-tests")[0] == 0
    for handler in (EXAMPLE / "weather_tools" / "handlers").glob("*.py"):
        shutil.copy(handler, out / "handlers" / handler.name)
    done = pytest_on(tmp_path, "weather_tools/test_contract.py")
    assert done.returncode == 0, done.stdout + done.stderr
    # One example, four tools with generated inputs; radar_map is not marked read-only.
    assert "4 passed, 1 skipped" in done.stdout, done.stdout
    every = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "weather_tools/test_contract.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "MCPSTUB_CONTRACT_ALL_TOOLS": "1"},
    )  # fmt: skip
    assert every.returncode == 0 and "5 passed" in every.stdout, every.stdout
    # With the `testing` extra installed, the package with its tests passes `mypy --strict` (README).
    checked = mypy_strict("weather_tools", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout

    # A handler whose output breaks the schema is caught (the server answers isError for it).
    (out / "handlers" / "list_cities.py").write_text(
        (out / "handlers" / "list_cities.py").read_text().replace("sorted(CITIES)", "['Oslo', 'Oslo']")
    )
    done = pytest_on(tmp_path, "weather_tools/test_contract.py")
    assert done.returncode == 1
    assert "output did not match the declared schema" in done.stdout
    assert not (tmp_path / ".hypothesis" / "examples").exists(), "no example database is kept"

    # The generated inputs are the same every run, and MCPSTUB_CONTRACT_EXAMPLES draws more.
    def inputs(**env: str) -> list[str]:
        shown = subprocess.run(
            [sys.executable, "-m", "pytest", "-qs", "-p", "no:cacheprovider", "-k", "inputs and get_forecast",
             "--hypothesis-verbosity=verbose", "weather_tools/test_contract.py"],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False, env={**os.environ, **env},
        )  # fmt: skip
        assert shown.returncode == 0, shown.stdout[-3000:]
        return re.findall(r"^Test case: check\((.*?)^\)", shown.stdout, re.MULTILINE | re.DOTALL)

    first = inputs()
    assert len(first) >= 10 and first == inputs(), first
    assert len(inputs(MCPSTUB_CONTRACT_EXAMPLES="40")) > len(first)
    refused = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "inputs and get_forecast",
         "weather_tools/test_contract.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "MCPSTUB_CONTRACT_EXAMPLES": "1e3"},
    )  # fmt: skip
    assert refused.returncode == 1 and "Traceback" not in refused.stdout, refused.stdout[-3000:]
    assert "MCPSTUB_CONTRACT_EXAMPLES takes a whole number of inputs, 1 or more, not '1e3'" in refused.stdout

    # So is one that runs past its tool's timeout: the call never answered.
    toolset = (tmp_path / "tools.yaml").read_text()
    timed = toolset.replace("  - name: list_cities\n", "  - name: list_cities\n    timeout: 0.2\n")
    (tmp_path / "tools.yaml").write_text(timed)
    assert run("generate", str(tmp_path / "tools.yaml"), "--out", str(out), "--emit-tests")[0] == 0
    slow = (EXAMPLE / "weather_tools" / "handlers" / "list_cities.py").read_text()
    (out / "handlers" / "list_cities.py").write_text(
        slow.replace("annotations\n", "annotations\n\nimport anyio\n", 1)
        .replace("    return ListCitiesOutput", "    await anyio.sleep(5)\n    return ListCitiesOutput")
    )
    done = pytest_on(tmp_path, "weather_tools/test_contract.py")
    assert done.returncode == 1, done.stdout[-3000:]
    assert "tool list_cities timed out after 0.2 s" in done.stdout, done.stdout[-3000:]

    # Turning the option off removes the generated tests again.
    assert run("generate", str(tmp_path / "tools.yaml"), "--out", str(out))[0] == 0
    assert not (out / "test_contract.py").exists()
