"""`mcpstub generate --watch`: every save of the toolset or a file it references regenerates; an
invalid save prints its diagnostics and writes nothing; Ctrl-C exits 0 without a traceback."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

TOOLSET = """\
mcpstub: 1
server: {{name: watched}}
tools:
  - name: locate
    inputSchema:
      type: object
      properties:
        {field}: {{type: string}}
        where: {{$ref: "common.yaml#/$defs/Place"}}
"""
COMMON = """\
$defs:
  Place:
    type: object
    properties:
      {field}: {{type: number}}
"""


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def save(path: Path, text: str) -> None:
    """Save as editors do: write a temporary file, rename it over the old one."""
    temp = path.with_suffix(".tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)

@contextmanager
def watching(folder: Path, *args: str, stop: int = signal.SIGINT) -> Iterator[list[str]]:
    """`mcpstub generate ARGS --watch` in `folder` for the block, its standard error lines as they
    come; stopped with Ctrl-C (or `stop`) after it, which must end it with exit code 0, no
    traceback, and no child left holding its standard error."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcpstub", "generate", *args, "--watch"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "MCPSTUB_CACHE_DIR": str(folder / "cache")},
    )
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True)
    reader.start()
    try:
        yield err
    finally:
        proc.send_signal(stop)
        code = proc.wait(timeout=60)
    reader.join(timeout=10)  # the end of stderr: every process holding it is gone, its model worker too
    assert not reader.is_alive(), "a child of the watcher outlived it"
    assert code == 0, "".join(err)
    assert not any("Traceback" in line for line in err), "".join(err)



def test_watch_regenerates_on_each_save_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    toolset, common = tmp_path / "tools.yaml", tmp_path / "common.yaml"
    save(toolset, TOOLSET.format(field="first"))
    save(common, COMMON.format(field="lat"))
    models = tmp_path / "pkg" / "models.py"

    def text() -> str:
        return models.read_text("utf-8") if models.exists() else ""

    with watching(tmp_path, "tools.yaml", "--out", "pkg") as err:
        wait_for(lambda: any("watching 2 files" in line for line in err), "the first generation")
        assert "first:" in text() and "lat:" in text()
        save(toolset, TOOLSET.format(field="second"))
        wait_for(lambda: "second:" in text(), "the toolset edit")
        # Each run after a save says, with the time, what changed.
        said = [line for line in err if re.fullmatch(r"\[\d\d:\d\d:\d\d\] .* changed\n", line)]
        assert said and said[-1].endswith("] tools.yaml changed\n"), err
        save(common, COMMON.format(field="lon"))
        wait_for(lambda: "lon:" in text(), "the referenced file's edit")
        assert any(line.endswith("] common.yaml changed\n") for line in err), err
        before = text()
        errors = len(err)
        save(toolset, TOOLSET.format(field="third").replace("type: string", "type: strnig"))
        wait_for(lambda: any("error" in line for line in err[errors:]), "the diagnostics of an invalid save")
        time.sleep(0.5)
        assert text() == before, "an invalid save wrote files"
        save(toolset, TOOLSET.format(field="fourth"))
        wait_for(lambda: "fourth:" in text(), "recovery after the invalid save")


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_a_session_ended_otherwise_than_by_ctrl_c_keeps_what_it_made_for_the_next_run(
    tmp_path: Path, stop: str
) -> None:
    # The session writes its render memo as it ends; a terminal closed (SIGHUP) between two saves
    # ended it before it could, and the next run rendered every tool again.
    toolset, common = tmp_path / "tools.yaml", tmp_path / "common.yaml"
    save(toolset, TOOLSET.format(field="first"))
    save(common, COMMON.format(field="lat"))
    models = tmp_path / "pkg" / "models.py"
    with watching(tmp_path, "tools.yaml", "--out", "pkg", stop=getattr(signal, stop)) as err:
        wait_for(lambda: any("watching 2 files" in line for line in err), "the first generation")
        save(toolset, TOOLSET.format(field="second"))
        wait_for(lambda: "second:" in models.read_text("utf-8"), "the toolset edit")
    assert list((tmp_path / "cache" / "render-v2").glob("*.bin")), "the session's memo was not written"


def test_a_cache_folder_gone_when_the_session_ends_is_not_made_again(tmp_path: Path) -> None:
    # (a project moved or deleted while the session ran came back holding the cache file alone)
    save(tmp_path / "tools.yaml", TOOLSET.format(field="first"))
    save(tmp_path / "common.yaml", COMMON.format(field="lat"))
    models = tmp_path / "pkg" / "models.py"
    with watching(tmp_path, "tools.yaml", "--out", "pkg") as err:
        wait_for(lambda: any("watching 2 files" in line for line in err), "the first generation")
        save(tmp_path / "tools.yaml", TOOLSET.format(field="second"))
        wait_for(lambda: "second:" in models.read_text("utf-8"), "the toolset edit")
        time.sleep(0.3)  # (the run's other writes)
        shutil.rmtree(tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_watch_refuses_check_and_diff(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text("mcpstub: 1\nserver: {name: s}\ntools: []\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "mcpstub", "generate", "tools.yaml", "--out", "pkg", "--watch", "--check"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "--watch" in done.stderr


def _watched_in_process(path: Path, meanwhile: Callable[[], None], ignored: int | None = None) -> list[str]:
    """What `watch` read of `path` on each run while `meanwhile` ran beside it (and ended it with
    a signal), `ignored` ignored as it started; the signals' handlers put back after."""
    from mcpstub.watch import watch  # noqa: PLC0415

    seen: list[str] = []
    before = {stop: signal.getsignal(stop) for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    if ignored is not None:
        signal.signal(ignored, signal.SIG_IGN)
    threading.Thread(target=meanwhile, daemon=True).start()
    try:
        assert watch(lambda: seen.append(path.read_text("utf-8")), lambda: [path]) == 0
    finally:
        for stop, handler in before.items():
            signal.signal(stop, handler)
    return seen


def test_a_session_under_nohup_goes_on_when_its_terminal_closes(tmp_path: Path) -> None:
    # SIGHUP ignored as the session starts (nohup) stays ignored; it ended the session.
    path = tmp_path / "tools.yaml"
    path.write_text("v0\n")

    def signals() -> None:
        time.sleep(0.3)
        os.kill(os.getpid(), signal.SIGHUP)
        time.sleep(0.2)
        path.write_text("v1\n")
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)

    assert _watched_in_process(path, signals, ignored=signal.SIGHUP) == ["v0\n", "v1\n"]


def test_a_path_is_shown_when_the_working_folder_is_gone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a project deleted while `--watch` ran: the next save's line raised FileNotFoundError)
    from mcpstub.options import shown_path  # noqa: PLC0415

    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert shown_path(tmp_path / "tools.yaml") == str(tmp_path / "tools.yaml")


def test_a_path_outside_the_working_folder_is_shown_without_its_detours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a file a toolset in sub/ references as ../outside.yaml, watched from elsewhere)
    from mcpstub.options import shown_path  # noqa: PLC0415

    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert shown_path(tmp_path / "sub" / ".." / "outside.yaml") == str(tmp_path / "outside.yaml")
    assert shown_path(Path("../sub/../outside.yaml")) == os.path.join("..", "outside.yaml")
    assert shown_path(Path("sub/../tools.yaml")) == "tools.yaml"
    # Not past a symbolic link: link/.. is the folder the link leads into's parent, not here.
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real" / "sub")
    assert shown_path(tmp_path / "link" / ".." / "x.yaml") == str(tmp_path / "link" / ".." / "x.yaml")


def test_a_save_that_empties_the_file_first_is_read_once_written(tmp_path: Path) -> None:
    """An in-place save truncates the file, then writes it: the run waits for the text, and a
    file the user really left empty is still read (and reported) once it stays empty."""
    path = tmp_path / "tools.yaml"
    path.write_text("v0\n")

    def saves() -> None:
        time.sleep(0.3)
        for n in range(1, 4):
            with path.open("r+", encoding="utf-8") as handle:
                handle.truncate(0)
                handle.flush()
                time.sleep(0.05)  # longer than the watcher takes to see a save settle
                handle.write(f"v{n}\n")
            time.sleep(0.3)
        path.write_text("")
        time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGINT)

    assert _watched_in_process(path, saves) == ["v0\n", "v1\n", "v2\n", "v3\n", ""]


def test_a_same_size_edit_with_its_modification_time_set_back_is_seen(tmp_path: Path) -> None:
    # (`cp -p`, a checkout tool: the size and modification time stay as they were.)
    path = tmp_path / "tools.yaml"
    path.write_text("v0\n")

    def edits() -> None:
        time.sleep(0.3)
        before = path.stat()
        with path.open("r+", encoding="utf-8") as handle:
            handle.write("v1\n")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGINT)

    assert _watched_in_process(path, edits) == ["v0\n", "v1\n"]


def test_a_file_made_after_a_run_looked_for_it_runs_again(tmp_path: Path) -> None:
    # A save refers to a file not written yet (the run fails), then the file is made; likewise the
    # project's options, a pyproject.toml made while the session runs: each is a change like a save.
    toolset = tmp_path / "tools.yaml"
    save(toolset, TOOLSET.format(field="first").replace("common.yaml", "extra.yaml"))
    save(tmp_path / "extra.yaml", COMMON.format(field="lat"))
    package = tmp_path / "pkg"

    def models() -> str:
        path = package / "models.py"
        return path.read_text("utf-8") if path.exists() else ""

    with watching(tmp_path, "tools.yaml", "--out", "pkg") as err:
        wait_for(lambda: any("watching 2 files" in line for line in err), "the first generation")
        said = len(err)
        save(toolset, TOOLSET.format(field="second").replace("common.yaml", "later.yaml"))
        wait_for(lambda: any("later.yaml" in line for line in err[said:]), "the missing file reported")
        save(tmp_path / "later.yaml", COMMON.format(field="made_later"))
        wait_for(lambda: "made_later:" in models(), "a run once the referenced file is made")
        assert not (package / "test_contract.py").exists()
        save(tmp_path / "pyproject.toml", "[tool.mcpstub]\nemit_tests = true\n")
        wait_for((package / "test_contract.py").exists, "a run once the options are made")


def test_a_toolset_the_options_name_before_it_is_made_runs_once_made(tmp_path: Path) -> None:
    # The session follows pyproject.toml: pointed at a toolset not written yet, it says so, and
    # generates once the file is there.
    save(tmp_path / "tools.yaml", TOOLSET.format(field="first"))
    save(tmp_path / "common.yaml", COMMON.format(field="lat"))
    save(tmp_path / "pyproject.toml", '[tool.mcpstub]\ntoolset = "tools.yaml"\nout = "pkg"\n')
    with watching(tmp_path) as err:
        wait_for(lambda: any("watching 3 files" in line for line in err), "the first generation")
        save(tmp_path / "pyproject.toml", '[tool.mcpstub]\ntoolset = "new.yaml"\nout = "pkgnew"\n')
        wait_for(lambda: any("not found: new.yaml" in line for line in err), "the missing toolset said")
        save(tmp_path / "new.yaml", TOOLSET.format(field="renamed"))
        models = tmp_path / "pkgnew" / "models.py"
        wait_for(lambda: models.exists() and "renamed:" in models.read_text("utf-8"), "the new toolset's run")


def test_a_session_started_below_the_project_keeps_the_project_s_toolset(tmp_path: Path) -> None:
    # Run from a folder below pyproject.toml, the project's tools.yaml is the session's: a
    # tools.yaml made in that folder meanwhile (`mcpstub init` there) does not take its place.
    save(tmp_path / "tools.yaml", TOOLSET.format(field="first"))
    save(tmp_path / "common.yaml", COMMON.format(field="lat"))
    save(tmp_path / "pyproject.toml", '[tool.mcpstub]\nout = "pkg"\n')
    below = tmp_path / "src"
    below.mkdir()
    models = tmp_path / "pkg" / "models.py"
    with watching(below) as err:
        wait_for(lambda: models.exists() and "first:" in models.read_text("utf-8"), "the first generation")
        save(below / "tools.yaml", TOOLSET.format(field="other"))
        save(tmp_path / "tools.yaml", TOOLSET.format(field="second"))
        wait_for(lambda: "second:" in models.read_text("utf-8"), "the project's toolset's edit")
        assert not any("is not the toolset of" in line for line in err), err
