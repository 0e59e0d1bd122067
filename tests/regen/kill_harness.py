"""Run `mcpstub generate` in forked children, each SIGKILLed at a different file operation.

Usage: python -m tests.regen.kill_harness TOOLSET BASE WORK
BASE holds a generated package `pkg` (the old tree). For every point K at which `generate` touches
the disk, WORK/K/pkg starts as a copy of BASE/pkg and a forked child runs the real command line on
it with the K-th file operation replaced by SIGKILL. The toolset is rendered once and reused, so each
child only plans and writes. WORK/0/pkg is the same run, not killed. Prints the number of points.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import sys
from collections.abc import Callable
from typing import Any

from mcpstub import cli, pipeline

_state = {"counting": False, "count": 0, "kill_at": 0}


def _hooked(real: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        if _state["counting"]:
            _state["count"] += 1
            if _state["count"] == _state["kill_at"]:
                os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)

    return call


def main() -> int:
    toolset, base, work = (pathlib.Path(a) for a in sys.argv[1:4])
    real_generate = pipeline.generate
    memo: dict[Any, Any] = {}

    def generate(*args: Any, **kwargs: Any) -> Any:
        key = (args, tuple(sorted(kwargs.items())))
        if key not in memo:
            memo[key] = real_generate(*args, **kwargs)
        _state["counting"] = True  # from here on, only planning and writing
        return memo[key]

    pipeline.generate = generate  # type: ignore[assignment]
    for name in ("replace", "open", "unlink", "chmod", "mkdir", "rename"):
        setattr(os, name, _hooked(getattr(os, name)))
    pathlib.Path.write_text = _hooked(pathlib.Path.write_text)  # type: ignore[method-assign]

    def run(k: int) -> int:
        out = work / str(k) / "pkg"
        shutil.copytree(base / "pkg", out)
        _state.update(counting=False, count=0, kill_at=k)
        code = cli.main(["generate", str(toolset), "--out", str(out)])
        _state["counting"] = False
        return code

    assert run(0) == 0  # renders the toolset once, before any fork; WORK/0 is the finished run
    k = 0
    while True:
        k += 1
        pid = os.fork()
        if pid == 0:
            os._exit(run(k))
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status):  # past the last point: the run finished
            assert os.WEXITSTATUS(status) == 0, status
            shutil.rmtree(work / str(k))
            break
        assert os.WTERMSIG(status) == signal.SIGKILL, status
    print(json.dumps(k - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
