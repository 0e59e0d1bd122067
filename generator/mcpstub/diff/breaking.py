"""`mcpstub generate --check-breaking REV`: the toolset at a git revision against this one, before
writing; what breaks is said, and writing stops unless the server's major version was bumped.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from mcpstub.diagnostics import has_errors
from mcpstub.diff.command import EXIT_FOUND
from mcpstub.diff.engine import bump_needed, diff_sides
from mcpstub.diff.model import DiffOptions, Finding
from mcpstub.diff.report import in_lines, text_lines
from mcpstub.diff.source import side_from_toolset
from mcpstub.pipeline import check_toolset
from mcpstub.sources import NotAtRevision, side_from_git


def check_breaking(
    rev: str, path: Path, shown: str, config: dict[str, Any], options: DiffOptions, *, allow: bool
) -> tuple[int | None, int]:
    """`generate --check-breaking REV`: diff the toolset at `rev` with this one (`path`, shown as
    `shown`, checked by `config`'s policy), say what breaks; an exit code when generation must stop,
    and how many warnings were said (the search's files in `options.search_cache`, else in a folder
    gone after). An unreadable side at `rev` raises SourceError; this one's errors are left to the
    run to say, with every other."""
    checked = check_toolset(path, shown, config["policy"])
    if has_errors(checked.diagnostics) or checked.toolset is None:
        return None, 0  # (the run says each error, with every other)
    relative = os.path.relpath(path.resolve(), Path.cwd().resolve())
    spec = f"{rev}:{relative if relative.startswith('..') else './' + relative}"
    try:
        old = side_from_git(spec, replace(config["policy"], past=True))  # (read as it was released)
    except NotAtRevision:
        said = f"note: {shown} does not exist at {rev}: every tool is new, nothing is breaking"
        print(said, file=sys.stderr)
        return None, 0
    ignored: list[Finding] = []
    with TemporaryDirectory() as run_only:
        kept = replace(options, search_cache=options.search_cache or Path(run_only))
        new = side_from_toolset(checked)
        findings = diff_sides(old, new, kept, ignored)
    breaking = [f for f in findings if f.severity == "breaking"]
    also = f"; {len(ignored)} more ignored ([tool.mcpstub.diff] ignore)" if ignored else ""
    if not breaking:
        warned = [f for f in findings if f.severity == "warning"]  # (a form's change, an open object)
        if warned:
            said = f"{len(warned)} warning{'s' if len(warned) != 1 else ''} against {rev}, nothing breaking"
            lines = text_lines(warned)
            sys.stderr.write("\n".join([*lines, said + in_lines(lines, warned) + also]) + "\n")
        elif ignored:
            print(f"nothing breaking against {rev}{also}", file=sys.stderr)
        return None, len(warned)
    others = len(findings) - len(breaking)
    more = ""
    if others:
        more = f"; {others} warning or info finding{'s' if others != 1 else ''}: mcpstub diff shows "
        more += "them" if others != 1 else "it"
    lines = text_lines(breaking)
    summary = f"{len(breaking)} breaking{in_lines(lines, breaking)}{more}{also}"
    sys.stderr.write("\n".join([*lines, summary]) + "\n")
    if not options.check_version or any(f.rule == "version-not-bumped" for f in breaking):
        if allow:
            print(f"breaking changes against {rev}: allowed (--allow-breaking)", file=sys.stderr)
            return None, 0
        refusing = f"mcpstub: refusing to write: breaking changes against {rev}"
        if not options.check_version:  # (no version allows them: the check is off)
            print(f"{refusing} (version-check is off, so no version bump allows them)", file=sys.stderr)
            hint = "  hint: pass --allow-breaking, or turn version-check on and bump server.version"
            print(hint, file=sys.stderr)
            return EXIT_FOUND, 0
        kind, least = bump_needed(old.server_version, new.server_version)
        print(f"{refusing} without {kind}", file=sys.stderr)
        bump = f"to {least} or later" if least else "(its major number; in 0.x its minor number)"
        print(f"  hint: bump server.version {bump}, or pass --allow-breaking", file=sys.stderr)
        return EXIT_FOUND, 0
    if any(f.rule == "version-not-bumped" for f in ignored):  # (no bump, and none asked for)
        print(f"breaking changes against {rev}: allowed (version-not-bumped is ignored)", file=sys.stderr)
    else:
        moved = f"{old.server_version} -> {new.server_version}"
        said = f"breaking changes against {rev}, with the version bump they need (server.version {moved})"
        print(f"{said}: allowed", file=sys.stderr)
    return None, 0
