"""What a tool asks its user: two sides' requested schemas of one tool -> findings.

A requested schema is not part of the `Tool` object, so the schema rules do not see it. A question
added is a warning (a client without elicitation cannot answer it), a removed one information, a
changed one a warning naming the key (clients answering by program may answer the old form).
"""

from __future__ import annotations

import json

from mcpstub.diff.model import Finding, Severity, Side
from mcpstub.pointers import escape

ELICITATION_RULES = ("elicitation-added", "elicitation-removed", "elicitation-changed")


def elicitation_findings(tool: str, old: Side, new: Side) -> list[Finding]:
    """The findings for the requested schemas of `tool`, present on both sides."""
    before, after = old.elicitations.get(tool, {}), new.elicitations.get(tool, {})
    found: list[Finding] = []
    severity: Severity
    for key in sorted(before.keys() | after.keys()):
        path = "/elicitations/" + escape(key)
        if key not in before:
            rule, severity, message = "elicitation-added", "warning", f"the tool now asks its user {key!r}"
        elif key not in after:
            rule, severity, message = (
                "elicitation-removed",
                "info",
                f"the tool no longer asks its user {key!r}",
            )
        elif _canon(before[key]) != _canon(after[key]):
            rule, severity = "elicitation-changed", "warning"
            message = f"the requested schema of {key!r} changed: answers of the old form may be refused"
        else:
            continue
        where = new.locate(tool, path) if key in after else new.locate(tool, "")
        found.append(Finding(tool, rule, severity, "tool", path, message, where))
    return found


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
