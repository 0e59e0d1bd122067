"""Files of the cache folder: read only when they are plain files, kept while used, pruned when not.

An entry is a line `MAGIC SHA256` and a body, written to a temporary file and renamed into place, so
readers see whole files; a header that does not match its body is a miss. Entries are read without
following links or blocking, and only if regular: a FIFO, device or link planted at an entry's path
is a miss, never a hang. A read touches the entry (at most daily), so its mtime says when it was last
used. `prune` removes entries unused for `MAX_AGE` and, past `MAX_BYTES`, the longest unused first; it
runs at most once per `PRUNE_EVERY` and never fails a run: the cache is safe to delete at any time.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import sys
import tempfile
import time
from pathlib import Path

MAX_AGE = 30 * 86400
MAX_BYTES = 512 * 1024 * 1024
PRUNE_EVERY = 86400
_TOUCH_AFTER = 86400
# The folders holding entries (one file per entry, any depth): models by group, render memos.
MODELS_FOLDER = "models-v2"
RENDER_FOLDER = "render-v2"
ENTRY_FOLDERS = (MODELS_FOLDER, RENDER_FOLDER)
_STAMP = ".pruned"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def read_entry(path: Path, magic: bytes) -> bytes | None:
    """The body of an entry written with `magic`; None if missing, not a regular file, or altered."""
    data = _read_file(path)
    if data is None:
        return None
    head, _, body = data.partition(b"\n")
    if head != _header(magic, body):
        return None
    return body


def write_entry(path: Path, magic: bytes, body: bytes) -> None:
    """Store an entry whole; a cache that cannot be written is skipped (it costs time, nothing else)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(_header(magic, body) + b"\n" + body)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except OSError:
        pass


def open_regular(path: Path | str, *, follow: bool = True) -> int:
    """A descriptor (blocking, read-only) of the regular file at `path`. What is not one (a FIFO, a
    device: reading it could wait forever) raises IsADirectoryError, as a folder does; a missing
    file FileNotFoundError; a link, unless `follow`, an OSError."""
    flags = os.O_RDONLY | _NONBLOCK | getattr(os, "O_BINARY", 0) | (0 if follow else _NOFOLLOW)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise IsADirectoryError(errno.EISDIR, "not a regular file", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path) -> bytes:
    """The bytes of the regular file at `path` (`open_regular` says what else raises)."""
    with os.fdopen(open_regular(path), "rb") as handle:
        return handle.read()


def _header(magic: bytes, body: bytes) -> bytes:
    return magic + b" " + hashlib.sha256(body).hexdigest().encode()


def _read_file(path: Path) -> bytes | None:
    try:
        fd = open_regular(path, follow=False)
    except OSError:
        return None
    try:
        with os.fdopen(os.dup(fd), "rb") as handle:
            data = handle.read()
        if time.time() - os.fstat(fd).st_mtime > _TOUCH_AFTER:
            try:
                os.utime(fd if os.utime in os.supports_fd else path)
            except OSError:
                pass
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def prune(folder: Path, now: float | None = None) -> int:
    """Remove unused entries under `folder` (at most once per `PRUNE_EVERY`); the count removed."""
    now = time.time() if now is None else now
    stamp = folder / _STAMP
    try:
        if now - stamp.stat().st_mtime < PRUNE_EVERY:
            return 0
    except OSError:
        pass
    try:
        folder.mkdir(parents=True, exist_ok=True)
        stamp.touch()
        os.utime(stamp, (now, now))
    except OSError:
        return 0
    entries: list[tuple[float, int, str]] = []
    for name in ENTRY_FOLDERS:
        for root, _, files in os.walk(folder / name):
            for file in files:
                path = os.path.join(root, file)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                entries.append((info.st_mtime, info.st_size, path))
    entries.sort()
    total = sum(size for _, size, _ in entries)
    removed = 0
    for mtime, size, path in entries:
        if now - mtime <= MAX_AGE and total <= MAX_BYTES:
            break
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def default_cache_dir() -> Path:
    """The user cache folder of mcpstub (`$XDG_CACHE_HOME/mcpstub`, `~/.cache/mcpstub`, ...)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "mcpstub" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "mcpstub"
    base = os.environ.get("XDG_CACHE_HOME") or ""
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "mcpstub"
