"""Write: the only stage that touches the disk.

`plan` compares rendered files with the tree on disk; a file at an "ours" path that mcpstub did not
write is never overwritten. `apply` replaces the files all-or-nothing: each new text is staged beside
its target first, and if any step fails the files already replaced are put back.

A kill cannot be rolled back, so it must not go unnoticed: `layout.WRITING_MARKER` exists from before
the first replacement to after the last, and the generated `__init__.py` (replaced first) refuses to
load while it does. The next run removes a killed run's marker and staged files (`Plan.leftovers`).
Runs on one folder take turns (`locked`); where no lock can be taken, a staged file or backup
carries its run's process id and counts as left over only once that process is gone.
"""

from __future__ import annotations

import contextlib
import difflib
import errno
import importlib.util
import io
import os
import re
import secrets
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from mcpstub.engine import session
from mcpstub.engine.store import open_regular
from mcpstub.layout import (
    HEADER_PREFIX,
    RETIRED_FILES,
    STAGED_NAME,
    STAMP_FILE,
    STAMP_PREFIX,
    STOPPING_SIGNALS,
    SURFACE_PREFIX,
    TEMP_SUFFIX,
    WRITING_MARKER,
)


@dataclass
class Plan:
    """What a run would do to the output folder."""

    out: Path
    changes: dict[str, str] = field(default_factory=dict)  # relative path -> new text
    # Relative paths of `changes` and `removals` that are on disk; their text is read again when
    # a diff needs it (a large package is not held twice in memory).
    existing: set[str] = field(default_factory=set)
    # "ours" paths holding a hand-written file or a folder, and folders (`NAME/`) that are files
    foreign: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)  # handler modules with no tool
    created_yours: list[str] = field(default_factory=list)
    removals: list[str] = field(default_factory=list)  # generated files a run no longer writes
    leftovers: list[str] = field(default_factory=list)  # the marker and staged files of a killed run

    @property
    def stale(self) -> list[str]:
        """Generated files that are missing, differ or are obsolete; not the stamp, which records how
        the files were made, not what they say."""
        changed = (p for p in self.changes if p not in self.created_yours and p != STAMP_FILE)
        return sorted([*changed, *self.removals])

    def diff(self, base: str = "") -> str:
        """A unified diff of every change the run would make, for `git apply` (-p1) from where the
        output folder is `base` (posix), the stamp's too when a file changes (so that the tree it
        makes is the one a run writes). Lines on disk are compared as a run reads them but shown as
        written, so a CRLF checkout (git's autocrlf) gets a diff that applies to its bytes."""
        prefix = f"{base.strip('/')}/" if base.strip("/") not in {"", "."} else ""
        chunks: list[str] = []
        changed = {*self.removals, *self.changes}
        for rel in sorted(changed if self.stale or self.created_yours else changed - {STAMP_FILE}):
            old = _read_raw(self.out / rel) if rel in self.existing else None
            chunks.extend(_unified(old, self.changes.get(rel), prefix + rel))
        return "".join(chunks)


def _lines(text: str | None) -> list[str]:
    """Lines split at "\n" only (`str.splitlines` also splits at U+2028 and friends)."""
    return re.findall(r"[^\n]*\n|[^\n]+$", text or "")


def _read_raw(path: Path) -> str | None:
    """The text of the file at `path` as `_read` reads it, but with its line endings as written."""
    try:
        with _open(path, newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


# What git escapes in a quoted file name: control characters in octal, some by name.
_GIT_ESCAPES = {chr(code): f"\\{code:03o}" for code in (*range(0x20), 0x7F)} | {
    '"': '\\"', "\\": "\\\\", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v",
    "\f": "\\f", "\r": "\\r",
}  # fmt: skip


def _git_name(name: str) -> str:
    """A file name in a patch as git writes it: quoted, C-style, where it holds a quote, a
    backslash or a control character (else `git apply` cannot read the header)."""
    if not any(char in _GIT_ESCAPES for char in name):
        return name
    return '"' + "".join(_GIT_ESCAPES.get(char, char) for char in name) + '"'


def _unified(before: str | None, after: str | None, path: str) -> list[str]:
    """A unified diff from `before` (as on disk) to `after` ("\n" endings). A patch splits lines at
    "\n" only, so a line holding a bare "\r" (read by a run as two) shows as replaced; added lines
    end in "\r\n" where most of `before` does."""
    old = _lines(before)
    ending = "\r\n" if 2 * sum(line.endswith("\r\n") for line in old) > len(old) else "\n"
    new = [line[:-1] + ending if line.endswith("\n") else line for line in _lines(after)]
    # As a run reads them, but a last line without "\n" only ever matches one without it: a patch
    # cannot keep it as context and add lines after it.
    read = [line[:-2] + "\n" if line.endswith("\r\n") else line for line in old]
    old_name, new_name = _git_name(f"a/{path}"), _git_name(f"b/{path}")
    head = [f"diff --git {old_name} {new_name}\n"]  # (git's form: it can make or remove an empty file)
    if before is None:
        head.append("new file mode 100644\n")
    elif after is None:
        head.append("deleted file mode 100644\n")
    out: list[str] = []
    for group in _Matcher(read, _lines(after)).get_grouped_opcodes(3):
        if not out:
            out += [
                *head,
                f"--- {old_name if before is not None else '/dev/null'}\n",
                f"+++ {new_name if after is not None else '/dev/null'}\n",
            ]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [f" {line}" for line in old[i1:i2]]
                continue
            out += [f"-{line}" for line in old[i1:i2]]
            out += [f"+{line}" for line in new[j1:j2]]
    if not out and len(head) > 1:  # an empty file made or removed: the header alone says it
        return head
    return [line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n" for line in out]


Opcode = tuple[Literal["replace", "delete", "insert", "equal"], int, int, int, int]
# Past this many lines changed, difflib's own matching (the trace kept to find the shortest edits
# grows with their square).
MAX_EDITS = 1000


class _Matcher(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """difflib's hunks over a shortest edit script (Myers' greedy algorithm): its cost is about the
    lines between the first and last change times the lines changed, where difflib's matching is
    quadratic in the lines that repeat. Three tools changed in a 200,000-line `surface.json`:
    0.06 s against 52 s."""

    def __init__(self, a: list[str], b: list[str]) -> None:
        self._edits = shortest_edits(a, b, MAX_EDITS)
        if self._edits is None:
            super().__init__(None, a, b)

    def get_opcodes(self) -> list[Opcode]:
        return self._edits if self._edits is not None else super().get_opcodes()


def shortest_edits(a: list[str], b: list[str], limit: int) -> list[Opcode] | None:
    """difflib's opcodes of a shortest edit script from `a` to `b`; None past `limit` lines changed."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    n, m = len(a) - tail - head, len(b) - tail - head
    furthest, trace = {1: 0}, []  # furthest x on each diagonal k = x - y, kept for each count
    for edits in range(min(limit, n + m) + 1):
        trace.append(dict(furthest))
        for k in range(-edits, edits + 1, 2):
            down = k == -edits or (k != edits and furthest[k - 1] < furthest[k + 1])
            x = furthest[k + 1] if down else furthest[k - 1] + 1
            y = x - k
            while x < n and y < m and a[head + x] == b[head + y]:
                x, y = x + 1, y + 1
            furthest[k] = x
            if x >= n and y >= m:
                return _opcodes(_steps(trace, n, m), head, len(a), len(b))
    return None


def _steps(trace: list[dict[int, int]], x: int, y: int) -> list[str]:
    """The script, one step a line, walked back from its end through the trace."""
    steps: list[str] = []
    for edits in range(len(trace) - 1, -1, -1):
        furthest, k = trace[edits], x - y
        down = k == -edits or (k != edits and furthest[k - 1] < furthest[k + 1])
        before_x = furthest[k + 1 if down else k - 1]
        before_y = before_x - (k + 1 if down else k - 1)
        while x > before_x and y > before_y:
            steps.append("equal")
            x, y = x - 1, y - 1
        if edits:
            steps.append("insert" if down else "delete")
        x, y = before_x, before_y
    steps.reverse()
    return steps


def _opcodes(steps: list[str], head: int, len_a: int, len_b: int) -> list[Opcode]:
    """Runs of steps as difflib's opcodes (a run that deletes and inserts is a `replace`)."""
    runs: list[list[Any]] = [["equal", 0, head, 0, head]] if head else []
    i = j = head
    for step in steps:
        di, dj = int(step != "insert"), int(step != "delete")
        tag = "equal" if step == "equal" else "change"
        if runs and runs[-1][0] == tag:
            runs[-1][2], runs[-1][4] = i + di, j + dj
        else:
            runs.append([tag, i, i + di, j, j + dj])
        i, j = i + di, j + dj
    if i < len_a:
        runs.append(["equal", i, len_a, j, len_b])
    changed: dict[tuple[bool, bool], Literal["replace", "delete", "insert"]] = {
        (True, True): "replace",
        (True, False): "delete",
        (False, True): "insert",
    }
    return [
        ("equal" if t == "equal" else changed[(i1 < i2, j1 < j2)], i1, i2, j1, j2)
        for t, i1, i2, j1, j2 in runs
    ]


def _range(start: int, stop: int) -> str:
    """A hunk's line range as a unified diff writes it (`start,length`; 1-based)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def is_generated(text: str) -> bool:
    """True when a file carries mcpstub's generated header (or is a JSON file mcpstub writes), after
    the byte order mark some editors put first on a save."""
    return text.removeprefix("\ufeff").startswith((HEADER_PREFIX, STAMP_PREFIX, SURFACE_PREFIX))


def _read(path: Path) -> str | None:
    """The text of the file at `path` as a run reads it (`_open`), or None if there is none."""
    try:
        with _open(path) as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def _open(path: Path, errors: str = "replace", newline: str | None = None) -> TextIO:
    """The file as a run reads it: UTF-8 (what is not, as U+FFFD), any line ending as "\n". What is
    not a regular file (a FIFO, a device: reading one could wait forever) is refused as a folder
    is, with IsADirectoryError."""
    raw = io.FileIO(open_regular(path), "r")  # (owns the descriptor from here: no Python code runs)
    try:  # (the text layer runs the codec's Python code: a signal may stop it half-built)
        return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors=errors, newline=newline)
    except BaseException:
        raw.close()  # (closed once, whatever the half-built layers did: never another file's)
        raise


_HEAD = 4096  # characters read to tell a generated file (its header) from a hand-written one
_BLOCK = 1 << 20  # characters compared at a time


def _written() -> dict[Path, tuple[tuple[int, int, int, int], str]] | None:
    """In a session, each file's stat just after it was written, and its text: a file whose stat is
    unchanged is not read again. The stat holds the change time, which no tool can set back."""
    kept = session.current()
    return kept.written if kept is not None else None


def _stat_of(path: Path) -> tuple[int, int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino)


def text_of(path: Path) -> str:
    """The text of the file at `path` (UTF-8): in a session, what it last wrote there if the file
    is unchanged since, not read again. OSError, UnicodeDecodeError as reading it raises."""
    written = _written()
    known = written.get(path) if written is not None else None
    if known is not None and _stat_of(path) == known[0]:
        return known[1]
    with _open(path, errors="strict") as handle:
        return handle.read()


def _on_disk(path: Path, text: str) -> tuple[str | None, bool]:
    """The start of the file at `path` (None: none; "": not a file) and whether it holds `text`,
    read a block at a time so a large file is never held beside its new text."""
    written = _written()
    known = written.get(path) if written is not None else None
    if known is not None and _stat_of(path) == known[0]:
        return known[1][:_HEAD], known[1] == text
    try:
        handle = _open(path, errors="strict")  # (bytes not UTF-8 differ from any text)
    except FileNotFoundError:
        return None, False
    except IsADirectoryError:
        return "", False
    try:
        with handle:
            head = handle.read(_HEAD)
            at, block = 0, head
            while block:
                end = at + len(block)
                if text[at:end] != block:
                    return head, False
                at, block = end, handle.read(_BLOCK)
            return head, at == len(text)
    except UnicodeDecodeError:  # (U+FFFD in `text` must not match a byte that is not UTF-8)
        with _open(path) as replaced:
            return replaced.read(_HEAD), False


def plan(
    out: Path,
    ours: dict[str, str],
    yours: dict[str, str],
    handler_modules: set[str],
    optional: tuple[str, ...] = (),
    staging: Staging | None = None,
) -> Plan:
    """Compare rendered files with what is on disk; `optional` ours paths not rendered, and the
    files earlier versions wrote that this one does not (`RETIRED_FILES`), are removed. The files
    `staging` holds for this run are not left over."""
    result = Plan(out)
    for folder in sorted({str(Path(rel).parent) for rel in [*ours, *yours]} - {"."}):
        if os.path.lexists(out / folder) and not (out / folder).is_dir():  # (a file named `handlers`)
            result.foreign.append(folder + "/")
    for rel in (*RETIRED_FILES, *optional):
        if rel in ours or (rel in RETIRED_FILES and not os.path.lexists(out / rel)):
            continue  # rendered (compared below), or the usual case: nothing to read
        current, _ = _on_disk(out / rel, "")
        if current is not None and is_generated(current):
            result.removals.append(rel)
            result.existing.add(rel)
    for rel, text in ours.items():
        current, same = _on_disk(out / rel, text)
        if current is not None and not is_generated(current):
            result.foreign.append(rel)
            continue
        if not same:
            result.changes[rel] = text
            if current is not None:
                result.existing.add(rel)
    for rel, text in yours.items():
        if os.path.lexists(out / rel):
            if not (out / rel).is_file():  # a folder (or a broken link) where the file belongs
                result.foreign.append(rel)
            continue
        result.changes[rel] = text
        result.created_yours.append(rel)
    handlers = out / "handlers"
    if handlers.is_dir():
        for name in sorted(n for n in os.listdir(handlers) if n.endswith(".py")):
            stem = Path(name).stem
            if not stem.startswith("_") and stem not in handler_modules:
                result.orphans.append(f"handlers/{name}")
    own = staging.names if staging is not None else set()
    # `handlers` always: a run that stages stubs may be followed by a --client-only one.
    folders = {str(Path(rel).parent) for rel in [*ours, *yours]} | {"handlers"}
    result.leftovers = _leftovers(out, folders, own)
    result.foreign.sort()
    result.created_yours.sort()
    return result


# A staged file or backup: `.NAME.[PID-]TOKEN.mcpstub-tmp`, PID (hex) the process of the run
# that made it (absent in names older runs wrote), TOKEN one per file.
_STAGED = re.compile(STAGED_NAME)


def _leftovers(out: Path, folders: set[str], own: set[str]) -> list[str]:
    """The marker and staged files an interrupted run left in `out`, not this run's `own`. Under the
    folder's lock every other staged file is left over (process ids are reused); without it, not
    those of a live process."""
    found = [WRITING_MARKER] if (out / WRITING_MARKER).exists() else []
    held = _holds_lock(out)
    for folder in sorted(folders | {"."}):
        try:
            names = os.listdir(out / folder)
        except OSError:
            continue
        found += sorted(
            (Path(folder) / n).as_posix()
            for n in names
            if _STAGED.fullmatch(n)
            and n not in own
            and _is_file(out / folder / n)
            and (held or not _of_a_running_run(out / folder / n))
        )
    return found


def _is_file(path: Path) -> bool:
    """Whether `path` is a file or a link (what a run stages), not a folder."""
    try:
        return not stat.S_ISDIR(path.lstat().st_mode)
    except OSError:
        return False


# The output folders (real paths) whose lock this process holds (`locked`).
_LOCKED: set[str] = set()


def _holds_lock(out: Path) -> bool:
    return bool(_LOCKED) and os.path.realpath(out) in _LOCKED


# A run takes seconds; a file older than this is no running run's, whatever its process id says
# (the id may have been given to another process since).
_RUN_AGE = 3600.0


def _of_a_running_run(path: Path) -> bool:
    """Whether a staged file or backup belongs to a run still going on: its name carries the id of
    a running process, and it was made (or, a backup, linked) less than `_RUN_AGE` ago."""
    match = _STAGED.fullmatch(path.name)
    if match is None or match[1] is None or not _alive(int(match[1], 16)):
        return False
    try:
        made = path.lstat().st_ctime  # a hard link changes it: when the backup was made
    except OSError:
        return False
    return abs(time.time() - made) < _RUN_AGE


def _running_elsewhere(out: Path, folders: set[str], own: frozenset[str] | set[str] = frozenset()) -> bool:
    """Whether `out` holds staged files of a live run other than this run's `own` backups."""
    if _holds_lock(out):
        return False
    for folder in folders | {"."}:
        try:
            names = os.listdir(out / folder)
        except OSError:
            continue
        staged = (n for n in names if n[:1] == "." and n not in own and _STAGED.fullmatch(n))
        if any(_of_a_running_run(out / folder / n) for n in staged):
            return True
    return False


def _alive(pid: int) -> bool:
    """Whether the process `pid` runs (when that cannot be told: yes, so nothing of it is taken)."""
    if pid == os.getpid():
        return True
    if pid <= 0:  # no process's id (0 would signal our own process group)
        return False
    if os.name == "nt":  # pragma: no cover - Windows: os.kill(pid, 0) would send it Ctrl-C
        return _alive_windows(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError, ValueError):
        return True  # it exists (not ours to signal), or the number is no process id here
    return True


def _alive_windows(pid: int) -> bool:  # pragma: no cover - Windows only
    import ctypes  # noqa: PLC0415

    kernel32 = getattr(ctypes, "windll").kernel32  # noqa: B009 - absent from non-Windows stubs
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return bool(kernel32.GetLastError() == 5)  # access denied: it exists
    try:
        code = ctypes.c_ulong()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return True
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


@contextmanager
def locked(out: Path, *, writing: bool = True) -> Iterator[None]:
    """Hold the output folder's lock from planning to the last file written (shared when reading),
    so runs take turns. Without advisory locks (Windows) runs may overlap: each keeps to its own
    staged files (`_leftovers`), but the last to write a file wins."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    fd = -1
    held = ""
    try:
        if writing:
            out.mkdir(parents=True, exist_ok=True)
        fd = os.open(out, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX if writing else fcntl.LOCK_SH)
        # Only a writer's lock says every staged file there is left over: a run stages its files
        # before it takes the lock, so a reader sees those of a live run (`_leftovers`).
        held = os.path.realpath(out) if writing else ""
    except OSError:  # a folder not there yet (nothing to read), or one we cannot lock
        pass
    if held:
        _LOCKED.add(held)
    try:
        yield
    finally:
        _LOCKED.discard(held)
        if fd >= 0:
            os.close(fd)  # releases the lock


def replace_file(target: Path, text: str) -> None:
    """Write `text` (UTF-8, "\n" line endings) to `target` whole or not at all: staged beside it
    under a name of its own (never a path something else may be at), then renamed into place."""
    os.replace(_stage(target, text.encode("utf-8")), target)


def _stage(target: Path, data: bytes) -> Path:
    """A new temporary file beside `target` holding `data`, with `target`'s mode (else the umask's)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        tmp = _temp_name(target)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        except OSError as exc:  # (a folder that cannot be written: said of the file to be written)
            raise OSError(exc.errno, exc.strerror, str(target)) from None
        break
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


class Staging:
    """Files of a run staged before its plan is made: `apply` writes each new text to a file beside
    its target first, and a run stages what it rendered while its models are still being generated
    (`engine.ahead`). `apply` takes a staged file that holds the text it writes and is still there
    as staged, its target's mode unchanged (a run that held the folder's lock meanwhile removes it
    as left over); `discard` removes the files not taken and the folders made for them, and the
    output folder and those above it that were not there when the run began, if empty."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self._files: dict[str, _Staged] = {}
        absent, folder = [], out
        while not os.path.lexists(folder) and folder != folder.parent:
            absent.append(folder)
            folder = folder.parent
        self._made: list[Path] = absent  # folders to remove when empty, the deepest first
        self._lock = threading.Lock()
        self._closed = False

    def stage(self, rel: str, text: str, data: bytes) -> None:
        """Stage `data`, the bytes of `text`, for the file `rel` (from any thread; nothing once
        discarded: `discard` waits for a file being staged, so none is left cut short)."""
        target = self.out / rel
        with self._lock:
            if self._closed:
                return
            folder = target.parent
            while not folder.exists() and folder != folder.parent and folder not in self._made:
                self._made.insert(0, folder)
                folder = folder.parent
            mode = _mode(target)
            tmp = _stage(target, data)
            self._files[rel] = _Staged(text, tmp, _stat_of(tmp), mode)

    @property
    def names(self) -> set[str]:
        """The names of the files staged and not taken."""
        with self._lock:
            return {staged.tmp.name for staged in self._files.values()}

    def take(self, rel: str, text: str) -> Path | None:
        """The file staged for `rel` if it holds `text` and is still as staged; the caller's from
        then on."""
        with self._lock:
            staged = self._files.pop(rel, None)
        if staged is None:
            return None
        if (
            staged.text is text
            and staged.signature is not None
            and _stat_of(staged.tmp) == staged.signature
            and _mode(self.out / rel) == staged.mode
        ):
            return staged.tmp
        staged.tmp.unlink(missing_ok=True)
        return None

    def discard(self) -> None:
        """Remove every staged file not taken, and the folders made for them if empty (a file
        being staged meanwhile once it is written: the caller defers signals meanwhile)."""
        with self._lock:
            self._closed = True
            files, self._files = list(self._files.values()), {}
            made = list(self._made)
        for staged in files:
            staged.tmp.unlink(missing_ok=True)
        _remove_empty(made)


@dataclass(frozen=True)
class _Staged:
    text: str
    tmp: Path
    signature: tuple[int, int, int, int] | None
    mode: int | None  # its target's mode when it was staged (None: no file there)


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return None


def _remove_empty(folders: list[Path]) -> None:
    """Remove each of `folders` (the deepest first) that is empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            pass


def _temp_name(target: Path) -> Path:
    """A free name beside `target`, carrying this process's id: a later run recognizes it as left
    over (`_leftovers`) once this process is gone, and never while it runs."""
    return target.parent / f".{target.name}.{os.getpid():x}-{secrets.token_hex(4)}{TEMP_SUFFIX}"


def _keep(target: Path) -> Path | bytes | None:
    """What `target` holds now, to put back if the run fails: a second name for the file (no
    copy of its bytes) or, where links are not possible, its bytes; None if there is no file."""
    for _ in range(100):
        backup = _temp_name(target)
        try:
            os.link(target, backup, follow_symlinks=False)
            return backup
        except FileNotFoundError:
            return None
        except FileExistsError:
            continue
        except OSError:
            break
    try:
        return target.read_bytes()
    except FileNotFoundError:
        return None


def _restore(target: Path, before: Path | bytes | None) -> None:
    if before is None:
        target.unlink(missing_ok=True)
    elif isinstance(before, Path):
        os.replace(before, target)
    else:
        os.replace(_stage(target, before), target)


def _utf8(_rel: str, text: str) -> bytes:
    return text.encode("utf-8")


def apply(p: Plan, encoded: Callable[[str, str], bytes] = _utf8, staging: Staging | None = None) -> None:
    """Replace every changed file, all or nothing; remove what an interrupted run left. `encoded`
    gives a file's bytes; a file `staging` holds already is not written again."""
    if not (p.changes or p.removals or p.leftovers):
        return
    with interrupts_deferred():
        _apply(p, encoded, staging)


_STOPPING = tuple(getattr(signal, name) for name in STOPPING_SIGNALS if hasattr(signal, name))


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """A signal that stops a run (`layout.STOPPING_SIGNALS`) takes effect after the block: while
    files are replaced, once the package is whole again (between two steps the rollback would miss
    a file); while a run removes what it staged, once all of it is gone. Off the main thread no
    handler can be set."""
    caught: list[int] = []
    try:
        before = {number: signal.signal(number, lambda n, _: caught.append(n)) for number in _STOPPING}
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        if caught:
            signal.raise_signal(caught[0])


_UNWRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT})


def _apply(p: Plan, encoded: Callable[[str, str], bytes], staging: Staging | None) -> None:
    marker = p.out / WRITING_MARKER
    p.out.mkdir(parents=True, exist_ok=True)
    try:
        if marker.is_symlink() or (marker.exists() and not marker.is_file()):  # (a FIFO would wait)
            marker.unlink()  # (its name is the package's own)
        marker.write_text("mcpstub generate is writing this package; if no run is going on, run it again\n")
    except BaseException as exc:  # (a full disk): nothing is replaced, and no marker may stay
        with contextlib.suppress(OSError):
            marker.unlink(missing_ok=True)
        # (a folder that cannot be written is said of the package, not of its marker; a marker
        # that is a folder full of files is said as itself)
        if isinstance(exc, OSError) and exc.filename == str(marker) and exc.errno in _UNWRITABLE:
            raise OSError(exc.errno, f"cannot write the package: {exc.strerror}", str(p.out)) from None
        raise
    for rel in p.leftovers:
        if rel != WRITING_MARKER:
            (p.out / rel).unlink(missing_ok=True)
    staged: list[tuple[Path, Path]] = []
    done: list[tuple[Path, Path | bytes | None]] = []
    previous: dict[Path, Path | bytes | None] = {}
    # `__init__.py` first: from then on the package checks the marker before it loads anything.
    order = sorted(p.changes, key=lambda rel: (rel != "__init__.py", rel))
    created = {p.out / rel for rel in p.created_yours}
    try:
        for rel in order:
            target, text = p.out / rel, p.changes[rel]
            # A file created is only ever created (`_create`): nothing there is replaced.
            previous[target] = None if target in created else _keep(target)
            tmp = staging.take(rel, text) if staging is not None else None
            staged.append((tmp or _stage(target, encoded(rel, text)), target))
        for tmp, target in staged:
            if target not in created:
                os.replace(tmp, target)
            elif not _create(tmp, target):  # the user saved a file there since the plan: theirs stays
                if isinstance(before := previous.pop(target), Path):
                    before.unlink(missing_ok=True)
                continue
            done.append((target, previous.pop(target)))
        for rel in p.removals:
            target = p.out / rel
            backup = _temp_name(target)
            os.replace(target, backup)
            done.append((target, backup))
    except BaseException:
        if (written := _written()) is not None:
            written.clear()  # what is on disk now is read again
        for target, before in reversed(done):
            _restore(target, before)
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        for before in previous.values():
            if isinstance(before, Path):
                before.unlink(missing_ok=True)
        _unmark(p, marker)
        raise
    backups = [before for _, before in done if isinstance(before, Path)]
    if (written := _written()) is not None:
        for rel in order:
            target = p.out / rel
            signature = _stat_of(target)
            if signature is not None and rel not in p.created_yours:
                written[target] = (signature, p.changes[rel])
        for rel in p.removals:
            written.pop(p.out / rel, None)
    # Every file is in place: the package is whole once the marker is gone. The old files are
    # removed after that, since freeing a large file's blocks takes a while; a kill in between
    # leaves hidden backups, which the next run removes (the fast path does not skip it).
    _drop_bytecode(p.out, [*order, *p.removals])
    _unmark(p, marker, own={b.name for b in backups})
    for backup in backups:
        backup.unlink(missing_ok=True)


def _drop_bytecode(out: Path, rels: list[str]) -> None:
    """Remove what Python compiled of each module replaced or removed. It trusts a module's bytecode
    by the source's size and modification time in whole seconds: a module written again within
    the second it was imported, at the same size (a bound changed from 2 to 3), ran its old code."""
    stems: dict[Path, set[str]] = {}
    for rel in rels:
        if rel.endswith(".py"):
            stems.setdefault((out / rel).parent / "__pycache__", set()).add(Path(rel).stem)
            if sys.pycache_prefix:  # (PYTHONPYCACHEPREFIX: this interpreter's, in a tree of their own,
                # by the path the module was imported by: as written, without `..`, or links resolved)
                source = str(out / rel)
                for spelled in {source, os.path.abspath(source), os.path.realpath(source)}:
                    for level in ("", 1, 2):
                        with contextlib.suppress(OSError, ValueError):
                            os.unlink(importlib.util.cache_from_source(spelled, optimization=level))
    for cache, modules in stems.items():
        try:
            names = os.listdir(cache)
        except OSError:  # (none: nothing was compiled there)
            continue
        for name in names:
            if name.endswith(".pyc") and name.partition(".")[0] in modules:
                with contextlib.suppress(OSError):
                    os.unlink(cache / name)


def _create(tmp: Path, target: Path) -> bool:
    """Move the staged `tmp` to `target` only if nothing is there (a hard link fails if something
    is); False, `tmp` removed, where something is."""
    try:
        os.link(tmp, target, follow_symlinks=False)
    except FileExistsError:
        tmp.unlink(missing_ok=True)
        return False
    except OSError:  # a file system without hard links: moved there as any other file
        os.replace(tmp, target)
        return True
    tmp.unlink()
    return True


def _unmark(p: Plan, marker: Path, own: frozenset[str] | set[str] = frozenset()) -> None:
    """Remove the marker, unless another run is still writing the folder (its staged files or
    backups are there, not counting this run's `own` backups): the last run to finish removes it."""
    folders = {str(Path(rel).parent) for rel in [*p.changes, *p.removals]} | {"handlers"}
    if not _running_elsewhere(p.out, folders, own):
        marker.unlink(missing_ok=True)
