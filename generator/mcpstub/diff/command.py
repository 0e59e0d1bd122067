"""`mcpstub diff OLD NEW`: read both sides, diff them, print a report, choose the exit code.

Settings come from `[tool.mcpstub.diff]`; flags win over the file. Exit codes: 0 nothing at or above
`--fail-on`, 1 something is, 2 usage error (bad flag, missing or invalid source).
"""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path
from typing import Any, TypeVar

from mcpstub.diagnostics import Diagnostic, SourceError
from mcpstub.diff.engine import RULES, diff_sides
from mcpstub.diff.model import SEVERITIES, DiffOptions, Finding, Ignore, severity_rank
from mcpstub.diff.report import RENDERERS, render_diagnostics, render_junit_error, render_text
from mcpstub.diff.source import load_side
from mcpstub.errortext import unknown_keys

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2
CONFIG_KEYS = ("fail-on", "ignore", "version-check", "open-objects")


class ConfigProblem(ValueError):
    """The mistakes in `[tool.mcpstub.diff]`, every one: for each, where within it (`keys`: at the
    value there, or at the key where `at_key`) and what is wrong."""

    def __init__(self, problems: list[tuple[tuple[str | int, ...], str, bool]]) -> None:
        super().__init__("\n".join(message for _, message, _ in problems))
        self.problems = problems


def options_from_config(section: Any) -> tuple[DiffOptions, str | None]:
    """`[tool.mcpstub.diff]` as options and a fail-on level; mistakes raise ConfigProblem."""
    table = "[tool.mcpstub.diff]"
    if section is None:
        return DiffOptions(), None
    if not isinstance(section, dict):
        raise ConfigProblem([((), f"{table} must be a table", False)])
    problems: list[tuple[tuple[str | int, ...], str, bool]] = []

    def wrong(keys: tuple[str | int, ...], message: str, at_key: bool = False) -> None:
        problems.append((keys, message, at_key))

    unknown = [key for key in section if key not in CONFIG_KEYS]  # (said at the first written)
    if unknown:
        wrong((unknown[0],), f"unknown key(s) in {table}: {unknown_keys(unknown, CONFIG_KEYS)}", True)
    fail_on = section.get("fail-on")
    if fail_on is not None and fail_on not in SEVERITIES:
        wrong(("fail-on",), f"{table} fail-on must be one of {', '.join(SEVERITIES)}")
    check_version = section.get("version-check", True)
    if not isinstance(check_version, bool):
        wrong(("version-check",), f"{table} version-check must be true or false")
    open_objects = section.get("open-objects", "warn")
    if open_objects not in ("warn", "strict"):
        wrong(("open-objects",), f'{table} open-objects must be "warn" or "strict"')
    ignores: list[Ignore] = []
    raw = section.get("ignore", [])
    if not isinstance(raw, list):
        wrong(("ignore",), f"{table} ignore must be a list of tables")
        raw = []
    keys = ("tool", "rule", "reason")
    for i, item in enumerate(raw):
        where = f"{table} ignore[{i}]"
        if not isinstance(item, dict):
            wrong(("ignore", i), f"{where} must be a table with tool, rule and reason")
            continue
        before = len(problems)
        if unknown := [key for key in item if key not in keys]:
            said = f"unknown key(s) in {where}: {unknown_keys(unknown, keys)}"
            wrong(("ignore", i, unknown[0]), said, True)
        values = [v if isinstance(v, str) and v.strip() else None for v in map(item.get, keys)]
        if not all(values):
            missing = next(k for k, v in zip(keys, values, strict=True) if not v)
            said = f'{where} needs tool, rule and a non-empty reason (tool = "*" for every tool)'
            wrong(("ignore", i, missing), said)
        rule = values[1]
        if rule is not None and rule not in RULES:
            close = difflib.get_close_matches(rule, sorted(RULES), n=1)
            hint = f"did you mean {close[0]}?" if close else "diff shows each finding's rule in [brackets]"
            wrong(("ignore", i, "rule"), f"{where} rule {rule!r} is not a rule mcpstub diff reports ({hint})")
        if len(problems) == before:
            ignores.append(Ignore(*(str(v) for v in values)))
    if problems:
        raise ConfigProblem(problems)
    options = DiffOptions(check_version=check_version, ignore=tuple(ignores), open_objects=open_objects)
    return options, fail_on


def run(
    old_spec: str, new_spec: str, *, fmt: str, fail_on: str | None, options: DiffOptions,
    load: Any = None,
) -> int:  # fmt: skip
    """Diff two sources and print the report; returns the exit code. `load(spec, past)` reads a
    source (`past`: OLD's, read as it was)."""
    load = load or (lambda spec, _past: load_side(spec))
    try:
        old = load(old_spec, True)
        new = load(new_spec, False)
    except SourceError as exc:
        from mcpstub.server_listing import shown_url  # noqa: PLC0415

        error = shown_url(str(exc))  # a URL's password stays unsaid
        print(f"mcpstub: error: {error}", file=sys.stderr)
        if fmt == "github":  # a workflow shows why where it is written, not only in the log
            sys.stdout.write(render_diagnostics(_from_repository_root(exc.diagnostics)))
        elif fmt == "junit":  # a test report shows why, not an empty or a missing file
            sys.stdout.write(render_junit_error(error, exc.diagnostics))
        return EXIT_USAGE
    ignored: list[Finding] = []
    findings = diff_sides(old, new, options, ignored)
    if fmt == "github":
        findings = _from_repository_root(findings)
    sys.stdout.write(render_text(findings, len(ignored)) if fmt == "text" else RENDERERS[fmt](findings))
    threshold = severity_rank(fail_on or "breaking")
    return EXIT_FOUND if any(severity_rank(f.severity) >= threshold for f in findings) else EXIT_OK


Located = TypeVar("Located", Finding, Diagnostic)


def _from_repository_root(items: list[Located]) -> list[Located]:
    """Findings or diagnostics with each file named from the root of the git repository the
    command runs in: a workflow annotation attaches to a path from there (run from a subfolder,
    `../tools.yaml` would attach to nothing). Outside a repository, or for a file outside it, as
    they are."""
    from dataclasses import replace  # noqa: PLC0415

    from mcpstub.sources import _git, is_revision  # noqa: PLC0415

    here = Path.cwd().resolve()
    try:
        top = Path(_git(["rev-parse", "--show-toplevel"], here)).resolve()
    except (SourceError, OSError):
        return items
    revisions: dict[tuple[str, str], bool] = {}  # (REV, the folder of an absolute path) -> one?

    def in_revision(file: str) -> Path | None:
        """The file a `REV:path` name reads, where it stands in the repository (git's meaning of
        the path: from the root, or from here with `./` or `../`)."""
        rev, _, path = file.partition(":")
        key = (rev, os.path.dirname(path) if os.path.isabs(path) else "")
        if key not in revisions:
            revisions[key] = is_revision(file, here)
        if not revisions[key]:
            return None
        if os.path.isabs(path):  # (its folder as on disk, links followed, as it was read)
            return Path(os.path.dirname(path)).resolve() / os.path.basename(path)
        return Path(os.path.normpath((here if path.startswith(("./", "../")) else top) / path))

    def placed(item: Located) -> Located:
        location = item.location
        if location is None:
            return item
        path = in_revision(location.file) if ":" in location.file else None
        if path is None:
            path = Path(location.file).resolve()
            if not path.exists():
                return item
        if not path.is_relative_to(top):
            return item
        return replace(item, location=replace(location, file=path.relative_to(top).as_posix()))

    return [placed(item) for item in items]
