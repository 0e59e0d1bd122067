"""Diagnostics: problems found in a toolset, as values with a severity and a position.

Every stage returns its findings as `Diagnostic` values; errors block writing, warnings do not.
`format_diagnostic` renders the `file:line:col: error: message [code]` form the CLI prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    """How bad a diagnostic is: an error blocks generation, a warning does not."""

    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Location:
    """A 1-based position in a file, as shown to the user."""

    file: str
    line: int
    col: int


class SourceError(Exception):
    """A source (a toolset to diff, a listing to import, a revision) that cannot be read or is not
    what it should be; `location` points into it when it is a file."""

    def __init__(
        self, message: str, location: Location | None = None, diagnostics: Sequence[Diagnostic] = ()
    ) -> None:
        super().__init__(message)
        self.location = location
        self.diagnostics = list(diagnostics)  # a toolset's, where it is not a valid one


@dataclass(frozen=True)
class Diagnostic:
    """One problem, with what is wrong, where, and how to fix it."""

    severity: Severity
    code: str
    message: str
    location: Location
    hint: str | None = None
    # What it is about, where a stage that has no document names it: ("tool", name, class) or
    # ("$defs", name); the pipeline places it in the document (`pipeline._placed`).
    subject: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        """True when this diagnostic blocks generation."""
        return self.severity is Severity.ERROR

    def sort_key(self) -> tuple[str, int, int, str, str]:
        """Position first, so problems read top to bottom."""
        loc = self.location
        return (loc.file, loc.line, loc.col, self.code, self.message)

    def format(self) -> str:
        """Render as `file:line:col: severity: message [code]` plus an optional hint line."""
        loc = self.location
        where = f"{shown_text(loc.file)}:{loc.line}:{loc.col}"
        text = f"{where}: {self.severity.value}: {_bounded(self.message)} [{self.code}]"
        if self.hint:
            text += f"\n  hint: {_bounded(self.hint)}"
        return text


# Longer than this, a run of text without a space (a value, a name, a path through names written
# by the user) is shown by its ends: a 500-character name would bury what the line says.
_RUN_MAX = 160
_LONG_RUN = re.compile(rf"\S{{{_RUN_MAX + 1},}}")


def _bounded(text: str) -> str:
    """`text` with each run of over `_RUN_MAX` non-space characters cut in its middle."""
    if len(text) <= _RUN_MAX:
        return text
    keep = _RUN_MAX // 2 - 2
    return _LONG_RUN.sub(lambda m: f"{m[0][:keep]}...{m[0][-keep:]}", text)


def shown_text(text: str) -> str:
    """The text with each character a terminal would not show as itself escaped (control and
    bidirectional formatting characters, lone surrogates from a file name that is not UTF-8)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode() for char in text)


def error(code: str, message: str, location: Location, hint: str | None = None) -> Diagnostic:
    """Build an error diagnostic."""
    return Diagnostic(Severity.ERROR, code, message, location, hint)


def warning(code: str, message: str, location: Location, hint: str | None = None) -> Diagnostic:
    """Build a warning diagnostic."""
    return Diagnostic(Severity.WARNING, code, message, location, hint)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Sort by position and drop exact duplicates."""
    return sorted(set(diagnostics), key=Diagnostic.sort_key)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    """True when any diagnostic is an error."""
    return any(d.is_error for d in diagnostics)
