"""Models fed to the standby child as the check passes each group's tools: the same bytes as a
run in one process, whatever fails on the way, and no process left behind."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from mcpstub import modelcache, pipeline, validate
from mcpstub.beside import Feed

SHARED = {
    "Point": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "integer"}}},
    "Mode": {"enum": ["fast", "slow"]},
}


def _collect(next_item: Callable[[], Any]) -> tuple[int, list[Any]]:
    items = []
    while (item := next_item()) is not None:
        if item == "die":
            os._exit(3)
        if isinstance(item, tuple) and item[0] == "mark":
            Path(item[1]).write_text("read", encoding="utf-8")
        items.append(item)
    return os.getpid(), items


def _reaped(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_a_feed_child_works_on_each_item_before_the_last_is_sent(tmp_path: Path) -> None:
    feed: Feed[Any, tuple[int, list[Any]]] = Feed(_collect, lambda: None)
    assert feed.alive
    mark = tmp_path / "mark"
    started = time.perf_counter()
    feed.put("x" * 3_000_000)  # beyond a pipe's buffer: queued, this process does not wait
    assert time.perf_counter() - started < 0.5
    feed.put(("mark", str(mark)))
    deadline = time.monotonic() + 20
    while not mark.exists() and time.monotonic() < deadline:  # read while more may come
        time.sleep(0.01)
    assert mark.exists(), "the child waited for the end of the feed"
    feed.put({"last": [1, 2.5, None]})
    feed.end()
    pid, items = feed.result()  # type: ignore[misc]
    assert pid != os.getpid()
    assert items == ["x" * 3_000_000, ("mark", str(mark)), {"last": [1, 2.5, None]}]
    assert not feed.alive


def _wait_for(path: Path) -> None:
    deadline = time.monotonic() + 20
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.01)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a pipe's buffer is set on Linux only")
def test_items_queued_while_the_child_is_busy_go_heaviest_first(tmp_path: Path) -> None:
    # The longest work first: two children taking from the feed then end together, instead of
    # one finishing a long unit alone at the end. Equal weights keep the order they were put in.
    gate = tmp_path / "gate"
    feed: Feed[Any, tuple[int, list[Any]]] = Feed(_collect, partial(_wait_for, gate))
    feed.put("first" * 2_000, 0.0)  # beyond a page: the sender waits on it, with the pipe a page
    deadline = time.monotonic() + 20
    while feed._queue and time.monotonic() < deadline:  # until the sender has taken it
        time.sleep(0.001)
    for name, weight in [("a", 1.0), ("b", 5.0), ("c", 3.0), ("d", 5.0), ("e", 2.0)]:
        feed.put(name, weight)
        time.sleep(0.02)  # time enough for an idle sender to send each as it comes
    gate.write_text("open", encoding="utf-8")
    feed.end()
    _, items = feed.result()  # type: ignore[misc]
    assert items == ["first" * 2_000, "b", "d", "c", "e", "a"]


def test_a_feed_whose_child_dies_answers_none_and_is_reaped() -> None:
    feed: Feed[Any, tuple[int, list[Any]]] = Feed(_collect, lambda: None)
    pid = feed._pid
    feed.put("a")
    feed.put("die")
    feed.put("after")
    feed.end()
    assert feed.result() is None  # the caller computes here
    assert _reaped(pid)


def test_a_feed_closed_before_its_end_stops_its_child() -> None:
    feed: Feed[Any, tuple[int, list[Any]]] = Feed(_collect, lambda: None)
    pid = feed._pid
    feed.put("a")
    feed.close()
    feed.close()  # idempotent
    feed.put("ignored")
    assert not feed.alive and feed.result() is None
    assert _reaped(pid)


def test_an_item_that_cannot_be_sent_stops_the_feed() -> None:
    feed: Feed[Any, tuple[int, list[Any]]] = Feed(_collect, lambda: None)
    pid = feed._pid
    feed.put("a")
    feed.put(lambda: None)  # not picklable
    assert not feed.alive and feed.result() is None
    assert _reaped(pid)


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


@pytest.fixture
def feeds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[modelcache.ModelFeed]]:
    """`pipeline.generate` with a standby child fed during the check, as a fresh command has
    (this process has the model generator imported, where a fresh command would not), in
    groups of two tools or so; each feed made is listed."""
    made: list[modelcache.ModelFeed] = []

    def standby() -> modelcache.ModelFeed:
        made.append(modelcache.ModelFeed())
        return made[-1]

    monkeypatch.setattr(modelcache, "standby_models", standby)
    monkeypatch.setattr(modelcache, "GROUP_SPREAD", 2)
    monkeypatch.setattr(modelcache, "GROUP_WEIGHT", 0)
    monkeypatch.setattr(modelcache, "GROUP_MAX", 3)
    yield made
    for feed in made:
        assert not feed.feed.alive  # stopped or done: never left running
        assert _reaped(feed.feed._pid) if feed.feed._pid else True


def _in_one_process(path: Path, monkeypatch: pytest.MonkeyPatch) -> pipeline.Generated:
    with monkeypatch.context() as patch:
        patch.setattr(modelcache, "FORK", False)
        patch.setattr(modelcache, "standby_models", lambda: None)
        return pipeline.generate(path)


def test_groups_are_fed_while_the_check_runs_and_give_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, feeds: list[modelcache.ModelFeed]
) -> None:
    path = _write(tmp_path, _doc(40))
    events: list[str] = []
    real_make, real_run = modelcache._Stream._make, validate._Checker.run

    def make(self: Any, unit: Any) -> None:
        events.append("unit")
        real_make(self, unit)

    def run(self: Any) -> Any:
        result = real_run(self)
        events.append("checked")
        return result

    monkeypatch.setattr(modelcache._Stream, "_make", make)
    monkeypatch.setattr(validate._Checker, "run", run)
    fed = pipeline.generate(path)
    assert len(feeds) == 1 and feeds[0].stream is not None
    assert events.index("checked") >= 5, events  # the shared definitions and groups went first
    assert fed.ok
    alone = _in_one_process(path, monkeypatch)
    assert fed.ours == alone.ours and fed.yours == alone.yours


def test_units_made_from_a_wrong_guess_are_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, feeds: list[modelcache.ModelFeed]
) -> None:
    path = _write(tmp_path, _doc(40))
    real = modelcache._predicted_roots
    # A guess of the root class names the check then contradicts: the units fed are not used.
    monkeypatch.setattr(modelcache, "_predicted_roots", lambda data: {*(real(data) or ()), "Tool0"})
    fed = pipeline.generate(path)
    assert fed.ok and feeds[0].stream is not None
    assert not feeds[0].stream.matches(fed.toolset)  # type: ignore[arg-type]
    alone = _in_one_process(path, monkeypatch)
    assert fed.ours == alone.ours


def test_units_a_dead_fork_read_are_generated_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, feeds: list[modelcache.ModelFeed]
) -> None:
    path = _write(tmp_path, _doc(40))
    parent, real = os.getpid(), modelcache._render_all

    def render_all(units: list[Any]) -> Any:
        if os.getpid() != parent and any(t.name == "tool7" for u in units for t in u.tools):
            os._exit(9)  # a fork (or the child) killed in the middle of its units
        return real(units)

    monkeypatch.setattr(modelcache, "_render_all", render_all)
    fed = pipeline.generate(path)
    assert fed.ok
    alone = _in_one_process(path, monkeypatch)
    assert fed.ours == alone.ours


def test_a_check_that_fails_after_units_were_fed_stops_the_child(
    tmp_path: Path, feeds: list[modelcache.ModelFeed]
) -> None:
    bad = {"name": "last", "inputSchema": {"type": "object", "properties": {"p": {"pattern": "("}}}}
    fed = pipeline.generate(_write(tmp_path, _doc(40, bad)))
    assert not fed.ok and fed.ours == {}
    assert "invalid-schema" in {d.code for d in fed.diagnostics}
    assert feeds[0].stream is not None and len(feeds[0].stream.missing) > 3  # fed, then dropped


def test_a_step_that_fails_while_feeding_costs_time_not_the_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, feeds: list[modelcache.ModelFeed]
) -> None:
    path = _write(tmp_path, _doc(40))
    real, calls = modelcache._Planner.group, [0]

    def group(self: Any, tools: Any) -> Any:
        calls[0] += 1
        if calls[0] == 4:
            raise RecursionError("deep")
        return real(self, tools)

    monkeypatch.setattr(modelcache._Planner, "group", group)
    fed = pipeline.generate(path)
    assert fed.ok and feeds[0].stream is not None and feeds[0].stream.broken
    monkeypatch.setattr(modelcache._Planner, "group", real)
    assert fed.ours == _in_one_process(path, monkeypatch).ours


@pytest.mark.parametrize(
    "defs",
    [
        "$defs:\n  1: {type: object}\n",
        "$defs: [1, 2]\n",
        "$defs:\n  Point: {type: object, properties: {at: {}}}\n",
    ],
)
def test_toolsets_the_feed_cannot_follow_are_checked_as_before(
    tmp_path: Path, feeds: list[modelcache.ModelFeed], defs: str
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
    """Whether process `pid` ends (or is a zombie) within `within` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in {"Z", "X"}:
            return True
        time.sleep(0.05)
    return False


def _sleep_forever(_: object = None) -> None:
    time.sleep(600)


def _fork_a_sleeper_then_sleep(mark: str, next_item: Callable[[], Any]) -> None:
    from mcpstub.beside import Standby  # noqa: PLC0415

    grandchild = Standby(_sleep_forever, lambda: None)
    grandchild.give(None)
    Path(mark).write_text(f"{os.getpid()} {grandchild._pid}", encoding="utf-8")
    _sleep_forever()


def _pids(mark: Path) -> list[int]:
    deadline = time.monotonic() + 20
    while not (mark.exists() and mark.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [int(p) for p in mark.read_text().split()]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="dying with the parent is Linux's")
def test_what_a_stopped_child_forked_stops_with_it(tmp_path: Path) -> None:
    """A feed stopped while its child's forks work leaves none of them working on."""
    from functools import partial  # noqa: PLC0415

    mark = tmp_path / "pids"
    feed: Feed[Any, None] = Feed(partial(_fork_a_sleeper_then_sleep, str(mark)), lambda: None)
    child, grandchild = _pids(mark)
    assert child == feed._pid
    feed.close()
    assert _gone(child) and _gone(grandchild)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="dying with the parent is Linux's")
@pytest.mark.parametrize("how", ["exit", "SIGKILL", "SIGTERM"])
def test_children_end_with_a_run_that_ends_without_stopping_them(tmp_path: Path, how: str) -> None:
    import signal  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    mark = tmp_path / "pids"
    code = (
        "import os, time, functools, sys; sys.path.insert(0, sys.argv[2]);"
        " import test_feed; from mcpstub.beside import Feed;"
        " f = Feed(functools.partial(test_feed._fork_a_sleeper_then_sleep, sys.argv[1]), lambda: None);"
        " time.sleep(600 if sys.argv[3] != 'exit' else 0.5); os._exit(0)"
    )
    run = subprocess.Popen([sys.executable, "-c", code, str(mark), str(Path(__file__).parent), how])
    child, grandchild = _pids(mark)
    if how != "exit":
        run.send_signal(getattr(signal, how))
    run.wait(timeout=30)
    assert _gone(child) and _gone(grandchild)
