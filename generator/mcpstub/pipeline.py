"""Pipeline: from a toolset file to the generated files and diagnostics, top to bottom.

`check_toolset(path)` loads and validates; `generate(path)` also renders the package. Neither writes
the package (`write.py` does): what they write is the cache (`cache_dir`), which the engine keeps
by what its entries are made of, so the files are the same with it or without it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from mcpstub.diagnostics import Diagnostic, Location, error, has_errors, sort_diagnostics
from mcpstub.engine import memory
from mcpstub.engine.memory import remembering
from mcpstub.engine.pieces import ToolMemo
from mcpstub.engine.stamp import Hashing, source_hash
from mcpstub.engine.store import prune
from mcpstub.ir import Toolset
from mcpstub.layout import UNSAFE_IN_COMMENT
from mcpstub.load import Document, load_document
from mcpstub.policy import Policy
from mcpstub.validate import check_document

if TYPE_CHECKING:
    from mcpstub.engine.model_groups import ModelFeed
    from mcpstub.ir import Tool


@dataclass(frozen=True)
class Checked:
    """A loaded and checked toolset: the IR (None on error), its diagnostics and its source files."""

    toolset: Toolset | None
    diagnostics: list[Diagnostic]
    sources: list[Path] = field(default_factory=list)
    document: Document | None = None  # the loaded toolset file: where each value is written

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
    # What is left to do once the files are written (keeping this run's pieces for the next),
    # when the caller asked to do it then (`generate(..., later=True)`).
    later: Callable[[], None] | None = None
    hashes: Hashing | None = None  # the stamp's hashes of the files rendered before the models

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not has_errors(self.diagnostics)


@remembering()
def check_toolset(
    path: Path,
    shown: str | None = None,
    policy: Policy | None = None,
    memo: ToolMemo | None = None,
    follow: Callable[[Document], Callable[[Tool], None] | None] | None = None,
) -> Checked:
    """Load and validate a toolset file (tools `memo` saw check clean are taken from it).

    `follow`, given the loaded document, says what to call with each tool as it passes.
    """
    doc, diagnostics = load_document(path, shown)
    if has_errors(diagnostics):
        return Checked(None, sort_diagnostics(diagnostics), [path])
    toolset, more, files = check_document(doc, policy, memo, follow(doc) if follow is not None else None)
    if toolset is not None and re.search(UNSAFE_IN_COMMENT, toolset.source_name):
        # Every generated file's header names the toolset file: the name must read as it is.
        message = (
            f"the toolset file name {toolset.source_name!r} contains a control or bidirectional"
            " formatting character, or is not UTF-8"
        )
        more = [*more, error("toolset-file-name", message, Location(doc.file, 1, 1), "rename the file")]
    diagnostics = sort_diagnostics([*diagnostics, *more])
    sources = [path, *files]
    if toolset is None or has_errors(diagnostics):
        return Checked(None, diagnostics, sources)
    base = path.resolve().parent
    relative = tuple(Path(os.path.relpath(f, base)).as_posix() for f in files)
    fingerprint = policy.fingerprint(base) if policy is not None else ""
    # The bytes parsed, not the files again: a save during the run must not pass for what was read.
    read = {path: doc.raw, **{p: d.raw for p, d in doc.referenced.items()}}
    toolset = replace(toolset, source_hash=source_hash(sources, fingerprint, read), sources=relative)
    return Checked(toolset, diagnostics, sources, doc)


@remembering()
def render(
    toolset: Toolset,
    *,
    emit_tests: bool = False,
    client_only: bool = False,
    cache_dir: Path | None = None,
    source: Path | None = None,
    standby: ModelFeed | None = None,
    memo: ToolMemo | None = None,
) -> Generated:
    """Render a checked toolset into the files of its package.

    Models and the pieces made of each tool are reused from `cache_dir` (and from earlier runs in
    this process) where their input is unchanged; `source`, the toolset's path, names its pieces.
    `standby` (`model_groups.standby_models`) has workers ready to generate models, used or closed;
    `memo`, if given, is the one the check used.
    """
    from mcpstub.engine.model_groups import ModelCache, start_models  # noqa: PLC0415
    from mcpstub.format import compile_files  # noqa: PLC0415 - heavy imports, only when generating
    from mcpstub.pytext import RenderError  # noqa: PLC0415
    from mcpstub.render import models_file, render_package  # noqa: PLC0415

    # The models are the long pole: part of them is generated in a child while this process
    # renders and compile-checks every other file, which does not depend on them.
    pending = start_models(toolset, ModelCache(cache_dir) if cache_dir is not None else None, standby)
    try:
        try:
            memo = memo if memo is not None else ToolMemo(cache_dir, source)
            package = render_package(toolset, "", emit_tests=emit_tests, memo=memo, client_only=client_only)
        except RenderError as exc:
            problem = error("render-failed", str(exc), Location(toolset.source_name, 1, 1))
            return Generated({}, {}, [problem], toolset)
        others = {k: v for k, v in package.ours.items() if k != "models.py"}
        ours = compile_files(others, package.proven, memo)
        yours = compile_files(package.yours, package.proven, memo)
        hashes = Hashing(ours)  # while the models are finished elsewhere
        models = pending.result()
    finally:
        pending.close()
    diagnostics = sort_diagnostics(models.diagnostics)
    if has_errors(diagnostics):
        return Generated({}, {}, diagnostics, toolset)
    proven = {"models.py"} if pending.merged else set()
    ours.update(compile_files({"models.py": models_file(toolset, models.source)}, proven, memo))

    kept = memory.current()

    def later() -> None:
        with remembering(kept):
            memo.save()
        if cache_dir is not None:
            prune(cache_dir)

    ours = {name: ours[name] for name in package.ours}  # keep render's file order
    return Generated(ours, yours, diagnostics, toolset, later, hashes)


@remembering()
def generate(
    path: Path,
    shown: str | None = None,
    *,
    emit_tests: bool = False,
    client_only: bool = False,
    policy: Policy | None = None,
    cache_dir: Path | None = None,
    later: bool = False,
    standby: ModelFeed | None = None,
) -> Generated:
    """Load, validate and render: the whole generation as a pure function of the toolset's files.

    With `cache_dir`, models of unchanged groups of tools are read from there instead of being
    generated again; the files are the same either way. With `later`, what only serves the next
    run (storing this run's pieces) is left in the result's `later`, for the caller to call once
    the files are written. `standby` (`model_groups.standby_models()`, started as early as the
    caller could) is used and closed; without it, one is started here if it pays.
    """
    from mcpstub.engine.model_groups import ModelCache, standby_models  # noqa: PLC0415 - only when generating

    # Workers import the model generator while this process reads the toolset, then generate
    # each group's models as soon as the check has passed its tools.
    if standby is None:
        standby = standby_models()
    memo = ToolMemo(cache_dir, path)
    store = ModelCache(cache_dir) if cache_dir is not None else None
    follow = partial(standby.follow, store=store) if standby is not None else None
    try:
        checked = check_toolset(path, shown, policy, memo, follow)
        if checked.toolset is None:
            return Generated({}, {}, checked.diagnostics)
        try:
            rendered = render(
                checked.toolset,
                emit_tests=emit_tests,
                client_only=client_only,
                cache_dir=cache_dir,
                source=path,
                standby=standby,
                memo=memo,
            )
        except RecursionError:  # the loader bounds nesting; this is the last line of defence
            where = Location(checked.toolset.source_name, 1, 1)
            too_deep = error("too-deep", "the toolset nests too deeply to be generated", where)
            return Generated({}, {}, sort_diagnostics([*checked.diagnostics, too_deep]))
    finally:
        if standby is not None:
            standby.close()  # used by render, or not needed: its workers are let go
    if rendered.later is not None and not later:
        rendered.later()
        rendered = replace(rendered, later=None)
    return replace(rendered, diagnostics=sort_diagnostics([*checked.diagnostics, *rendered.diagnostics]))
