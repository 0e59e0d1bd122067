"""The values `diff` works on: two sides (old and new tool lists) and the findings between them.

Every source (a toolset file, a git revision, a surface snapshot, a live server) becomes a `Side`:
each tool's complete wire object, schemas self-contained, and where a pointer inside it sits in the
source. A `Finding` is one difference, located in NEW.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcpstub.diagnostics import Location

JSON = Any
Severity = Literal["breaking", "warning", "info"]
Direction = Literal["input", "output", "tool", "server"]
SEVERITIES: tuple[Severity, ...] = ("info", "warning", "breaking")


def severity_rank(severity: str) -> int:
    """info < warning < breaking."""
    return SEVERITIES.index(severity)  # type: ignore[arg-type, unused-ignore]


def _nowhere(tool: str, pointer: str) -> Location | None:
    return None


@dataclass(frozen=True)
class Side:
    """One version of a server's tools: `tools` maps each name to its complete wire object."""

    server_version: str | None
    tools: dict[str, dict[str, JSON]]
    # (tool name, JSON pointer inside the tool's wire object) -> where it is written, if known.
    locate: Callable[[str, str], Location | None] = _nowhere
    # What each tool asks its user: tool name -> key -> requested schema (a live server shows none).
    elicitations: dict[str, dict[str, JSON]] = field(default_factory=dict)
    # Whether the side shows what tools ask at all: a toolset or surface.json does; a live server
    # or a saved tools/list answer does not (the Tool object has no place for it).
    shows_asking: bool = True
    server_name: str | None = None
    # Whether the side shows its server's name and version: a saved tools/list answer does not.
    shows_server: bool = True


@dataclass(frozen=True)
class Ignore:
    """A rule ignored for one tool (or every tool with `tool="*"`), with the reason why."""

    tool: str
    rule: str
    reason: str


@dataclass(frozen=True)
class DiffOptions:
    """How `diff_sides` judges: version check, counterexample search bounds, ignored rules."""

    check_version: bool = True
    search: bool = True
    max_examples: int = 300
    search_seconds: float = 10.0  # CPU time per undecided change (wall time varies with load)
    search_budget_seconds: float = 20.0  # CPU time for every search of one diff together
    ignore: tuple[Ignore, ...] = field(default_factory=tuple)
    # An optional property added to an open input object: "warn" (a warning) or "strict" (breaking).
    open_objects: Literal["warn", "strict"] = "warn"
    # The folder the search keeps what hypothesis learns in (its unicode tables), below mcpstub's
    # cache folder; None: the user cache folder's.
    search_cache: Path | None = None


@dataclass(frozen=True)
class Finding:
    """One difference between OLD and NEW."""

    tool: str
    rule: str
    severity: Severity
    direction: Direction
    path: str  # JSON pointer inside the tool's wire object ("" for the whole tool)
    message: str
    location: Location | None = None
    counterexample: JSON = None
    has_counterexample: bool = False

    def as_json(self) -> dict[str, JSON]:
        """The JSON form: location and counterexample only when there is one."""
        data: dict[str, JSON] = {
            "tool": self.tool,
            "rule": self.rule,
            "severity": self.severity,
            "direction": self.direction,
            "path": self.path,
            "message": self.message,
        }
        if self.location is not None:
            loc = self.location
            data["location"] = {"file": loc.file, "line": loc.line, "col": loc.col}
        if self.has_counterexample:
            data["counterexample"] = self.counterexample
        return data
