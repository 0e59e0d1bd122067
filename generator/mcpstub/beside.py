"""Beside: run one slow, pure function in a forked child while this process does other work.

Model generation (datamodel-code-generator) is the long pole of a run; rendering and compiling the
other files does not depend on it. `Standby(fn, prepare)` forks at once, the child runs `prepare()`
(imports), then computes `fn(arg)` once `give(arg)` sends the argument and sends the pickled result
back; `result()` waits for it. `Worker(fn)` forks once and computes `fn` for every request sent
to it, for a process that runs long (`--watch`). Where fork is unavailable, or the child fails in
any way, the function simply runs here instead: the outcome is the same, only slower.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import struct
import threading
from collections.abc import Callable
from functools import partial
from typing import Any, Generic, TypeVar

T = TypeVar("T")
A = TypeVar("A")


def _fork_with_pipes() -> tuple[int, tuple[int, int], tuple[int, int]] | None:
    """Fork, with a pipe for requests (child reads) and one for answers (child writes): the pid
    (0 in the child) and each pipe's (read, write) ends; None where fork fails or does not exist."""
    if not hasattr(os, "fork"):
        return None
    ask, answer = os.pipe(), os.pipe()
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        for fd in (*ask, *answer):
            os.close(fd)
        return None
    if pid == 0:
        _die_with(parent)
    return pid, ask, answer


def _die_with(parent: int) -> None:
    """In a forked child: be killed when `parent` (the forking process) ends, however it ends
    (Linux). A run that is stopped, killed or done with its children leaves none of them, nor
    any process they forked in turn, working on."""
    try:
        import ctypes  # noqa: PLC0415 - only in children

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: such a child ends at its pipe's end
        return
    if os.getppid() != parent:  # the parent ended before the line above
        os._exit(1)


_PR_SET_PDEATHSIG = 1
# What a child that was asked nothing answers: nothing at all.
_UNASKED = object()


def _answer_once(
    prepare: Callable[[], object],
    compute: Callable[[int], object],
    ask: tuple[int, int],
    answer: tuple[int, int],
) -> None:
    """In a forked child: `prepare()`, then `compute(the request pipe's read end)`, sent back
    pickled (unless `_UNASKED`), then leave: exit 0 if all went well, else 1."""
    code = 1
    try:
        os.close(ask[1])
        os.close(answer[0])
        try:
            prepare()
        except Exception:  # a failed warm-up only costs time later
            pass
        value = compute(ask[0])
        if value is not _UNASKED:
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(answer[1], "wb") as pipe:
                pipe.write(data)
        code = 0
    finally:
        os._exit(code)


def _given(fn: Callable[[Any], Any], read: int) -> object:
    """`fn` of the argument the request pipe holds, or `_UNASKED` when it holds none."""
    with os.fdopen(read, "rb") as pipe:
        request = pipe.read()
    return fn(pickle.loads(request)) if request else _UNASKED


def _answer(pid: int, read: int) -> bytes | None:
    """The answer of the child `pid` on the pipe `read` (closed here), once it has ended; None
    when it failed."""
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    return data if os.waitstatus_to_exitcode(status) == 0 and data else None


def _stop(pid: int, read: int) -> tuple[int, int]:
    """Kill and reap the child `pid` (if any) and close `read` (if open): (0, -1)."""
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
    if read >= 0:
        os.close(read)
    return 0, -1


class Standby(Generic[A, T]):
    """A forked child that runs `prepare()` at once, then `fn(arg)` when `give(arg)` sends one.

    The child pays a slow start (imports) while this process does other work, before it knows
    what to ask. Never given anything, it is stopped by `close()`. Where fork is unavailable or the
    child fails, `result()` computes `fn(arg)` here instead.
    """

    def __init__(self, fn: Callable[[A], T], prepare: Callable[[], object]) -> None:
        self._fn = fn
        self._arg: A | None = None
        self._given = False
        self._pid = 0
        self._read = self._write = -1
        self._sender: threading.Thread | None = None
        forked = _fork_with_pipes()
        if forked is None:
            return
        pid, ask, (answer_read, answer_write) = forked
        if pid == 0:  # the child: prepare, wait for the argument, compute, send, leave
            _answer_once(prepare, partial(_given, fn), ask, (answer_read, answer_write))
        os.close(ask[0])
        os.close(answer_write)
        self._pid, self._read, self._write = pid, answer_read, ask[1]

    def give(self, arg: A) -> None:
        """Have the child compute `fn(arg)` (sent from a thread: the child may still be preparing)."""
        self._arg, self._given = arg, True
        if not self._pid:
            return
        data = pickle.dumps(arg, protocol=pickle.HIGHEST_PROTOCOL)
        write = self._write
        self._write = -1

        def send() -> None:
            try:
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(data)
            except OSError:
                pass  # the child is gone: `result()` computes here

        self._sender = threading.Thread(target=send, daemon=True)
        self._sender.start()

    def close(self) -> None:
        """Stop and reap the child."""
        self._pid, self._read = _stop(self._pid, self._read)
        if self._write >= 0:
            os.close(self._write)
            self._write = -1
        if self._sender is not None:
            self._sender.join()
            self._sender = None

    def result(self) -> T:
        """`fn(arg)` of the argument given: from the child, or computed here if it failed."""
        if not self._given:
            raise RuntimeError("result() before give()")
        if self._pid:
            read, self._read = self._read, -1  # closed by `_answer` now
            data = _answer(self._pid, read)
            self._pid = 0
            if self._sender is not None:
                self._sender.join()
                self._sender = None
            if data is not None:
                value: T = pickle.loads(data)
                return value
        return self._fn(self._arg)  # type: ignore[arg-type]


def _small_pipe(fd: int) -> None:
    """Shrink a pipe's buffer to a page where the system allows (Linux), so that items wait in
    the sender's queue, where the heaviest is taken first, rather than in the pipe, in order."""
    try:
        import fcntl  # noqa: PLC0415 - not on Windows

        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 4096)
    except (ImportError, AttributeError, OSError):
        pass


def _heaviest(queue: list[tuple[float, bytes] | None]) -> int:
    """The index of the heaviest item queued (the first of equal weights); the end (None) only
    when nothing else is left."""
    best, top = 0, None
    for index, entry in enumerate(queue):
        if entry is not None and (top is None or entry[0] > top):
            best, top = index, entry[0]
    return best


class Feed(Generic[A, T]):
    """A forked child that runs `prepare()` at once, then `fn(items)` on the objects `put()`
    sends, as they come (`items` ends once `end()` is called), and sends the result back.

    Where `Standby` waits for its whole argument, a feed's child starts on the first item while
    this process is still making the next. Where fork is unavailable or the child fails,
    `result()` is None: the caller computes here instead.
    """

    def __init__(self, fn: Callable[[Callable[[], A | None]], T], prepare: Callable[[], object]) -> None:
        self._pid = 0
        self._read = -1
        self._queue: list[tuple[float, bytes] | None] = []
        self._ready = threading.Condition()
        self._sender: threading.Thread | None = None
        forked = _fork_with_pipes()
        if forked is None:
            return
        pid, ask, (answer_read, answer_write) = forked
        if pid == 0:  # the child: prepare, then compute over the items as they come, send, leave
            _answer_once(
                prepare, lambda read: fn(partial(_next_item, read)), ask, (answer_read, answer_write)
            )
        os.close(ask[0])
        os.close(answer_write)
        self._pid, self._read = pid, answer_read
        _small_pipe(ask[1])
        # Items are written from a thread: the child reads them only between its computations.
        self._sender = threading.Thread(target=self._send_all, args=(ask[1],), daemon=True)
        self._sender.start()

    @property
    def alive(self) -> bool:
        """Whether items go to a child (False without fork, or once closed)."""
        return self._pid != 0

    def put(self, item: A, weight: float = 0.0) -> None:
        """Send `item` to the child (queued: this never waits for the child). Of the items queued
        while the child is busy, the heaviest goes first (the first put, of equal weights), so
        that the longest work is not left to the end while the child's forks sit idle."""
        if self._pid:
            try:
                data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # pickling fails in many ways (a local object: AttributeError)
                self.close()  # what cannot be sent is computed here, with the rest
                return
            with self._ready:
                self._queue.append((weight, data))
                self._ready.notify()

    def end(self) -> None:
        """No more items: the child's `items` ends once it has read those sent."""
        with self._ready:
            self._queue.append(None)
            self._ready.notify()

    def _send_all(self, write: int) -> None:
        try:
            while True:
                with self._ready:
                    while not self._queue:
                        self._ready.wait()
                    entry = self._queue.pop(_heaviest(self._queue))
                if entry is None:
                    return
                _send(write, entry[1])
        except OSError:
            pass  # the child is gone: `result()` says so
        finally:
            os.close(write)

    def close(self) -> None:
        """Stop and reap the child."""
        self._pid, self._read = _stop(self._pid, self._read)
        self._drop()

    def result(self) -> T | None:
        """`fn`'s result over the items sent (call `end()` first); None if the child failed."""
        if not self._pid:
            return None
        read, self._read = self._read, -1  # closed by `_answer` now
        data = _answer(self._pid, read)
        self._pid = 0
        if data is not None:
            if self._sender is not None:  # the child read the feed to its end: the sender is done
                self._sender.join()
                self._sender = None
            value: T = pickle.loads(data)
            return value
        self._drop()
        return None

    def _drop(self) -> None:
        """Send nothing more, without waiting for the sender: the child's forks may still hold
        the feed open, and take what is being written once their current item is done (then
        they read its end, and leave)."""
        if self._sender is not None:
            with self._ready:
                self._queue.clear()
            self.end()
            self._sender = None


def _next_item(fd: int) -> Any:
    """The next item a feed sent on `fd`, or None once there are no more."""
    try:
        return pickle.loads(_receive(fd))
    except EOFError:
        return None


class Worker(Generic[A, T]):
    """A forked child that stays: it computes `fn(arg)` for every `submit(arg)`, in order, until
    `close()` or this process's exit (the end of its request pipe) stops it.

    For a long-running process (`--watch`) whose imports are warm: one fork serves every later
    request, so no request pays for a fork of a large process, nor its copy-on-write faults.
    `answer()` is None when the child failed in any way; the caller then computes here.
    """

    def __init__(self, fn: Callable[[A], T]) -> None:
        self._pid = 0
        self._read = self._write = -1
        self._sent = self._received = 0
        forked = _fork_with_pipes()
        if forked is None:
            return
        pid, (ask_read, ask_write), (answer_read, answer_write) = forked
        if pid == 0:  # pragma: no cover - the child; its work is checked through the parent
            try:
                os.close(ask_write)
                os.close(answer_read)
                # The objects this child starts with are long-lived: its collections skip them, or
                # each would walk (and copy, page by page) the whole of its parent's heap.
                gc.freeze()
                # A terminal's Ctrl-C reaches the whole process group: the parent decides.
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _serve(fn, ask_read, answer_write)
            finally:
                os._exit(0)
        os.close(ask_read)
        os.close(answer_write)
        self._pid, self._read, self._write = pid, answer_read, ask_write

    @property
    def alive(self) -> bool:
        """Whether requests go to the child (False once it failed or was closed)."""
        return self._pid != 0

    def poll(self) -> bool:
        """Whether the child is still there; one that ended (killed, say) is reaped and closed."""
        if self._pid:
            try:
                ended, _ = os.waitpid(self._pid, os.WNOHANG)
            except ChildProcessError:
                ended = self._pid
            if ended:
                self._pid = 0  # reaped: its id may be another process's now, never to be killed
                os.close(self._write)
                os.close(self._read)
        return self.alive

    def submit(self, arg: A) -> int | None:
        """Send `arg` to the child; the ticket for `answer()`, or None if there is no child.

        A request not answered yet is abandoned: its answer is read and dropped.
        """
        if not self._pid:
            return None
        try:
            while self._received < self._sent:  # answers nobody asked for: read them first,
                self._next()  # or the child could block writing one while this one writes
            _send(self._write, pickle.dumps(arg, protocol=pickle.HIGHEST_PROTOCOL))
        except (OSError, EOFError, pickle.PicklingError):
            self.close()
            return None
        self._sent += 1
        return self._sent

    def answer(self, ticket: int | None) -> T | None:
        """`fn(arg)` for the request `ticket`; None if the child failed (it is then closed)."""
        if ticket is None or not self._pid or ticket != self._sent or self._received >= ticket:
            return None  # no child, or a request abandoned by a later one
        try:
            data = b""
            while self._received < ticket:
                data = self._next()
            value: T | None = pickle.loads(data) if data else None
        except (OSError, EOFError, pickle.UnpicklingError, ValueError):
            self.close()
            return None
        if value is None:
            self.close()  # the function failed in the child: compute here from now on
        return value

    def _next(self) -> bytes:
        data = _receive(self._read)
        self._received += 1
        return data

    def close(self) -> None:
        """Stop and reap the child."""
        if self._pid:
            os.close(self._write)
            os.close(self._read)
            try:
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
            except OSError:
                pass
            self._pid = 0


def _serve(fn: Callable[[Any], Any], read: int, write: int) -> None:  # pragma: no cover - child
    """The worker's loop: a request in, its answer out (empty if `fn` failed), until end of input."""
    while True:
        try:
            request = _receive(read)
        except (OSError, EOFError):
            return
        try:
            data = pickle.dumps(fn(pickle.loads(request)), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            data = b""
        try:
            _send(write, data)
        except OSError:
            return


def _send(fd: int, data: bytes) -> None:
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view) :]


def _receive(fd: int) -> bytes:
    (size,) = struct.unpack("<Q", _exactly(fd, 8))
    return _exactly(fd, size)


def _exactly(fd: int, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the other end closed the pipe")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
