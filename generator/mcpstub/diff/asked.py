"""What a tool asks its user: two sides' requested schemas of one tool -> findings.

A requested schema is not part of the `Tool` object, so the schema rules do not see it on their own.
A question added is a warning (a client without elicitation cannot answer it), a removed one
information; one under another key, the same form, is information too (`elicitation-renamed`: a
typed client knows a form by its schema, not its key). A changed one is compared as an input is
(an answer is what the client sends): an answer of the old form the new one refuses is breaking,
shown with it; other changes are a warning (a typed client generated before no longer knows the
form), but for titles, descriptions and defaults alone, which judge no answer (information).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from mcpstub.diff.model import JSON, Finding, Severity, Side
from mcpstub.diff.typed import OPEN_OBJECT_ADVICE
from mcpstub.pointers import escape

ELICITATION_RULES = (
    "elicitation-added",
    "elicitation-removed",
    "elicitation-renamed",
    "elicitation-narrowed",
    "elicitation-changed",
    "elicitation-rewritten",
)
# The findings of an old -> new schema as an input schema's change gets them (paths in it).
Compared = Callable[[JSON, JSON], list[Finding]]


def elicitation_findings(tool: str, old: Side, new: Side, compared: Compared) -> list[Finding]:
    """The findings for the requested schemas of `tool`, present on both sides."""
    before, after = old.elicitations.get(tool, {}), new.elicitations.get(tool, {})
    found: list[Finding] = []
    severity: Severity
    renamed = _renamed(before, after)
    for key in sorted(before.keys() | after.keys()):
        path = "/elicitations/" + escape(key)
        if key in renamed.values():
            continue  # (said at its new key)
        if key in renamed:
            rule, severity = "elicitation-renamed", "info"
            message = (
                f"the form {renamed[key]!r} is now called {key!r} (the package's model of it is renamed "
                "too); answers are judged as before, and a typed client generated before still knows it"
            )
        elif key not in before:
            rule, severity, message = "elicitation-added", "warning", f"the tool now asks its user {key!r}"
        elif key not in after:
            rule, severity = "elicitation-removed", "info"
            message = f"the tool no longer asks its user {key!r}"
        elif _canon(before[key]) != _canon(after[key]):
            found.extend(_changed(tool, key, before[key], after[key], new, compared))
            continue
        else:
            continue
        where = new.locate(tool, path) if key in after else new.locate(tool, "")
        found.append(Finding(tool, rule, severity, "tool", path, message, where))
    return found


def _renamed(before: dict[str, JSON], after: dict[str, JSON]) -> dict[str, str]:
    """Each new key whose form is that of a key gone (`same_form`): new key -> old key."""
    from mcpstub_runtime.drift import same_form  # noqa: PLC0415 - what a typed client matches forms by

    gone = [key for key in sorted(before) if key not in after]
    renamed: dict[str, str] = {}
    for key in sorted(k for k in after if k not in before):
        new = after[key]
        match = next((g for g in gone if _both_objects(before[g], new) and same_form(before[g], new)), None)
        if match is not None:
            renamed[key] = match
            gone.remove(match)
    return renamed


def _both_objects(a: JSON, b: JSON) -> bool:
    return isinstance(a, dict) and isinstance(b, dict)


def _changed(tool: str, key: str, old: JSON, new: JSON, side: Side, compared: Compared) -> list[Finding]:
    from mcpstub_runtime.drift import same_form  # noqa: PLC0415 - what a typed client matches forms by

    path = "/elicitations/" + escape(key)
    place = side.locate(tool, path)
    if _both_objects(old, new) and same_form(old, new):
        message = (
            f"only titles, descriptions, defaults or the order of names or choices of {key!r} changed: "
            "answers are judged as before"
        )
        return [Finding(tool, "elicitation-rewritten", "info", "tool", path, message, place)]
    found = []
    for finding in compared(old, new):
        if finding.severity == "info":
            continue
        where = path + finding.path.removeprefix("/inputSchema")
        rule = "elicitation-narrowed" if finding.severity == "breaking" else "elicitation-changed"
        said = "an answer of the old form is refused: " if finding.severity == "breaking" else ""
        # (a form is a flat object MCP gives no additionalProperties: no advice to close it)
        message = finding.message.removesuffix(f"; {OPEN_OBJECT_ADVICE}")
        found.append(
            Finding(
                tool, rule, finding.severity, "tool", where, f"{key!r}: {said}{message}",
                side.locate(tool, where), finding.counterexample, finding.has_counterexample,
            )
        )  # fmt: skip
    if not found:
        message = (
            f"the form {key!r} changed: every answer of the old form is still taken, but a typed client "
            "generated before no longer knows it (its on_elicit gets it with form None)"
        )
        found.append(Finding(tool, "elicitation-changed", "warning", "tool", path, message, place))
    return found


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
