"""The README and docs/ say what runs: the README's walk is run as written, every command shown parses.

The walk (from `mcpstub init` to a called, type-checked server, the everyday loop and the extras)
is taken from README.md's code blocks in order and run in an empty folder: shell blocks by bash,
Python blocks whose first line names a file written to it, the JSON a client launches the server
with used to launch it. Every other `mcpstub ...` and `python -m PACKAGE ...` command in the
README and in docs/ goes through the same argument parsers the commands use.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from mcpstub.cli import UsageError, build_parser
from mcpstub_runtime.serve import _parser as serve_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
# The README's sections the walk runs through, in order.
WALK = ("## From `init` to a called server", "## The everyday loop", "## Extras")
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.MULTILINE | re.DOTALL)
# What `$EDITOR tools.yaml` does in the walk: commit what is there, then change a description
# (a change `diff` reports as info, so the loop's commands all succeed).
EDITOR = """#!/bin/sh
git add -A && git commit -qm before && \
sed -i 's/Returns a greeting for a person./Returns a friendly greeting./' "$1"
"""


def blocks(text: str) -> list[tuple[str, str]]:
    """Each fenced block as (language, body), in order; blocks inside list items are dedented."""
    found = []
    for match in FENCE.finditer(text):
        indent = len(match.group(1))
        body = "".join(line[indent:] for line in match.group(3).splitlines(keepends=True))
        found.append((match.group(2), body))
    return found


def walk_blocks() -> list[tuple[str, str]]:
    text = README.read_text("utf-8")
    start = text.index(WALK[0])
    end = text.index("\n## ", text.index(WALK[-1]) + 1)
    return blocks(text[start:end])


def script(walk: list[tuple[str, str]]) -> str:
    """The walk as one bash script: shell blocks as written, named Python files written out."""
    lines = ["set -euo pipefail"]
    for language, body in walk:
        if language == "sh":
            lines.append(body)
        elif language == "python":
            first, _, _ = body.partition("\n")
            assert first.startswith("# ") and first.endswith(".py"), first
            path = shlex.quote(first[2:])
            lines.append(f"if [ -e {path} ]; then cp {path} {path}.before; fi")
            lines.append(f"cat > {path} <<'WALK_EOF'\n{body}WALK_EOF")
    return "\n".join(lines) + "\n"


def test_readme_walk_runs_as_written(tmp_path: Path) -> None:
    walk = walk_blocks()
    languages = [language for language, _ in walk]
    assert languages.count("sh") >= 4 and languages.count("python") == 2 and "json" in languages
    editor = tmp_path / "editor.sh"
    editor.write_text(EDITOR, "utf-8")
    editor.chmod(0o755)
    project = tmp_path / "project"
    project.mkdir()
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "EDITOR": str(editor),
        "GIT_AUTHOR_NAME": "walk",
        "GIT_AUTHOR_EMAIL": "walk@example.com",
        "GIT_COMMITTER_NAME": "walk",
        "GIT_COMMITTER_EMAIL": "walk@example.com",
    }
    env.pop("PYTHONPATH", None)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    done = subprocess.run(
        ["bash", "-c", script(walk)], cwd=project, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # What the README says `python call.py` prints, it prints.
    shown = re.search(r"^python call\.py +# (.+)$", README.read_text("utf-8"), re.MULTILINE)
    assert shown is not None
    assert shown.group(1) in done.stdout.splitlines()
    assert "Success: no issues found" in done.stdout
    assert (project / "imported.yaml").is_file()
    # The handler shown is the generated stub with its comment and `raise` replaced, as it says.
    stub = (project / "src/my_tools/handlers/greet.py.before").read_text("utf-8")
    filled = (project / "src/my_tools/handlers/greet.py").read_text("utf-8")
    kept = stub.split("    # Until this is filled in", 1)[0]
    assert filled.startswith("# src/my_tools/handlers/greet.py\n" + kept), (stub, filled)
    assert "passed" in done.stdout

    # The JSON a client such as Claude Desktop launches the server with launches it.
    (config,) = [json.loads(body) for language, body in walk if language == "json"]
    (entry,) = config["mcpServers"].values()
    assert entry["command"] == "/path/to/venv/bin/python"
    env_given = {k: v.replace("/path/to/project", str(project)) for k, v in entry["env"].items()}

    async def call() -> object:
        server = StdioServerParameters(
            command=sys.executable, args=entry["args"], env=env_given, cwd=tmp_path
        )
        async with Client(server) as client:
            listed = await client.list_tools()
            assert [tool.name for tool in listed.tools] == ["greet", "wave"]
            result = await client.call_tool("greet", {"name": "Ada"})
        return result.structured_content

    assert anyio.run(call) == {"greeting": "Hello, Ada."}


def test_install_line_is_the_makefiles() -> None:
    """The README installs what `make` installs, without the editable flags and test extras."""
    shown = [body for language, body in blocks(README.read_text("utf-8")) if "pip install" in body]
    make = (ROOT / "Makefile").read_text("utf-8")
    line = next(line for line in make.splitlines() if "pip install" in line and "constraints" in line)
    expected = line.split("-m ", 1)[1].replace("--quiet ", "").replace("-e ", "").replace("'.[test]'", ".")
    assert shown == [expected + "\n"]


def _commands(text: str) -> list[str]:
    """`mcpstub ...` and `python -m PACKAGE ...` commands in shell blocks and inline code."""
    found = []
    for language, body in blocks(text):
        if language == "sh":
            joined = body.replace("\\\n", " ")
            found += [line.split(" #", 1)[0] for line in joined.splitlines()]
    found += re.findall(r"`([^`\n]+)`", FENCE.sub("", text))
    commands = []
    for command in found:
        words = command.strip().split()
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=value before a command
            words = words[1:]
        if words[:1] in (["python"], [".venv/bin/python"], [".venv/bin/pytest"]):
            words[0] = words[0].rsplit("/", 1)[-1]
            words[:1] = ["python", "-m", "pytest"] if words[0] == "pytest" else words[:1]
        if (words[:1] in (["mcpstub"], ["make"]) and len(words) > 1) or words[:2] == ["python", "-m"]:
            commands.append(" ".join(words))
    return commands


def _parse(command: str) -> None:
    words = shlex.split(command.split(" | ", 1)[0])
    if words[0] == "mcpstub":
        build_parser().parse_args(words[1:])
    elif words[0] == "make":
        targets = re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text("utf-8"), re.MULTILINE)
        if words[1] not in targets:
            raise ValueError(f"the Makefile has no target {words[1]!r}")
    elif words[2] == "pytest":
        for path in (word for word in words[3:] if word.startswith("tests/")):
            if not (ROOT / path).exists():
                raise ValueError(f"no such path {path}")
    elif words[2].split(".")[0] in ("tests", "benchmarks"):
        module = ROOT / words[2].replace(".", "/")
        if not (module.with_suffix(".py").is_file() or (module / "__main__.py").is_file()):
            raise ValueError(f"no module {words[2]}")
    elif words[2] not in ("build", "mypy"):
        serve_parser(words[2]).parse_args(words[3:])


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_shown_parses(page: Path) -> None:
    """A flag renamed or dropped fails here, naming the page and the command that shows it."""
    refused = []
    for command in _commands(page.read_text("utf-8")):
        try:
            _parse(command)
        except (SystemExit, UsageError, ValueError) as error:
            if not isinstance(error, SystemExit) or error.code != 0:
                refused.append(f"`{command}`: {error}")
    assert not refused, f"{page.name}: commands that do not parse:\n" + "\n".join(refused)


def test_the_handlers_page_shows_the_stub_generate_writes_and_a_test_that_passes(tmp_path: Path) -> None:
    """docs/handlers.md: its stub is the example's stub as generated; its test passes under pytest."""
    from mcpstub.pipeline import generate  # noqa: PLC0415

    python = [body for language, body in blocks((ROOT / "docs" / "handlers.md").read_text("utf-8"))
              if language == "python"]  # fmt: skip
    generated = generate(ROOT / "examples" / "weather" / "tools.yaml")
    assert generated.ok, [d.format() for d in generated.diagnostics]
    assert python[0] in generated.yours["handlers/get_forecast.py"], python[0]
    (test,) = [body for body in python if "def test_" in body]
    (tmp_path / "test_page.py").write_text(test, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_page.py"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT / "examples" / "weather")},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
