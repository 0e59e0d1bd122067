"""Beside: run one slow, pure function in a forked child while this process does other work.

Model generation (datamodel-code-generator) is the long pole of a run; rendering and compiling the
other files does not depend on it. `Beside(fn, arg)` forks, the child computes `fn(arg)` and sends
the pickled result back; `result()` waits for it. Where fork is unavailable, or the child fails in
any way, the function simply runs here instead: the outcome is the same, only slower.
"""

from __future__ import annotations

import os
import pickle
import signal
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
A = TypeVar("A")


class Beside(Generic[A, T]):
    """`fn(arg)` computed in a forked child, collected with `result()`."""

    def __init__(self, fn: Callable[[A], T], arg: A) -> None:
        self._fn, self._arg = fn, arg
        self._pid = 0
        self._read = -1
        if not hasattr(os, "fork"):
            return
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the child: compute, send, and leave without running any cleanup
            code = 1
            try:
                os.close(read)
                data = pickle.dumps(fn(arg), protocol=pickle.HIGHEST_PROTOCOL)
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
                code = 0
            finally:
                os._exit(code)
        os.close(write)
        self._pid, self._read = pid, read

    def close(self) -> None:
        """Stop and reap the child if its result is no longer wanted."""
        if self._pid:
            try:
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
            except OSError:
                pass
            os.close(self._read)
            self._pid = 0

    def result(self) -> T:
        """The child's result, or the function's result computed here if the child failed."""
        if self._pid:
            with os.fdopen(self._read, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(self._pid, 0)
            self._pid = 0
            if os.waitstatus_to_exitcode(status) == 0 and data:
                value: T = pickle.loads(data)
                return value
        return self._fn(self._arg)
