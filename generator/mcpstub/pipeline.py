"""Pipeline: from a toolset file to the generated files and diagnostics, top to bottom.

`check_toolset(path)` loads and validates; `render(toolset)` makes the package's files; `generate(path)`
does both. None writes the package (`write.py` does). What they may reuse comes from the engine's run
(`engine.run`), which keeps it by what it was made of, so the files are the same with it or without.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mcpstub.diagnostics import Diagnostic, Location, error, has_errors, sort_diagnostics
from mcpstub.engine import run as engine_run
from mcpstub.engine.memory import remembering
from mcpstub.engine.stamp import source_hash
from mcpstub.ir import Toolset
from mcpstub.layout import UNSAFE_IN_COMMENT
from mcpstub.load import Document, load_document
from mcpstub.policy import Policy
from mcpstub.validate import check_document

if TYPE_CHECKING:
    from mcpstub.engine.ahead import Ahead


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
    ahead: Ahead | None = None  # the files rendered before the models: hashed and staged meanwhile
    # The files the run read, or looked for, the toolset first: what a change of may change the output.
    sources: tuple[Path, ...] = ()
    stubs: dict[str, tuple[str, str]] = field(default_factory=dict)  # each handler's (stub hash, form)

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not has_errors(self.diagnostics)


@remembering()
def check_toolset(path: Path, shown: str | None = None, policy: Policy | None = None) -> Checked:
    """Load and validate a toolset file."""
    doc, diagnostics = load_document(path, shown)
    if has_errors(diagnostics):
        return Checked(None, sort_diagnostics(diagnostics), [path])
    toolset, more, routes = check_document(doc, policy, engine_run.current().memo)
    if toolset is not None and re.search(UNSAFE_IN_COMMENT, toolset.source_name):
        # Every generated file's header names the toolset file: the name must read as it is.
        message = (
            f"the toolset file name {toolset.source_name!r} contains a control or bidirectional"
            " formatting character, or is not UTF-8"
        )
        more = [*more, error("toolset-file-name", message, Location(doc.file, 1, 1), "rename the file")]
    diagnostics = sort_diagnostics([*diagnostics, *more])
    sources = [path, *(path.parent / route for route in routes)]
    if toolset is None or has_errors(diagnostics):
        return Checked(None, diagnostics, sources)
    fingerprint = policy.fingerprint(path.resolve().parent) if policy is not None else ""
    # The bytes parsed, not the files again: a save during the run must not pass for what was read.
    read = {"": (path.resolve(), doc.raw)}
    raws = {led: referenced.raw for led, referenced in doc.referenced.items()}
    raws.setdefault(read[""][0], doc.raw)  # (a route to the toolset itself: a link to it)
    read.update((route, (led, raws[led])) for route, led in routes.items() if led is not None)
    hashed = source_hash(path, tuple(routes), fingerprint, read)
    toolset = replace(toolset, source_hash=hashed, sources=tuple(routes))
    return Checked(toolset, diagnostics, sources, doc)


@remembering()
def render(toolset: Toolset, *, emit_tests: bool = False, client_only: bool = False) -> Generated:
    """Render a checked toolset into the files of its package.

    Within a run (`engine.run.generating`), models and the pieces made of each tool are reused
    where their input is unchanged, and the run's workers generate the rest of the models.
    """
    from mcpstub.engine.ahead import Ahead  # noqa: PLC0415
    from mcpstub.engine.model_groups import start_models  # noqa: PLC0415
    from mcpstub.format import compile_files  # noqa: PLC0415 - heavy imports, only when generating
    from mcpstub.pytext import RenderError  # noqa: PLC0415
    from mcpstub.render import models_file, render_package  # noqa: PLC0415

    run = engine_run.current()
    # The models are the long pole: part of them is generated in a child while this process
    # renders and compile-checks every other file, which does not depend on them.
    pending = start_models(toolset, run.models, run.feed)
    try:
        try:
            package = render_package(
                toolset, "", emit_tests=emit_tests, memo=run.memo, client_only=client_only
            )
        except RenderError as exc:
            problem = error("render-failed", str(exc), Location(toolset.source_name, 1, 1))
            return Generated({}, {}, [problem], toolset)
        others = {k: v for k, v in package.ours.items() if k != "models.py"}
        ours = compile_files(others, package.proven, run.memo)
        yours = compile_files(package.yours, package.proven, run.memo)
        ahead = Ahead(ours, yours, run.staging)  # while the models are finished elsewhere
        models = pending.result()
    finally:
        pending.close()
    diagnostics = sort_diagnostics(models.diagnostics)
    if has_errors(diagnostics):
        return Generated({}, {}, diagnostics, toolset)
    proven = {"models.py"} if pending.merged else set()
    ours.update(compile_files({"models.py": models_file(toolset, models.source)}, proven, run.memo))
    run.rendered = True
    ours = {name: ours[name] for name in package.ours}  # keep render's file order
    return Generated(ours, yours, diagnostics, toolset, ahead, stubs=package.stubs)


@remembering()
def generate(
    path: Path,
    shown: str | None = None,
    *,
    emit_tests: bool = False,
    client_only: bool = False,
    policy: Policy | None = None,
    cache_dir: Path | None = None,
) -> Generated:
    """Load, validate and render: the whole generation as a pure function of the toolset's files.

    It runs in the caller's run (`engine.run.generating`, which the command line keeps open until
    the package is written), else in one of its own over `cache_dir`: models of unchanged groups
    of tools are read from there instead of being generated again. The files are the same either
    way.
    """
    if not engine_run.opened():
        from mcpstub.engine.model_groups import standby_models  # noqa: PLC0415 - only when generating

        # Workers import the model generator while this process reads and checks the toolset, then
        # generate each group's models while it renders the other files.
        with engine_run.generating(cache_dir, path, standby_models()):
            return generate(path, shown, emit_tests=emit_tests, client_only=client_only, policy=policy)
    checked = check_toolset(path, shown, policy)
    sources = tuple(checked.sources)
    if checked.toolset is None:
        return Generated({}, {}, checked.diagnostics, sources=sources)
    try:
        rendered = render(checked.toolset, emit_tests=emit_tests, client_only=client_only)
    except RecursionError:  # the loader bounds nesting; this is the last line of defence
        where = Location(checked.toolset.source_name, 1, 1)
        too_deep = error("too-deep", "the toolset nests too deeply to be generated", where)
        return Generated({}, {}, sort_diagnostics([*checked.diagnostics, too_deep]), sources=sources)
    placed = [_placed(d, checked) for d in rendered.diagnostics]
    return replace(rendered, diagnostics=sort_diagnostics([*checked.diagnostics, *placed]), sources=sources)


def _placed(d: Diagnostic, checked: Checked) -> Diagnostic:
    """`d` at the place in the toolset file its subject is written (the models, made without the
    document, name the tool and class, or the definition): the tool's schema, or the definition."""
    doc, toolset = checked.document, checked.toolset
    if not d.subject or doc is None or toolset is None or not isinstance(doc.data, dict):
        return d
    path: tuple[str | int, ...] | None = None
    if d.subject[0] == "$defs" and d.subject[1] in (doc.data.get("$defs") or {}):
        path = ("$defs", d.subject[1])
    elif d.subject[0] == "$defs" and d.subject[1] in doc.shared_from:  # written in another file
        there, at = doc.shared_from[d.subject[1]]
        return replace(d, location=there.key_loc(at))
    elif d.subject[0] == "tool":
        _, name, class_name = d.subject
        tools = doc.data.get("tools")
        tools = tools if isinstance(tools, list) else []
        index = next((i for i, t in enumerate(tools) if isinstance(t, dict) and t.get("name") == name), None)
        tool = next((t for t in toolset.tools if t.name == name), None)
        if index is not None and tool is not None:
            asks: dict[str, tuple[str, ...]] = {
                c: ("elicitations", key) for key, c in tool.elicitation_classes.items()
            }
            schema = asks.get(class_name, ("inputSchema",))
            if class_name == tool.output_class:
                schema = ("outputSchema",)
            path = ("tools", index, *schema)
    return d if path is None else replace(d, location=doc.key_loc(path))
