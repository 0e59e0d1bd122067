"""`mcpstub diff` reads OLD and NEW from git revisions, surface snapshots and live generated servers;
`generate --check-breaking REV` runs the same check before writing."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from mcpstub import cli, server_listing
from mcpstub.pipeline import check_toolset
from tests.functional.servers import free_port

COMMON = """\
$defs:
  Name: {type: string, minLength: 1}
"""

TOOLSET = """\
mcpstub: 1
server: {name: shop, version: 1.0.0}
tools:
  - name: find
    description: Find an item.
    inputSchema:
      type: object
      properties:
        name: {$ref: "common.yaml#/$defs/Name"}
        limit: {type: integer, maximum: 50}
      required: [name]
    outputSchema:
      type: object
      properties:
        items: {type: array, items: {type: string}}
      required: [items]
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose last commit holds api/tools.yaml and the file it references."""
    root = tmp_path / "repo"
    (root / "api").mkdir(parents=True)
    (root / "api" / "tools.yaml").write_text(TOOLSET, "utf-8")
    (root / "api" / "common.yaml").write_text(COMMON, "utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "v1")
    monkeypatch.chdir(root)
    return root


def findings(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    out = capsys.readouterr().out
    result: list[dict[str, Any]] = json.loads(out)
    return result


def test_a_revision_reads_its_referenced_files_from_the_same_revision(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only the referenced file changes: a stricter shared definition breaks the input.
    (repo / "api" / "common.yaml").write_text(COMMON.replace("minLength: 1", "minLength: 3"), "utf-8")
    assert cli.main(["diff", "HEAD:api/tools.yaml", "api/tools.yaml", "--format", "json"]) == 1
    found = findings(capsys)
    assert {(f["tool"], f["severity"], f["direction"]) for f in found} >= {("find", "breaking", "input")}
    assert any(f["location"]["file"].endswith("common.yaml") or f["location"]["file"] == "api/tools.yaml"
               for f in found if "location" in f)  # fmt: skip
    # The revision alone against itself: nothing, so the old common.yaml was read from HEAD.
    assert cli.main(["diff", "HEAD:api/tools.yaml", "HEAD:api/tools.yaml", "--format", "json"]) == 0
    assert findings(capsys) == []


@pytest.mark.parametrize("folder", ["", "api/"])
def test_a_finding_in_a_revision_s_referenced_file_names_the_revision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, folder: str
) -> None:
    """`REV:common.yaml:5:28`, the line of the revision's file, not the working copy's name."""
    root = tmp_path / "repo"
    (root / folder).mkdir(parents=True, exist_ok=True)
    (root / folder / "tools.yaml").write_text(TOOLSET, "utf-8")
    (root / folder / "common.yaml").write_text(COMMON, "utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "v1")
    (root / folder / "common.yaml").write_text(COMMON.replace("minLength: 1", "minLength: 3"), "utf-8")
    git(root, "commit", "-qam", "v2")
    monkeypatch.chdir(root)
    old, new = f"HEAD~1:{folder}tools.yaml", f"HEAD:{folder}tools.yaml"
    assert cli.main(["diff", old, new, "--format", "json"]) == 1
    files = {f["location"]["file"] for f in findings(capsys) if f["rule"] != "version-not-bumped"}
    assert files and all(f.startswith("HEAD:") and f.endswith("common.yaml") for f in files), files
    # A workflow annotation names the file from the repository's root, as GitHub attaches it
    # (it named `HEAD:common.yaml`, which attaches to nothing), whichever way REV:path is spelt.
    for cwd, spelt in ((root, folder), (root / folder, "./")):
        monkeypatch.chdir(cwd)
        old, new = f"HEAD~1:{spelt}tools.yaml", f"HEAD:{spelt}tools.yaml"
        assert cli.main(["diff", old, new, "--format", "github"]) == 1
        out = capsys.readouterr().out
        assert f"::error file={folder}common.yaml,line=2," in out and "HEAD%3A" not in out, out


def test_revision_paths_relative_to_the_working_folder(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "api")
    text = TOOLSET.replace("maximum: 50", "maximum: 10")
    (repo / "api" / "tools.yaml").write_text(text, "utf-8")
    assert cli.main(["diff", "HEAD:./tools.yaml", "tools.yaml", "--format", "json"]) == 1
    found = [f for f in findings(capsys) if f["tool"] == "find"]
    assert found and found[0]["direction"] == "input"
    line = text.splitlines().index("        limit: {type: integer, maximum: 10}") + 1
    assert any(f.get("location", {}).get("line") == line for f in found)


def test_an_absolute_revision_path_is_the_repository_s_file_at_that_place(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (git itself refuses `HEAD:/abs/path`; one in no repository is said so)
    monkeypatch.chdir(repo / "api")
    (repo / "api" / "tools.yaml").write_text(TOOLSET.replace("maximum: 50", "maximum: 10"), "utf-8")
    assert cli.main(["diff", f"HEAD:{repo / 'api' / 'tools.yaml'}", "tools.yaml", "--format", "json"]) == 1
    assert {f["tool"] for f in findings(capsys) if f["severity"] == "breaking"} == {"", "find"}  # ("": server
    assert cli.main(["diff", f"HEAD:{repo.parent / 'tools.yaml'}", "tools.yaml"]) == 2
    assert "its folder is in no git repository to read 'HEAD' from" in capsys.readouterr().err
    assert cli.main(["diff", f"HEAD:{repo / 'nowhere' / 'tools.yaml'}", "tools.yaml"]) == 2  # (not here's)
    assert "tools.yaml: no such file, and its folder is no folder on this machine" in capsys.readouterr().err
    # From another repository's folder: the repository the path is in. A link's name is read as the
    # revision holds it (the link itself), as `HEAD:api/link.yaml` is.
    (repo / "api" / "link.yaml").symlink_to("tools.yaml")
    other = repo.parent / "other"
    other.mkdir()
    git(other, "init", "-q")
    monkeypatch.chdir(other)
    assert cli.main(["diff", f"HEAD:{repo / 'api' / 'tools.yaml'}", str(repo / "api" / "tools.yaml")]) == 1
    capsys.readouterr()
    assert cli.main(["diff", f"HEAD:{repo / 'api' / 'link.yaml'}", str(repo / "api" / "tools.yaml")]) == 2
    assert "api/link.yaml does not exist at HEAD" in capsys.readouterr().err
    # A folder that is not there is said so (not read from here); a name near one is hinted in the
    # absolute form (`HEAD:api/tools.yaml` would read this folder's repository).
    here = str(repo / "api" / "tools.yaml")
    assert cli.main(["diff", f"HEAD:{repo / 'nowhere' / 'tools.yaml'}", here]) == 2
    assert "tools.yaml: no such file, and its folder is no folder on this machine" in capsys.readouterr().err
    assert cli.main(["diff", f"HEAD:{repo / 'api' / 'tool.yaml'}", here]) == 2
    assert f"did you mean HEAD:{repo / 'api' / 'tools.yaml'}?" in capsys.readouterr().err
    # Through a link to the repository, a workflow annotation still names the file from its root.
    git(repo, "commit", "-qam", "v2")
    (repo.parent / "alias").symlink_to(repo)
    monkeypatch.chdir(repo)
    new = f"HEAD:{repo.parent / 'alias' / 'api' / 'tools.yaml'}"
    assert cli.main(["diff", "HEAD~1:api/tools.yaml", new, "--format", "github"]) == 1
    said = capsys.readouterr().out
    assert "file=api/tools.yaml," in said and "alias" not in said, said


def test_a_root_relative_revision_path_below_the_root_is_noted_and_a_bare_revision_told(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `HEAD:tools.yaml` from api/ is the root's tools.yaml (git's reading): where the revision holds
    # this folder's too, the diff says which one it reads and how to name the other.
    other = "mcpstub: 1\nserver: {name: shop, version: 1.0.0}\n"
    other += "tools:\n  - {name: other, inputSchema: {type: object}}\n"
    (repo / "tools.yaml").write_text(other, "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "v2")
    monkeypatch.chdir(repo / "api")
    assert cli.main(["diff", "HEAD:tools.yaml", "tools.yaml", "--format", "json"]) == 1
    said = capsys.readouterr()
    note = "note: HEAD:tools.yaml is tools.yaml at the repository's root, as git reads it; "
    assert note + "this folder's is HEAD:./tools.yaml (api/tools.yaml)\n" == said.err
    assert json.loads(said.out)  # (the root's: another tool)
    for spec in ("HEAD:./tools.yaml", "HEAD:api/tools.yaml"):  # the folder's, said as meant: no note
        assert cli.main(["diff", spec, "tools.yaml"]) == 0
        assert capsys.readouterr().err == ""
    assert cli.main(["diff", "HEAD", "tools.yaml"]) == 2
    bare = "HEAD: a git revision, not a file: name the toolset in it, e.g. HEAD:./tools.yaml"
    assert bare in capsys.readouterr().err
    out = str(repo / "api" / "pkg")
    assert cli.main(["generate", "tools.yaml", "--out", out, "--check-breaking", "HEAD:tools.yaml"]) == 2
    assert "give the revision alone (--check-breaking HEAD)" in capsys.readouterr().err


def test_a_path_a_revision_lacks_is_told_the_toolset_meant_from_the_root_this_folder_or_by_its_name(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "my dir").mkdir()
    (repo / "api" / "examples").mkdir()  # (a folder's own toolset before one below it)
    (repo / "api" / "examples" / "tools.yaml").write_text(TOOLSET.replace("common.yaml", "../common.yaml"))
    (repo / "my dir" / "my tools.yaml").write_text(TOOLSET.replace("common.yaml", "../api/common.yaml"))
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "v2")
    for spec, folder, hint in (
        ("HEAD:tools.yaml", repo, "did you mean HEAD:api/tools.yaml?"),  # (the folder left out)
        ("HEAD:my dir/my tool.yaml", repo, "did you mean 'HEAD:my dir/my tools.yaml'?"),  # (quoted)
        ("HEAD:tool.yaml", repo / "api", "did you mean HEAD:./tools.yaml?"),  # (this folder's)
        ("HEAD:api", repo, "(a folder): did you mean HEAD:api/tools.yaml?"),
    ):
        monkeypatch.chdir(folder)
        assert cli.main(["diff", spec, str(repo / "api" / "tools.yaml")]) == 2
        said = capsys.readouterr().err
        assert said.rstrip().endswith(hint), (spec, said)


def test_a_root_relative_path_the_root_lacks_is_told_this_folders_and_a_bare_revision_the_file_compared(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "api")
    assert cli.main(["diff", "HEAD:tools.yaml", "tools.yaml"]) == 2  # the root has no tools.yaml
    said = capsys.readouterr().err
    assert "note:" not in said  # (no root file to read: an error, not a note beside it)
    assert said == (
        "mcpstub: error: HEAD:tools.yaml: tools.yaml does not exist at HEAD\n  hint: this folder's is "
        "HEAD:./tools.yaml (api/tools.yaml); a path after REV: starts at the root\n"
    )
    assert cli.main(["diff", "HEAD:api/tool.yaml", "tools.yaml"]) == 2  # misspelt: told the one meant
    assert capsys.readouterr().err == (
        "mcpstub: error: HEAD:api/tool.yaml: api/tool.yaml does not exist at HEAD\n"
        "  hint: did you mean HEAD:api/tools.yaml?\n"
    )
    Path("shop.yaml").write_text(TOOLSET, "utf-8")
    (repo / "top.yaml").write_text(TOOLSET, "utf-8")
    outside = repo.parent / "outside.yaml"  # (no file of the repository: git would refuse it)
    outside.write_text(TOOLSET, "utf-8")
    cases = [(["HEAD", "shop.yaml"], "./shop.yaml"), (["shop.yaml", "HEAD"], "./shop.yaml"),
             (["HEAD", "../api/shop.yaml"], "./shop.yaml"), (["HEAD", str(repo / "top.yaml")], "../top.yaml"),
             (["HEAD", str(outside)], "./tools.yaml"), (["HEAD", "../../outside.yaml"], "./tools.yaml"),
             (["HEAD", "HEAD:api/tools.yaml"], "api/tools.yaml"), (["HEAD", "none.yaml"], "./tools.yaml")]
    for argv, name in cases:
        assert cli.main(["diff", *argv]) == 2
        assert f"HEAD: a git revision, not a file: name the toolset in it, e.g. HEAD:{name}\n" in (
            capsys.readouterr().err
        ), argv


def test_a_revision_outside_a_repository_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLSET, "utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))  # (no repository above)
    assert cli.main(["diff", "HEAD:tools.yaml", "tools.yaml"]) == 2
    err = capsys.readouterr().err
    assert "HEAD:tools.yaml: no such file, and no git repository here to read 'HEAD' from" in err
    (tmp_path / "api").mkdir()
    for spec, said in (
        ("C:\\x\\tools.yaml", "no such file (nor a git revision"),
        ("localhost:8000/mcp", "no such file; a server's URL starts with http:// or https://"),
        ("api", f"a folder, not a toolset file (name the toolset in it: {Path('api', 'tools.yaml')})"),
    ):
        assert cli.main(["diff", spec, "tools.yaml"]) == 2
        assert f"{spec}: {said}" in capsys.readouterr().err


def test_a_revision_a_shallow_clone_lacks_is_said_with_how_to_fetch_it(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A CI checkout holds the last commit alone: HEAD~1 "is no commit of this repository" said
    # nothing of why.
    (repo / "api" / "tools.yaml").write_text(TOOLSET.replace("maximum: 50", "maximum: 40"), "utf-8")
    git(repo, "commit", "-qam", "v2")
    clone = repo.parent / "clone"
    git(repo.parent, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    monkeypatch.chdir(clone)
    hint = "hint: this clone is shallow: fetch the history first (git fetch --unshallow"
    assert cli.main(["diff", "HEAD~1:api/tools.yaml", "api/tools.yaml"]) == 2
    assert hint in capsys.readouterr().err
    out = str(clone / "api" / "shop_tools")
    assert cli.main(["generate", "api/tools.yaml", "--out", out, "--check-breaking", "HEAD~1"]) == 2
    assert hint in capsys.readouterr().err
    monkeypatch.chdir(repo)  # (a whole clone: no hint)
    assert cli.main(["diff", "HEAD~5:api/tools.yaml", "api/tools.yaml"]) == 2
    assert "shallow" not in capsys.readouterr().err


@pytest.mark.parametrize(("written", "meant"), [("HAED", "HEAD"), ("head~0", "HEAD~0"), ("relase", "release"),
                                             ("v1.0.O", "v1.0.0"), ("zzzzqq", None)])  # fmt: skip
def test_a_misspelt_revision_is_said_with_the_one_it_likely_means(
    repo: Path, capsys: pytest.CaptureFixture[str], written: str, meant: str | None
) -> None:
    git(repo, "branch", "release")
    git(repo, "tag", "v1.0.0")
    assert cli.main(["diff", f"{written}:api/tools.yaml", "api/tools.yaml"]) == 2
    err = capsys.readouterr().err
    hint = f"hint: did you mean {meant}?"
    assert (hint in err) if meant else "did you mean" not in err, err
    out = str(repo / "api" / "shop_tools")
    assert cli.main(["generate", "api/tools.yaml", "--out", out, "--check-breaking", written]) == 2
    assert f"{written!r} is no commit of this repository" in (err := capsys.readouterr().err), err
    assert (hint in err) if meant else "did you mean" not in err, err


def test_a_missing_revision_or_file_is_a_usage_error(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["diff", "HEAD:api/nope.yaml", "api/tools.yaml"]) == 2
    assert "nope.yaml" in capsys.readouterr().err
    assert cli.main(["diff", "no-such-rev:api/tools.yaml", "api/tools.yaml"]) == 2
    err = capsys.readouterr().err
    assert "no such file, and 'no-such-rev' is no commit of this repository" in err
    assert "Traceback" not in err
    assert cli.main(["diff", "nothing.yaml", "api/tools.yaml"]) == 2
    err = capsys.readouterr().err
    assert "nothing.yaml: no such file (nor a git revision REV:path or an http(s) URL)" in err
    # A revision that git would take for an option never reaches git.
    out = repo / "api" / "shop_tools"
    for rev in ("-h", "--output=x"):
        assert cli.main(["generate", "api/tools.yaml", "--out", str(out), f"--check-breaking={rev}"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"mcpstub: error: --check-breaking: {rev}:./api/tools.yaml: not a git revision")
        assert "REV cannot start with '-'" in err and len(err.splitlines()) == 1
        assert not out.exists() and not (repo / "x").exists()
    # A revision with a path in it, or none, would be diffed as a toolset not there: nothing checked.
    for rev in ("HEAD:api/tools.yaml", ""):
        assert cli.main(["generate", "api/tools.yaml", "--out", str(out), f"--check-breaking={rev}"]) == 2
        err = capsys.readouterr().err
        assert f"{rev!r} is not a git revision" in err and len(err.splitlines()) == 1
        assert not out.exists()


def test_check_breaking_refuses_to_write_until_the_major_version_moves(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = repo / "shop_tools"
    toolset = repo / "api" / "tools.yaml"
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    toolset.write_text(TOOLSET.replace("required: [name]", "required: [name, limit]"), "utf-8")
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 1
    err = capsys.readouterr().err
    assert "refusing to write" in err and "find" in err and "bump server.version to 2.0.0 or later" in err
    # Its count is of the breaking findings it shows; the others are diff's to show.
    assert "\n2 breaking\n" in err and "0 info" not in err, err
    toolset.write_text(
        TOOLSET.replace("required: [name]", "required: [name, limit]").replace("Find an item.", "Find one."),
        "utf-8",
    )
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 1
    assert "\n2 breaking; 1 warning or info finding: mcpstub diff shows it\n" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # nothing written
    assert (
        cli.main(
            ["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD", "--allow-breaking"]
        )
        == 0
    )
    assert "limit" in (out / "tools.py").read_text("utf-8").split("_INPUT_find", 1)[1].split("\n\n")[0]
    toolset.write_text(
        TOOLSET.replace("required: [name]", "required: [name, limit]").replace("1.0.0", "2.0.0"), "utf-8"
    )
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 0
    said = "with the version bump they need (server.version 1.0.0 -> 2.0.0): allowed"
    assert said in capsys.readouterr().err


def test_check_breaking_says_the_warnings_of_a_change_it_writes(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A property added to an open input object breaks no client the rules can tell, but one that
    # sent it with another value: written, and said.
    out, toolset = repo / "shop_tools", repo / "api" / "tools.yaml"
    added = TOOLSET.replace("        limit:", "        color: {type: string}\n        limit:")
    toolset.write_text(added, "utf-8")
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 0
    err = capsys.readouterr().err
    assert "[input-property-added]" in err and err.endswith(
        "1 warning against HEAD, nothing breaking\n0 errors, 1 warning\n"
    ), err  # (the run's count ends what it said: the diff's warnings, and the toolset's with them)
    assert "color" in (out / "tools.py").read_text("utf-8")
    size = "        size: {type: string, descripton: x}\n"
    toolset.write_text(added.replace("        limit:", size + "        limit:"))
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 0
    err = capsys.readouterr().err
    assert "[unknown-keyword]" in err and err.endswith("\n0 errors, 3 warnings\n"), err
    # A toolset with errors is said as a run says them, every one, not as a usage error.
    toolset.write_text(added.replace("type: string}", "type: strin}"), "utf-8")
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 1
    err = capsys.readouterr().err
    assert "'strin'" in err and err.endswith("2 errors, 0 warnings\n") and "--check-breaking" not in err, err


def test_check_breaking_in_0_x_asks_for_the_minor_bump_that_counts(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toolset = repo / "api" / "tools.yaml"
    zero = TOOLSET.replace("1.0.0", "0.3.0")
    toolset.write_text(zero, "utf-8")
    subprocess.run(["git", "commit", "-qam", "0.x"], cwd=repo, check=True)
    toolset.write_text(zero.replace("required: [name]", "required: [name, limit]"), "utf-8")
    out = repo / "shop_tools"
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 1
    said = capsys.readouterr().err
    assert "hint: bump server.version to 0.4.0 or later" in said
    assert "without a minor version bump (in 0.x): server.version stays 0.3.0 (at least 0.4.0)" in said
    assert "refusing to write: breaking changes against HEAD without a minor version bump" in said
    toolset.write_text(zero.replace("required: [name]", "required: [name, limit]").replace("0.3.0", "0.4.0"))
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 0
    said = capsys.readouterr().err
    assert "with the version bump they need (server.version 0.3.0 -> 0.4.0): allowed" in said, said
    # With the version check off, no bump allows them; a version written `v0.3.0` is 0.x too.
    (repo / "api" / "pyproject.toml").write_text("[tool.mcpstub.diff]\nversion-check = false\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repo / "api")
        assert cli.main(["generate", "tools.yaml", "--out", str(out), "--check-breaking", "HEAD"]) == 1
        said = capsys.readouterr().err
        assert "against HEAD (version-check is off, so no version bump allows them)" in said, said
        (repo / "api" / "pyproject.toml").unlink()
        prefixed = zero.replace("0.3.0", "v0.3.0")
        toolset.write_text(prefixed, "utf-8")
        subprocess.run(["git", "commit", "-qam", "v0.x"], cwd=repo, check=True)
        toolset.write_text(prefixed.replace("required: [name]", "required: [name, limit]"), "utf-8")
        assert cli.main(["generate", "tools.yaml", "--out", str(out), "--check-breaking", "HEAD"]) == 1
        said = capsys.readouterr().err
        assert "against HEAD without a minor version bump (in 0.x)\n" in said, said
        # (so is it where the new version is no semantic version)
        unversioned = prefixed.replace("v0.3.0", "0.4.0.0")
        toolset.write_text(unversioned.replace("required: [name]", "required: [name, limit]"), "utf-8")
        assert cli.main(["generate", "tools.yaml", "--out", str(out), "--check-breaking", "HEAD"]) == 1
        said = capsys.readouterr().err
        assert "need a minor version bump (in 0.x), but the new server.version '0.4.0.0'" in said
        assert "against HEAD without a minor version bump (in 0.x)\n" in said, said


def test_check_breaking_on_the_change_that_adds_the_toolset(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toolset = repo / "api" / "new.yaml"  # not in HEAD: every tool is new
    toolset.write_text(TOOLSET.replace("common.yaml", "./common.yaml"), "utf-8")
    out = repo / "new_tools"
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) == 0
    err = capsys.readouterr().err
    assert "does not exist at HEAD: every tool is new, nothing is breaking" in err
    assert "git" not in err.lower().replace("HEAD", "") and (out / "tools.py").is_file()
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "no-such-rev"]) == 2
    err = capsys.readouterr().err
    assert "'no-such-rev' is no commit of this repository" in err and "Traceback" not in err, err


def test_check_breaking_where_git_has_no_repository_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))  # (no repository above it either)
    Path("tools.yaml").write_text(ASKING, "utf-8")
    assert cli.main(["generate", "tools.yaml", "--out", "pkg", "--check-breaking", "HEAD"]) == 2
    err = capsys.readouterr().err
    said = "--check-breaking: HEAD:./tools.yaml: no git repository here to read 'HEAD' from"
    assert err == f"mcpstub: error: {said}\n"


def generated(repo: Path, text: str, package: str) -> Path:
    """Generate `text` as a package under `repo`; its folder."""
    source = repo / f"{package}.yaml"
    source.write_text(text, "utf-8")
    (repo / "common.yaml").write_text(COMMON, "utf-8")
    out = repo / package
    assert cli.main(["generate", str(source), "--out", str(out)]) == 0
    return out


def test_a_surface_snapshot_is_a_baseline(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released = generated(repo, TOOLSET, "shop_v1") / "surface.json"
    (repo / "next.yaml").write_text(TOOLSET.replace("type: array", "type: [array, 'null']"), "utf-8")
    (repo / "common.yaml").write_text(COMMON, "utf-8")
    capsys.readouterr()
    assert cli.main(["diff", str(released), "next.yaml", "--format", "json"]) == 1
    found = findings(capsys)
    kinds = [(f["tool"], f["direction"], f["severity"]) for f in found if f["rule"] != "version-not-bumped"]
    assert kinds == [("find", "output", "breaking")]
    assert cli.main(["diff", str(released), "shop_v1.yaml", "--format", "json"]) == 0
    assert findings(capsys) == []
    # As NEW, a snapshot locates findings in itself.
    (repo / "old.yaml").write_text(TOOLSET.replace("Find an item.", "Find one item."), "utf-8")
    assert cli.main(["diff", "old.yaml", str(released), "--format", "json", "--fail-on", "info"]) == 1
    located = [f for f in findings(capsys) if "location" in f]
    assert located and all(f["location"]["file"] == str(released) for f in located)
    lines = released.read_text("utf-8").splitlines()
    assert '"description": "Find an item."' in lines[located[0]["location"]["line"] - 1]


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}


def test_a_live_stdio_server_is_a_side(
    repo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    generated(repo, TOOLSET, "shop_live")
    monkeypatch.setenv("PYTHONPATH", str(repo))
    command = f"{sys.executable} -m shop_live"
    (repo / "next.yaml").write_text(TOOLSET.replace("maximum: 50", "maximum: 10"), "utf-8")
    capsys.readouterr()
    assert cli.main(["diff", "--server-command", command, "next.yaml", "--format", "json"]) == 1
    found = findings(capsys)
    assert ("find", "input", "breaking") in {(f["tool"], f["direction"], f["severity"]) for f in found}
    assert cli.main(["diff", "shop_live.yaml", "--new-server-command", command, "--format", "json"]) == 0
    assert findings(capsys) == []


@contextlib.contextmanager
def _serving(repo: Path, package: str) -> Iterator[str]:
    """The generated `package` served over HTTP from `repo`: its URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", package, "--http", f"127.0.0.1:{port}"],
        env=_env(repo),
        cwd=repo,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "server did not start"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture
def served(repo: Path) -> Iterator[str]:
    generated(repo, TOOLSET, "shop_http")
    with _serving(repo, "shop_http") as url:
        yield url


def test_a_live_http_server_is_a_side(repo: Path, served: str, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "next.yaml").write_text(TOOLSET.replace("Find an item.", "Find items."), "utf-8")
    capsys.readouterr()
    assert cli.main(["diff", served, "shop_http.yaml", "--format", "json"]) == 0
    assert findings(capsys) == []
    assert cli.main(["diff", served, "next.yaml", "--format", "json", "--fail-on", "info"]) == 1
    found = findings(capsys)
    assert [(f["tool"], f["severity"]) for f in found] == [("find", "info")]


def test_a_listing_of_any_size_is_read_over_http(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Past the SDK's 1 MiB for one SSE event, reading the server was a "connection lost".
    big = TOOLSET.replace("Find an item.", "Find an item. " + "x" * (3 << 20))
    generated(repo, big, "shop_big")
    capsys.readouterr()
    with _serving(repo, "shop_big") as url:
        assert cli.main(["diff", url, "shop_big.yaml", "--format", "json"]) == 0, capsys.readouterr().err
        assert findings(capsys) == []
        assert cli.main(["import", url, "-o", "imported.yaml"]) == 0, capsys.readouterr().err
        # On 2025-11-25 the server answers as an SSE event.
        listing = server_listing.read_live(url=url, mode="legacy")
        assert listing.protocol == "2025-11-25" and len(listing.tools[0]["description"]) > 3 << 20
    assert "x" * (3 << 20) in (repo / "imported.yaml").read_text("utf-8")


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("echo hello", "not JSON-RPC"),  # a banner on stdout: the SDK logs a traceback for it
        (f"{sys.executable} -c 'import sys; sys.exit(3)'", "Connection closed"),
        (f"{sys.executable} -c 'import sys; sys.exit(\"no token\")'", "the server said: no token"),
        ("/nonexistent/server --stdio", "No such file"),
        ("'unterminated", "No closing quotation"),
    ],
)
def test_a_server_command_that_fails_is_one_line_exit_2(
    repo: Path, capsys: pytest.CaptureFixture[str], command: str, said: str
) -> None:
    assert cli.main(["diff", "--server-command", command, "api/tools.yaml"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"mcpstub: error: server command {command!r}")
    assert said in captured.err and "Traceback" not in captured.err
    assert len(captured.err.splitlines()) == 1


@pytest.mark.parametrize("command", ["diff", "import"])
def test_a_server_that_writes_junk_then_hangs_is_stopped_at_the_timeout_and_said_why(
    repo: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    # The client reads on after a line that is not JSON-RPC (a banner), so the run waits for the
    # timeout; the message then says what the server wrote, not only that time ran out.
    hang = "import sys, time; print('starting up'); sys.stdout.flush(); time.sleep(600)"
    server = f"{sys.executable} -c {shlex.quote(hang)}"
    argv = ["diff", "--server-command", server, "api/tools.yaml"]
    if command == "import":
        argv = ["import", "--server-command", server, "-o", str(repo / "imported.yaml")]
    started = time.monotonic()
    assert cli.main([*argv, "--timeout", "1"]) == 2
    assert time.monotonic() - started < 30
    err = capsys.readouterr().err
    assert "no tool listing within 1 s (--timeout)" in err and "not JSON-RPC" in err
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize("given", ["0", "-1", "nan", "inf", "soon"])
def test_a_timeout_that_is_not_a_positive_number_is_a_usage_error(
    repo: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    assert cli.main(["import", "--server-command", "true", "--timeout", given]) == 2
    err = capsys.readouterr().err
    assert f"{given!r} is not a positive number of seconds" in err and "Traceback" not in err


def test_the_timeout_default_the_help_shows_is_the_one_used(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["import", "--help"])
    assert f"(default: {server_listing.TIMEOUT_SECONDS:g})" in " ".join(capsys.readouterr().out.split())


def test_a_server_writing_junk_to_stdout_gives_no_traceback(repo: Path) -> None:
    # Outside pytest's log capture: the SDK's log record with its traceback must not reach stderr.
    done = subprocess.run(
        [sys.executable, "-m", "mcpstub", "diff", "--server-command", "echo hello", "api/tools.yaml"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "not JSON-RPC" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def _answer(description: str, maximum: int) -> dict[str, Any]:
    limit = {"type": "integer", "maximum": maximum}
    tool = {
        "name": "find",
        "description": description,
        "inputSchema": {"type": "object", "properties": {"limit": limit}},
    }
    return {"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}}


def test_a_saved_answer_with_escaped_astral_characters_is_read_and_located(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # json.dumps escapes 🚀 as the surrogate pair \ud83d\ude80 (as many clients save answers); a
    # backslash written before "ud83d" is text, not an escape.
    description = "Find 🚀 items 🚀 (not an escape: \\ud83d\\ude80)"
    saved = repo / "answer.json"
    text = json.dumps(_answer(description, 10))
    assert "\\ud83d\\ude80" in text and "\n" not in text
    saved.write_text(text, "utf-8")
    old = {"mcpstub": 1, "server": {"name": "s"}, **_answer(description, 20)["result"]}
    (repo / "old.yaml").write_text(json.dumps(old, ensure_ascii=False), "utf-8")
    capsys.readouterr()
    assert cli.main(["diff", "old.yaml", str(saved), "--format", "json", "--no-version-check"]) == 1
    found = findings(capsys)
    assert [(f["rule"], f["path"]) for f in found if f["severity"] == "breaking"] == [
        ("input-constraint-tightened", "/inputSchema/properties/limit/maximum")
    ]
    assert not any(f["rule"] == "description-changed" for f in found)
    location = next(f["location"] for f in found if f["rule"] == "input-constraint-tightened")
    assert location["line"] == 1 and text[location["col"] - 1 :].startswith('"maximum": 10')


def test_control_characters_from_a_source_never_reach_the_report(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "\x1b[31mred\u202e\x00"

    def answer(extra: dict[str, Any]) -> str:
        prop = {"type": "string", **extra}
        tool = {
            "name": hostile,
            "description": "d\x07",
            "inputSchema": {"type": "object", "properties": {"k\x02": prop}},
        }
        return json.dumps({"tools": [tool]})

    (repo / "old.json").write_text(answer({}), "utf-8")
    (repo / "new.json").write_text(answer({"maxLength": 3}), "utf-8")
    capsys.readouterr()
    for fmt in ("text", "github", "junit"):
        assert cli.main(["diff", "old.json", "new.json", "--format", fmt]) == 1
        out = capsys.readouterr().out
        assert all(ch.isprintable() or ch == "\n" for ch in out), fmt
        assert "\\x1b[31mred\\u202e\\x00" in out and "/properties/k\\x02/maxLength" in out, fmt
        if fmt == "junit":
            suite = ET.fromstring(out.split("\n", 1)[1]).find("testsuite")
            assert suite is not None and suite.get("failures") == "1"  # (no version to judge in a listing)
    assert cli.main(["diff", "old.json", "new.json", "--format", "json"]) == 1
    assert {f["tool"] for f in findings(capsys)} == {hostile}  # JSON keeps the value itself


def test_a_cut_snapshot_is_a_usage_error_naming_where(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released = generated(repo, TOOLSET, "shop_cut") / "surface.json"
    text = released.read_text("utf-8")
    cut = repo / "cut.json"
    cut.write_text(text[: len(text) // 2], "utf-8")
    capsys.readouterr()
    assert cli.main(["diff", "cut.json", "shop_cut.yaml"]) == 2
    err = capsys.readouterr().err
    # Located where `mcpstub validate` locates it (the file is read the same way).
    where = check_toolset(cut, "cut.json").diagnostics[0].location
    assert where.line >= text[: len(text) // 2].count("\n") + 1
    assert err.startswith(f"mcpstub: error: cut.json:{where.line}:{where.col}: not JSON")
    assert "toolset" in err and len(err.splitlines()) == 1


def test_a_loopback_url_is_read_directly_whatever_the_proxy_settings(
    repo: Path, served: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A proxy from the environment would carry the request off the loopback the URL names.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{probe.getsockname()[1]}"  # nothing listens there
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, nowhere)
    capsys.readouterr()
    assert cli.main(["diff", served, "shop_http.yaml", "--format", "json"]) == 0
    assert findings(capsys) == []


def test_a_password_in_a_url_is_never_shown(
    repo: Path, served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with_secret = served.replace("http://", "http://reader:s3cret@")
    capsys.readouterr()
    assert cli.main(["import", with_secret, "-o", str(repo / "imported.yaml")]) == 0
    assert cli.main(["diff", with_secret.replace("/mcp", "/nowhere"), "shop_http.yaml"]) == 2
    shown = capsys.readouterr()
    assert "s3cret" not in shown.out + shown.err and "reader" not in shown.out + shown.err
    assert served in shown.out and "s3cret" not in (repo / "imported.yaml").read_text("utf-8")


BOM = b"\xef\xbb\xbf"


def test_a_byte_order_mark_is_read_alike_by_diff_validate_generate_and_import(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Editors on Windows save UTF-8 with a byte order mark: every command reads such a file, YAML
    # or JSON, toolset, snapshot, saved answer or a file in a git revision, as it reads one without.
    (repo / "common.yaml").write_bytes(BOM + COMMON.encode())
    yaml_text = TOOLSET
    as_json = json.dumps(check_toolset(repo / "api" / "tools.yaml").document.data, indent=2)  # type: ignore[union-attr]
    tighter = TOOLSET.replace("maximum: 50", "maximum: 40")
    (repo / "new.yaml").write_bytes(BOM + tighter.encode())
    for name, text in (("bom.yaml", yaml_text), ("bom.json", as_json)):
        target = repo / name
        target.write_bytes(BOM + text.encode())
        capsys.readouterr()
        assert cli.main(["validate", str(target)]) == 0, capsys.readouterr().err
        capsys.readouterr()
        assert cli.main(["diff", str(target), "new.yaml", "--format", "json", "--no-version-check"]) == 1, (
            capsys.readouterr().err
        )
        assert [f["rule"] for f in findings(capsys) if f["severity"] == "breaking"] == [
            "input-constraint-tightened"
        ]
        assert cli.main(["generate", str(target), "--out", str(repo / f"out_{target.suffix[1:]}")]) == 0
        capsys.readouterr()
        snapshot = repo / f"out_{target.suffix[1:]}" / "surface.json"
        snapshot.write_bytes(BOM + snapshot.read_bytes())
        assert cli.main(["diff", str(snapshot), "new.yaml", "--format", "json", "--no-version-check"]) == 1
        assert [f["rule"] for f in findings(capsys) if f["severity"] == "breaking"] == [
            "input-constraint-tightened"
        ]
    answer = repo / "answer.json"
    answer.write_bytes(BOM + json.dumps(_answer("Find 🚀", 10)).encode())
    assert cli.main(["import", str(answer), "-o", str(repo / "imported.yaml")]) == 0, capsys.readouterr().err
    assert "Find 🚀" in (repo / "imported.yaml").read_text("utf-8")
    # In a git revision too: the snapshot and the JSON toolset, as committed.
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "bom")
    for spec in ("HEAD:out_json/surface.json", "HEAD:bom.json"):
        capsys.readouterr()
        assert cli.main(["diff", spec, "new.yaml", "--format", "json", "--no-version-check"]) == 1, (
            capsys.readouterr().err
        )
        assert [f["rule"] for f in findings(capsys) if f["severity"] == "breaking"] == [
            "input-constraint-tightened"
        ]


GUARDED_APP = """\
from mcpstub_runtime.http import StaticTokenVerifier
from shop_guarded import create_app

app = create_app(token_verifier=StaticTokenVerifier("s3cret-token"))
"""


@pytest.fixture
def guarded(repo: Path) -> Iterator[str]:
    """The generated server over HTTP on 127.0.0.1, requiring the bearer token `s3cret-token`."""
    generated(repo, TOOLSET, "shop_guarded")
    (repo / "guarded_app.py").write_text(GUARDED_APP, "utf-8")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "guarded_app:app", "--host", "127.0.0.1", "--port", str(port)],
        env=_env(repo), cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "server did not start"
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_diff_and_import_read_a_server_behind_a_bearer_token(
    repo: Path, guarded: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    capsys.readouterr()
    # Without credentials: said plainly, with how to give them.
    assert cli.main(["diff", guarded, "shop_guarded.yaml"]) == 2
    err = capsys.readouterr().err
    assert "requires authentication (HTTP 401 Unauthorized)" in err and "--token-env" in err
    assert cli.main(["import", guarded, "-o", "imported.yaml"]) == 2
    assert "HTTP 401" in capsys.readouterr().err and not (repo / "imported.yaml").exists()
    # A wrong token: refused, and the token is never echoed.
    monkeypatch.setenv("SHOP_TOKEN", "wrong-token")
    assert cli.main(["diff", guarded, "shop_guarded.yaml", "--token-env", "SHOP_TOKEN"]) == 2
    captured = capsys.readouterr()
    assert "refused the credentials given (HTTP 401 Unauthorized)" in captured.err
    assert "wrong-token" not in captured.err + captured.out
    # The right token, from the environment or as a header.
    monkeypatch.setenv("SHOP_TOKEN", "s3cret-token")
    assert cli.main(["diff", guarded, "shop_guarded.yaml", "--token-env", "SHOP_TOKEN"]) == 0
    assert "s3cret-token" not in capsys.readouterr().out
    header = "Authorization: Bearer s3cret-token"
    assert cli.main(["import", guarded, "-o", "imported.yaml", "--header", header]) == 0
    assert "name: find" in (repo / "imported.yaml").read_text("utf-8")
    captured = capsys.readouterr()
    assert "s3cret-token" not in captured.err + captured.out
    monkeypatch.delenv("SHOP_TOKEN")
    assert cli.main(["diff", guarded, "shop_guarded.yaml", "--token-env", "SHOP_TOKEN"]) == 2
    assert "SHOP_TOKEN: that environment variable is not set" in capsys.readouterr().err


ROOT = Path(__file__).resolve().parents[2]
# The edits docs/evolution.md describes, one per `mcpstub diff` block.
EVOLUTION_EDITS = [
    [("    minLength: 1", "    minLength: 2"), ("version: 1.2.0", "version: 1.3.0")],
    [
        ("maximum: 14, default: 3", "maximum: 16, default: 3"),
        ("enum: [metric, imperial]", "enum: [metric, imperial, kelvin]"),
        ("severe], default: minor}\n", "severe], default: minor}\n        language: {type: string}\n"),
    ],
]


def _readme_diff_blocks() -> list[list[str]]:
    """The output each `mcpstub diff HEAD:tools.yaml tools.yaml` of docs/evolution.md shows."""
    section = (ROOT / "docs" / "evolution.md").read_text("utf-8")
    blocks = []
    for block in section.split("```sh\n")[1:]:
        lines = block.split("```", 1)[0].splitlines()
        if "mcpstub diff HEAD:tools.yaml tools.yaml" in lines:
            after = lines[lines.index("mcpstub diff HEAD:tools.yaml tools.yaml") + 1 :]
            shown = []
            for line in after:
                if not line.startswith("# "):
                    break
                shown.append(line[2:])
            blocks.append(shown)
    return blocks


def test_the_evolution_page_commands_print_what_it_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = _readme_diff_blocks()
    assert len(blocks) == len(EVOLUTION_EDITS)
    original = (ROOT / "examples" / "weather" / "tools.yaml").read_text("utf-8")
    (tmp_path / "tools.yaml").write_text(original, "utf-8")
    config = '[tool.mcpstub]\ntoolset = "tools.yaml"\nout = "weather_tools"\n'
    (tmp_path / "pyproject.toml").write_text(config, "utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "v1")
    monkeypatch.chdir(tmp_path)
    for edits, shown in zip(EVOLUTION_EDITS, blocks, strict=True):
        text = original
        for old, new in edits:
            assert old in text
            text = text.replace(old, new)
        (tmp_path / "tools.yaml").write_text(text, "utf-8")
        capsys.readouterr()
        cli.main(["diff", "HEAD:tools.yaml", "tools.yaml"])
        assert capsys.readouterr().out.splitlines() == shown
    # The first block goes on: with the major version bumped, the check lets generation write.
    text = original.replace("    minLength: 1", "    minLength: 2").replace("1.2.0", "2.0.0")
    (tmp_path / "tools.yaml").write_text(text, "utf-8")
    assert cli.main(["generate", "--check-breaking", "HEAD"]) == 0
    assert (tmp_path / "weather_tools" / "tools.py").is_file()


ASKING = """\
mcpstub: 1
server: {name: asking, version: 1.0.0}
tools:
  - name: delete_note
    inputSchema: {type: object, properties: {id: {type: string}}}
    elicitations:
      confirm: {type: object, properties: {ok: {type: boolean}}, required: [ok]}
"""


def test_a_listing_that_cannot_show_what_tools_ask_is_no_change_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A server's tools/list has no place for a tool's forms: diffing the running server (or its
    # saved answer) with the toolset it was built from is no difference, either way round; the
    # package's surface.json records them, and is compared on them.
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(tmp_path / "cache"))
    Path("tools.yaml").write_text(ASKING, "utf-8")
    assert cli.main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    surface = json.loads(Path("pkg/surface.json").read_text("utf-8"))
    Path("listing.json").write_text(json.dumps({"tools": surface["protocols"]["2026-07-28"]["tools"]}))
    capsys.readouterr()
    for old, new in (("listing.json", "tools.yaml"), ("tools.yaml", "listing.json")):
        assert cli.main(["diff", old, new, "--fail-on", "warning"]) == 0
        said = capsys.readouterr().out
        assert said == "no differences\n", said  # (a listing shows no forms, nor a server.version)
    Path("tools.yaml").write_text(ASKING.replace("required: [ok]", "required: []"), "utf-8")
    assert cli.main(["diff", "pkg/surface.json", "tools.yaml"]) == 0
    assert "elicitation-changed" in capsys.readouterr().out


def test_a_released_revision_a_later_check_refuses_is_still_read_as_it_was(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A tag cannot be mended: what only makes its toolset say less than it means (a misspelt
    # keyword or hint, a tool key indented into a schema) is a warning on the OLD side, and the
    # change that mends it is compared.
    toolset = repo / "api" / "tools.yaml"
    described = "    description: Find an item.\n"
    slips = (("      required: [name]\n", "      required: [name]\n      timeout: 30\n"),
             ("        limit: {type: integer, maximum: 50}", "        limit: {type: integer, maximumm: 50}"),
             (described, described + "    annotations: {readonlyHint: true}\n"))  # fmt: skip
    released = TOOLSET
    for old, new in slips:
        released = released.replace(old, new)
    assert released.count("\n") == TOOLSET.count("\n") + 2 and "maximumm" in released
    toolset.write_text(released, "utf-8")
    git(repo, "commit", "-qam", "v2")
    (repo / "v2.yaml").write_text(released.replace("common.yaml", "api/common.yaml"), "utf-8")
    assert cli.main(["validate", str(toolset)]) == 1  # (refused as the current toolset)
    mended = TOOLSET.replace(described, described + "    timeout: 30\n")
    toolset.write_text(mended, "utf-8")
    capsys.readouterr()
    for old in ("HEAD:api/tools.yaml", "v2.yaml"):
        assert cli.main(["diff", old, str(toolset), "--format", "json"]) in (0, 1)
        said = capsys.readouterr()
        assert "limit" in said.out and "not a valid toolset" not in said.err, said
    out = repo / "api" / "pkg"
    assert cli.main(["generate", str(toolset), "--out", str(out), "--check-breaking", "HEAD"]) in (0, 1)
    assert "not a valid toolset" not in capsys.readouterr().err
    # NEW is held to every check, a revision or the very file OLD is.
    for old, new in (("v2.yaml", "v2.yaml"), ("HEAD~1:api/tools.yaml", "HEAD:api/tools.yaml")):
        assert cli.main(["diff", old, new]) == 2
        said = capsys.readouterr().err
        assert "[misspelled-keyword]" in said and "surface.json" not in said, said
        mended = "HEAD:api/tools.yaml is not a valid toolset; a revision is mended by a commit"
        assert old == "v2.yaml" or mended in said, said


def test_check_breaking_says_in_how_many_lines_findings_of_several_tools_are(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toolset = repo / "api" / "tools.yaml"
    second = "  - name: get\n    inputSchema:\n      type: object\n      properties:\n"
    second += '        name: {$ref: "common.yaml#/$defs/Name"}\n'
    toolset.write_text(TOOLSET + second, "utf-8")
    git(repo, "commit", "-qam", "two tools")
    (repo / "api" / "common.yaml").write_text(COMMON.replace("minLength: 1", "minLength: 2"), "utf-8")
    out = repo / "api" / "pkg"
    allowed = ["--check-breaking", "HEAD", "--allow-breaking"]
    code = cli.main(["generate", str(toolset), "--out", str(out), *allowed])
    said = capsys.readouterr().err
    assert code == 0 and "\n3 breaking (findings of each tool, in 2 lines)\n" in said, said


def test_an_error_in_a_file_a_revision_refers_to_is_named_in_that_revision(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The revision's common.yaml, not the working tree's (which may hold no such line): and a past
    # revision is not told to be fixed.
    (repo / "tools.yaml").write_text(TOOLSET, "utf-8")
    (repo / "common.yaml").write_text(COMMON.replace("type: string", "type: strnig"), "utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "root toolset")
    (repo / "common.yaml").write_text(COMMON, "utf-8")
    assert cli.main(["diff", "HEAD:tools.yaml", "tools.yaml"]) == 2
    said = capsys.readouterr().err
    assert said.startswith("HEAD:common.yaml:2:16: error:") and "fix it first" not in said, said
    assert "HEAD:tools.yaml is not a valid toolset as this mcpstub reads it" in said
    git(repo, "branch", "rel/one")  # (a revision named with a slash)
    assert cli.main(["diff", "rel/one:tools.yaml", "tools.yaml"]) == 2
    assert capsys.readouterr().err.startswith("rel/one:common.yaml:2:16: error:")


def test_check_breaking_with_the_version_check_ignored_says_so_not_that_it_was_bumped(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "api" / "pyproject.toml").write_text(
        '[tool.mcpstub.diff]\nignore = [{tool = "*", rule = "version-not-bumped", reason = "pre-release"}]\n'
    )
    toolset = repo / "api" / "tools.yaml"
    toolset.write_text(TOOLSET.replace("maximum: 50", "maximum: 5"), "utf-8")
    out = repo / "api" / "pkg"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(repo / "api")
        assert cli.main(["generate", "tools.yaml", "--out", str(out), "--check-breaking", "HEAD"]) == 0
    said = capsys.readouterr().err
    assert "1 breaking; 1 more ignored ([tool.mcpstub.diff] ignore)" in said, said
    assert "allowed (version-not-bumped is ignored)" in said and "with a major version bump" not in said


def test_check_breaking_writes_nothing_into_the_package_and_says_what_it_ignored(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The search's files go where the cache goes, refused inside the package before it writes.
    api = repo / "api"
    (api / "pyproject.toml").write_text('[tool.mcpstub]\ncache_dir = "pkg/cache"\n')
    (api / "tools.yaml").write_text(TOOLSET.replace("maximum: 50", "maximum: 5"), "utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(api)
        patch.delenv("MCPSTUB_CACHE_DIR", raising=False)  # (the project's cache_dir, then)
        assert cli.main(["generate", "tools.yaml", "--out", "pkg", "--check-breaking", "HEAD"]) == 2
        assert "is inside the output folder" in capsys.readouterr().err and not (api / "pkg").exists()
        patch.setenv("MCPSTUB_CACHE_DIR", str(repo.parent / "cache"))
        ignoring = '{tool = "*", rule = "input-constraint-tightened", reason = "a"}'
        (api / "pyproject.toml").write_text(f"[tool.mcpstub.diff]\nignore = [{ignoring}]\n")
        assert cli.main(["generate", "tools.yaml", "--out", "pkg", "--check-breaking", "HEAD"]) == 0
    said = capsys.readouterr().err
    assert "nothing breaking against HEAD; 1 more ignored ([tool.mcpstub.diff] ignore)" in said, said


def test_check_breaking_with_no_cache_keeps_the_search_s_files_for_the_run_only(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # --no-cache neither reads nor writes the cache: hypothesis's tables go to a folder gone after.
    import hypothesis.configuration  # noqa: PLC0415

    homes: list[Path] = []
    monkeypatch.setattr(hypothesis.configuration, "set_hypothesis_home_dir", homes.append)
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("MCPSTUB_CACHE_DIR", str(repo.parent / "cache"))
    api = repo / "api"
    (api / "tools.yaml").write_text(TOOLSET.replace("maximum: 50", "maximum: 5"), "utf-8")
    monkeypatch.chdir(api)
    args = ["generate", "tools.yaml", "--out", "pkg", "--check-breaking", "HEAD", "--allow-breaking"]
    assert cli.main([*args, "--no-cache"]) == 0
    assert cli.main(args) == 0
    (run_only, cached) = homes
    assert not run_only.exists() and repo.parent / "cache" not in run_only.parents, run_only
    assert cached == repo.parent / "cache" / "hypothesis"
    # The count has the project's warnings with the check's (a pyproject.toml leading nowhere; the
    # breaking changes allowed are none).
    counts = [capsys.readouterr().err.splitlines()[-1]]
    (api / "pyproject.toml").symlink_to("nowhere.toml")
    assert cli.main(args) == 0
    said = capsys.readouterr().err.splitlines()
    assert "pyproject.toml: a symbolic link to nowhere.toml" in said[0], said
    counts.append(said[-1])
    allowed = "breaking changes against HEAD: allowed (--allow-breaking)"
    assert counts == [allowed, "0 errors, 1 warning"], counts

