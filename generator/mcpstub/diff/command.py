"""`mcpstub diff OLD NEW`: read both sides, diff them, print a report, choose the exit code.

Settings come from `[tool.mcpstub.diff]`; flags win over the file. Exit codes: 0 nothing at or above
`--fail-on`, 1 something is, 2 usage error (bad flag, missing or invalid source).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mcpstub.diagnostics import SourceError
from mcpstub.diff.engine import diff_sides
from mcpstub.diff.model import SEVERITIES, DiffOptions, Ignore, Side, severity_rank
from mcpstub.diff.report import RENDERERS
from mcpstub.errortext import unknown_keys
from mcpstub.policy import Policy

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
CONFIG_KEYS = ("fail-on", "ignore", "version-check", "open-objects")


def load_side(spec: str, shown: str | None = None, policy: Policy | None = None) -> Side:
    """A diff side from a toolset file path (checked with the project's policy)."""
    from mcpstub.diagnostics import has_errors  # noqa: PLC0415
    from mcpstub.diff.source import side_from_toolset  # noqa: PLC0415
    from mcpstub.pipeline import check_toolset  # noqa: PLC0415

    path = Path(spec)
    if not path.is_file():
        raise SourceError(f"toolset file not found: {spec}")
    checked = check_toolset(path, shown or spec, policy)
    if has_errors(checked.diagnostics) or checked.toolset is None:
        for d in checked.diagnostics:
            print(d.format(), file=sys.stderr)
        raise SourceError(f"{shown or spec} is not a valid toolset; fix it first (mcpstub validate)")
    return side_from_toolset(checked)


def options_from_config(section: Any, origin: str) -> tuple[DiffOptions, str | None]:
    """`[tool.mcpstub.diff]` as options and a fail-on level; problems raise ValueError."""
    if section is None:
        return DiffOptions(), None
    if not isinstance(section, dict):
        raise ValueError(f"{origin}: [tool.mcpstub.diff] must be a table")
    unknown = sorted(set(section) - set(CONFIG_KEYS))
    if unknown:
        said = unknown_keys(unknown, CONFIG_KEYS)
        raise ValueError(f"{origin}: unknown key(s) in [tool.mcpstub.diff]: {said}")
    fail_on = section.get("fail-on")
    if fail_on is not None and fail_on not in SEVERITIES:
        raise ValueError(f"{origin}: [tool.mcpstub.diff] fail-on must be one of {', '.join(SEVERITIES)}")
    check_version = section.get("version-check", True)
    if not isinstance(check_version, bool):
        raise ValueError(f"{origin}: [tool.mcpstub.diff] version-check must be true or false")
    open_objects = section.get("open-objects", "warn")
    if open_objects not in ("warn", "strict"):
        raise ValueError(f'{origin}: [tool.mcpstub.diff] open-objects must be "warn" or "strict"')
    ignores: list[Ignore] = []
    raw = section.get("ignore", [])
    if not isinstance(raw, list):
        raise ValueError(f"{origin}: [tool.mcpstub.diff] ignore must be a list of tables")
    for i, item in enumerate(raw):
        where = f"{origin}: [tool.mcpstub.diff] ignore[{i}]"
        if not isinstance(item, dict) or set(item) - {"tool", "rule", "reason"}:
            raise ValueError(f"{where} must be a table with tool, rule and reason")
        values = [item.get(k) for k in ("tool", "rule", "reason")]
        if not all(isinstance(v, str) and v.strip() for v in values):
            raise ValueError(f'{where} needs tool, rule and a non-empty reason (tool = "*" for every tool)')
        ignores.append(Ignore(str(values[0]), str(values[1]), str(values[2])))
    options = DiffOptions(check_version=check_version, ignore=tuple(ignores), open_objects=open_objects)
    return options, fail_on


def run(
    old_spec: str, new_spec: str, *, fmt: str, fail_on: str | None, options: DiffOptions,
    load: Any = load_side,
) -> int:  # fmt: skip
    """Diff two sources and print the report; returns the exit code."""
    try:
        old = load(old_spec)
        new = load(new_spec)
    except SourceError as exc:
        from mcpstub.server_listing import shown_url  # noqa: PLC0415

        print(f"mcpstub: error: {shown_url(str(exc))}", file=sys.stderr)  # a URL's password stays unsaid
        return EXIT_USAGE
    findings = diff_sides(old, new, options)
    sys.stdout.write(RENDERERS[fmt](findings))
    threshold = severity_rank(fail_on or "breaking")
    return EXIT_FOUND if any(severity_rank(f.severity) >= threshold for f in findings) else EXIT_OK
