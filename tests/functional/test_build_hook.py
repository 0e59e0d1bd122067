"""Generation inside the build, and a deployment with nothing but the runtime.

A sample project holds only its toolset, its handlers and a pyproject.toml naming the mcpstub
hatch hook; `pip wheel` builds it (the generated files are ignored by git, and packaged all the
same). The wheel, with the runtime's wheel, goes into a fresh virtualenv that sees only the
runtime's dependencies and uvicorn (no mcpstub, datamodel-code-generator, jinja2, black or
PyYAML), and serves over stdio and HTTP. A toolset with errors fails the build with its
located diagnostics.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from packaging.requirements import Requirement

from tests.functional.servers import free_port

ROOT = Path(__file__).resolve().parents[2]

TOOLSET = """\
mcpstub: 1
server: {name: sample, version: 1.0.0}
tools:
  - name: shout
    inputSchema:
      type: object
      properties: {text: {type: string, minLength: 1}}
      required: [text]
    outputSchema:
      type: object
      properties: {text: {type: string}}
      required: [text]
"""

HANDLER = """\
from __future__ import annotations

from ..models import ShoutInput, ShoutOutput
from ..results import ShoutResult
from ..server import ToolContext


async def shout(args: ShoutInput, ctx: ToolContext) -> ShoutOutput | ShoutResult:
    return ShoutOutput(text=args.text.upper())
"""

PYPROJECT = """\
[build-system]
requires = ["hatchling", "mcpstub"]
build-backend = "hatchling.build"

[project]
name = "sample-service"
version = "1.0.0"
dependencies = ["mcpstub-runtime>=0.1,<0.2"]

[tool.hatch.build.targets.wheel]
packages = ["src/sample_tools"]

[tool.hatch.build.hooks.mcpstub]
toolset = "tools.yaml"
out = "src/sample_tools"
"""

# Only the toolset and the handlers are the project's own; the rest is made by the build.
GITIGNORE = """\
src/sample_tools/*
!src/sample_tools/handlers/
"""


def _project(folder: Path, toolset: str = TOOLSET) -> Path:
    handlers = folder / "src" / "sample_tools" / "handlers"
    handlers.mkdir(parents=True)
    (handlers / "__init__.py").write_text("")
    (handlers / "shout.py").write_text(HANDLER)
    (folder / "tools.yaml").write_text(toolset)
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (folder / ".gitignore").write_text(GITIGNORE)
    return folder


def _wheel(project: Path, dist: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist),
         str(project)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _closure(*names: str) -> set[importlib.metadata.Distribution]:
    """The installed distributions `names` need, with theirs (and those of the extras named)."""
    found: dict[tuple[str, str], importlib.metadata.Distribution] = {}
    todo = [(name, "") for name in names]
    while todo:
        name, extra = todo.pop()
        dist = importlib.metadata.distribution(name)
        key = (re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower(), extra)
        if key in found:
            continue
        found[key] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": extra}):
                todo += [(requirement.name, wanted) for wanted in ["", *requirement.extras]]
    return set(found.values())


def _deployment(venv: Path, wheels: list[Path]) -> Path:
    """A fresh virtualenv with `wheels` installed and, beside them, only the runtime's
    dependencies and uvicorn (linked from this environment: no network). Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
         *map(str, wheels)],
        check=True, capture_output=True,
    )  # fmt: skip
    deps = venv / "deps"
    deps.mkdir()
    for dist in _closure("mcpstub-runtime", "uvicorn"):
        if dist.metadata["Name"] == "mcpstub-runtime":
            continue  # installed from its wheel above
        tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
        for top in tops:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (deps / top).exists() and not top.endswith(".pth"):
                (deps / top).symlink_to(source)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    (Path(site) / "_deps.pth").write_text(f"{deps}\n")
    return python


def test_a_project_of_yaml_and_handlers_builds_a_wheel_that_serves_with_the_runtime_alone(
    tmp_path: Path,
) -> None:
    dist = tmp_path / "dist"
    project = _project(tmp_path / "project")
    built = _wheel(project, dist)
    assert built.returncode == 0, built.stderr
    assert _wheel(ROOT / "runtime", dist).returncode == 0
    (wheel,) = dist.glob("sample_service-*.whl")
    names = set(__import__("zipfile").ZipFile(wheel).namelist())
    for name in ("__init__.py", "models.py", "tools.py", "server.py", "handlers/shout.py", "py.typed"):
        assert f"sample_tools/{name}" in names, sorted(names)

    python = _deployment(tmp_path / "venv", sorted(dist.glob("*.whl")))
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    absent = subprocess.run(
        [str(python), "-c", "import importlib.util as u; print([n for n in ('mcpstub',"
         " 'datamodel_code_generator', 'jinja2', 'black', 'yaml', 'sample_tools') if u.find_spec(n)])"],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=True,
    )  # fmt: skip
    assert absent.stdout.strip() == "['sample_tools']", absent

    async def calls() -> tuple[str, str]:
        params = StdioServerParameters(
            command=str(python), args=["-m", "sample_tools"], env=env, cwd=str(tmp_path)
        )
        async with Client(params) as client:
            over_stdio = await client.call_tool("shout", {"text": "hi"})
        port = free_port()
        server = subprocess.Popen(
            [str(python), "-m", "sample_tools", "--http", f"127.0.0.1:{port}"],
            env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            with anyio.fail_after(60):
                while True:
                    try:
                        await (await anyio.connect_tcp("127.0.0.1", port)).aclose()
                        break
                    except OSError:
                        assert server.poll() is None, server.communicate()[1]
                        await anyio.sleep(0.05)
            url = f"http://127.0.0.1:{port}/mcp"
            async with Client(streamable_http_client(url)) as client:
                over_http = await client.call_tool("shout", {"text": "ho"})
        finally:
            server.terminate()
            server.wait(timeout=30)
        return str(over_stdio.structured_content), str(over_http.structured_content)

    assert anyio.run(calls) == ("{'text': 'HI'}", "{'text': 'HO'}")


def test_a_toolset_with_errors_fails_the_build_with_located_diagnostics(tmp_path: Path) -> None:
    broken = TOOLSET.replace("required: [text]\n    outputSchema", "requried: [text]\n    outputSchema")
    broken = broken.replace("name: shout", "name: shout\n    titel: Shout")
    built = _wheel(_project(tmp_path / "project", broken), tmp_path / "dist")
    assert built.returncode != 0
    assert re.search(r"tools\.yaml:5:5: error: .*titel", built.stderr), built.stderr
    assert "Traceback" not in built.stderr and "error: mcpstub generate failed" in built.stderr
    assert not list((tmp_path / "dist").glob("*.whl"))


@pytest.fixture(autouse=True)
def _hook_installed() -> None:
    entry = [e for e in importlib.metadata.entry_points(group="hatch") if e.name == "mcpstub"]
    assert entry, "mcpstub's hatch entry point is not installed: run make .venv/.installed"


def test_the_sdist_holds_the_generated_package_though_git_ignores_it(tmp_path: Path) -> None:
    import tarfile  # noqa: PLC0415

    from hatchling.builders.sdist import SdistBuilder  # noqa: PLC0415

    project = _project(tmp_path / "project")
    (archive,) = SdistBuilder(str(project)).build(directory=str(tmp_path / "dist"), versions=["standard"])
    names = {name.partition("/")[2] for name in tarfile.open(archive).getnames()}
    for name in ("tools.yaml", "__init__.py", "models.py", "tools.py", "server.py", "handlers/shout.py"):
        assert name in names or f"src/sample_tools/{name}" in names, sorted(names)


def test_a_misspelled_hook_setting_is_told_the_setting_it_resembles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcpstub.hatch import McpstubBuildHook  # noqa: PLC0415 - hatchling is a test dependency

    config = {"toolset": "tools.yaml", "output": "src/sample_tools", "dependencies": []}
    hook = McpstubBuildHook(str(tmp_path), config, None, None, str(tmp_path), "wheel")
    with pytest.raises(SystemExit):  # the message alone, no traceback around it
        hook.initialize("standard", {})
    said = "error: unknown key(s) in [tool.hatch.build.hooks.mcpstub]: output (did you mean out?)\n"
    assert capsys.readouterr().err == said


def test_a_missing_toolset_fails_the_build_though_a_package_was_generated_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only an sdist (PKG-INFO beside pyproject.toml) builds from the generated package it holds:
    # in a project's own tree, a misspelled or renamed toolset must not ship the last generation.
    from mcpstub.hatch import McpstubBuildHook  # noqa: PLC0415 - hatchling is a test dependency

    project = _project(tmp_path / "project")
    assert subprocess.run(
        [sys.executable, "-m", "mcpstub", "generate", "tools.yaml", "--out", "src/sample_tools"],
        cwd=project, capture_output=True, check=False,
    ).returncode == 0  # fmt: skip
    config = {"toolset": "tool.yaml", "out": "src/sample_tools"}
    hook = McpstubBuildHook(str(project), config, None, None, str(tmp_path / "dist"), "wheel")
    with pytest.raises(SystemExit):
        hook.initialize("standard", {"artifacts": []})
    assert "toolset file not found: tool.yaml" in capsys.readouterr().err
    (project / "PKG-INFO").write_text("Metadata-Version: 2.3\nName: sample\nVersion: 1.0.0\n")
    build_data: dict[str, list[str]] = {"artifacts": []}
    hook.initialize("standard", build_data)  # an sdist's: what it holds is packaged
    assert build_data == {"artifacts": ["/src/sample_tools/**"]}


def test_the_hook_takes_toolset_and_out_from_the_project_s_table_where_its_own_lacks_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Both had to be written twice, in the hook's table and in [tool.mcpstub], and nothing held
    # the two alike.
    from mcpstub.hatch import McpstubBuildHook  # noqa: PLC0415 - hatchling is a test dependency

    project = _project(tmp_path / "project")
    pyproject = project / "pyproject.toml"
    head = PYPROJECT.split("[tool.hatch.build.hooks.mcpstub]", maxsplit=1)[0]
    table = '[tool.hatch.build.hooks.mcpstub]\n\n[tool.mcpstub]\ntoolset = "tools.yaml"\n'
    table += 'out = "src/sample_tools"\n'
    pyproject.write_text(head + table)
    hook = McpstubBuildHook(str(project), {}, None, None, str(tmp_path / "dist"), "wheel")
    build_data: dict[str, list[str]] = {"artifacts": []}
    hook.initialize("standard", build_data)
    assert (project / "src" / "sample_tools" / "server.py").is_file()
    assert build_data["artifacts"] == ["/src/sample_tools/**"]
    # `out` as the command takes it (./src/..., absolute, through a link to the project) is what
    # the wheel holds (it held nothing); the project root itself is no package's folder.
    (tmp_path / "alias").symlink_to(project)
    linked = str(tmp_path / "alias" / "src" / "sample_tools")
    for written in ("./src/sample_tools", str(project / "src" / "sample_tools"), linked):
        pyproject.write_text(head + table.replace('"src/sample_tools"', f'"{written}"'))
        build_data = {"artifacts": []}
        hook.initialize("standard", build_data)
        assert build_data["artifacts"] == ["/src/sample_tools/**"]
    (project / "self").symlink_to(project)  # (a link to the project: its root all the same)
    (project / "ext").symlink_to(tmp_path)
    for written, said in ((".", "is the project root itself"), ("../x", "is outside the project"),
                          ("self", "is the project root itself"), ("ext/pkg", "is outside the project")):
        pyproject.write_text(head + table.replace('"src/sample_tools"', f'"{written}"'))
        with pytest.raises(SystemExit):
            hook.initialize("standard", {})
        assert f"out = '{written}' {said}: name the package's own folder in it" in capsys.readouterr().err
    pyproject.write_text(head)
    with pytest.raises(SystemExit):
        hook.initialize("standard", {})
    said = '[tool.hatch.build.hooks.mcpstub] (or [tool.mcpstub]) needs toolset = "..." and out = "..."'
    assert said in capsys.readouterr().err
    pyproject.write_text(head + table.replace('"tools.yaml"', "5"))
    with pytest.raises(SystemExit):
        hook.initialize("standard", {})
    said = "error: [tool.mcpstub] toolset must be a string (a path from the project root)"
    assert said in capsys.readouterr().err
