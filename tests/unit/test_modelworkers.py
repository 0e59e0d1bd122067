"""Model workers: models made by the workers give the same bytes as a run in one process, whatever
fails on the way (a worker killed), and no process is left behind when a run ends, however it ends."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpstub import pipeline
from mcpstub.engine import model_groups
from mcpstub.engine.workers import ModelWorkers

SHARED = {
    "Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "integer"}}},
    "Mode": {"enum": ["fast", "slow"]},
}
LINUX = sys.platform.startswith("linux")
_RENDER_UNIT = model_groups._render_unit  # (tests replace it)


def _doc(count: int, last: dict[str, Any] | None = None) -> dict[str, Any]:
    tools: list[dict[str, Any]] = [
        {
            "name": f"tool{n}",
            "inputSchema": {
                "type": "object",
                "properties": {"at": {"$ref": "#/$defs/Point"}, f"p{n}": {"type": "integer", "default": n}},
            },
            **(
                {"outputSchema": {"type": "object", "properties": {"mode": {"$ref": "#/$defs/Mode"}}}}
                if n % 3
                else {}
            ),
        }
        for n in range(40)
    ]
    if last is not None:
        tools.append(last)
    return {"mcpstub": 1, "server": {"name": "s"}, "$defs": SHARED, "tools": tools}


def _write(folder: Path, doc: dict[str, Any]) -> Path:
    path = folder / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def workers() -> Iterator[ModelWorkers]:
    """Warm workers shared by the module's runs, as a `--watch` session keeps them."""
    made = ModelWorkers()
    yield made
    made.close()


@pytest.fixture
def feeds(monkeypatch: pytest.MonkeyPatch, workers: ModelWorkers) -> list[model_groups.ModelFeed]:
    """`pipeline.generate` with the workers a fresh command has (this process has the model
    generator imported, where a fresh command would not), in groups of two tools or so; each feed
    made is listed."""
    made: list[model_groups.ModelFeed] = []

    def standby() -> model_groups.ModelFeed:
        made.append(model_groups.ModelFeed(workers, owned=False))
        return made[-1]

    monkeypatch.setattr(model_groups, "standby_models", standby)
    monkeypatch.setattr(model_groups, "GROUP_SPREAD", 2)
    monkeypatch.setattr(model_groups, "GROUP_WEIGHT", 0)
    monkeypatch.setattr(model_groups, "GROUP_MAX", 3)
    return made


def _in_one_process(path: Path, monkeypatch: pytest.MonkeyPatch) -> pipeline.Generated:
    with monkeypatch.context() as patch:
        patch.setattr(model_groups, "WORKERS", False)
        patch.setattr(model_groups, "standby_models", lambda: None)
        return pipeline.generate(path)


def test_groups_made_by_the_workers_give_the_files_of_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, feeds: list[model_groups.ModelFeed]
) -> None:
    path = _write(tmp_path, _doc(40))
    fed = pipeline.generate(path)
    assert len(feeds) == 1 and fed.ok
    alone = _in_one_process(path, monkeypatch)
    assert fed.ours == alone.ours and fed.yours == alone.yours


def _dies_at_tool7(unit: Any) -> Any:
    """A unit's models, except that a worker dies at the group of `tool7` (as the OOM killer
    would kill it); in this process, the models."""
    if multiprocessing.parent_process() is not None and any(t.name == "tool7" for t in unit.tools):
        os._exit(9)
    return _RENDER_UNIT(unit)


def _dies_answering_at_tool7(unit: Any) -> Any:
    """As `_dies_at_tool7`, but the worker dies halfway through sending the group's models back,
    holding the pool's lock for answers and leaving a message cut short: the pool never learns
    that it broke."""
    if multiprocessing.parent_process() is not None and any(t.name == "tool7" for t in unit.tools):
        import struct  # noqa: PLC0415
        from multiprocessing import connection  # noqa: PLC0415

        def half(self: Any, buf: Any) -> None:
            data = bytes(buf)
            self._send(struct.pack("!i", len(data)) + data[: len(data) // 2])
            os._exit(9)

        connection.Connection._send_bytes = half  # type: ignore[method-assign]
    return _RENDER_UNIT(unit)


@pytest.mark.parametrize("dies", [_dies_at_tool7, _dies_answering_at_tool7], ids=["working", "answering"])
def test_units_a_dead_worker_had_are_generated_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dies: Any
) -> None:
    path = _write(tmp_path, _doc(40))
    own = ModelWorkers()  # a worker dies: the pool takes no more units, these are not shared
    monkeypatch.setattr(model_groups, "standby_models", lambda: model_groups.ModelFeed(own))
    monkeypatch.setattr(model_groups, "GROUP_MAX", 3)
    monkeypatch.setattr(model_groups, "_render_unit", dies)
    done: list[Any] = []
    run = threading.Thread(target=lambda: done.append(pipeline.generate(path)), daemon=True)
    run.start()
    run.join(timeout=120)
    assert done, "the run hung on the dead worker"
    fed = done[0]
    assert fed.ok
    assert not own.alive  # it broke, and said so
    monkeypatch.setattr(model_groups, "_render_unit", _RENDER_UNIT)
    assert fed.ours == _in_one_process(path, monkeypatch).ours


def test_a_toolset_that_fails_its_check_late_generates_nothing(
    tmp_path: Path, feeds: list[model_groups.ModelFeed]
) -> None:
    bad = {"name": "last", "inputSchema": {"type": "object", "properties": {"p": {"pattern": "("}}}}
    fed = pipeline.generate(_write(tmp_path, _doc(40, bad)))
    assert not fed.ok and fed.ours == {}
    assert "invalid-schema" in {d.code for d in fed.diagnostics}


@pytest.mark.parametrize(
    "defs",
    [
        "$defs:\n  1: {type: object}\n",
        "$defs: [1, 2]\n",
        "$defs:\n  Point: {type: object, properties: {at: {}}}\n",
    ],
)
def test_odd_shared_definitions_generate_as_they_check(
    tmp_path: Path, feeds: list[model_groups.ModelFeed], defs: str
) -> None:
    path = tmp_path / "tools.yaml"
    tools = "".join(
        f"  - name: t{n}\n    inputSchema: {{type: object, properties: {{p: {{type: string}}}}}}\n"
        for n in range(30)
    )
    path.write_text(f"mcpstub: 1\nserver: {{name: s}}\n{defs}tools:\n{tools}", encoding="utf-8")
    fed = pipeline.generate(path)
    checked = pipeline.check_toolset(path)
    assert fed.ok == checked.ok
    if not fed.ok:
        assert [d.code for d in fed.diagnostics] == [d.code for d in checked.diagnostics]


def _gone(pid: int, within: float = 5.0) -> bool:
    """Whether process `pid` (not a child of this one: its parent is gone) ends within `within`
    seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def _sleeper(mark: str) -> None:
    """A unit that never ends: its worker's pid is written to `mark` first."""
    Path(mark).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(600)


def _pid(mark: Path) -> int:
    deadline = time.monotonic() + 30
    while not (mark.exists() and mark.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return int(mark.read_text())


@pytest.mark.skipif(not LINUX, reason="dying with the parent is Linux's")
@pytest.mark.parametrize("how", ["exit", "SIGKILL", "SIGTERM"])
def test_workers_end_with_a_run_that_ends_without_stopping_them(tmp_path: Path, how: str) -> None:
    mark = tmp_path / "pid"
    code = (
        "import os, sys, time; sys.path.insert(0, sys.argv[2]); import test_modelworkers as t;"
        " from mcpstub.engine.workers import ModelWorkers; w = ModelWorkers();"
        " w.submit(t._sleeper, sys.argv[1]); t._pid(t.Path(sys.argv[1]));"
        " time.sleep(600 if sys.argv[3] != 'exit' else 0); os._exit(0)"
    )
    run = subprocess.Popen([sys.executable, "-c", code, str(mark), str(Path(__file__).parent), how])
    worker = _pid(mark)
    if how != "exit":
        run.send_signal(getattr(signal, how))
    run.wait(timeout=30)
    assert _gone(worker)


def test_closed_workers_take_no_more_units_and_their_child_leaves() -> None:
    own = ModelWorkers()
    first = own.submit(len, [1, 2])
    assert first is not None and first.result(timeout=60) == 2
    own.close()
    assert not own.alive and own.submit(len, []) is None
    own._child.join(timeout=30)
    assert own._child.exitcode == 0


def test_a_watch_session_replaces_dead_workers_a_few_times() -> None:
    from mcpstub.engine.session import Session  # noqa: PLC0415

    session = Session()
    seen = []
    for _ in range(4):
        feed = model_groups.session_feed(session)
        assert feed is not None and feed.workers.alive
        seen.append(feed.workers)
        dying = feed.workers.submit(os._exit, 9)
        assert dying is not None
        with pytest.raises(Exception):  # noqa: B017 - BrokenProcessPool
            dying.result(timeout=60)
        deadline = time.monotonic() + 30
        while feed.workers.alive and time.monotonic() < deadline:  # its child leaves, then
            time.sleep(0.01)
        assert not feed.workers.alive
    assert len({id(w) for w in seen}) == 4  # the first and three replacements
    assert model_groups.session_feed(session) is None  # then this process generates


def test_a_child_killed_mid_unit_fails_its_units_and_hangs_nothing() -> None:
    own = ModelWorkers()
    waiting = own.submit(time.sleep, 600)
    assert waiting is not None
    os.kill(own._child.pid, signal.SIGKILL)  # as the OOM killer would
    with pytest.raises(Exception, match="ended"):
        waiting.result(timeout=60)
    assert not own.alive and own.submit(len, []) is None
    own.close()


@pytest.mark.skipif(not LINUX, reason="dying with the parent is Linux's")
@pytest.mark.parametrize("delay", [0.0, 0.5])
def test_a_run_that_ends_while_its_workers_start_leaves_none_holding_its_output(delay: float) -> None:
    """Whenever the run ends (before, while or after the child forks its pool), no process is
    left: a reader of the run's output (`mcpstub generate | cat`) sees its end at once."""
    code = (
        "import os, sys, time; from mcpstub.engine.workers import ModelWorkers; w = ModelWorkers();"
        " w.submit(len, [1]); time.sleep(float(sys.argv[1])); print('done', flush=True); os._exit(0)"
    )
    # Its output ends only once every process holding it has ended: the run's own and each one
    # it started, which inherit it.
    run = subprocess.run(
        [sys.executable, "-c", code, str(delay)], check=False, capture_output=True, text=True, timeout=60
    )
    assert run.stdout == "done\n" and run.stderr == ""


@pytest.mark.skipif(not LINUX, reason="dying with the parent is Linux's")
@pytest.mark.parametrize("started_by_parent", [True, False])
def test_a_worker_whose_starter_is_gone_before_it_starts_leaves_at_once(started_by_parent: bool) -> None:
    """A pool process may start after the child that forked it has ended (a run that needed no
    models): it must not wait for work for ever, holding the run's output open."""
    from mcpstub.engine.workers import _start_worker  # noqa: PLC0415

    starter = os.getpid() if started_by_parent else 1  # 1: it was forked by another, now gone
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the forked process
        try:
            _start_worker(starter)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == (0 if started_by_parent else 1)


def test_a_worker_runs_the_cycle_collector_that_its_starter_paused() -> None:
    """The command pauses the collector, and forks the workers while it is paused; the model
    generator leaves cycles behind, which a worker must collect, or its memory piles up."""
    import gc  # noqa: PLC0415

    from mcpstub.engine.workers import _start_worker  # noqa: PLC0415

    gc.disable()
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the forked process
            try:
                _start_worker(os.getppid())
                os._exit(0 if gc.isenabled() else 3)
            finally:
                os._exit(4)
    finally:
        gc.enable()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
