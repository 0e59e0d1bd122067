"""Model generation beside the rest: same output, and failures behave as if run in-process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcpstub import modelcache, pipeline
from mcpstub.beside import Beside

ROOT = Path(__file__).resolve().parents[2]


def square(n: int) -> int:
    return n * n


def pid_of_worker(_: object) -> int:
    return os.getpid()


def explode(message: str) -> None:
    raise ValueError(message)


def test_result_comes_from_a_child_process() -> None:
    assert Beside(square, 7).result() == 49
    assert Beside(pid_of_worker, None).result() != os.getpid()


def test_a_failing_child_reruns_here_and_raises_the_real_error() -> None:
    with pytest.raises(ValueError, match="boom"):
        Beside(explode, "boom").result()


def test_close_reaps_an_unwanted_child() -> None:
    pending = Beside(square, 3)
    pending.close()
    pending.close()  # idempotent


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
