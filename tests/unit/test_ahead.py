"""Files staged while the models are generated (`engine.ahead`): the package a run writes is the
one it would write without, and a run that stops, or whose staged files go, leaves nothing behind."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from mcpstub import write
from mcpstub.cli import main
from mcpstub.engine import model_groups
from mcpstub.layout import STAGED_NAME

TOOLSET = """\
mcpstub: 1
server: {name: ahead}
tools:
  - name: first
    inputSchema: {type: object, properties: {n: {type: integer, minimum: 1}}}
    outputSchema: {type: object, properties: {total: {type: integer}}}
  - name: second
    inputSchema: {type: object, properties: {s: {type: string}}}
"""


def files(root: Path) -> dict[str, bytes]:
    """Every file under `root`, staged and hidden ones included, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def staged(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if re.fullmatch(STAGED_NAME, p.name)]


def generate(folder: Path, out: str, *more: str) -> int:
    return main(["generate", str(folder / "tools.yaml"), "--out", str(folder / out), "--no-cache", *more])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.yaml").write_text(TOOLSET)
    return tmp_path


def _fail_once_staged(monkeypatch: pytest.MonkeyPatch, out: Path, wanted: int) -> None:
    """The models fail (Ctrl-C, say) once `wanted` files are staged beside the package."""

    def interrupted(self: model_groups.PendingModels) -> object:
        deadline = time.monotonic() + 20
        while len(staged(out)) < wanted and time.monotonic() < deadline:
            time.sleep(0.005)
        assert len(staged(out)) >= wanted  # the files were staged before the run stopped
        raise KeyboardInterrupt

    monkeypatch.setattr(model_groups.PendingModels, "result", interrupted)


def test_a_run_stopped_after_staging_a_new_package_leaves_no_folder_and_no_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Eight files besides the models and the stamp, and two handler stubs, in two folders.
    _fail_once_staged(monkeypatch, project / "out" / "pkg", 10)
    assert generate(project, "out/pkg") == 130  # as Ctrl-C ends it
    assert sorted(p.name for p in project.iterdir()) == ["tools.yaml"]  # not even `out`


def test_a_run_stopped_after_staging_leaves_the_package_it_found_as_it_was(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(project, "pkg") == 0
    before = files(project / "pkg")
    (project / "tools.yaml").write_text(TOOLSET.replace("minimum: 1", "minimum: 2"))
    # What changes: models.py (not staged ahead), tools.py, surface.json, client.py...
    _fail_once_staged(monkeypatch, project / "pkg", 2)
    assert generate(project, "pkg") == 130
    assert files(project / "pkg") == before


def test_staged_files_a_run_holding_the_lock_removed_are_written_again(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Staging comes before the folder's lock: a run that held it meanwhile removed every staged
    # file as left over, or put another file by that name.
    assert generate(project, "cold") == 0
    real_plan = write.plan

    def plan_after_another_run(out: Path, *args: object, **kwargs: object) -> write.Plan:
        for i, tmp in enumerate(sorted(staged(out))):
            tmp.unlink()
            if i % 2:
                tmp.write_text("another run's file")
        return real_plan(out, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(write, "plan", plan_after_another_run)
    assert generate(project, "pkg") == 0
    capsys.readouterr()
    assert files(project / "pkg") == files(project / "cold")  # nothing staged beside it either


def test_a_run_with_nothing_to_change_stages_and_leaves_nothing(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(project, "pkg") == 0
    before = {p: p.stat().st_ino for p in (project / "pkg").rglob("*")}
    assert generate(project, "pkg", "--force") == 0
    assert "0 generated files written" in capsys.readouterr().out
    assert {p: p.stat().st_ino for p in (project / "pkg").rglob("*")} == before


def test_a_handler_saved_after_its_stub_was_staged_is_kept(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_plan = write.plan

    def saved_then_planned(out: Path, *args: object, **kwargs: object) -> write.Plan:
        assert any(p.name.startswith(".first.py.") for p in staged(out))  # its stub is staged
        (out / "handlers" / "first.py").write_text("mine = 1\n")
        return real_plan(out, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(write, "plan", saved_then_planned)
    assert generate(project, "pkg") == 0
    assert "1 handler stub created" in capsys.readouterr().out
    assert (project / "pkg" / "handlers" / "first.py").read_text() == "mine = 1\n"
    assert staged(project / "pkg") == []
