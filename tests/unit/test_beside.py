"""Model generation beside the rest: same output, and failures behave as if run in-process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcpstub import modelcache, pipeline
from mcpstub.beside import Standby, Worker

ROOT = Path(__file__).resolve().parents[2]


def _pid(_: object) -> int:
    return os.getpid()


def _explode(message: str) -> None:
    raise ValueError(message)


def _bad_prepare() -> None:
    raise RuntimeError("warm-up failed")


def test_standby_computes_in_a_child_once_given() -> None:
    standby = Standby(_pid, lambda: None)
    standby.give(None)
    assert standby.result() != os.getpid()
    standby.close()  # after the result: nothing left to stop


def test_standby_never_given_is_stopped_and_reaped() -> None:
    standby = Standby(_pid, lambda: None)
    pid = standby._pid
    standby.close()
    standby.close()  # idempotent
    if pid:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_a_standby_interrupted_while_it_answers_is_closed_without_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C while the result is read: the interrupt is what the run sees, not a close of a
    descriptor already closed."""
    standby = Standby(_pid, lambda: None)
    standby.give(None)
    pid = standby._pid

    def interrupted(*_: object) -> tuple[int, int]:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(os, "waitpid", interrupted)
        with pytest.raises(KeyboardInterrupt):
            standby.result()
    standby.close()
    if pid:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_a_failing_standby_reruns_here_and_raises_the_real_error() -> None:
    standby = Standby(_explode, _bad_prepare)
    standby.give("boom")
    with pytest.raises(ValueError, match="boom"):
        standby.result()


def test_a_large_argument_does_not_block_while_the_child_prepares() -> None:
    import time  # noqa: PLC0415

    standby = Standby(len, lambda: time.sleep(1))
    started = time.perf_counter()
    standby.give("x" * 5_000_000)  # far beyond a pipe's buffer
    assert time.perf_counter() - started < 0.5
    assert standby.result() == 5_000_000


def test_parallel_and_sequential_generation_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    source = ROOT / "examples" / "weather" / "tools.yaml"
    monkeypatch.setattr(modelcache, "GROUP_MAX", 1)  # one group per tool: work for both processes
    monkeypatch.setattr(modelcache, "FORK", False)
    sequential = pipeline.generate(source)
    monkeypatch.setattr(modelcache, "FORK", True)
    monkeypatch.setattr(modelcache, "FORK_MIN_TOOLS", 0)
    parallel = pipeline.generate(source)
    assert sequential.ok and parallel.ok
    assert list(parallel.ours) == list(sequential.ours)
    assert parallel.ours == sequential.ours
    assert parallel.yours == sequential.yours


def _echo(value: object) -> object:
    if value == "fail":
        raise ValueError("failed in the child")
    if value == "die":
        os._exit(3)
    return (os.getpid(), value)


def test_a_worker_stays_and_answers_every_request_in_order() -> None:
    worker: Worker[object, object] = Worker(_echo)
    try:
        pid_a, value_a = worker.answer(worker.submit("a"))  # type: ignore[misc]
        pid_b, value_b = worker.answer(worker.submit("b" * 3_000_000))  # type: ignore[misc]  # beyond a pipe's buffer
        assert (value_a, value_b) == ("a", "b" * 3_000_000)
        assert pid_a == pid_b != os.getpid()  # one child, forked once
        # A request never asked for (a failed run abandons its models) is dropped, not answered later.
        unasked = worker.submit("x" * 3_000_000)
        third = worker.submit("c")
        assert worker.answer(unasked) is None and worker.alive
        pid_c, value_c = worker.answer(third)  # type: ignore[misc]
        assert (pid_c, value_c) == (pid_a, "c")
    finally:
        worker.close()
    assert not worker.alive and worker.submit("x") is None and worker.answer(None) is None


@pytest.mark.parametrize("request_", ["fail", "die"])
def test_a_failing_worker_answers_none_and_is_gone(request_: str) -> None:
    worker: Worker[object, object] = Worker(_echo)
    pid = worker._pid
    assert worker.answer(worker.submit(request_)) is None  # the caller computes here
    assert not worker.alive
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped


def test_a_worker_ends_with_this_process() -> None:
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = (
        "import os, sys; from mcpstub.beside import Worker; w = Worker(len);"
        " print(w._pid, flush=True); os._exit(0)"  # no close(): only the pipe's end tells it
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    pid = int(done.stdout)
    import time  # noqa: PLC0415

    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and "Z" not in _state(pid):
        assert time.monotonic() < deadline, "the worker outlived its parent"
        time.sleep(0.05)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"
