"""Memo: what rendering made of each tool, reused when the tool comes back unchanged.

Everything `render.py` derives from one tool alone (its literals, its stub, its digests and its
surface entries) is a pure function of the `Tool` and of mcpstub's own code. `ToolMemo` keeps
those pieces under a hash of both, in this process (a `--watch` session) and in one file per
toolset in the cache folder (a plain run), so an edit re-renders only the tools it touched. A
piece is stored only after the Python in it compiled on its own, so a reused piece needs no
compile check either. The file is written whole and renamed into place: concurrent runs see
whole files, last writer wins, and an unreadable or altered file is ignored (a cold render).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import tempfile
from dataclasses import fields
from pathlib import Path
from typing import Any

from mcpstub.fastpath import generator_fingerprint
from mcpstub.ir import Tool

_MAGIC = b"mcpstub-render-memo 1"
# Pieces kept in this process between runs (a `--watch` session): the last run's, by memo file.
_LIVE: dict[str, dict[str, dict[str, Any]]] = {}

Piece = dict[str, Any]


def _plain(value: object) -> object:
    if isinstance(value, frozenset | set):
        return sorted(value)
    if hasattr(value, "__dataclass_fields__"):
        return {f.name: getattr(value, f.name) for f in fields(value)}  # type: ignore[arg-type]
    raise TypeError(f"{type(value).__name__} in a tool")


def tool_key(tool: Tool) -> str:
    """Hash of every field of `tool` (in order, types kept apart) and of mcpstub's code."""
    digest = hashlib.sha256(generator_fingerprint().encode())
    for f in fields(Tool):
        value = getattr(tool, f.name)
        # JSON keeps 1, 1.0 and true apart and every container's order, which is part of the
        # output; values come from JSON documents, so there are no tuples to tell from lists.
        text = json.dumps(value, default=_plain, ensure_ascii=False, allow_nan=True)
        digest.update(f"\0{f.name}\0".encode() + text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class ToolMemo:
    """Rendered pieces by tool key: from this process, else from `folder` (None: none reused)."""

    def __init__(self, folder: Path | None, source: Path | None = None) -> None:
        where = str(source.resolve()) if source is not None else ""
        self._id = hashlib.sha256(where.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self._path = folder / "render-v1" / f"{self._id}.bin" if folder is not None else None
        self._old: dict[str, Piece] | None = None
        self._new: dict[str, Piece] = {}
        self.hits = 0

    def _load(self) -> dict[str, Piece]:
        if self._old is None:
            # Without a folder nothing is reused (`--no-cache`): a cold render.
            self._old = (_LIVE.get(str(self._path)) or self._read() or {}) if self._path is not None else {}
        return self._old

    def _read(self) -> dict[str, Piece] | None:
        if self._path is None:
            return None
        try:
            data = self._path.read_bytes()
        except OSError:
            return None
        head, _, body = data.partition(b"\n")
        if head != _MAGIC + b" " + hashlib.sha256(body).hexdigest().encode():
            return None
        try:
            pieces = marshal.loads(body)
        except (ValueError, EOFError, TypeError):
            return None
        return pieces if isinstance(pieces, dict) else None

    def get(self, key: str) -> Piece | None:
        """The pieces stored for `key`, or None."""
        piece = self._load().get(key)
        if piece is not None:
            self.hits += 1
            self._new[key] = piece
        return piece

    def put(self, key: str, piece: Piece) -> None:
        """Keep `piece` for this run's save."""
        self._new[key] = piece

    def save(self) -> None:
        """Keep this run's pieces (only those: tools gone are forgotten) for the next run."""
        if self._path is None:
            return
        old = self._load()
        _LIVE[str(self._path)] = self._new
        if self._new.keys() == old.keys() and self.hits == len(self._new):
            return
        body = marshal.dumps(self._new)
        data = _MAGIC + b" " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
        try:
            self._path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=self._path.parent, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temp, self._path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except OSError:
            return  # a cache that cannot be written costs the next run time, nothing else
