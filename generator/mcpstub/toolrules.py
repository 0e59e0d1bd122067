"""Tool rules: MCP-level checks of one tool entry, beyond the format's shape -> diagnostics.

- A name that MCP allows but some clients refuse (longer than 64 characters, or holding a `.`)
  is a warning naming the rule, so the author finds out before a client does.
- `execution.taskSupport: required|optional` is an error: the generated server serves no tasks,
  and a client that believes the advertisement would send requests nobody answers.
- Annotation keys beyond MCP's standard hints are advertised as written, with a warning.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from mcpstub.diagnostics import Diagnostic, error, warning
from mcpstub.document import Document, JsonPath
from mcpstub.resources import tool_keys
from mcpstub.spelling import folded, one_slip

# What the model APIs behind many clients accept as a function name.
PORTABLE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
STANDARD_ANNOTATIONS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
# The keys of a tool entry (the format's `Tool`), and those no annotation has: one written under
# `annotations` is most likely indented one level too deep.
ENTRY_KEYS = frozenset((*tool_keys(advertised=True), *tool_keys(advertised=False)))
TOOL_KEYS = ENTRY_KEYS - {"annotations", *STANDARD_ANNOTATIONS}


def check_tool_entry(doc: Document, path: JsonPath, raw: dict[str, Any], name_ok: bool) -> list[Diagnostic]:
    """Diagnostics for the tool entry at `path` (name_ok: the name passed MCP's own rules)."""
    found: list[Diagnostic] = []
    name = raw.get("name")
    if name_ok and isinstance(name, str) and not PORTABLE_NAME.fullmatch(name):
        why = "is longer than 64 characters" if len(name) > 64 else "contains '.'"
        found.append(
            warning(
                "tool-name-portability",
                f"tool name {name!r} {why}: valid in MCP, but some clients refuse it",
                doc.loc((*path, "name")),
                "clients that pass tools to model APIs accept only names matching ^[a-zA-Z0-9_-]{1,64}$",
            )
        )
    execution = raw.get("execution")
    support = execution.get("taskSupport") if isinstance(execution, dict) else None
    if support in ("required", "optional"):
        found.append(
            error(
                "task-support",
                f"tool {name!r}: execution.taskSupport {support!r} advertises tasks, but the generated "
                "server has no task machinery: a client would send task requests that nothing answers",
                doc.loc((*path, "execution", "taskSupport")),
                "remove execution, or write taskSupport: forbidden",
            )
        )
    written = raw.get("annotations")
    annotations: dict[str, Any] = written if isinstance(written, dict) else {}
    for key, value in annotations.items():
        meant = next((h for h in STANDARD_ANNOTATIONS if folded(key) == folded(h) or one_slip(key, h)), None)
        fits = isinstance(value, str if meant == "title" else bool)  # (`titles: {en: a}`: not one)
        fits = fits or (meant is not None and folded(key) == folded(meant))  # (`readonlyHint`: one, whatever)
        if key not in STANDARD_ANNOTATIONS and meant is not None and fits:
            found.append(  # (a slip, no extension: a client reads the hint by its exact name only)
                error(
                    "annotation-misspelled",
                    f"annotation {key!r} is MCP's {meant!r} misspelled: clients read only {meant!r}",
                    doc.key_loc((*path, "annotations", key)),
                    f"write {meant!r}",
                )
            )
        elif key not in STANDARD_ANNOTATIONS:
            close = difflib.get_close_matches(key, STANDARD_ANNOTATIONS, n=1, cutoff=0.75)
            hint = "it is advertised as written; clients may ignore it"
            if close:
                hint = f"did you mean {close[0]!r}?"
            if key in TOOL_KEYS and key not in raw:
                hint = tool_key_hint(doc, (*path, "annotations"), key)
            found.append(
                warning(
                    "annotation-extension",
                    f"annotation {key!r} is not one of MCP's standard hints",
                    doc.key_loc((*path, "annotations", key)),
                    hint,
                )
            )
    return found


def tool_key_hint(doc: Document, holder: JsonPath, key: str) -> str:
    """Where a key of the tool written under one of its keys (`holder`: its annotations or a
    schema) belongs: beside that key."""
    written, under = doc.key_loc(holder), doc.key_loc((*holder, key))
    tool = doc.data["tools"][holder[1]] if len(holder) > 1 and holder[0] == "tools" else None
    if isinstance(tool, dict) and key in tool:  # (moved, it would be written twice)
        return f"{key!r} is a key of the tool, which has one already: nothing reads this one"
    if under.line == written.line:  # `annotations: {..., elicitations: ...}`
        return f"{key!r} is a key of the tool: write it beside {holder[-1]!r}, not in its braces"
    return f"{key!r} is a key of the tool: indent it {written.col - 1} spaces, as {holder[-1]!r}"
