"""Test-wide settings and fixtures.

Generation runs share one model cache, kept out of the user's home. `mypy_strict` runs
`mypy --strict` with one cache per test process, so the libraries generated code imports
(pydantic, mcp, the runtime) are analysed once instead of in every test (about 3 s each); mypy
checks again every module whose file is not the one it cached. Each test leaves Ctrl-C as it
found it (its handler, and not held): a test after it may depend on it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

os.environ.setdefault("MCPSTUB_CACHE_DIR", os.path.join(tempfile.gettempdir(), "mcpstub-test-cache"))

MypyRun = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture(scope="session")
def mypy_strict(tmp_path_factory: pytest.TempPathFactory) -> MypyRun:
    cache = tmp_path_factory.mktemp("mypy-cache")

    def run(*targets: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), *targets]
        return subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
        )

    return run


def _ctrl_c() -> tuple[object, bool]:
    masked = signal.pthread_sigmask(signal.SIG_BLOCK, ()) if hasattr(signal, "pthread_sigmask") else ()
    held = signal.SIGINT in masked
    return signal.getsignal(signal.SIGINT), held


@pytest.fixture(autouse=True)
def _ctrl_c_left_as_found() -> Iterator[None]:
    before = _ctrl_c()
    yield
    after = _ctrl_c()
    if after != before:
        signal.signal(signal.SIGINT, before[0])  # type: ignore[arg-type]
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK if before[1] else signal.SIG_UNBLOCK, {signal.SIGINT})
        pytest.fail(f"the test left Ctrl-C changed: handler and held {before} before, {after} after")
