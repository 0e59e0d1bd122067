"""Files staged while the models are generated (`engine.ahead`): the package a run writes is the
one it would write without, and a run that stops, or whose staged files go, leaves nothing behind."""

from __future__ import annotations

import errno
import os
import re
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from mcpstub import write
from mcpstub.cli import main
from mcpstub.engine import model_groups
from mcpstub.engine.run import generating
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


def test_sigterm_after_staging_leaves_no_folder_and_no_file(project: Path) -> None:
    # A service manager or `timeout` ends the run while the models are generated.
    script = f"""
import os, re, signal, sys, time
from pathlib import Path
from mcpstub.cli import main
from mcpstub.engine import model_groups
from mcpstub.layout import STAGED_NAME
out = Path({str(project / "out" / "pkg")!r})
def stopped(self):
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and sum(
        bool(re.fullmatch(STAGED_NAME, p.name)) for p in out.parent.rglob("*")
    ) < 10:
        time.sleep(0.005)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(5)
model_groups.PendingModels.result = stopped
sys.exit(main(["generate", {str(project / "tools.yaml")!r}, "--out", str(out), "--no-cache"]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in project.iterdir()) == ["tools.yaml"]


def test_a_second_ctrl_c_as_the_run_ends_still_removes_what_it_staged(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))

    class Feed:
        def close(self) -> None:
            signal.raise_signal(signal.SIGINT)  # Ctrl-C again while the workers are let go

    staging = write.Staging(tmp_path / "new" / "pkg")
    staging.stage("a.py", "A = 1\n", b"A = 1\n")
    staging.stage("handlers/b.py", "B = 1\n", b"B = 1\n")
    with pytest.raises(KeyboardInterrupt), generating(None, None, Feed(), staging):  # type: ignore[arg-type]
        raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_two_runs_stopped_on_a_new_folder_leave_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    first, second = write.Staging(out), write.Staging(out)  # both began before either staged
    first.stage("a.py", "A\n", b"A\n")
    second.stage("a.py", "A\n", b"A\n")
    first.discard()  # the folder still holds the other run's file
    second.discard()
    assert list(tmp_path.iterdir()) == []


def test_a_mode_set_after_its_file_was_staged_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    header = "# Generated by mcpstub from tools.yaml. DO NOT EDIT: it is rewritten on every run.\n"
    write.apply(write.plan(out, {"a.py": header + "A = 1\n"}, {}, set()))
    new = header + "A = 2\n"
    staging = write.Staging(out)
    staging.stage("a.py", new, new.encode())
    (out / "a.py").chmod(0o600)  # by the user, while the run generates its models
    steps = write.plan(out, {"a.py": new}, {}, set(), staging=staging)
    write.apply(steps, staging=staging)
    staging.discard()
    assert (out / "a.py").read_text() == new and stat.S_IMODE((out / "a.py").stat().st_mode) == 0o600
    assert staged(out) == []


def test_check_during_another_runs_staging_sees_the_package_as_it_is(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(project, "pkg") == 0
    other = write.Staging(project / "pkg")  # a run of this (live) process, before its lock
    other.stage("tools.py", "x", b"x")
    other.stage("handlers/first.py", "x", b"x")
    capsys.readouterr()
    assert generate(project, "pkg", "--check") == 0, capsys.readouterr().err
    assert generate(project, "pkg", "--diff") == 0
    other.discard()


def test_stubs_a_killed_run_staged_are_removed_by_a_client_only_run(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(project, "pkg") == 0
    gone = project / "pkg" / "handlers" / f".first.py.{0x3FFFFFF0:x}-0123abcd.mcpstub-tmp"  # no such process
    gone.write_text("staged by a run that was killed")
    assert generate(project, "pkg", "--client-only") == 0
    assert not gone.exists()


def test_a_full_disk_is_one_line_naming_the_package_and_nothing_changes(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert generate(project, "pkg") == 0
    before = files(project / "pkg")
    (project / "tools.yaml").write_text(TOOLSET.replace("minimum: 1", "minimum: 2"))

    def full(target: Path, data: bytes) -> Path:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(write, "_stage", full)
    capsys.readouterr()
    assert generate(project, "pkg") == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == f"mcpstub: error: {project / 'pkg'}: {os.strerror(errno.ENOSPC)}"
    assert files(project / "pkg") == before


def test_a_file_being_staged_as_the_run_is_stopped_is_not_left_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The process ends at once after the run (`cli.leave`): what the staging thread is writing then
    # must be finished and removed before, not cut short by the exit.
    real, writing = write._stage, threading.Event()

    def slow(target: Path, data: bytes) -> Path:
        tmp = real(target, data)  # on disk, and still being written
        writing.set()
        time.sleep(0.3)
        return tmp

    monkeypatch.setattr(write, "_stage", slow)
    staging = write.Staging(tmp_path / "pkg")
    thread = threading.Thread(target=staging.stage, args=("surface.json", "{}", b"{}"), daemon=True)
    thread.start()
    writing.wait(5)
    staging.discard()
    assert list(tmp_path.iterdir()) == []


def test_a_disk_full_before_the_marker_is_written_leaves_the_package_importable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    header = "# Generated by mcpstub from tools.yaml. DO NOT EDIT: it is rewritten on every run.\n"
    out = tmp_path / "pkg"
    write.apply(write.plan(out, {"a.py": header + "A = 1\n"}, {}, set()))
    before = files(out)
    real = Path.write_text

    def full(self: Path, *args: object, **kwargs: object) -> int:
        if self.name == ".mcpstub-writing":
            real(self, "")  # the file is made, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError, match=os.strerror(errno.ENOSPC)):
        write.apply(write.plan(out, {"a.py": header + "A = 2\n"}, {}, set()))
    monkeypatch.undo()
    assert files(out) == before  # no marker: the package still imports
