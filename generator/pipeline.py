"""Pipeline: the pure function from a toolset file to generated files plus diagnostics.

`check_toolset(path)` loads and validates; `generate(path, package)` also renders the package. Neither
writes anything: `write.py` is the only stage that touches the disk.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path

from generator import __version__
from generator.diagnostics import Diagnostic, has_errors, sort_diagnostics
from generator.ir import Toolset
from generator.load import load_document
from generator.validate import check_document


@dataclass(frozen=True)
class Checked:
    """A loaded and checked toolset: the IR (None on error), its diagnostics and its source files."""

    toolset: Toolset | None
    diagnostics: list[Diagnostic]
    sources: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return self.toolset is not None and not has_errors(self.diagnostics)


@dataclass(frozen=True)
class Generated:
    """Rendered files: `ours` are rewritten every run, `yours` are written only when missing."""

    ours: dict[str, str]
    yours: dict[str, str]
    diagnostics: list[Diagnostic]
    toolset: Toolset | None = None

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not has_errors(self.diagnostics)


def source_hash(paths: list[Path]) -> str:
    """Hash of the generator version and every source file's bytes (for the fast path)."""
    digest = hashlib.sha256(f"mcpstub {__version__}\n".encode())
    for path in paths:
        data = path.read_bytes()
        digest.update(f"{path.name}\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()[:32]


def check_toolset(path: Path, shown: str | None = None) -> Checked:
    """Load and validate a toolset file."""
    doc, diagnostics = load_document(path, shown)
    if has_errors(diagnostics):
        return Checked(None, sort_diagnostics(diagnostics), [path])
    toolset, more, files = check_document(doc)
    diagnostics = sort_diagnostics([*diagnostics, *more])
    sources = [path, *files]
    if toolset is None or has_errors(diagnostics):
        return Checked(None, diagnostics, sources)
    return Checked(replace(toolset, source_hash=source_hash(sources)), diagnostics, sources)


def render(toolset: Toolset) -> Generated:
    """Render a checked toolset into the files of its package."""
    from generator.models import render_models  # noqa: PLC0415 - heavy import, only when generating
    from generator.render import render_package  # noqa: PLC0415

    models = render_models(toolset)
    if has_errors(models.diagnostics):
        return Generated({}, {}, sort_diagnostics(models.diagnostics), toolset)
    package = render_package(toolset, models.source)
    return Generated(dict(package.ours), dict(package.yours), sort_diagnostics(models.diagnostics), toolset)


def generate(path: Path, shown: str | None = None) -> Generated:
    """Load, validate and render: the whole generation as a pure function."""
    checked = check_toolset(path, shown)
    if checked.toolset is None:
        return Generated({}, {}, checked.diagnostics)
    rendered = render(checked.toolset)
    return replace(rendered, diagnostics=sort_diagnostics([*checked.diagnostics, *rendered.diagnostics]))
