"""Model generation beside the rest: same output, and failures behave as if run in-process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcpstub import modelcache, pipeline
from mcpstub.beside import Standby

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
