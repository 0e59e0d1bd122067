"""Render findings: text (default), JSON, GitHub workflow annotations, JUnit XML.

Each renderer takes the findings (already sorted) and returns the whole output as one string. Text
and annotations say findings alike but for their tool once (`grouped`); JSON and JUnit have one
entry a finding.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from xml.etree import ElementTree as ET

from mcpstub.diagnostics import Diagnostic, Location
from mcpstub.diff.facts import show
from mcpstub.diff.model import Finding

FORMATS = ("text", "json", "github", "junit")
_SCHEMA_PREFIX = {"input": "/inputSchema", "output": "/outputSchema"}
_NAMED = 10  # tools named in a line said of several (`--format json` has a finding for each)


def visible(text: str) -> str:
    """Text with every non-printing character escaped (`\\x1b`, `\\u202e`): names come from the
    sources, and a control character would move the cursor, reorder the line or break JUnit XML."""
    if text.isprintable():
        return text
    from mcpstub.pytext import char_escape  # noqa: PLC0415 - only for text that does not print

    return "".join(ch if ch.isprintable() else char_escape(ch) for ch in text)


def _where(finding: Finding, tools: list[str]) -> str:
    """`tool 'x' input /properties/a` (`tools 'x', 'y' ...` for a finding of several tools): the
    schema-relative pointer for schema findings."""
    if not finding.tool:
        return "server"
    path = finding.path
    prefix = _SCHEMA_PREFIX.get(finding.direction)
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        path = path[len(prefix) :] or "/"
    named = ", ".join(repr(tool) for tool in tools[:_NAMED])
    if len(tools) > _NAMED:
        named += f" and {len(tools) - _NAMED} more"
    text = f"tool{'s' if len(tools) > 1 else ''} {named}"
    text = text if finding.direction == "tool" else f"{text} {finding.direction}"
    return f"{text} {path}" if path else text


def _line(finding: Finding, tools: list[str] | None = None) -> str:
    tools = tools or [finding.tool]
    text = f"{_where(finding, tools)}: {finding.message}"
    if finding.has_counterexample:
        whose = f" for {finding.tool!r}" if len(tools) > 1 else ""
        text += f" (counterexample{whose}: {show(finding.counterexample, 120)})"
    return text


def grouped(findings: list[Finding]) -> list[tuple[Finding, list[str]]]:
    """Each finding with the tools it is said of: findings alike but for their tool (a shared
    definition that changed, found in every tool that takes it) are said once, where the first is."""
    groups: dict[tuple[object, ...], tuple[Finding, list[str]]] = {}
    for f in findings:
        key = (f.rule, f.severity, f.direction, f.path, f.message, f.location) if f.tool else (id(f),)
        groups.setdefault(key, (f, []))[1].append(f.tool)
    return list(groups.values())


def text_lines(findings: list[Finding]) -> list[str]:
    """`file:line:col: breaking: tool 'x' input /properties/a: message [rule]`, a line a finding
    (a line for findings alike but for their tool)."""
    lines = []
    for f, tools in grouped(findings):
        loc = f.location
        prefix = f"{loc.file}:{loc.line}:{loc.col}: " if loc is not None else ""
        lines.append(visible(f"{prefix}{f.severity}: {_line(f, tools)} [{f.rule}]"))
    return lines


def render_text(findings: list[Finding], ignored: int = 0) -> str:
    """`text_lines`, then a summary: how many findings of each severity (and in how many lines,
    where a line names several tools, and how many more the options ignore)."""
    counts = {s: sum(f.severity == s for f in findings) for s in ("breaking", "warning", "info")}
    lines = text_lines(findings)
    summary = ", ".join(f"{n} {s}" for s, n in counts.items()) + in_lines(lines, findings)
    if ignored:
        summary = f"{summary}; {ignored} more" if findings else f"no differences but {ignored}"
        summary += " ignored ([tool.mcpstub.diff] ignore)"
    return "\n".join([*lines, summary if findings or ignored else "no differences"]) + "\n"


def in_lines(lines: list[str], findings: list[Finding]) -> str:
    """` (findings of each tool, in 2 lines)` where `lines` say `findings` in fewer lines, else ""."""
    if len(lines) >= len(findings):
        return ""
    return f" (findings of each tool, in {len(lines)} line{'s' * (len(lines) != 1)})"


def render_json(findings: list[Finding]) -> str:
    """A JSON list of finding objects."""
    return json.dumps([f.as_json() for f in findings], indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(findings: list[Finding]) -> str:
    """GitHub workflow commands: `::error file=..,line=..,col=..,title=..::message`."""
    level = {"breaking": "error", "warning": "warning", "info": "notice"}
    lines = [  # (a step shows only its first ten errors)
        _annotation(level[f.severity], f.location, f"{f.severity} [{f.rule}]", _line(f, tools))
        for f, tools in grouped(findings)
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def _annotation(level: str, location: Location | None, title: str, text: str) -> str:
    """One workflow command: `::error file=..,line=..,col=..,title=..::text`."""
    props = []
    if location is not None:
        file = _escape_property(visible(location.file))
        props += [f"file={file}", f"line={location.line}", f"col={location.col}"]
    props.append(f"title={_escape_property(title)}")
    return f"::{level} {','.join(props)}::{_escape_data(visible(text))}"


def render_diagnostics(diagnostics: Sequence[Diagnostic]) -> str:
    """A toolset's diagnostics as workflow commands (`::error file=..,line=..,col=..,title=[code]::`)."""
    lines = [
        _annotation("error" if d.is_error else "warning", d.location, f"[{d.code}]",
                    d.message + (f" (hint: {d.hint})" if d.hint else ""))
        for d in diagnostics
    ]  # fmt: skip
    return "\n".join(lines) + ("\n" if lines else "")


def render_junit(findings: list[Finding]) -> str:
    """JUnit XML: one test case per finding; breaking findings are failures."""
    suite = _suite(len(findings), failures=sum(f.severity == "breaking" for f in findings))
    for f in findings:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=visible(f.tool or "server"),
            name=visible(f"{f.rule} {f.path or '/'}"),
        )
        body = _line(f)
        if f.location is not None:
            body = f"{f.location.file}:{f.location.line}:{f.location.col}: {body}"
        body = visible(body)
        if f.severity == "breaking":
            ET.SubElement(case, "failure", message=visible(f.message), type=f.rule).text = body
        else:
            ET.SubElement(case, "system-out").text = f"{f.severity}: {body}"
    return _xml(suite)


def render_junit_error(error: str, diagnostics: Sequence[Diagnostic]) -> str:
    """JUnit XML for an OLD or NEW that could not be diffed: an erroring test case for each of its
    errors (`error` alone where it has no diagnostics), so a test report shows why, not nothing."""
    said: list[Diagnostic | None] = [d for d in diagnostics if d.is_error]
    said = said or [None]
    suite = _suite(len(said), errors=len(said))
    for d in said:
        where = d.location if d is not None else None
        place = f"{where.file}:{where.line}:{where.col}" if where is not None else "source"
        text = error if d is None else d.message + (f" (hint: {d.hint})" if d.hint else "")
        case = ET.SubElement(suite, "testcase", classname="mcpstub diff", name=visible(place))
        kind = d.code if d is not None else "source"
        ET.SubElement(case, "error", message=visible(text), type=kind).text = visible(f"{place}: {text}")
    return _xml(suite)


def _suite(tests: int, failures: int = 0, errors: int = 0) -> ET.Element:
    counts = {"tests": tests, "failures": failures, "errors": errors, "skipped": 0}
    return ET.Element("testsuite", {"name": "mcpstub diff", **{k: str(n) for k, n in counts.items()}})


def _xml(suite: ET.Element) -> str:
    suites = ET.Element("testsuites")
    suites.append(suite)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


RENDERERS: dict[str, Callable[[list[Finding]], str]] = {
    "text": render_text,
    "json": render_json,
    "github": render_github,
    "junit": render_junit,
}
