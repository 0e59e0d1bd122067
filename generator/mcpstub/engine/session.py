"""Session: what a long-running process (`--watch`) keeps from one run to the next.

Outside a session a run keeps nothing. Within `running(session)` each store is keyed by what its
values were made from:

- `models`: each group's models, by the hash of the group's input (`model_groups`);
- `reads`: each toolset file's last read, so a save is read again by the tools it changed (`reread`);
- `surface_texts`: each tool's text in `surface.json`, by the chunks it was made of (`surface`);
- `written`: each file written, with its stat just after: an unchanged file is not read back (`write`);
- `memo_files`, `tools`: rendered pieces by memo file, checked tools by input hash (`pieces`);
- `workers`: the model workers, kept warm between runs (`workers`);
- `entries`: cache entries the session holds in memory and writes to disk once, as it ends
  (`pieces`: the render memo of 500 tools is 23 MB, 40 ms to write on every save);
- `memory`: the current `Memory` within `running`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from mcpstub.engine.memory import Memory, remembering
from mcpstub.engine.store import write_entry

MAX_MODELS = 4096
# Times the model workers are replaced when they die (killed, say); then this process generates
# (`model_groups.session_feed`).
WORKER_RESTARTS = 3


class Workers(Protocol):
    """What a session needs of its model workers (`workers.ModelWorkers`)."""

    @property
    def alive(self) -> bool:
        """Whether they take units."""

    def close(self) -> None:
        """Let them go."""


@dataclass
class Session:
    """The stores of a long-running process; see the module's docstring."""

    models: dict[str, Any] = field(default_factory=dict)
    reads: dict[tuple[Path, str], Any] = field(default_factory=dict)
    surface_texts: dict[tuple[str, tuple[str, ...]], str] = field(default_factory=dict)
    written: dict[Path, tuple[tuple[int, int, int, int], str]] = field(default_factory=dict)
    memo_files: dict[str, dict[str, Any]] = field(default_factory=dict)
    tools: dict[str, Any] = field(default_factory=dict)
    entries: dict[Path, tuple[bytes, Callable[[], bytes]]] = field(default_factory=dict)
    workers: Workers | None = None
    restarts: int = WORKER_RESTARTS
    memory: Memory = field(default_factory=Memory)

    def keep_models(self, key: str, value: Any) -> None:
        """Keep one group's models (bounded: a full store starts over)."""
        if len(self.models) >= MAX_MODELS:
            self.models.clear()
        self.models[key] = value

    def close(self) -> None:
        """Write the entries left to the end, and let the workers go."""
        for path, (magic, body) in self.entries.items():
            if path.parent.parent.is_dir():  # (a cache folder deleted or moved since: not made again)
                write_entry(path, magic, body())
        self.entries.clear()
        if self.workers is not None:
            self.workers.close()


_CURRENT: ContextVar[Session | None] = ContextVar("mcpstub_session", default=None)


def current() -> Session | None:
    """The session this run belongs to, if any."""
    return _CURRENT.get()


@contextmanager
def running(session: Session | None) -> Iterator[Session | None]:
    """Run the code within as part of `session` (None: outside any session)."""
    token = _CURRENT.set(session)
    try:
        if session is None:
            yield session
        else:
            # What the last runs made of objects the session no longer holds is let go; of its
            # checked tools (the same object for the same input) it is kept.
            session.memory.forget_objects(session.tools.values())
            with remembering(session.memory):
                yield session
    finally:
        _CURRENT.reset(token)
