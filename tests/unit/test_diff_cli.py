"""`mcpstub diff OLD NEW` on toolset files: located findings, formats, exit codes, configuration."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from mcpstub.cli import main
from mcpstub.diff import Side, diff_sides

OLD = """\
mcpstub: 1
server: {name: s, version: 1.0.0}
$defs:
  City: {type: string, minLength: 1}
tools:
  - name: forecast
    description: Forecast.
    inputSchema:
      type: object
      properties:
        city: {$ref: "#/$defs/City"}
        days: {type: integer, maximum: 14}
      required: [city]
    outputSchema:
      type: object
      properties:
        summary: {type: string}
      required: [summary]
    annotations: {readOnlyHint: true}
  - name: gone
    inputSchema: {type: object}
"""


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.yaml").write_text(OLD)
    return tmp_path


def write_new(folder: Path, text: str) -> None:
    (folder / "new.yaml").write_text(text)


def test_text_report_locates_each_finding_in_new(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = (
        OLD.replace("minLength: 1", "minLength: 2")
        .replace("maximum: 14", "maximum: 7")
        .replace("required: [summary]", "required: []")
        .replace("Forecast.", "Forecast for a city.")
    )
    write_new(in_tmp, new.split("  - name: gone")[0])
    assert main(["diff", "old.yaml", "new.yaml"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert (
        "new.yaml:4:24: breaking: tool 'forecast' input /$defs/City/minLength: minLength tightened: "
        'minLength 1 -> minLength 2 (counterexample: {"city": "a"}) [input-constraint-tightened]'
    ) in lines
    assert any(
        line.startswith("new.yaml:12:31: breaking: tool 'forecast' input /properties/days/maximum:")
        and line.endswith("[input-constraint-tightened]")
        for line in lines
    ), lines
    assert (
        "new.yaml:17:9: breaking: tool 'forecast' output /properties/summary: property 'summary' is no "
        "longer required (counterexample: {}) [output-required-removed]"
    ) in lines
    gone = "tool 'gone': no longer served: a client that calls it fails [tool-removed]"
    assert f"new.yaml:5:1: breaking: {gone}" in lines
    assert (
        "new.yaml:7:5: info: tool 'forecast' /description: description changed [description-changed]" in lines
    )
    assert any("[version-not-bumped]" in line and line.startswith("new.yaml:2:") for line in lines)
    assert lines[-1] == "5 breaking, 0 warning, 1 info"


def test_no_change_exits_0(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "old.yaml", "old.yaml"]) == 0
    assert capsys.readouterr().out == "no differences\n"


def test_fail_on_threshold(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_new(in_tmp, OLD.replace("Forecast.", "Forecasts."))
    assert main(["diff", "old.yaml", "new.yaml"]) == 0
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "warning"]) == 0
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "info"]) == 1
    write_new(in_tmp, OLD.replace("readOnlyHint: true", "readOnlyHint: false"))
    assert main(["diff", "old.yaml", "new.yaml"]) == 0
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "warning"]) == 1


def test_json_github_and_junit_formats(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_new(in_tmp, OLD.replace("maximum: 14", "maximum: 7").replace("version: 1.0.0", "version: 2.0.0"))
    capsys.readouterr()
    assert main(["diff", "old.yaml", "new.yaml", "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [data[0][k] for k in ("tool", "rule", "direction")] == ["", "server-version-changed", "server"]
    assert data[1:] == [
        {
            "tool": "forecast",
            "rule": "input-constraint-tightened",
            "severity": "breaking",
            "direction": "input",
            "path": "/inputSchema/properties/days/maximum",
            "message": "maximum tightened: maximum 14 -> maximum 7",
            "location": {"file": "new.yaml", "line": 12, "col": 31},
            "counterexample": {"city": "a", "days": 14},
        }
    ]
    assert main(["diff", "old.yaml", "new.yaml", "--format", "github"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("::notice file=new.yaml,line=2,col=19,title=info [server-version-changed]::")
    assert out[1].startswith(
        "::error file=new.yaml,line=12,col=31,title=breaking [input-constraint-tightened]::tool "
    )
    assert main(["diff", "old.yaml", "new.yaml", "--format", "junit"]) == 1
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("tests") == "2"
    failure = suite.find("testcase/failure")
    assert failure is not None and failure.get("type") == "input-constraint-tightened"
    write_new(in_tmp, OLD.replace("maximum: 14", "maximum: 7"))  # (no major version bump)
    assert main(["diff", "old.yaml", "new.yaml", "--format", "json"]) == 1
    said = [(f["tool"], f["rule"], f["direction"]) for f in json.loads(capsys.readouterr().out)]
    assert said == [("", "version-not-bumped", "server"), ("forecast", "input-constraint-tightened", "input")]


def test_counterexample_shown_for_undecidable_rewrite(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = OLD.replace(
        "days: {type: integer, maximum: 14}", "days: {anyOf: [{type: integer, maximum: 14, minimum: 0}]}"
    )
    write_new(in_tmp, new.replace("version: 1.0.0", "version: 2.0.0"))
    assert main(["diff", "old.yaml", "new.yaml", "--format", "json"]) == 1
    version, finding = json.loads(capsys.readouterr().out)
    assert (version["rule"], version["severity"]) == ("server-version-changed", "info")
    assert finding["severity"] == "breaking" and finding["direction"] == "input"
    assert finding["path"].startswith("/inputSchema/properties/days")
    days = finding["counterexample"]["days"]
    assert isinstance(days, int) and days < 0


def test_a_renamed_server_is_said_where_its_name_is_written(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_new(in_tmp, OLD.replace("{name: s,", "{name: weather,"))
    assert main(["diff", "old.yaml", "new.yaml"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "new.yaml:2:10: info: server: server.name 's' -> 'weather' [server-name-changed]",
        "0 breaking, 0 warning, 1 info",
    ]
    tool = {"t": {"name": "t", "inputSchema": {"type": "object"}}}  # (a side that shows none: none said)
    assert diff_sides(Side("1.0.0", tool, server_name="s"), Side("1.0.0", tool)) == []
    assert diff_sides(Side("1.0.0", tool), Side(None, tool, shows_server=False)) == []
    assert diff_sides(Side(None, tool, shows_server=False), Side("2.0.0", tool)) == []
    # A name is quoted: a space it gains is seen.
    write_new(in_tmp, OLD.replace("{name: s,", "{name: 's ',"))
    assert main(["diff", "old.yaml", "new.yaml"]) == 0
    assert "server.name 's' -> 's ' [server-name-changed]" in capsys.readouterr().out


def test_a_server_s_name_and_version_are_said_where_a_snapshot_records_them(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = [{"name": name, "inputSchema": {"type": "object"}} for name in ("forecast", "gone")]
    protocols = {"2026-07-28": {"tools": tools}}
    snapshot = {"format": 1, "serverInfo": {"name": "w", "version": "2.0.0"}, "protocols": protocols}
    (in_tmp / "surface.json").write_text(json.dumps(snapshot, indent=2))
    (in_tmp / "listing.json").write_text(json.dumps(tools, indent=2))
    main(["diff", "old.yaml", "surface.json"])
    said = [line for line in capsys.readouterr().out.splitlines() if "server:" in line]
    assert said == [
        "surface.json:4:5: info: server: server.name 's' -> 'w' [server-name-changed]",
        "surface.json:5:5: info: server: server.version '1.0.0' -> '2.0.0' [server-version-changed]",
    ], said
    main(["diff", "old.yaml", "listing.json"])  # (a saved tools/list answer shows neither)
    assert "server:" not in capsys.readouterr().out


def test_config_sets_fail_on_and_ignores_with_reason(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_new(in_tmp, OLD.split("  - name: gone", maxsplit=1)[0].replace("version: 1.0.0", "version: 2.0.0"))
    (in_tmp / "pyproject.toml").write_text(
        '[tool.mcpstub.diff]\nfail-on = "warning"\n'
        'ignore = [{tool = "gone", rule = "tool-removed", reason = "never released"}]\n'
    )
    assert main(["diff", "old.yaml", "new.yaml"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "new.yaml:2:19: info: server: server.version '1.0.0' -> '2.0.0' [server-version-changed]",
        "0 breaking, 0 warning, 1 info; 1 more ignored ([tool.mcpstub.diff] ignore)",
    ]
    (in_tmp / "pyproject.toml").write_text(
        '[tool.mcpstub.diff]\nignore = [{tool = "gone", rule = "tool-removed"}]\n'
    )
    assert main(["diff", "old.yaml", "new.yaml"]) == 2
    assert "reason" in capsys.readouterr().err
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub.diff]\nfail-on = "sometimes"\n')
    assert main(["diff", "old.yaml", "new.yaml"]) == 2
    # This table's keys are written with hyphens, [tool.mcpstub]'s with underscores: either slip
    # is named with the key meant.
    capsys.readouterr()
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub.diff]\nfail_on = "warning"\n')
    assert main(["diff", "old.yaml", "new.yaml"]) == 2
    assert "unknown key(s) in [tool.mcpstub.diff]: fail_on (did you mean fail-on?)" in capsys.readouterr().err
    # `validate`, which checks what a project configured, says so too (not "ok").
    assert main(["validate", "new.yaml"]) == 2
    said = capsys.readouterr()
    assert "fail_on (did you mean fail-on?)" in said.err and "ok" not in said.out


@pytest.mark.parametrize(
    ("rule", "hint"),
    [
        ("tool-remove", "(did you mean tool-removed?)"),
        ("input-requried-added", "(did you mean input-required-added?)"),
        ("zzzz", "(diff shows each finding's rule in [brackets])"),
    ],
)
def test_an_ignore_of_a_rule_diff_never_reports_is_refused_where_it_is_written(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], rule: str, hint: str
) -> None:
    # A misspelled rule would ignore nothing, silently: every command that reads the table refuses it.
    write_new(in_tmp, OLD.split("  - name: gone", maxsplit=1)[0])
    (in_tmp / "pyproject.toml").write_text(
        "[tool.mcpstub.diff]\nignore = [\n"
        '  {tool = "*", rule = "tool-added", reason = "a"},\n'
        f'  {{tool = "gone", rule = "{rule}", reason = "b"}},\n]\n'
    )
    said = f"pyproject.toml:4:26: [tool.mcpstub.diff] ignore[1] rule {rule!r} is not a rule"
    said += f" mcpstub diff reports {hint}"
    for argv in (["diff", "old.yaml", "new.yaml"], ["validate", "new.yaml"]):
        assert main(argv) == 2
        assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    (in_tmp / "pyproject.toml").write_text(
        '[tool.mcpstub.diff]\nignore = [{tool = "gone", rule = "tool-removed", reason = "b"}]\n'
    )
    assert main(["diff", "old.yaml", "new.yaml", "--format", "json"]) == 0
    assert "tool-removed" not in capsys.readouterr().out
    # Every rule an ignore may name is one it silences: a server's finding too.
    (in_tmp / "new.yaml").write_text(OLD.replace("version: 1.0.0", "version: 1.0.1"))
    (in_tmp / "pyproject.toml").write_text(
        '[tool.mcpstub.diff]\nignore = [{tool = "*", rule = "server-version-changed", reason = "b"}]\n'
    )
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "info"]) == 0
    assert capsys.readouterr().out == "no differences but 1 ignored ([tool.mcpstub.diff] ignore)\n"


def test_a_shared_definition_changed_is_one_line_naming_the_tools_that_take_it(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = "".join(
        f"  - name: t{i}\n    inputSchema:\n      type: object\n"
        f"      properties: {{p{i % 2}: {{$ref: '#/$defs/City'}}}}\n"
        for i in range(12)
    )
    old = (
        "mcpstub: 1\nserver: {name: s, version: 1.0.0}\n$defs:\n  City:\n    type: string\n"
        f"    maxLength: 50\ntools:\n{tools}"
    )
    (in_tmp / "old.yaml").write_text(old)
    (in_tmp / "new.yaml").write_text(old.replace("maxLength: 50", "maxLength: 20").replace("1.0.0", "2.0.0"))
    assert main(["diff", "old.yaml", "new.yaml"]) == 1
    named = ", ".join(f"'t{i}'" for i in range(10))
    assert capsys.readouterr().out.splitlines() == [
        "new.yaml:2:19: info: server: server.version '1.0.0' -> '2.0.0' [server-version-changed]",
        f"new.yaml:6:5: breaking: tools {named} and 2 more input /$defs/City/maxLength: maxLength tightened:"
        f" maxLength 50 -> maxLength 20 (counterexample for 't0': {{\"p0\": \"{'a' * 49}\"}})"
        " [input-constraint-tightened]",
        "12 breaking, 0 warning, 1 info (findings of each tool, in 2 lines)",
    ]
    # Each tool's finding is its own in JSON (and JUnit), with its own counterexample.
    assert main(["diff", "old.yaml", "new.yaml", "--format", "json"]) == 1
    found = [f for f in json.loads(capsys.readouterr().out) if f["tool"]]
    each = [(f["tool"], f["counterexample"]) for f in found]
    assert each == [(f"t{i}", {f"p{i % 2}": "a" * 49}) for i in range(12)]
    # Annotations likewise: a workflow step shows only its first ten errors.
    assert main(["diff", "old.yaml", "new.yaml", "--format", "github"]) == 1
    assert [line.split(" ")[0] for line in capsys.readouterr().out.splitlines()] == ["::notice", "::error"]


def test_annotations_name_files_from_the_repository_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A workflow annotation attaches to a path from the repository's root, wherever the step runs.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, capture_output=True)
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "old.yaml").write_text(OLD)
    (tmp_path / "svc" / "new.yaml").write_text(OLD.replace("maximum: 14", "maximum: 7"))
    monkeypatch.chdir(tmp_path / "svc")
    assert main(["diff", "old.yaml", "new.yaml", "--format", "github", "--no-version-check"]) == 1
    assert capsys.readouterr().out.startswith("::error file=svc/new.yaml,line=12,col=31,")
    assert main(["diff", "old.yaml", "new.yaml", "--no-version-check"]) == 1  # text: from here
    assert capsys.readouterr().out.startswith("new.yaml:12:31: breaking:")
    # A NEW that is no valid toolset: its diagnostics are annotations too (and the log says them).
    (tmp_path / "svc" / "new.yaml").write_text(OLD.replace("type: integer", "type: intger", 1))
    assert main(["diff", "old.yaml", "new.yaml", "--format", "github"]) == 2
    said = capsys.readouterr()
    assert said.out.startswith("::error file=svc/new.yaml,line=") and "title=[unknown-type]::" in said.out
    assert "did you mean 'integer'?" in said.out and "new.yaml is not a valid toolset" in said.err


def test_version_check_flag(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_new(in_tmp, OLD.split("  - name: gone", maxsplit=1)[0])
    assert main(["diff", "old.yaml", "new.yaml", "--no-version-check", "--format", "json"]) == 1
    assert [f["rule"] for f in json.loads(capsys.readouterr().out)] == ["tool-removed"]


def test_usage_errors_exit_2(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "old.yaml", "missing.yaml"]) == 2
    assert "missing.yaml" in capsys.readouterr().err
    write_new(in_tmp, "mcpstub: 1\nserver: {name: s}\ntools: [{name: 'a b', inputSchema: {type: object}}]\n")
    assert main(["diff", "old.yaml", "new.yaml"]) == 2
    err = capsys.readouterr().err
    assert "new.yaml:3:" in err and "not a valid toolset" in err
    assert main(["diff", "old.yaml"]) == 2
    assert main(["diff", "old.yaml", "old.yaml", "--format", "xml"]) == 2


@pytest.mark.parametrize("key", ["server", "$defs"])
def test_a_toolset_without_its_format_version_is_said_so_not_read_as_a_saved_listing(
    in_tmp: Path, key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # A saved tools/list answer has `tools`, and no `server` or `$defs`: a toolset that lacks only
    # `mcpstub: 1` was taken for one, and diffed with its server version "not set".
    text = OLD.removeprefix("mcpstub: 1\n")
    if key == "$defs":
        text = text.replace("server: {name: s, version: 1.0.0}\n", "")
    write_new(in_tmp, text)
    assert main(["diff", "old.yaml", "new.yaml"]) == 2
    err = capsys.readouterr().err
    assert "new.yaml:1:1:" in err and "missing format version" in err and "mcpstub: 1" in err, err


def test_an_old_or_new_that_cannot_be_diffed_is_an_error_in_the_junit_report(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A CI job publishes the report: it must say why the diff did not run, not be empty.
    wrong = OLD.replace("type: integer", "type: intger", 1).replace("type: string", "type: strng", 1)
    write_new(in_tmp, wrong)
    assert main(["diff", "old.yaml", "new.yaml", "--format", "junit"]) == 2
    said = capsys.readouterr()
    suite = ET.fromstring(said.out).find("testsuite")
    assert suite is not None and suite.get("errors") == suite.get("tests") == "2", said.out
    errors = [(case.get("name"), case.find("error")) for case in suite.iter("testcase")]
    assert [name.split(":")[0] for name, _ in errors] == ["new.yaml", "new.yaml"], said.out
    assert all(e is not None and "did you mean" in (e.get("message") or "") for _, e in errors)
    assert "not a valid toolset" in said.err
    assert main(["diff", "old.yaml", "missing.yaml", "--format", "junit"]) == 2
    said = capsys.readouterr()
    (error,) = ET.fromstring(said.out).iter("error")
    assert "missing.yaml" in (error.get("message") or ""), said.out
    # JSON is a list of findings: a source that cannot be diffed leaves it unwritten (exit 2).
    assert main(["diff", "old.yaml", "missing.yaml", "--format", "json"]) == 2
    assert capsys.readouterr().out == ""


def test_a_change_inside_a_referenced_file_is_located_in_that_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A definition a `$ref` copies from another file (by a pointer, whole, or from a file that
    file references) is located where it is written, not at the toolset's reference."""
    monkeypatch.chdir(tmp_path)
    toolset = """\
mcpstub: 1
server: {name: s, version: 1.0.0}
tools:
  - name: t
    inputSchema:
      type: object
      properties:
        addr: {$ref: "common/types.yaml#/$defs/Addr"}
        street: {$ref: "common/types.yaml#/$defs/Addr/properties/street"}
        whole: {$ref: "whole.json"}
    outputSchema: {$ref: "common/types.yaml#/$defs/Addr"}
"""
    types_old = "$defs:\n  Addr:\n    type: object\n    properties:\n      street: {type: string}\n      geo: {$ref: 'geo.yaml#/$defs/Geo'}\n"  # noqa: E501
    for side, street, lat, whole in (
        ("old", "string", "number", "string"),
        ("new", "integer", "integer", "boolean"),
    ):
        (tmp_path / side / "common").mkdir(parents=True)
        (tmp_path / side / "tools.yaml").write_text(toolset, "utf-8")
        types = types_old.replace("string}", f"{street}}}")
        (tmp_path / side / "common" / "types.yaml").write_text(types, "utf-8")
        (tmp_path / side / "common" / "geo.yaml").write_text(
            f"$defs:\n  Geo:\n    properties:\n      lat: {{type: {lat}}}\n", "utf-8"
        )
        (tmp_path / side / "whole.json").write_text(f'{{\n  "type": "{whole}"\n}}\n', "utf-8")
    assert main(["diff", "old/tools.yaml", "new/tools.yaml"]) == 1
    lines = capsys.readouterr().out.splitlines()
    located = {line.split(": ", 1)[0] for line in lines if "[input-type-narrowed]" in line}
    assert located == {
        "new/common/types.yaml:5:16",  # street's type, through the definition and the pointer into it
        "new/common/geo.yaml:4:13",  # lat's type: a file the referenced file references
        "new/whole.json:2:3",  # a whole file
    }, lines
    # the output schema is a reference to the definition: its change is where that is written
    widened = [line for line in lines if "[output-type-widened]" in line]
    assert widened and widened[0].startswith("new/common/types.yaml:5:16: "), lines
    assert not any(line.startswith("new/tools.yaml:") and "type" in line for line in lines), lines


def test_findings_under_names_a_uri_would_escape_are_located_and_shown_as_pointers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A finding's path is a JSON pointer, where `%` is a character like any other: a property
    `a%b` is located, and one reached through a percent-encoded `$ref` is shown decoded."""
    monkeypatch.chdir(tmp_path)
    toolset = """\
mcpstub: 1
server: {name: s, version: 1.0.0}
$defs:
  Offer:
    type: object
    properties:
      "50% off": {type: string}
tools:
  - name: t
    inputSchema:
      type: object
      properties:
        "a%b": {type: string}
        "a%25": {type: string}
        deal: {$ref: "#/$defs/Offer/properties/50%25%20off"}
"""
    (tmp_path / "old.yaml").write_text(toolset, "utf-8")
    (tmp_path / "new.yaml").write_text(toolset.replace("{type: string}", "{type: integer}"), "utf-8")
    assert main(["diff", "old.yaml", "new.yaml"]) == 1
    lines = capsys.readouterr().out.splitlines()
    narrowed = sorted(line.split(": type ")[0] for line in lines if "[input-type-narrowed]" in line)
    assert narrowed == [
        "new.yaml:13:17: breaking: tool 't' input /properties/a%b/type",
        "new.yaml:14:18: breaking: tool 't' input /properties/a%25/type",
        "new.yaml:7:19: breaking: tool 't' input /$defs/Offer/properties/50% off/type",
    ], lines


@pytest.mark.parametrize("name", ["title", "it's a/b~c"])
def test_a_required_property_removed_from_a_closed_input_is_not_also_now_optional(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    # Removed, a closed object refuses it: "now optional" besides would contradict that.
    old = {"mcpstub": 1, "server": {"name": "s", "version": "1.0.0"}, "tools": [{"name": "a", "inputSchema": {
        "type": "object", "properties": {name: {"type": "string"}, "body": {"type": "string"}},
        "required": [name], "additionalProperties": False}}]}  # fmt: skip
    (in_tmp / "old.json").write_text(json.dumps(old))
    schema = old["tools"][0]["inputSchema"]  # type: ignore[index]
    schema["properties"].pop(name)
    schema["required"] = []
    (in_tmp / "new.json").write_text(json.dumps(old))
    assert main(["diff", "old.json", "new.json", "--format", "json"]) == 1
    rules = [f["rule"] for f in json.loads(capsys.readouterr().out)]
    assert sorted(rules) == ["input-property-removed", "version-not-bumped"], rules


def test_a_property_no_longer_required_is_placed_at_the_required_list(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = """\
mcpstub: 1
server: {name: s, version: 1.0.0}
tools:
  - name: get
    inputSchema: {type: object}
    outputSchema:
      type: object
      properties:
        title: {type: string}
        author: {type: string}
      required: [title, author]
"""
    (in_tmp / "old.yaml").write_text(old)
    (in_tmp / "new.yaml").write_text(old.replace("author", "writer").replace("1.0.0", "2.0.0"))
    assert main(["diff", "old.yaml", "new.yaml"]) == 1
    lines = capsys.readouterr().out.splitlines()
    said = [line for line in lines if "no longer required" in line]
    assert said == [
        "new.yaml:11:7: breaking: tool 'get' output /required: property 'author' is no longer required"
        ' (counterexample: {"title": "", "writer": ""}) [output-required-removed]'
    ]


def test_a_tool_s_findings_are_said_as_new_reads_top_to_bottom_then_its_referenced_files(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Sorted by pointer, `/properties/z` came after `/properties/a` and the referenced file first.
    old = """\
mcpstub: 1
server: {name: t, version: 1.0.0}
tools:
  - name: pick
    inputSchema:
      type: object
      properties:
        z: {type: string}
        b: {$ref: "a_common.yaml#/$defs/B"}
        a: {type: string}
        m: {type: string}
"""
    (in_tmp / "old.yaml").write_text(old.replace("a_common", "old_common"))
    (in_tmp / "old_common.yaml").write_text("$defs: {B: {type: string}}\n")
    (in_tmp / "a_common.yaml").write_text("$defs: {B: {type: integer}}\n")
    write_new(in_tmp, old.replace("version: 1.0.0", "version: 2.0.0").replace("string", "integer"))
    assert main(["diff", "old.yaml", "new.yaml"]) == 1
    places = [line.split(": ", 1)[0] for line in capsys.readouterr().out.splitlines()[:-1]]
    expected = ["new.yaml:2:19", "new.yaml:8:13", "new.yaml:10:13", "new.yaml:11:13", "a_common.yaml:1:13"]
    assert places == expected, places


def test_a_shared_definition_changed_is_said_once_for_the_tools_taking_it_in_a_branch_or_not(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    r = "{type: object, properties: {t: {type: string, pattern: '^a'}}}"
    old = (
        f"mcpstub: 1\nserver: {{name: s, version: 1.0.0}}\n$defs:\n  R: {r}\ntools:\n"
        "  - name: direct\n    inputSchema: {type: object}\n"
        '    outputSchema: {type: object, properties: {r: {$ref: "#/$defs/R"}}}\n'
        "  - name: maybe\n    inputSchema: {type: object}\n"
        '    outputSchema: {anyOf: [{$ref: "#/$defs/R"}, {type: "null"}]}\n'
    )
    (in_tmp / "old.yaml").write_text(old)
    (in_tmp / "new.yaml").write_text(old.replace("'^a'", "'^ab'"))
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "warning"]) == 1
    lines = capsys.readouterr().out.splitlines()
    said = "new.yaml:4:52: warning: tools 'direct', 'maybe' output /$defs/R/properties/t/pattern:"
    assert lines[0].startswith(said), lines
    assert lines[1:] == ["0 breaking, 2 warning, 0 info (findings of each tool, in 1 line)"]


def test_an_annotation_gone_from_beside_a_reference_is_said_where_it_was(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Not at the definition's annotation of that name, which did not change.
    old = (
        "mcpstub: 1\nserver: {name: s, version: 1.0.0}\n$defs:\n  X: {type: string, description: xd}\n"
        "tools:\n  - name: t\n    inputSchema: {type: object}\n    outputSchema:\n      type: object\n"
        '      properties:\n        a: {$ref: "#/$defs/X", description: nd}\n'
    )
    (in_tmp / "old.yaml").write_text(old)
    write_new(in_tmp, old.replace(", description: nd}", "}"))
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "info"]) == 1
    assert capsys.readouterr().out.splitlines()[0] == (
        "new.yaml:11:9: info: tool 't' output /properties/a/description: schema description changed:"
        ' "nd" -> (none) [schema-wording-changed]'
    )


def test_the_counterexample_search_writes_nothing_where_diff_runs(tmp_path: Path) -> None:
    # hypothesis keeps its unicode tables in a `.hypothesis` folder where it runs: mcpstub's
    # cache folder instead (a command of its own: the test's process has read them already).
    pattern = "mcpstub: 1\nserver: {name: s, version: 1.0.0}\ntools:\n  - name: t\n    inputSchema:\n"
    pattern += "      type: object\n      properties: {p: {type: string, pattern: '^[a-z]+$'}}\n"
    (tmp_path / "old.yaml").write_text(pattern)
    (tmp_path / "new.yaml").write_text(pattern.replace("a-z", "a-y"))  # (found by drawing: "z")
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env |= {"MCPSTUB_CACHE_DIR": str(tmp_path / "mine"), "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", "mcpstub", "diff", "old.yaml", "new.yaml"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 1 and "counterexample" in done.stdout, done.stdout + done.stderr
    assert (tmp_path / "mine" / "hypothesis").is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "new.yaml", "old.yaml"]


def test_a_long_changed_description_is_shown_where_it_changed(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Both sides cut to their first 40 characters read the same: shown from where they differ.
    text = "The city to get the forecast for, as a name or a postal code"
    described = 'days: {description: "%s", type: integer'
    (in_tmp / "old.yaml").write_text(OLD.replace("days: {type: integer", described % text))
    write_new(in_tmp, OLD.replace("days: {type: integer", described % text.replace("postal", "zip")))
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "info"]) == 1
    (said,) = [line for line in capsys.readouterr().out.splitlines() if "schema description changed" in line]
    assert 'name or a postal code" -> …' in said and 'name or a zip code"' in said, said
    # Cut where a word starts (not "…al address."), where one starts a little before.
    text = "Where to send the parcel: the full postal address."
    longer = text.replace(".", ", with its street line.")
    write_new(in_tmp, OLD.replace("days: {type: integer", described % longer))
    (in_tmp / "old.yaml").write_text(OLD.replace("days: {type: integer", described % text))
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "info"]) == 1
    (said,) = [line for line in capsys.readouterr().out.splitlines() if "schema description changed" in line]
    assert ': …postal address." -> …postal address, with its street line." [' in said, said
    # A difference in the first word: shown from the text's start, which starts a word too.
    first = "Postalcodes or the names of the cities to get the forecast for"
    write_new(in_tmp, OLD.replace("days: {type: integer", described % first.replace("codes", "code")))
    (in_tmp / "old.yaml").write_text(OLD.replace("days: {type: integer", described % first))
    assert main(["diff", "old.yaml", "new.yaml", "--fail-on", "info"]) == 1
    (said,) = [line for line in capsys.readouterr().out.splitlines() if "schema description changed" in line]
    assert 'changed: "Postalcodes or the names of the cities … -> "Postalcode or' in said, said
