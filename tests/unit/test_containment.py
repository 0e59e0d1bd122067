"""$ref containment: a reference never reads a file outside the folder references may reach."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mcpstub.cli import main
from mcpstub.pipeline import Checked, check_toolset
from mcpstub.policy import Policy

SECRET = {"$defs": {"S": {"type": "string", "description": "TOP-SECRET"}}}


def toolset(ref: str) -> str:
    return (
        "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: a\n"
        f"    inputSchema: {{type: object, properties: {{p: {{$ref: {json.dumps(ref)}}}}}}}\n"
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """tmp/outside/secret.json beside tmp/project/ (the toolset's folder)."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.json").write_text(json.dumps(SECRET), "utf-8")
    (tmp_path / "project").mkdir()
    return tmp_path / "project"


def check(folder: Path, ref: str, policy: Policy | None = None) -> Checked:
    (folder / "tools.yaml").write_text(toolset(ref), "utf-8")
    return check_toolset(folder / "tools.yaml", "tools.yaml", policy)


def refused(checked: Checked) -> None:
    assert not checked.ok
    assert [(d.code, d.location.line, d.location.col) for d in checked.diagnostics] == [
        ("ref-outside", 5, 56)
    ]
    assert "TOP-SECRET" not in repr(checked)


@pytest.mark.parametrize(
    "ref",
    [
        "../outside/secret.json#/$defs/S",
        "sub/../../outside/secret.json#/$defs/S",
        "%2e%2e/outside/secret.json#/$defs/S",
        "..%2Foutside%2Fsecret.json#/$defs/S",
    ],
)
def test_dot_dot_is_refused(project: Path, ref: str) -> None:
    refused(check(project, ref))


def test_absolute_path_is_refused_even_inside(project: Path) -> None:
    (project / "inside.json").write_text(json.dumps(SECRET), "utf-8")
    refused(check(project, str(project.parent / "outside" / "secret.json") + "#/$defs/S"))
    refused(check(project, str(project / "inside.json") + "#/$defs/S"))


def test_symlink_resolving_outside_is_refused(project: Path) -> None:
    os.symlink(project.parent / "outside" / "secret.json", project / "link.json")
    refused(check(project, "link.json#/$defs/S"))
    os.symlink(project.parent / "outside", project / "dir")
    refused(check(project, "dir/secret.json#/$defs/S"))


def test_a_file_inside_may_not_reach_out_either(project: Path) -> None:
    (project / "common.json").write_text(
        json.dumps({"$defs": {"C": {"$ref": "../outside/secret.json#/$defs/S"}}}), "utf-8"
    )
    checked = check(project, "common.json#/$defs/C")
    assert [(d.code, d.location.file) for d in checked.diagnostics] == [("ref-outside", "common.json")]


def test_files_inside_and_symlinks_inside_are_fine(project: Path) -> None:
    (project / "sub").mkdir()
    (project / "sub" / "common.json").write_text(json.dumps(SECRET), "utf-8")
    os.symlink(project / "sub" / "common.json", project / "alias.json")
    assert check(project, "sub/common.json#/$defs/S").ok
    assert check(project, "./sub/../alias.json#/$defs/S").ok


def test_a_configured_root_widens_the_reach(project: Path) -> None:
    checked = check(project, "../outside/secret.json#/$defs/S", Policy(ref_root=project.parent))
    assert checked.ok, [d.format() for d in checked.diagnostics]
    refused(check(project, "../../x.json#/$defs/S", Policy(ref_root=project.parent)))


def test_ref_root_from_pyproject(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project)
    (project / "tools.yaml").write_text(toolset("../outside/secret.json#/$defs/S"), "utf-8")
    assert main(["validate"]) == 1
    assert "[ref-outside]" in capsys.readouterr().err
    (project / "pyproject.toml").write_text('[tool.mcpstub]\nref_root = ".."\n', "utf-8")
    assert main(["validate"]) == 0


def test_narrowing_the_ref_root_is_enforced_on_the_next_plain_run(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project)
    (project / "tools.yaml").write_text(toolset("../outside/secret.json#/$defs/S"), "utf-8")
    (project / "pyproject.toml").write_text('[tool.mcpstub]\nref_root = ".."\n', "utf-8")
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert "up to date" in capsys.readouterr().out  # nothing changed: the shortcut holds
    (project / "pyproject.toml").write_text("[tool.mcpstub]\n", "utf-8")
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 1  # not "up to date"
    assert "[ref-outside]" in capsys.readouterr().err
