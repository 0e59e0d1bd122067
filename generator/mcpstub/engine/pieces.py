"""Memo: what rendering made of each tool, reused when the tool comes back unchanged.

What `render.py` derives from one tool alone (literals, stub, digests, surface entries) is a pure
function of the `Tool` and of mcpstub's code. `ToolMemo` keeps those pieces under a hash of both, in a
session's memory and in one cache file per toolset (`store`: last writer wins; a session writes it
as it ends), so an edit re-renders only the tools it touched. A piece is stored only after its
Python compiled, so a reused piece needs no compile check; nor does a generated file whose exact
text compiled in an earlier run.
"""

from __future__ import annotations

import hashlib
import marshal
from dataclasses import fields
from pathlib import Path
from typing import Any

from mcpstub.engine import memory, session
from mcpstub.engine.fingerprints import condensed
from mcpstub.engine.stamp import environment_key, generator_fingerprint
from mcpstub.engine.store import RENDER_FOLDER, read_entry, write_entry
from mcpstub.ir import ClassName, Example, PythonIdentifier, Tool

_MAGIC = b"mcpstub-render-memo 3"
# What is derived from a checked tool and kept with it in the memo file, so that a tool taken
# from there is not hashed again: its key here, and the hash of what its models are made from.
TOOL_KEY = "key"
MODELS_DIGEST = "models-digest"
_KEPT_WITH_TOOL = (TOOL_KEY, MODELS_DIGEST)

Piece = dict[str, Any]


def _plain(value: object) -> object:
    """A field's value with only the exact built-in types marshal writes, in a fixed order."""
    if isinstance(value, str):
        return str(value)  # names are `str` subclasses
    if isinstance(value, frozenset | set):
        return ("set", *sorted(value))
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    if hasattr(value, "__dataclass_fields__"):
        return ("dataclass", *(_plain(getattr(value, f.name)) for f in fields(value)))  # type: ignore[arg-type]
    return value


def tool_plain(tool: Tool) -> tuple[object, ...]:
    """`tool`'s fields as `_plain` values to hash it by, definitions condensed (`fingerprints`)."""
    return tuple(_plain(_condensed(f.name, getattr(tool, f.name))) for f in fields(Tool))


def _condensed(field_name: str, value: object) -> object:
    if field_name in ("input_schema", "output_schema"):
        return condensed(value)
    if field_name == "advertised" and isinstance(value, dict):
        return {k: condensed(v) if k in ("inputSchema", "outputSchema") else v for k, v in value.items()}
    return value


def tool_key(tool: Tool) -> str:
    """Hash of every field of `tool` (in order, types kept apart) and of mcpstub's code."""
    return memory.of(TOOL_KEY, tool, _tool_key)


def _tool_key(tool: Tool) -> str:
    # marshal (version 2: no back-references, so equal values give equal bytes) writes the
    # values as they are, types and order included, at C speed. Schemas hold only JSON types.
    values = tool_plain(tool)
    try:
        data = marshal.dumps(values, 2)  # type: ignore[arg-type]
    except ValueError:  # something marshal cannot write: the slower, just as exact repr
        data = repr(values).encode("utf-8", "surrogatepass")
    return hashlib.sha256(generator_fingerprint().encode() + b"\0" + data).hexdigest()


class ToolMemo:
    """Rendered pieces by tool key, and texts known to compile: from this process, else from
    `folder` (None: nothing is reused)."""

    def __init__(self, folder: Path | None, source: Path | None = None) -> None:
        # One file per toolset and environment (whether a text compiles is the interpreter's say).
        origin = source.resolve() if source is not None else ""
        where = f"{origin}\0{environment_key()}\0{generator_fingerprint()}"
        name = hashlib.sha256(where.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        self._path = folder / RENDER_FOLDER / f"{name}.bin" if folder is not None else None
        self._old: dict[str, Any] | None = None
        self._pieces: dict[str, Piece] = {}
        self._checked: dict[str, tuple[Any, ...]] = {}
        self._tools: dict[str, Tool] = {}  # this run's checked tools, by key
        self._compiled: set[str] = set()
        self.hits = 0
        self._changed = False

    def _load(self) -> dict[str, Any]:
        if self._old is None:
            kept = session.current()  # a session keeps the last run's in memory
            live = kept.memo_files.get(str(self._path)) if kept is not None else None
            self._old = (live or self._read() or {}) if self._path is not None else {}
        return self._old

    def _read(self) -> dict[str, Any] | None:
        if self._path is None:
            return None
        body = read_entry(self._path, _MAGIC)
        if body is None:
            return None
        try:
            stored = marshal.loads(body)
        except (ValueError, EOFError, TypeError):
            return None
        if not isinstance(stored, dict) or not isinstance(stored.get("pieces"), dict):
            return None
        if not isinstance(stored.get("compiled"), frozenset) or not isinstance(stored.get("checked"), dict):
            return None
        return stored

    def get(self, key: str) -> Piece | None:
        """The pieces stored for `key`, or None."""
        piece: Piece | None = self._load().get("pieces", {}).get(key)
        if piece is not None:
            self.hits += 1
            self._pieces[key] = piece
        return piece

    def put(self, key: str, piece: Piece) -> None:
        """Keep `piece` for this run's save."""
        self._pieces[key] = piece
        self._changed = True

    def checked(self, key: str) -> tuple[Tool, int, frozenset[tuple[str, str]]] | None:
        """A tool that checked clean before from exactly this input, the bytes bundling copied and
        the toolset's definitions it reached, each with the dialect it was read in."""
        plain = self._load().get("checked", {}).get(key)
        if plain is None:
            return None
        kept = session.current()
        tool = kept.tools.get(key) if kept is not None else None
        try:
            if tool is None:
                tool = _tool_from_plain(plain[0])
            copied = int(plain[1])
            known = plain[2] if isinstance(plain[2], dict) else {}
            reached = frozenset((str(name), str(dialect)) for name, dialect in plain[3])
        except (TypeError, ValueError, IndexError):
            return None
        for name in _KEPT_WITH_TOOL:  # (with a session's tools, the same object for the same input)
            if isinstance(value := known.get(name), str) and memory.known(name, tool) is None:
                memory.put(name, tool, value)
        self._checked[key] = plain
        self._tools[key] = tool
        return tool, copied, reached

    def check_passed(self, key: str, tool: Tool, copied: int, reached: frozenset[tuple[str, str]]) -> None:
        """Remember that the input under `key` checked clean into `tool`."""
        self._checked[key] = (_tool_to_plain(tool), copied, {}, sorted(reached))
        self._tools[key] = tool
        self._changed = True

    def compile_check(self, path: str, text: str) -> None:
        """`render.compile_check`, skipped for a text that compiled before."""
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        if digest not in self._load().get("compiled", frozenset()):
            _compile_check(path, text)
            self._changed = True
        self._compiled.add(digest)

    def save(self) -> None:
        """Keep this run's pieces and texts (only those: what is gone is forgotten)."""
        if self._path is None:
            return
        old = self._load()
        for key, tool in self._tools.items():
            known = {name: hit for name in _KEPT_WITH_TOOL if (hit := memory.known(name, tool)) is not None}
            plain = self._checked[key]
            if plain[2] != known:
                self._checked[key] = (plain[0], plain[1], known, plain[3])
                self._changed = True
        stored = {"pieces": self._pieces, "checked": self._checked, "compiled": frozenset(self._compiled)}
        if (kept := session.current()) is not None:
            kept.memo_files[str(self._path)] = stored
            kept.tools = dict(self._tools)
        if not self._changed and old.get("pieces", {}).keys() == self._pieces.keys():
            return
        if kept is not None:  # written once, as the session ends
            kept.entries[self._path] = (_MAGIC, lambda: marshal.dumps(stored))
        else:
            write_entry(self._path, _MAGIC, marshal.dumps(stored))


def _compile_check(path: str, text: str) -> None:
    from mcpstub.compilecheck import compile_check  # noqa: PLC0415 - (tests replace it)

    compile_check(path, text)


def _tool_to_plain(tool: Tool) -> tuple[Any, ...]:
    """A checked tool as marshal writes it: built-in types only."""
    return tuple(
        (
            tuple((e.input, e.output, e.has_output) for e in value)
            if f.name == "examples"
            else str(value)
            if isinstance(value, str)
            else value
        )
        for f in fields(Tool)
        for value in (getattr(tool, f.name),)
    )


_NAME_TYPES: dict[str, Any] = {
    "identifier": PythonIdentifier,
    "class_prefix": ClassName,
    "input_class": ClassName,
    "output_class": ClassName,
    "result_class": ClassName,
}


def _tool_from_plain(plain: tuple[Any, ...]) -> Tool:
    values: dict[str, Any] = {}
    for f, stored in zip(fields(Tool), plain, strict=True):
        if f.name == "examples":
            values[f.name] = tuple(Example(*e) for e in stored)
        elif f.name in _NAME_TYPES and stored is not None:
            values[f.name] = _NAME_TYPES[f.name](stored)
        else:
            values[f.name] = stored
    return Tool(**values)


def check_key(raw: object, shared: bytes, policy: str) -> str | None:
    """The key of a tool's check: its entry as written, the shared definitions, the policy and
    mcpstub's code; None when the entry is not plain data."""
    try:
        data = marshal.dumps(raw, 2)  # type: ignore[arg-type]
    except ValueError:
        return None
    digest = hashlib.sha256(f"check\0{generator_fingerprint()}\0{policy}\0".encode())
    digest.update(shared + b"\0" + data)
    return digest.hexdigest()
