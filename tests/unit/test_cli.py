"""The command line: exit codes, messages, `init`, configuration, and never a traceback."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mcpstub.cli import main
from mcpstub.tomlplace import toml_place

ROOT = Path(__file__).resolve().parents[2]
GOOD = "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: a\n    inputSchema: {type: object}\n"


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "mcpstub", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_validate_ok_exit_0(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["validate", "tools.yaml"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith("tools.yaml: ok: server 's', 1 tool (")


@pytest.mark.parametrize(
    ("schema", "code"),
    [
        ("{type: object}", 0),  # nothing to warn about: ok either way
        ("{type: object, descripton: x}", 1),  # a misspelled annotation: a warning
        ("{type: object, properties: {n: {type: integer, default: x}}}", 1),  # an invalid default
        ("{type: objcet}", 1),  # an error fails either way
    ],
)
def test_validate_fails_on_warnings_when_asked(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], schema: str, code: int
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD.replace("{type: object}", schema))
    error = schema == "{type: objcet}"
    assert main(["validate", "tools.yaml"]) == (1 if error else 0)
    out, err = capsys.readouterr()
    assert ("ok:" in out) == (not error) and (": warning: " in err) == (code == 1 and not error)
    assert main(["validate", "tools.yaml", "--fail-on", "warning"]) == code
    out, err = capsys.readouterr()
    assert ("ok:" in out) == (code == 0)
    if code and not error:
        assert err.endswith("tools.yaml: not ok: warnings fail the check (--fail-on warning)\n"), err


def test_validate_defaults_to_tools_yaml(in_tmp: Path) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["validate"]) == 0


def test_invalid_toolset_exit_1_with_located_diagnostics(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD.replace("name: a", "name: a b").replace("object", "string"))
    assert main(["validate", "tools.yaml"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "tools.yaml:4:11: error: tool name 'a b' is not valid [invalid-tool-name]",
        "  hint: MCP tool names are 1-128 characters of A-Z a-z 0-9 _ - .",
        "tools.yaml:5:25: error: tools[0].inputSchema must have `type: object` at its root [root-not-object]",
        "  hint: MCP tool arguments are always a JSON object; wrap other values in a property",
        "2 errors, 0 warnings",
    ]


def test_paths_in_diagnostics_are_relative_to_cwd(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "sub").mkdir()
    (in_tmp / "sub" / "t.yaml").write_text("mcpstub: 1\n")
    assert main(["validate", str(in_tmp / "sub" / "t.yaml")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(os.path.join("sub", "t.yaml") + ":1:1: error:")


def test_missing_file_is_a_usage_error(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "nope.yaml"]) == 2
    assert capsys.readouterr().err == "mcpstub: error: toolset file not found: nope.yaml\n"
    # Named in [tool.mcpstub]: said where it is written, with the file of a close name beside it.
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "pkg"\n  toolset = "tool.yaml"\n')
    assert main(["generate"]) == 2
    said = "pyproject.toml:3:13: toolset file not found: tool.yaml\n  hint: did you mean 'tools.yaml'?"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    (in_tmp / "p1").mkdir()
    (in_tmp / "p1" / "tools.yaml").write_text(GOOD)
    assert main(["validate", str(Path("p1", "tool.yaml"))]) == 2  # (a flag's file is the flag's)
    said = f"toolset file not found: {Path('p1', 'tool.yaml')}\n  hint: did you mean 'p1/tools.yaml'?"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"


@pytest.mark.parametrize(
    ("table", "name"),
    [
        ("[tools.mcpstub]", "tools.mcpstub"),
        ("[tool.mcpstb]", "tool.mcpstb"),
        ("[tool.MCPStub]", "tool.MCPStub"),
        ("[mcpstub]", "mcpstub"),
    ],
)
def test_a_misnamed_mcpstub_table_is_not_left_unread_silently(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], table: str, name: str
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pyproject.toml").write_text(f'[tool.black]\nline-length = 99\n\n{table}\nout = "pkg"\n')
    assert main(["generate"]) == 2
    said = f"pyproject.toml:4:2: [{name}] is not read: did you mean [tool.mcpstub]?"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    assert not (in_tmp / "pkg").exists()


@pytest.mark.parametrize(
    "table",
    ['[dependency-groups]\nmcpstub = ["mcpstub"]', "[tool.mcp]\na = 1", "[tool.stub]\na = 1",
     "[tool.mcpstub-ext]\na = 1", "[tool.hatch.build.hooks.mcpstub]\ntoolset = 'tools.yaml'"],
)  # fmt: skip
def test_other_tables_are_not_taken_for_a_misnamed_mcpstub_table(in_tmp: Path, table: str) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n{table}\n")
    assert main(["validate"]) == 0


@pytest.mark.parametrize(
    "argv",
    [["frobnicate"], ["validate", "--bogus"], [], ["generate", "tools.yaml"], ["validate", "a", "b"]],
)
def test_usage_errors_exit_2(in_tmp: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith("mcpstub: error: ")


@pytest.mark.parametrize(
    ("argv", "meant"),
    [(["generate", "tools.yaml", "--output", "x"], "--out"), (["generate", "--emit_tests"], "--emit-tests"),
     (["diff", "a", "b", "--fail_on=x"], "--fail-on"),
     (["import", "--server-comand", "x"], "--server-command"), (["validate", "--zzz"], None),
     (["generate", "--bogus"], None), (["generate", "--no-cahce"], "--no-cache"),  # (not by the dashes)
     (["generate", "tools.yaml", "--", "--out"], None)],  # (after `--`, a flag's name is an argument)
)  # fmt: skip
def test_a_flag_a_command_does_not_know_is_said_with_the_one_it_is_close_to(
    in_tmp: Path, argv: list[str], meant: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    flag = next(a for a in argv if a.startswith("--") and a != "--")
    said = f"unrecognized arguments: {flag}"
    if meant:
        said = f"unrecognized argument {flag} (did you mean {meant}?)"
    assert err == f"mcpstub: error: {said}\n", err


def test_generate_bad_package_name_is_a_usage_error(in_tmp: Path) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["generate", "tools.yaml", "--out", "my-tools"]) == 2
    assert not (in_tmp / "my-tools").exists()


def test_invalid_toolset_generates_nothing(in_tmp: Path) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD.replace("object", "string"))
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 1
    assert not (in_tmp / "pkg").exists()


def test_pyproject_supplies_the_toolset(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\ntoolset = "spec/api.yaml"\nout = "src/pkg"\n')
    (in_tmp / "spec").mkdir()
    (in_tmp / "spec" / "api.yaml").write_text(GOOD)
    (in_tmp / "deeper").mkdir()
    os.chdir(in_tmp / "deeper")
    assert main(["validate"]) == 0
    assert "ok: server 's'" in capsys.readouterr().out


def test_a_folder_below_the_project_finds_its_tools_yaml(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # No `toolset` key: the tools.yaml beside pyproject.toml is the project's, from any folder in it.
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "src/pkg"\n')
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "src" / "deeper").mkdir(parents=True)
    os.chdir(in_tmp / "src" / "deeper")
    assert main(["validate"]) == 0
    assert capsys.readouterr().out.startswith(f"{in_tmp / 'tools.yaml'}: ok: server 's'")
    assert main(["generate"]) == 0
    assert (in_tmp / "src" / "pkg" / "surface.json").is_file()
    assert main(["generate", "--check"]) == 0
    # A tools.yaml here that is no file (a link to nothing) is this folder's, said missing.
    os.symlink("missing.yaml", "tools.yaml")
    assert main(["validate"]) == 2
    assert "toolset file not found: tools.yaml" in capsys.readouterr().err
    os.unlink("tools.yaml")
    # This folder's own tools.yaml comes first (and is not the project's: refused).
    Path("tools.yaml").write_text(GOOD.replace("name: s", "name: other"))
    assert main(["generate"]) == 2
    assert "tools.yaml is not the toolset of" in capsys.readouterr().err


def test_a_configured_out_is_written_only_from_the_toolset_it_is_for(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A second project started in a folder below the first: its toolset, given or the default of its
    # folder, never overwrites the package of the first one's `out`.
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "src/first"\n')
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["generate"]) == 0
    first = {p: p.read_bytes() for p in (in_tmp / "src" / "first").rglob("*") if p.is_file()}
    (in_tmp / "second").mkdir()
    os.chdir(in_tmp / "second")
    Path("tools.yaml").write_text(GOOD.replace("name: s", "name: second"))
    capsys.readouterr()
    for argv in (["generate", "tools.yaml"], ["generate"], ["generate", "--check"], ["generate", "--watch"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "tools.yaml is not the toolset of" in err and "--out DIR" in err, err
    assert {p: p.read_bytes() for p in (in_tmp / "src" / "first").rglob("*") if p.is_file()} == first
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0  # a folder of its own
    assert main(["generate", "../tools.yaml"]) == 0  # the first project's toolset, however named
    assert main(["generate", str(in_tmp / "tools.yaml")]) == 0
    # A `toolset` named there is the one, written yet or not.
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "src/first"\ntoolset = "api/tools.yaml"\n')
    assert main(["generate", "tools.yaml"]) == 2
    assert "is not the toolset of" in capsys.readouterr().err
    # Without a tools.yaml beside pyproject.toml nor a `toolset` there, `out` is any toolset's.
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "src/first"\n')
    (in_tmp / "tools.yaml").rename(in_tmp / "api.yaml")
    assert main(["generate", "tools.yaml"]) == 0
    assert "second" in (in_tmp / "src" / "first" / "surface.json").read_text()


@pytest.mark.parametrize(
    "pyproject",
    ['[tool.mcpstub]\ntoolsett = "x.yaml"\n', "[tool.mcpstub\n", "[tool]\nmcpstub = 3\n"],
)
def test_bad_pyproject_is_a_usage_error(in_tmp: Path, pyproject: str) -> None:
    (in_tmp / "pyproject.toml").write_text(pyproject)
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["validate"]) == 2


def test_a_mistake_in_the_diff_table_is_said_by_generate_too(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Said at the first diff (a CI job's, perhaps) was late: generate runs on every edit.
    (in_tmp / "tools.yaml").write_text(GOOD)
    table = '[tool.mcpstub]\nout = "pkg"\n\n[tool.mcpstub.diff]\nfail-on = "breakng"\n'
    (in_tmp / "pyproject.toml").write_text(table)
    assert main(["generate"]) == 2
    said = "pyproject.toml:5:11: [tool.mcpstub.diff] fail-on must be one of info, warning, breaking"
    assert capsys.readouterr().err.startswith(f"mcpstub: error: {said}")
    assert not (in_tmp / "pkg").exists()


def test_every_mistake_in_the_diff_table_is_said_at_once(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One a run was said, as [tool.mcpstub]'s and a toolset's are not: a fix, a run, the next one;
    # and [tool.mcpstub]'s own hid them. Every one is said, in the order they are written.
    (in_tmp / "tools.yaml").write_text(GOOD)
    table = (
        '[tool.mcpstub]\ntoolset = 5\n[tool.mcpstub.diff]\nfail-on = "severe"\nversion-check = "no"\n'
        'open-objects = "loose"\n'
        'ignore = [{tool = "t", rule = 5}, {tool = "t", rule = "tool-remove", reason = "x"}, 3,\n'
        '  {tool = "*", rule = "nope", reason = ""}, '
        '{tool = "*", rule = "tool-removed", reason = "r", x = 1}]\n'
        "bogus = 1\n"
    )
    (in_tmp / "pyproject.toml").write_text(table)
    for command in (["diff", "tools.yaml", "tools.yaml"], ["validate", "tools.yaml"]):
        assert main(command) == 2
        said = [line.split(": ", 3)[2:] for line in capsys.readouterr().err.splitlines()]
        assert said == [
            ["pyproject.toml:2:11", "[tool.mcpstub] toolset must be a string (a path)"],
            ["pyproject.toml:4:11", "[tool.mcpstub.diff] fail-on must be one of info, warning, breaking"],
            ["pyproject.toml:5:17", "[tool.mcpstub.diff] version-check must be true or false"],
            ["pyproject.toml:6:16", '[tool.mcpstub.diff] open-objects must be "warn" or "strict"'],
            ["pyproject.toml:7:31", '[tool.mcpstub.diff] ignore[0] needs tool, rule and a non-empty reason '
             '(tool = "*" for every tool)'],
            ["pyproject.toml:7:55", "[tool.mcpstub.diff] ignore[1] rule 'tool-remove' is not a rule mcpstub "
             "diff reports (did you mean tool-removed?)"],
            ["pyproject.toml:7:85", "[tool.mcpstub.diff] ignore[2] must be a table with tool, rule and "
             "reason"],
            ["pyproject.toml:8:23", "[tool.mcpstub.diff] ignore[3] rule 'nope' is not a rule mcpstub diff "
             "reports (diff shows each finding's rule in [brackets])"],
            ["pyproject.toml:8:40", '[tool.mcpstub.diff] ignore[3] needs tool, rule and a non-empty reason '
             '(tool = "*" for every tool)'],
            ["pyproject.toml:8:95", "unknown key(s) in [tool.mcpstub.diff] ignore[4]: x"],
            ["pyproject.toml:9:1", "unknown key(s) in [tool.mcpstub.diff]: bogus"],
        ]  # fmt: skip


def test_a_wrong_item_is_said_where_it_is_written(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nvendor_keywords = [\n  "x-a",\n  2,\n]\n')
    assert main(["validate"]) == 2
    said = "pyproject.toml:4:3: [tool.mcpstub] vendor_keywords must be a list of strings"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    (in_tmp / "pyproject.toml").write_text("[tool.other]\nz = " + "[" * 1000 + "]" * 1000 + "\n")
    assert main(["validate"]) == 2  # (tomllib's own recursion: no traceback)
    said = "pyproject.toml: invalid TOML: it nests too deeply to be read"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32-be", "bad byte", "utf-8-sig"])
def test_a_pyproject_that_is_no_utf_8_is_said_as_a_toolset_is(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], encoding: str
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    text = '[tool.mcpstub]\n# café\ntoolset = "tools.yaml"\n'
    raw = text.encode("latin-1") if encoding == "bad byte" else text.encode(encoding)
    (in_tmp / "pyproject.toml").write_bytes(raw)
    assert main(["validate"]) == 2
    at, said = ("2:6", "file is not valid UTF-8 (byte 0xe9)") if encoding == "bad byte" else ("1:1", "")
    said = said or f"file is {encoding[:6].upper()}, not UTF-8"
    hint = "\n  hint: save the file as UTF-8\n"
    if encoding == "utf-8-sig":  # (which tomllib, pip and the build refuse, unlike a toolset's reader)
        said = "invalid TOML: it starts with a byte order mark (U+FEFF), which TOML refuses"
        hint = "\n  hint: save the file as UTF-8 without a byte order mark\n"
    assert capsys.readouterr().err == f"mcpstub: error: pyproject.toml:{at}: {said}{hint}"


def test_invalid_toml_is_said_at_its_line_and_column(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.mcpstub\n')
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["validate"]) == 2
    said = "pyproject.toml:3:14: invalid TOML: Expected ']' at the end of a table declaration"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    (in_tmp / "pyproject.toml").write_text("a = 1\nb = [1,")  # (at the end of the file)
    assert main(["validate"]) == 2
    assert capsys.readouterr().err == "mcpstub: error: pyproject.toml:2:8: invalid TOML: Invalid value\n"
    # A value written as YAML would take it: what TOML wants instead.
    for written, hint in [
        ("toolset = tools.yaml", 'a text is quoted in TOML: "tools.yaml"'),
        ("out = src/my_tools  # the package", 'a text is quoted in TOML: "src/my_tools"'),
        ("emit_tests = Yes", "TOML's booleans are true and false, not Yes"),
        ("emit_tests = True", "TOML's booleans are true and false, not True"),
        ("vendor_keywords = [a, b]", 'a text is quoted in TOML: "a"'),
        ("out = {path = src}", 'a text is quoted in TOML: "src"'),
        ("# a comment with \u2028 and \x85 in it\nout = pkg/w", 'a text is quoted in TOML: "pkg/w"'),
        ("out = src/my tools  # there", 'a text is quoted in TOML: "src/my tools"'),
        ("vendor_keywords = [\n  yes,\n]", "TOML's booleans are true and false, not yes"),
    ]:
        (in_tmp / "pyproject.toml").write_text(f"[tool.mcpstub]\n{written}\n", "utf-8")
        assert main(["validate"]) == 2
        last = written.split("\n")[-1]
        at = (written.count("\n") + 2, last.index(hint.split('"')[1]) + 1) if '"' in hint else None
        line, column = at or ((3, 3) if "[\n" in written else (2, written.index("=") + 3))
        said = f"pyproject.toml:{line}:{column}: invalid TOML: Invalid value: {hint}"
        assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    (in_tmp / "pyproject.toml").write_text("[tool.black]\nline-length = " + "9" * 5000 + "\n")
    assert main(["validate"]) == 2  # (tomllib's ValueError: Python reads no integer that long)
    said = "pyproject.toml:2:15: invalid TOML: an integer of more than 4,300 digits"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    (in_tmp / "pyproject.toml").unlink()
    hexadecimal = "{type: object, maximum: 0x" + "F" * 3600 + "}"  # (3,600 characters, 4,335 digits)
    (in_tmp / "tools.yaml").write_text(GOOD.replace("{type: object}", hexadecimal))
    assert main(["validate"]) == 1
    said = "an integer of more than 4,300 digits is beyond what a JSON number can hold"
    assert said in capsys.readouterr().err
    (in_tmp / "tools.yaml").write_text(GOOD)
    for tool in ('tool = "x"', "tool = [1]"):  # not a table
        (in_tmp / "pyproject.toml").write_text(f"# a project\n\n{tool}\n[project]\nname = 'x'\n")
        assert main(["validate"]) == 2
        assert capsys.readouterr().err == "mcpstub: error: pyproject.toml:3:8: [tool] must be a table\n"


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('emit_tests = "false"', "emit_tests must be true or false"),  # a string "false" is true
        ("client_only = 1", "client_only must be true or false"),
        ("cache_dir = 5", "cache_dir must be a string (a path)"),
        ("out = ['pkg']", "out must be a string (a path)"),
        ('vendor_keywords = "x-internal"', "vendor_keywords must be a list of strings"),
        ("ref_root = 3", "ref_root must be a string (a folder)"),
    ],
)
def test_a_config_value_of_the_wrong_type_is_a_usage_error_for_every_command(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], line: str, said: str
) -> None:
    (in_tmp / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n[tool.mcpstub]\n  {line}\n")
    (in_tmp / "tools.yaml").write_text(GOOD)
    for argv in (["validate"], ["generate", "--out", "pkg"], ["diff", "tools.yaml", "tools.yaml"]):
        assert main(argv) == 2
        # The file, and the line and column where the value is written.
        at = f"5:{line.index('=') + 5}"  # (past the two spaces before the key, and `= `)
        assert capsys.readouterr().err == f"mcpstub: error: pyproject.toml:{at}: [tool.mcpstub] {said}\n"
    assert not (in_tmp / "pkg").exists()


@pytest.mark.parametrize(
    ("text", "keys", "place"),
    [
        ('[tool.mcpstub]\nout = "a"\n', ("tool", "mcpstub", "out"), (2, 1)),
        ('[tool . "mcpstub"]\n  "out" = 3\n', ("tool", "mcpstub", "out"), (2, 3)),
        ("[tool]\nmcpstub.diff.fail-on = 'x'\n", ("tool", "mcpstub", "diff", "fail-on"), (2, 1)),
        ("[tool]\nmcpstub = {out = 3}\n", ("tool", "mcpstub", "out"), (2, 12)),
        ('[tool.mcpstub]\ndiff = { fail-on = "never" }\n', ("tool", "mcpstub", "diff", "fail-on"), (2, 10)),
        # A key not written is placed at what holds it.
        ("[tool.mcpstub]\nout = 1\n", ("tool", "mcpstub", "toolset"), (1, 2)),
        ("x = 1\n", ("tool", "mcpstub"), (1, 1)),
        # Items of an inline array, strings and comments holding brackets and commas passed over.
        (
            '[tool.mcpstub.diff]\nignore = [ # [a, {b\n  {tool = "a,]", rule = "r"},\n'
            '  { reason = "}", rule = "s" },\n]\n',
            ("tool", "mcpstub", "diff", "ignore", 1, "rule"),
            (4, 19),
        ),
        (
            '[tool.mcpstub.diff]\nignore = [{tool = "a"}, "b"]\n',
            ("tool", "mcpstub", "diff", "ignore", 1),
            (2, 25),
        ),
        ('[tool.mcpstub.diff]\nignore = [{tool = "a"}]\n', ("tool", "mcpstub", "diff", "ignore", 3), (2, 1)),
        # Quoted keys as TOML reads them (escapes JSON has not, a tab).
        (
            '[project]\n"caf\\U000000E9" = 1\n"a\tb" = 2\n[tool.mcpstub]\nout = 3\n',
            ("tool", "mcpstub", "out"),
            (5, 1),
        ),
        ('["tool"."mcp\\u0073tub"]\nout = 3\n', ("tool", "mcpstub", "out"), (2, 1)),
        # Multi-line strings holding what looks like headers and keys are strings.
        (
            '[project]\ndescription = """\n[tool.mcpstub]\nout = "no"\n"""\n'
            "x = '''\n[[tool.mcpstub.diff.ignore]]\n'''\n"
            "[tool.mcpstub]\nout = 3\n",
            ("tool", "mcpstub", "out"),
            (10, 1),
        ),
        # Comments and strings inside an array hold no items or keys.
        (
            '[tool.mcpstub.diff]\nignore = [\n  # {tool = "*", rule = "x"},\n'
            '  {tool = "*", reason = "a, rule = b", rule = "y"}, # first\n  {rule = "z"},\n]\n',
            ("tool", "mcpstub", "diff", "ignore", 0, "rule"),
            (4, 40),
        ),
        (
            '[tool.mcpstub.diff]\nignore = [\n  {tool = "*"}, # first\n  {rule = "z"},\n]\n',
            ("tool", "mcpstub", "diff", "ignore", 1),
            (4, 3),
        ),
        # A nested array inside a multi-line array is no header.
        (
            '[tool.mcpstub]\nvendor_keywords = [\n  ["x-a"],\n]\nemit_tests = "yes"\n',
            ("tool", "mcpstub", "emit_tests"),
            (5, 1),
        ),
        # A table named only as part of a longer header or dotted key is placed where it is named.
        ('[project]\nname = "x"\n\n[mcpstub.diff]\nfail-on = "info"\n', ("mcpstub",), (4, 2)),
        (
            '[project]\nname = "x"\n[tool.mcpstub.diff.bogus.x]\ny = 1\n',
            ("tool", "mcpstub", "diff", "bogus"),
            (3, 2),
        ),
        ('[tool.mcpstub]\nout = "a"\nbogus.x = 1\n', ("tool", "mcpstub", "bogus"), (3, 1)),
        (
            '[tool.mcpstub.diff]\nignore = [{tool="*", rule.x=1}]\n',
            ("tool", "mcpstub", "diff", "ignore", 0, "rule"),
            (2, 22),
        ),
        # A sub-table of an array of tables' entry belongs to that entry.
        (
            "[[tool.mcpstub.diff.ignore]]\ntool = '*'\n[tool.mcpstub.diff.ignore.rule]\nx = 1\n",
            ("tool", "mcpstub", "diff", "ignore", 0, "rule"),
            (3, 2),
        ),
        (
            "[[a.b]]\nx = 1\n[[a.b]]\n[[a.b.c]]\n[[a.b.c]]\ny = 2\n",
            ("a", "b", 1, "c", 1, "y"),
            (6, 1),
        ),
        # Arrays of tables count their headers, and are placed where a table was meant.
        ('[project]\nname = "x"\n\n[[tool.mcpstub]]\nout = "a"\n', ("tool", "mcpstub"), (4, 3)),
        (
            "[[tool.mcpstub.diff.ignore]]\nrule = 'a'\n"
            "[[tool.mcpstub.diff.ignore]]\ntool = 'b'\n  rule = 'c'\n",
            ("tool", "mcpstub", "diff", "ignore", 1, "rule"),
            (5, 3),
        ),
    ],
)
def test_toml_place_finds_where_a_key_is_written(
    text: str, keys: tuple[str | int, ...], place: tuple[int, int]
) -> None:
    assert toml_place(text, keys) == place


DIFF = ("tool", "mcpstub", "diff")


@pytest.mark.parametrize(
    ("text", "keys", "place"),
    [
        ('[tool.mcpstub]\nout = "a"\n', ("tool", "mcpstub", "out"), (2, 7)),
        ("[tool]\nmcpstub = {out =\n  3}\n", ("tool", "mcpstub", "out"), (3, 3)),
        # A key not written: what holds it, as without `value_at`.
        ("[tool.mcpstub]\nout = 1\n", ("tool", "mcpstub", "toolset"), (1, 2)),
        ('[tool.mcpstub]\nvendor_keywords = [\n  # [x\n  "a"]\n', (*DIFF[:2], "vendor_keywords"), (2, 19)),
        ('[tool.mcpstub.diff]\nignore = [{rule = "r"}]\n', (*DIFF, "ignore", 0, "rule"), (2, 19)),
        ('[tool.mcpstub.diff]\nignore = [{rule = "r"}, 3]\n', (*DIFF, "ignore", 1), (2, 25)),
    ],
)
def test_toml_place_finds_where_a_value_is_written(
    text: str, keys: tuple[str | int, ...], place: tuple[int, int]
) -> None:
    assert toml_place(text, keys, value_at=True) == place


def test_init_writes_a_starter_that_validates(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init"]) == 0
    text = (in_tmp / "tools.yaml").read_text()
    assert text.count("#") > 5  # commented
    assert "mcpstub: 1" in text
    capsys.readouterr()
    assert main(["validate", "tools.yaml"]) == 0


def test_init_says_the_next_command_as_the_project_configures_it(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init"]) == 0
    said = capsys.readouterr().out
    assert said == "wrote tools.yaml; next: mcpstub generate tools.yaml --out src/my_tools\n"
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "src/svc_tools"\ntoolset = "api.yaml"\n')
    assert main(["init", "api.yaml"]) == 0
    assert capsys.readouterr().out == "wrote api.yaml; next: mcpstub generate api.yaml\n"
    # `out` is the package of the project's toolset: another one gets a folder of its own
    assert main(["init", "more.yaml"]) == 0
    assert capsys.readouterr().out == "wrote more.yaml; next: mcpstub generate more.yaml --out src/my_tools\n"
    (in_tmp / "pyproject.toml").write_text("[tool.mcpstub\n")  # (said by the command that reads it)
    assert main(["init", "third.yaml"]) == 0
    assert capsys.readouterr().out.endswith("next: mcpstub generate third.yaml --out src/my_tools\n")


def test_init_into_a_folder_and_a_named_file(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "spec").mkdir()
    assert main(["init", "spec"]) == 0
    assert (in_tmp / "spec" / "tools.yaml").is_file()
    # (the package beside it, as the starter's own comment has it from its folder)
    said = capsys.readouterr().out
    assert said.endswith("next: mcpstub generate spec/tools.yaml --out spec/src/my_tools\n")
    assert main(["init", "my tools.yaml"]) == 0
    # The file's own comment, and what init says next, name it as a shell command must.
    assert "mcpstub generate 'my tools.yaml' --out src/my_tools\n" in (in_tmp / "my tools.yaml").read_text()
    assert capsys.readouterr().out.endswith("next: mcpstub generate 'my tools.yaml' --out src/my_tools\n")
    # A .json name is read as JSON, which the commented starter is not: refused, nothing written.
    assert main(["init", "spec/api.json"]) == 2
    said = "init writes a commented YAML toolset: name it spec/api.yaml (a .json file is JSON)"
    assert capsys.readouterr().err == f"mcpstub: error: {said}\n"
    assert not (in_tmp / "spec" / "api.json").exists()
    # A name no header comment can hold (generate refuses it) broke the starter's own comment.
    for name in ("a\u2028b.yaml", "n\nl.yaml", "x\x85y.yaml"):
        assert main(["init", name]) == 2
        assert "the toolset file name contains a control" in capsys.readouterr().err
        assert not (in_tmp / name).exists()


def test_init_refuses_to_overwrite(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (in_tmp / "tools.yaml").write_text("mine\n")
    assert main(["init"]) == 2
    assert "already exists" in capsys.readouterr().err
    assert (in_tmp / "tools.yaml").read_text() == "mine\n"


def test_init_into_missing_folder(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", "no/such/dir/tools.yaml"]) == 2
    # A path ending in a slash names a folder, as a path to one that exists does: not a file.
    assert main(["init", "newdir/"]) == 2
    assert capsys.readouterr().err.endswith("error: folder newdir does not exist\n")
    assert not (in_tmp / "newdir").exists()
    (in_tmp / "afile").write_text("x\n")
    assert main(["init", "afile/"]) == 2
    assert capsys.readouterr().err.endswith("error: afile is not a folder\n")


def test_version_flag(in_tmp: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.startswith("mcpstub ")


HOSTILE = {
    "binary.yaml": b"\x00\x01\x02\xff\xfe garbage",
    "bom16.yaml": "mcpstub: 1\n".encode("utf-16"),
    "deep.yaml": b"[" * 200_000,
    "deep_block.yaml": b"- " * 50_000 + b"x\n",
    "bomb.yaml": b"a: &a [x,x,x,x,x,x,x,x,x,x]\n"
    + b"".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 10)}]\n".encode() for i in range(8)
    ),
    "recursive.yaml": b"mcpstub: 1\nserver: &s {name: s, x: *s}\n",
    "keys.yaml": b"? {a: 1}\n: 2\n[1]: 3\n",
    "null.yaml": b"~\n",
    "scalar.yaml": b"42\n",
    "weird.yaml": b"mcpstub: 1\nserver: {name: [1, {2: 3}]}\ntools: [{name: {x: 1}, inputSchema: [], "
    b"examples: 5}, {name: a, inputSchema: {type: object, $ref: 12}}, null]\n",
    "refs.yaml": b"mcpstub: 1\nserver: {name: s}\ntools:\n  - name: a\n    inputSchema: {type: object, "
    b'properties: {a: {$ref: "/etc/passwd"}, b: {$ref: "."}, c: {$ref: "#/$defs/%zz"}, '
    b'd: {$ref: "#/tools/0"}, e: {$ref: "x.yaml#/%"}, f: {$ref: ""}}}\n',
    "nan.yaml": b"mcpstub: .nan\nserver: {name: .inf}\ntools: [{name: a, inputSchema: {type: object, "
    b"minimum: -.inf}}]\n",
    "hugeint.yaml": b"mcpstub: 1\nserver: {name: s}\ntools: [{name: a, inputSchema: {type: object, "
    b"properties: {n: {type: integer, maximum: "
    + b"9" * 5000
    + b"}}}, examples: [{input: {n: "
    + b"9" * 4000
    + b"}}]}]\n",
    "dir.yaml": None,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_inputs_never_give_a_traceback(tmp_path: Path, name: str) -> None:
    content = HOSTILE[name]
    if content is None:
        (tmp_path / name).mkdir()
    else:
        (tmp_path / name).write_bytes(content)
    result = run(tmp_path, "validate", name)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in (1, 2), result.stderr
    assert result.stderr.strip(), "a failure must say why"
    if result.returncode == 1:
        assert result.stderr.startswith(f"{name}:")


def test_subprocess_exit_codes(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(GOOD)
    (tmp_path / "bad.yaml").write_text("mcpstub: 2\n")
    assert run(tmp_path, "validate").returncode == 0
    assert run(tmp_path, "validate", "bad.yaml").returncode == 1
    assert run(tmp_path, "validate", "missing.yaml").returncode == 2
    assert run(tmp_path, "--no-such-flag").returncode == 2


@pytest.mark.parametrize("extra", [[], ["--diff"]])
def test_the_command_says_all_it_has_to_say_before_it_exits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    """The command exits without tearing its objects down, once its streams are flushed: through
    pipes, its output is what `main()` writes, to the last byte (a line in a buffer, a diff larger
    than any buffer)."""
    tool = "  - name: t{0}\n    inputSchema: {{type: object, properties: {{x{0}: {{type: string}}}}}}\n"
    toolset = GOOD.split("  - ", maxsplit=1)[0] + "".join(map(tool.format, range(60)))
    args = ["generate", "tools.yaml", "--out", "pkg", *extra]
    for folder in (tmp_path / "a", tmp_path / "b"):
        folder.mkdir()
        (folder / "tools.yaml").write_text(toolset)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as usual
    done = subprocess.run(
        [sys.executable, "-m", "mcpstub", *args], check=False, cwd=tmp_path / "a",
        env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path / "b")
        assert main(args) == done.returncode
    said = capsys.readouterr()
    assert (done.stdout, done.stderr) == (said.out, said.err)
    assert done.stdout.strip()  # something to lose


def _buffered(tmp_path: Path, args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # buffered, as usual
    return subprocess.run(
        [sys.executable, "-m", "mcpstub", *args], check=False, cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)}, text=True, timeout=120, **kwargs,
    )  # fmt: skip


def test_a_command_started_with_its_output_closed_still_succeeds(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(GOOD)
    done = _buffered(
        tmp_path, ["generate", "tools.yaml", "--out", "pkg"], stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),  # the child starts without a stdout
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert (tmp_path / "pkg" / "tools.py").is_file()


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["generate", "tools.yaml", "--out", "pkg", "--diff"], 1), (["diff", "tools.yaml", "tools.yaml"], 0)],
    ids=["generate-diff", "diff"],
)
def test_a_command_that_writes_its_output_directly_started_with_it_closed(
    tmp_path: Path, argv: list[str], code: int
) -> None:
    """What it would print goes nowhere, as `print` lets it; its exit code still says the verdict."""
    (tmp_path / "tools.yaml").write_text(GOOD)
    done = _buffered(tmp_path, argv, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert done.returncode == code and "Traceback" not in done.stderr, done.stderr


def _many_tools(count: int, kind: str) -> str:
    props = ", ".join(f"{'x' * 60}{j}: {{type: {kind}}}" for j in range(3))  # long lines: output is large
    tools = "".join(
        f"  - name: t{i}\n    inputSchema: {{type: object, properties: {{{props}}}}}\n" for i in range(count)
    )
    return f"mcpstub: 1\nserver: {{name: s, version: 1.0.0}}\ntools:\n{tools}"


@pytest.mark.parametrize(
    ("argv", "code"),
    [(["generate", "new.yaml", "--out", "pkg", "--diff"], 1), (["diff", "old.yaml", "new.yaml"], 1)],
    ids=["generate-diff", "diff"],
)
def test_a_reader_that_stops_early_leaves_the_verdict_in_the_exit_code(
    tmp_path: Path, argv: list[str], code: int
) -> None:
    """`mcpstub generate --diff | head` under `set -o pipefail` still fails on a stale package."""
    (tmp_path / "old.yaml").write_text(_many_tools(100, "string"))  # more than a pipe holds
    (tmp_path / "new.yaml").write_text(_many_tools(100, "integer"))
    assert _read_one_line(tmp_path, argv, stderr=subprocess.PIPE) == code


def _read_one_line(tmp_path: Path, argv: list[str], stderr: int) -> int:
    """The exit code of `mcpstub ARGV | head -1` (`stderr=subprocess.STDOUT`: `2>&1 | head -1`)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with subprocess.Popen(
        [sys.executable, "-m", "mcpstub", *argv], cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=stderr, text=True,
    ) as child:  # fmt: skip
        assert child.stdout is not None
        assert child.stdout.readline()  # as `head -1` reads, then goes
        child.stdout.close()
        err = child.stderr.read() if child.stderr is not None else ""
        code = child.wait(timeout=120)
        assert "Traceback" not in err, err
        return code


@pytest.mark.parametrize(
    "argv",
    [["validate", "bad.yaml"], ["generate", "bad.yaml", "--out", "pkg"],
     ["generate", "new.yaml", "--out", "pkg", "--diff"]],
    ids=["validate", "generate", "generate-diff"],
)  # fmt: skip
def test_a_reader_of_both_streams_that_stops_early_leaves_the_verdict_in_the_exit_code(
    tmp_path: Path, argv: list[str]
) -> None:
    """`mcpstub validate bad.yaml 2>&1 | head -1`: what is said on standard error counts too."""
    entry = "  - name: t{}\n    descriptionx: 1\n    inputSchema: {{type: object}}\n"
    bad = "".join(entry.format(i) for i in range(800))
    (tmp_path / "bad.yaml").write_text(f"mcpstub: 1\nserver: {{name: s}}\ntools:\n{bad}")
    (tmp_path / "new.yaml").write_text(_many_tools(100, "integer"))
    assert _read_one_line(tmp_path, argv, stderr=subprocess.STDOUT) == 1


def test_what_is_said_with_standard_error_closed_stays_out_of_the_output(tmp_path: Path) -> None:
    """`generate --diff 2>&-`: the patch alone, not the stale files and the hint after it."""
    (tmp_path / "new.yaml").write_text(_many_tools(3, "integer"))
    done = _buffered(tmp_path, ["generate", "new.yaml", "--out", "pkg", "--diff"], stdout=subprocess.PIPE,
                     preexec_fn=lambda: os.close(2))  # fmt: skip
    assert done.returncode == 1
    assert done.stdout.startswith("diff --git ")
    assert "stale" not in done.stdout and "to update it" not in done.stdout


def test_a_generated_file_edited_since_it_was_written_is_said_before_the_edit_is_lost(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    models = in_tmp / "pkg" / "models.py"
    models.write_text(models.read_text() + "# a tweak of mine\n")
    capsys.readouterr()
    assert main(["generate", "tools.yaml", "--out", "pkg", "--check"]) == 1
    assert "pkg/models.py: stale (edited since it was generated)" in capsys.readouterr().err
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("pkg/models.py: warning: edited since it was generated; this run writes it")
    assert err[-1] == "0 errors, 1 warning"
    assert "tweak" not in models.read_text()
    # A file stale because the toolset changed is no edit of anyone's, nor are line endings
    # a checkout changed (git's autocrlf), or a Mac's.
    for n, ending in enumerate((b"\r\n", b"\r", b"\n")):
        for file in (in_tmp / "pkg").glob("*.py"):
            file.write_bytes(file.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", ending))
        (in_tmp / "tools.yaml").write_text(GOOD.replace("name: a", f"name: b{n}"))
        assert main(["generate", "tools.yaml", "--out", "pkg", "--check"]) == 1
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert "edited" not in capsys.readouterr().err


def test_a_generated_file_git_holds_as_committed_is_no_edit_to_warn_of(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The stamp ignored, a checkout of another branch leaves it that branch's: the files differ
    # from what it records, and nothing is lost in writing them again.
    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=in_tmp, check=True,
                       capture_output=True)  # fmt: skip

    def generate(toolset: str) -> str:
        (in_tmp / "tools.yaml").write_text(toolset)
        capsys.readouterr()
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        return capsys.readouterr().err

    (in_tmp / ".gitignore").write_text("pkg/_mcpstub.json\n__pycache__/\n")
    git("init", "-q", "-b", "main")
    generate(GOOD)
    git("add", "-A")
    git("commit", "-qm", "one")
    git("checkout", "-qb", "other")
    generate(GOOD.replace("name: a", "name: b"))
    git("add", "-A")
    git("commit", "-qm", "two")
    git("checkout", "-q", "main")  # (the stamp stays the other branch's)
    assert main(["generate", "tools.yaml", "--out", "pkg", "--check"]) == 0
    (in_tmp / "tools.yaml").write_text(GOOD.replace("name: a", "name: c"))
    assert main(["generate", "tools.yaml", "--out", "pkg", "--check"]) == 1  # (it says what differs)
    assert "pkg/tools.py: stale (edited since it was generated)" in capsys.readouterr().err
    assert "edited" not in generate(GOOD.replace("name: a", "name: c"))  # (a write loses nothing of it)
    tools = in_tmp / "pkg" / "tools.py"
    tools.write_text(tools.read_text() + "# mine\n")  # (not committed: lost in the next write)
    said = generate(GOOD.replace("name: a", "name: d"))
    assert "pkg/tools.py: warning: edited since it was generated" in said, said


def test_the_count_of_errors_and_warnings_ends_all_that_was_said(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The count came before the warnings of the package's own files (an orphaned handler), and
    # left them out.
    warned = GOOD.replace("{type: object}", "{type: object, properties: {e: {type: string, format: emial}}}")
    (in_tmp / "tools.yaml").write_text(warned)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == "0 errors, 1 warning"
    (in_tmp / "pkg" / "handlers" / "gone.py").write_text("x = 1\n")
    for edit in ("", "# an edit\n"):  # the package up to date, then written again
        (in_tmp / "tools.yaml").write_text(warned + edit)
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        err = capsys.readouterr().err.splitlines()
        assert sum(": warning: " in line for line in err) == 2 and err[-1] == "0 errors, 2 warnings", err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize(
    "command",
    [["validate"], ["generate", "--out", "pkg"], ["generate", "--out", "pkg", "--diff"]],
    ids=["validate", "generate", "diff"],  # the last prints the whole package: more than a buffer
)
def test_output_lost_to_a_full_disk_is_said_and_fails(
    tmp_path: Path, unbuffered: bool, command: list[str]
) -> None:
    """Output that cannot be written is said in one line, with the exit code an interpreter gives,
    whether it is lost while the command runs (unbuffered, or more than a buffer) or at its exit."""
    (tmp_path / "tools.yaml").write_text(GOOD)
    argv = [command[0], "tools.yaml", *command[1:]]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    with Path("/dev/full").open("w") as full:
        if unbuffered:
            done = subprocess.run(
                [sys.executable, "-m", "mcpstub", *argv], check=False, cwd=tmp_path, text=True, timeout=120,
                stdout=full, stderr=subprocess.PIPE, env=env,
            )  # fmt: skip
        else:
            done = _buffered(tmp_path, argv, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 120  # as an interpreter's exit reports it
    assert done.stderr == "mcpstub: error: cannot write the output: No space left on device\n"


def test_out_naming_an_existing_file_is_a_usage_error(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pkg").write_text("a file\n")
    (in_tmp / "file").write_text("another\n")
    for out in ("pkg", "file/pkg"):
        assert main(["generate", "tools.yaml", "--out", out]) == 2
        err = capsys.readouterr().err
        assert err.startswith("mcpstub: error: --out ") and "is not a folder" in err, err
        assert "Traceback" not in err
    assert (in_tmp / "pkg").read_text() == "a file\n"


@pytest.mark.parametrize(
    "name",
    ["mcp", "json", "pydantic", "typing", "jsonschema_rs", "anyio", "starlette", "os", "asyncio", "uvicorn",
     "pydantic_core", "mcpstub", "pytest"],
)  # fmt: skip
def test_out_shadowing_a_dependency_or_the_stdlib_is_refused(
    in_tmp: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["generate", "tools.yaml", "--out", f"src/{name}"]) == 2
    err = capsys.readouterr().err
    assert "would shadow" in err and f"hint: pick a name of your own, e.g. --out src/{name}_tools" in err
    assert not (in_tmp / "src").exists()
    # A subpackage of that name is imported by its dotted name (acme.mcp): it shadows nothing.
    (in_tmp / "src" / "acme").mkdir(parents=True)
    (in_tmp / "src" / "acme" / "__init__.py").write_text("")
    assert main(["generate", "tools.yaml", "--out", f"src/acme/{name}"]) == 0
    assert (in_tmp / "src" / "acme" / name / "server.py").is_file()


@pytest.mark.parametrize("name", ["my-tools", "class", "1tools", "ﬁle_tools", "two words", "None"])
def test_out_that_is_not_an_identifier_is_refused_with_a_hint(
    in_tmp: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["generate", "tools.yaml", "--out", name]) == 2
    err = capsys.readouterr().err
    assert "is not a valid Python package name" in err and "hint: use letters, digits and underscores" in err
    suggested = err.rsplit("--out ", 1)[1].strip()
    assert suggested.isidentifier() and main(["generate", "tools.yaml", "--out", suggested]) == 0


@pytest.mark.parametrize(
    ("out", "said"),
    [
        ("src/library-tools", "output folder name 'library-tools' is not a valid Python package name"),
        ("src/json", "output folder name 'json' would shadow the standard library's module 'json'"),
    ],
)
def test_out_of_the_config_that_cannot_be_a_package_is_said_where_it_is_written(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], out: str, said: str
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.mcpstub]\n  out = "{out}"\n')
    assert main(["generate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f'mcpstub: error: pyproject.toml:5:9: out = "{out}": {said}')
    fixed = err.rsplit("e.g. out = ", 1)[1].strip()  # the hint is what to write there
    (in_tmp / "pyproject.toml").write_text(f"[tool.mcpstub]\nout = {fixed}\n")
    assert main(["generate"]) == 0 and not (in_tmp / "src" / out.split("/")[1]).exists()


def test_runtime_modules_cover_what_a_generated_package_imports() -> None:
    """Every top-level module of mcp, pydantic, jsonschema-rs and their dependencies, as installed."""
    import importlib.metadata as md  # noqa: PLC0415
    import re  # noqa: PLC0415

    from mcpstub.options import RUNTIME_MODULES  # noqa: PLC0415

    def key(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    seen: set[str] = set()
    todo = ["mcpstub-runtime", "mcp", "pydantic", "jsonschema-rs"]
    while todo:
        name = todo.pop()
        if key(name) in seen:
            continue
        seen.add(key(name))
        try:
            requirements = md.requires(name) or []
        except md.PackageNotFoundError:
            continue
        todo += [re.match(r"[A-Za-z0-9_.-]+", r)[0] for r in requirements if "extra ==" not in r]  # type: ignore[index]
    installed = {
        top
        for top, dists in md.packages_distributions().items()
        if top.isidentifier() and any(key(d) in seen for d in dists)
    }
    assert {"mcp", "pydantic", "jsonschema_rs", "anyio", "starlette"} <= installed
    assert installed - RUNTIME_MODULES == set()


def test_check_ends_with_the_command_that_fixes_it(in_tmp: Path) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "sub").mkdir()
    for cwd, args in [
        (in_tmp, ["tools.yaml", "--out", "src/my pkg/pkg", "--emit-tests"]),
        (in_tmp / "sub", [str(in_tmp / "tools.yaml"), "--out", "../out/pkg"]),
    ]:
        done = run(cwd, "generate", *args, "--check")
        assert done.returncode == 1
        last = done.stderr.splitlines()[-1]
        assert last.startswith("to update it, run: mcpstub generate "), done.stderr
        command = shlex.split(last.removeprefix("to update it, run: "))
        assert run(cwd, *command[1:]).returncode == 0
        assert run(cwd, *command[1:], "--check").returncode == 0


LONG = "a" * 300  # a file name longer than the system allows (255 bytes on Linux)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["validate", f"{LONG}.yaml"], "toolset file cannot be read"),
        (["generate", "tools.yaml", "--out", LONG], "File name too long"),
        (["generate", "tools.yaml", "--out", f"x/{LONG}/pkg"], "File name too long"),
        (["diff", "tools.yaml", f"{LONG}.yaml"], "error"),
        (["validate", "ref.yaml"], "ref.yaml:5:56: error: referenced file 'aaa"),
    ],
    ids=["toolset", "out", "out-inside", "diff", "ref"],
)
def test_a_name_longer_than_the_system_allows_is_one_line_not_a_traceback(
    tmp_path: Path, argv: list[str], said: str
) -> None:
    (tmp_path / "tools.yaml").write_text(GOOD)
    refer = f'{{type: object, properties: {{x: {{$ref: "{LONG}.yaml#/$defs/X"}}}}}}'
    ref = GOOD.replace("{type: object}", refer)
    (tmp_path / "ref.yaml").write_text(ref)
    done = run(tmp_path, *argv)
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr
    assert said in done.stderr and len(done.stderr.splitlines()) <= 3, done.stderr
    assert argv[-1] != "ref.yaml" or ".yaml' cannot be read: File name too long [ref-file]" in done.stderr


def test_a_folder_where_the_type_marker_belongs_is_said_and_nothing_is_written(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pkg" / "py.typed").mkdir(parents=True)
    for check in ([], ["--check"]):
        assert main(["generate", "tools.yaml", "--out", "pkg", *check]) == 1
        err = capsys.readouterr().err
        assert "pkg/py.typed: error: a folder, a FIFO, a device or a broken link where mcpstub" in err, err
    assert sorted(p.name for p in (in_tmp / "pkg").iterdir()) == ["py.typed"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_where_a_generated_file_was_is_said_and_nothing_waits_for_it(tmp_path: Path) -> None:
    # Reading it (to tell whether the package was current, which models it had) waited forever.
    (tmp_path / "tools.yaml").write_text(GOOD)
    assert run(tmp_path, "generate", "tools.yaml", "--out", "pkg").returncode == 0
    for rel in ("models.py", "_mcpstub.json", "surface.json"):
        os.replace(tmp_path / "pkg" / rel, tmp_path / "kept")
        os.mkfifo(tmp_path / "pkg" / rel)
        for more in ([], ["--check"], ["--client-only"]):
            done = run(tmp_path, "generate", "tools.yaml", "--out", "pkg", *more)  # (a timeout: a hang)
            assert done.returncode in (1, 2) and "Traceback" not in done.stderr, (rel, more, done.stderr)
            if rel != "_mcpstub.json" or not more:
                assert f"pkg/{rel}: error: a folder, a FIFO" in done.stderr, (rel, more, done.stderr)
        (tmp_path / "pkg" / rel).unlink()
        os.replace(tmp_path / "kept", tmp_path / "pkg" / rel)
    # Nor one where a run puts its marker, nor where `import` once staged what it writes.
    os.mkfifo(tmp_path / "pkg" / ".mcpstub-writing")
    assert run(tmp_path, "generate", "tools.yaml", "--out", "pkg", "--force").returncode == 0
    assert not (tmp_path / "pkg" / ".mcpstub-writing").exists()
    os.mkfifo(tmp_path / ".imported.yaml.mcpstub-tmp")
    done = run(tmp_path, "import", "pkg/surface.json", "-o", "imported.yaml")
    assert done.returncode == 0 and (tmp_path / "imported.yaml").is_file(), done.stderr


def test_a_file_where_the_handlers_folder_belongs_is_said_and_nothing_is_written(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "pkg").mkdir()
    (in_tmp / "pkg" / "handlers").write_text("notes\n")
    for check in ([], ["--check"], ["--diff"]):
        assert main(["generate", "tools.yaml", "--out", "pkg", *check]) == 1
        err = capsys.readouterr().err
        said = "pkg/handlers: error: a file or a link where mcpstub writes a folder; refusing"
        assert err.startswith(said), err
    assert sorted(p.name for p in (in_tmp / "pkg").iterdir()) == ["handlers"]
    assert (in_tmp / "pkg" / "handlers").read_text() == "notes\n"


@pytest.mark.parametrize("header", ["X-Api\n: v", "X-Api: a\nb", "X-Api: a\rb", "X Api: v", ": v", "X-Api"])
def test_a_header_that_is_not_one_line_of_name_and_value_is_refused(header: str) -> None:
    from mcpstub.server_listing import LiveError, request_headers  # noqa: PLC0415

    with pytest.raises(LiveError, match="write it as 'Name: value', on one line"):
        request_headers([header])
    assert request_headers([" X-Api :  v "]) == {"X-Api": "v"}


def test_init_points_editors_at_the_schema_by_a_path_that_holds_in_every_checkout(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside the project (a virtual environment there) the editor line is a relative path;
    outside it, this machine's file URI: never an absolute path where a relative one holds."""
    from mcpstub import cli  # noqa: PLC0415

    (in_tmp / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    installed = in_tmp / ".venv" / "site" / "mcpstub" / "schemas" / "toolset.schema.json"
    installed.parent.mkdir(parents=True)
    installed.write_text("{}")
    real = cli.resource_path
    monkeypatch.setattr(
        cli, "resource_path", lambda *parts: installed if parts[-1] == "toolset.schema.json" else real(*parts)
    )
    (in_tmp / "spec").mkdir()
    assert main(["init", "spec"]) == 0
    first = (in_tmp / "spec" / "tools.yaml").read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../.venv/site/mcpstub/schemas/toolset.schema.json"
    (in_tmp / "pyproject.toml").unlink()
    assert main(["init", "spec/other.yaml"]) == 0
    first = (in_tmp / "spec" / "other.yaml").read_text().splitlines()[0]
    assert first == f"# yaml-language-server: $schema={installed.resolve().as_uri()}"


def test_a_misspelled_config_key_is_told_the_key_it_resembles(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "pyproject.toml").write_text("[tool.mcpstub]\nemit_test = true\nzzz = 1\n")
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["validate"]) == 2
    said = "pyproject.toml:2:1: unknown key(s) in [tool.mcpstub]: emit_test (did you mean emit_tests?), zzz"
    assert said in capsys.readouterr().err


def test_a_folder_or_the_default_toolset_missing_is_said_as_such(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "src").mkdir()
    assert main(["validate", "src"]) == 2
    inside = Path("src", "tools.yaml")
    said = f"mcpstub: error: src is a folder: name the toolset file in it ({inside})\n"
    assert capsys.readouterr().err == said
    assert main(["validate"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpstub: error: toolset file not found: tools.yaml (the default: ")
    assert "mcpstub init" in err


def test_ctrl_c_while_the_command_starts_exits_130_without_a_traceback() -> None:
    # The command line takes tens of milliseconds to import: a Ctrl-C then ends it as one during a
    # run does. (Here the interrupt is raised as the import reaches one of its modules.)
    script = """
import sys
import tomllib
class Interrupted:
    def find_spec(self, name, path=None, target=None):
        if name == "mcpstub.options":
            raise KeyboardInterrupt
sys.meta_path.insert(0, Interrupted())
from mcpstub.__main__ import run
run()
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "")
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text("utf-8"))
    assert project["project"]["scripts"]["mcpstub"] == "mcpstub.__main__:run"  # the command starts there


def test_every_mistake_of_tool_mcpstub_is_said_at_once(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (in_tmp / "pyproject.toml").write_text(
        '[tool.mcpstub]\nout_dir = "x"\nemit_tests = "yes"\nvendor_keywords = [1]\n'
    )
    assert main(["generate"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "mcpstub: error: pyproject.toml:2:1: unknown key(s) in [tool.mcpstub]: out_dir (did you mean out?)",
        "mcpstub: error: pyproject.toml:3:14: [tool.mcpstub] emit_tests must be true or false",
        "mcpstub: error: pyproject.toml:4:20: [tool.mcpstub] vendor_keywords must be a list of strings",
    ]


def test_a_current_package_says_the_warnings_of_the_run_that_made_it(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The shortcut for an unchanged toolset says what a full run says, wherever it is run from; the
    # warnings go with the sources that made them.
    (in_tmp / "spec").mkdir()
    (in_tmp / "spec" / "common.yaml").write_text("$defs:\n  Name: {type: string, widget: 2}\n")
    toolset = GOOD.replace(
        "inputSchema: {type: object}",
        "inputSchema:\n      type: object\n      properties: {n: {$ref: 'common.yaml#/$defs/Name'}}\n"
        "      required: [n, qyt]",
    )
    (in_tmp / "spec" / "tools.yaml").write_text(toolset)
    runs = [(in_tmp, "spec/tools.yaml"), (in_tmp / "spec", "tools.yaml")]
    runs.append((in_tmp / "pkg", "../spec/tools.yaml"))
    for cwd, named in runs:
        cwd.mkdir(exist_ok=True)
        os.chdir(cwd)
        out = os.path.relpath(in_tmp / "pkg", cwd)
        assert main(["generate", named, "--out", out, "--force"]) == 0
        full = capsys.readouterr().err
        assert "widget" in full and "qyt" in full and full.count("warning:") == 2, full
        assert main(["generate", named, "--out", out]) == 0
        said = capsys.readouterr()
        assert "up to date" in said.out and said.err == full
    # A stamp whose warnings were edited by hand is not replayed: the full run finds them again.
    os.chdir(in_tmp)
    stamp = in_tmp / "pkg" / "_mcpstub.json"
    for bad in (True, 0, "3"):
        data = json.loads(stamp.read_text())
        data["warnings"][0]["line"] = bad
        stamp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")  # (as written: its header)
        assert main(["generate", "spec/tools.yaml", "--out", "pkg"]) == 0
        said = capsys.readouterr()
        assert "written" in said.out and said.err == full.replace("../spec/", "spec/"), said
    # Fixed, they are said no more, by the run that writes it nor by the shortcut after it.
    os.chdir(in_tmp)
    (in_tmp / "spec" / "tools.yaml").write_text(toolset.replace(", qyt", ""))
    (in_tmp / "spec" / "common.yaml").write_text("$defs:\n  Name: {type: string, x-widget: 2}\n")
    for _ in range(2):
        assert main(["generate", "spec/tools.yaml", "--out", "pkg"]) == 0
        assert capsys.readouterr().err == ""


def test_a_handler_with_code_importing_a_model_its_tool_lost_is_warned_of_until_mended(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The import would fail as the server starts, and mypy points at server.py: generate says which
    # handler and what its tool has now, on this run and on those that find the package current.
    shared = "$defs:\n  Town: {type: string}\n"
    out = "    outputSchema: {type: object, properties: {said: {type: string}}}\n"
    toolset = GOOD.replace("server: {name: s}\n", "server: {name: s}\n" + shared)
    Path("tools.yaml").write_text(toolset + out)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    handler = Path("pkg/handlers/a.py")
    handler.write_text(
        "from ..models import (\n    AInput,  # the arguments\n    AOutput as Out,\n)\n"
        "from ..models import Town\n\n\nasync def a(args: AInput, ctx: object) -> Out:\n"
        "    return Out(said=Town('x'))\n"
    )
    capsys.readouterr()
    Path("tools.yaml").write_text(toolset)  # the output schema gone: AOutput is no more
    warned = (
        "pkg/handlers/a.py:3:5: warning: imports AOutput from models.py, which no longer defines it\n"
        "  hint: its tool's form changed: mend the handler to the classes it has now, AInput\n"
        "0 errors, 1 warning\n"
    )
    for _ in range(2):  # the run that writes it, then one that finds it current
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert capsys.readouterr().err == warned
    mended = "from ..models import AInput, Town\n\n\nasync def a(args: AInput, ctx: object) -> str:\n"
    handler.write_text(mended + "    return Town('x')\n")
    for more in ([], ["--force"]):
        assert main(["generate", "tools.yaml", "--out", "pkg", *more]) == 0
        assert capsys.readouterr().err == ""


LOST = "from ..models import AInput\n"
BODY = "\n\nasync def a(args: AInput, ctx: object) -> str:\n    return 'x'\n"


@pytest.mark.parametrize(
    ("imports", "lost"),
    [
        ("from ..models import AInput, \\\n    AOutput\n", True),
        ("from ..models import (AInput,  # the (old) input\n    AOutput,)\n", True),
        ("import typing\nif typing.TYPE_CHECKING:\n    from ..models import AOutput\n" + LOST, True),
        ("import pkg.models as m\n" + LOST + "X = m.AOutput\n", True),
        ("from .. import models\n" + LOST + "X = models.AOutput\n", True),
        ("import os; from ..models import AOutput\n" + LOST, True),
        ("from pkg.models import AOutput\n" + LOST, True),
        # no import of the package's models, or one of a name its models still have
        ("from sqlalchemy.ext.models import AOutput\n" + LOST, False),
        ('"""\nfrom ..models import AOutput\n"""\n' + LOST, False),
        ("from ..models import AInput, Field, BaseModel\n", False),
    ],
    ids=["backslash", "comment", "type-checking", "module-alias", "module", "semicolon", "absolute",
         "other-models", "docstring", "imported-by-models"],
)  # fmt: skip
def test_a_lost_model_is_found_however_imported_and_only_from_the_package(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], imports: str, lost: bool
) -> None:
    out = "    outputSchema: {type: object, properties: {said: {type: string}}}\n"
    Path("tools.yaml").write_text(GOOD + out)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    Path("pkg/handlers/a.py").write_text(imports + BODY)
    capsys.readouterr()
    Path("tools.yaml").write_text(GOOD)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert ("imports AOutput from models.py" in capsys.readouterr().err) is lost


@pytest.mark.parametrize(
    ("handler", "place"),
    [
        ("from ..models import AInput\nfrom ..models import AOutput\n", "2:22"),
        ("from .. import models\nfrom ..models import AInput\nX = (1, models.AOutput)\n", "3:16"),
        ("from ..models import AInput\nX = 'été'; from ..models import AOutput\n", "2:33"),  # characters
        ("from ..models import AInput\n\x0c\nfrom ..models import AOutput\n", "3:22"),  # a form feed line
        ("# -*- coding: latin-1 -*-\nfrom ..models import AInput\nX = 'été'; from ..models import AOutput\n",
         "3:33"),  # a module in a legacy encoding, as Python reads it
    ],
    ids=["import", "attribute", "non-ascii", "form-feed", "latin-1"],
)  # fmt: skip
def test_a_lost_model_is_said_at_its_line_and_column(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], handler: str, place: str
) -> None:
    Path("tools.yaml").write_text(GOOD + "    outputSchema: {type: object, properties: {}}\n")
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    encoding = "latin-1" if "coding" in handler else "utf-8"
    Path("pkg/handlers/a.py").write_bytes((handler + BODY).encode(encoding))
    capsys.readouterr()
    Path("tools.yaml").write_text(GOOD)
    for _ in range(2):  # the run that writes it, then one that finds it current
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert capsys.readouterr().err.startswith(f"pkg/handlers/a.py:{place}: warning: imports AOutput ")


@pytest.mark.parametrize("lost", [True, False])
def test_a_recursive_alias_after_a_class_is_a_name_models_py_defines(
    in_tmp: Path, capsys: pytest.CaptureFixture[str], lost: bool
) -> None:
    # `Tree = TypeAliasType(...)` stands below `class Box`: dropped, it is lost; kept (written
    # otherwise), it is not.
    tree = "  Tree:\n    anyOf: [{type: string}, {type: array, items: {$ref: '#/$defs/Tree'}}]\n"
    head = "mcpstub: 1\nserver: {name: s}\n$defs:\n  Box: {type: object, properties: {w: {type: number}}}\n"
    uses = "tools:\n  - name: a\n    inputSchema:\n      type: object\n      properties:\n"
    uses += "        b: {$ref: '#/$defs/Box'}\n"
    Path("tools.yaml").write_text(head + tree + uses + "        t: {$ref: '#/$defs/Tree'}\n")
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert "Tree = TypeAliasType(" in Path("pkg/models.py").read_text()
    Path("pkg/handlers/a.py").write_text("from ..models import AInput, Tree\n" + BODY)
    capsys.readouterr()
    kept = "  Tree: {type: array, items: {type: string}}\n"  # (an alias of its own, not recursive)
    again = head + uses if lost else head + kept + uses + "        t: {$ref: '#/$defs/Tree'}\n"
    Path("tools.yaml").write_text(again)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert ("imports Tree from models.py" in capsys.readouterr().err) is lost


def test_a_lost_model_is_said_again_after_an_edit_that_keeps_it_and_not_after_the_mend(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("tools.yaml").write_text(GOOD + "    outputSchema: {type: object, properties: {}}\n")
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    handler = Path("pkg/handlers/a.py")
    handler.write_text("from ..models import AInput, AOutput\n" + BODY)
    Path("tools.yaml").write_text(GOOD)
    runs = [GOOD, GOOD, GOOD.replace("server: {name: s}", "server: {name: s, version: 2.0.0}")]
    for i, toolset in enumerate(runs):  # as found, up to date, and a run for another change
        handler.write_text(handler.read_text() + f"# edit {i}\n")  # (edited, not mended)
        Path("tools.yaml").write_text(toolset)
        capsys.readouterr()
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert "imports AOutput from models.py" in capsys.readouterr().err, i
    handler.write_text(LOST + BODY)
    for more in ([], ["--force"]):
        assert main(["generate", "tools.yaml", "--out", "pkg", *more]) == 0
        assert "AOutput" not in capsys.readouterr().err
    # A stamp edited to name another file is no stamp to trust: nothing else is read (a FIFO hung).
    stamp = Path("pkg/_mcpstub.json")
    data = json.loads(stamp.read_text())
    os.mkfifo("fifo")
    data["lost_models"] = {str(in_tmp / "fifo"): [["X"], ["Y"]]}
    stamp.write_text(json.dumps(data, indent=2) + "\n")
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0


def test_a_loop_of_symbolic_links_is_said_so_where_a_path_is_resolved(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # (Python 3.11's `Path.resolve` raises RuntimeError for it: a traceback reached the user.)
    (in_tmp / "loop.yaml").symlink_to("loop.yaml")
    assert main(["init", "loop.yaml"]) == 1
    assert capsys.readouterr().err == "mcpstub: error: loop.yaml: a symbolic link that leads back to itself\n"
    # A toolset that is a link to nothing says which; a pyproject.toml that is one is no project
    # without its options, unsaid.
    (in_tmp / "a.yaml").symlink_to("b.yaml")
    (in_tmp / "b.yaml").symlink_to("a.yaml")
    (in_tmp / "gone.yaml").symlink_to("nowhere.yaml")
    for name, why in (("a.yaml", "a symbolic link that leads back to itself"),
                      ("gone.yaml", "a symbolic link to nowhere.yaml, which does not exist")):  # fmt: skip
        assert main(["validate", name]) == 2
        assert capsys.readouterr().err == f"mcpstub: error: toolset file not found: {name} ({why})\n"
    for number in range(50):  # (a chain longer than the system follows, no loop in it)
        (in_tmp / f"l{number}.yaml").symlink_to(f"l{number + 1}.yaml")
    (in_tmp / "l50.yaml").write_text(GOOD)
    assert main(["validate", "l0.yaml"]) == 2
    why = "a chain of 50 symbolic links, more than the system follows"
    assert capsys.readouterr().err == f"mcpstub: error: toolset file not found: l0.yaml ({why})\n"
    (in_tmp / "c.yaml").symlink_to("gone.yaml")  # (a chain: the file it leads to is said)
    assert main(["validate", "c.yaml"]) == 2
    why = "a symbolic link to nowhere.yaml (through gone.yaml), which does not exist"
    assert capsys.readouterr().err == f"mcpstub: error: toolset file not found: c.yaml ({why})\n"
    # A pyproject.toml that is one: said, and the command goes on without its options.
    (in_tmp / "pyproject.toml").symlink_to("pyproject.toml")
    (in_tmp / "tools.yaml").write_text(GOOD)
    assert main(["validate", "tools.yaml"]) == 0
    said = "pyproject.toml: a symbolic link that leads back to itself; its options are not read"
    assert capsys.readouterr().err == f"mcpstub: warning: {said}\n0 errors, 1 warning\n"
    assert main(["validate", "tools.yaml", "--fail-on", "warning"]) == 1  # (a warning like any)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"mcpstub: warning: {said}" and err[-1] == "0 errors, 1 warning", err


def test_a_module_a_new_tool_takes_over_as_its_handler_without_its_function_is_said(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # handlers/helpers.py held helpers of the user's; a tool `helpers` added later takes it for
    # its handler (no stub is written over it): every call was an internal error, unsaid.
    toolset = "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: find\n    inputSchema: {type: object}\n"
    (in_tmp / "tools.yaml").write_text(toolset)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    helpers = in_tmp / "pkg" / "handlers" / "helpers.py"
    helpers.write_text("def util():\n    return 1\n")
    (in_tmp / "tools.yaml").write_text(toolset + "  - name: helpers\n    inputSchema: {type: object}\n")
    said = "pkg/handlers/helpers.py: warning: defines no function 'helpers': every call of its tool"
    for run in ("generates", "finds it current"):
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert said in capsys.readouterr().err, run
    assert helpers.read_text() == "def util():\n    return 1\n"  # (left as written)
    for mended in ("async def helpers(args, ctx):\n    return 'x'\n", "from .impl import helpers\n"):
        helpers.write_text(f"def util():\n    return 1\n\n\n{mended}")
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert "defines no function" not in capsys.readouterr().err
    assert main(["generate", "tools.yaml", "--out", "pkg", "--force"]) == 0
    assert "defines no function" not in capsys.readouterr().err
    # A handler whose function was renamed, found current or not: said on each run until mended.
    find = in_tmp / "pkg" / "handlers" / "find.py"
    written = find.read_text()
    find.write_text(written.replace("async def find(", "async def search("))
    said = "pkg/handlers/find.py: warning: defines no function 'find': every call of its tool"
    for run in ("finds it current", "finds it current again"):
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert said in capsys.readouterr().err, run
    (in_tmp / "tools.yaml").write_text(toolset.replace("{type: object}", "{type: object, description: x}"))
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert said in capsys.readouterr().err
    find.write_text(written)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert "defines no function" not in capsys.readouterr().err
    (in_tmp / "tools.yaml").write_text(toolset + "  - name: helpers\n    inputSchema: {type: object}\n")
    # A module binding the name only inside a function, and a package of the tool's name (which
    # Python imports instead of the stub written beside it).
    (in_tmp / "pkg" / "handlers" / "stats.py").write_text("def mean(x):\n    stats = x\n    return stats\n")
    (in_tmp / "pkg" / "handlers" / "util").mkdir()
    (in_tmp / "pkg" / "handlers" / "util" / "__init__.py").write_text("")
    names = ("helpers", "stats", "util")
    more = "".join(f"  - name: {name}\n    inputSchema: {{type: object}}\n" for name in names)
    (in_tmp / "tools.yaml").write_text(toolset + more)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    err = capsys.readouterr().err
    assert "pkg/handlers/stats.py: warning: defines no function 'stats'" in err, err
    said = "pkg/handlers/util/__init__.py: warning: defines no function 'util' (a package: Python imports it"
    assert said in err, err
    # Bound otherwise at the top level, or where only the server's check can tell: no warning.
    for bound in ("match 1:\n    case 1:\n        def stats(args, ctx): ...\n", "(stats := len)\n",
                  "stats, other = len, len\n", "from os import *\n", "def __getattr__(name): ...\n",
                  "import os as stats\n", "for stats in [len]:\n    pass\n",
                  "match len:\n    case stats: pass\n", "def f(a=(stats := len)): ...\n",
                  "class C(metaclass=(stats := type)): ...\n",
                  '"""Stats."""\nasync def stats(args, ctx): ...\n'):  # fmt: skip
        (in_tmp / "pkg" / "handlers" / "stats.py").write_text(bound)
        (in_tmp / "pkg" / "handlers" / "util" / "__init__.py").write_text("async def util(args, ctx): ...\n")
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert "defines no function" not in capsys.readouterr().err, bound
    # Bound nowhere as the module runs: an annotation alone, a comprehension's own variable.
    # (nor in a text that holds a line like a handler's own)
    for unbound in ("stats: object\n", "xs = [stats for stats in range(3)]\n",
                    '"""Usage:\n\ndef stats(args, ctx):\n"""\n', "'\'\'\ndef stats(x):'\'\'\n",
                    "x = 'a\\\ndef stats(args, ctx): ...'\n"):  # fmt: skip
        (in_tmp / "pkg" / "handlers" / "stats.py").write_text(unbound)
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert "defines no function 'stats'" in capsys.readouterr().err, unbound


def test_a_flag_wins_over_the_project_s_keys_for_the_kind_of_package(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A project with `emit_tests = true` could not make a client for another server: the flag
    # met the key as a conflict, and no flag turned the key off.
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "src/app"\nemit_tests = true\n')
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "other.yaml").write_text(GOOD)
    assert main(["generate", "other.yaml", "--out", "other_client", "--client-only"]) == 0
    assert not (in_tmp / "other_client" / "test_contract.py").exists()
    assert not (in_tmp / "other_client" / "server.py").exists()
    assert main(["generate", "--no-emit-tests"]) == 0
    assert not (in_tmp / "src" / "app" / "test_contract.py").exists()
    capsys.readouterr()
    assert main(["generate", "--check"]) == 1  # (the key: the contract tests are missing)
    assert capsys.readouterr().err.endswith("run: mcpstub generate\n")
    assert main(["generate", "--check", "--no-emit-tests"]) == 0
    capsys.readouterr()
    models = in_tmp / "src" / "app" / "models.py"
    models.write_text(models.read_text() + "# edited\n")
    assert main(["generate", "--check", "--no-emit-tests"]) == 1  # (the fix says the flag)
    assert capsys.readouterr().err.endswith("run: mcpstub generate --no-emit-tests\n")
    # Both asked for by flags, or `--emit-tests` in a client-only project: refused, saying how.
    capsys.readouterr()
    assert main(["generate", "other.yaml", "--out", "other_client", "--client-only", "--emit-tests"]) == 2
    assert "(--no-emit-tests and --no-client-only turn a key off for one run)" in capsys.readouterr().err
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\nout = "src/app"\nclient_only = true\n')
    assert main(["generate", "--emit-tests"]) == 2
    assert main(["generate", "--emit-tests", "--no-client-only"]) == 0
    assert (in_tmp / "src" / "app" / "test_contract.py").is_file()


def test_a_tools_yaml_of_a_folder_below_that_the_configured_toolset_passes_over_is_said(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The project's `toolset` is the one a bare run reads, from any folder below it: a tools.yaml
    # of that folder (a second project, say) is not read, and the run says so.
    (in_tmp / "pyproject.toml").write_text('[tool.mcpstub]\ntoolset = "tools.yaml"\nout = "src/first"\n')
    (in_tmp / "tools.yaml").write_text(GOOD)
    (in_tmp / "second").mkdir()
    os.chdir(in_tmp / "second")
    Path("tools.yaml").write_text(GOOD.replace("name: s", "name: second"))
    capsys.readouterr()
    assert main(["validate"]) == 0
    said = capsys.readouterr()
    named = f"note: the toolset is {in_tmp / 'tools.yaml'}, named in {in_tmp / 'pyproject.toml'}, not the"
    assert named in said.err and "second" not in said.out, said
    assert main(["validate", "tools.yaml"]) == 0 and "note" not in capsys.readouterr().err
    os.chdir(in_tmp)  # (the configured one itself: nothing to say)
    assert main(["validate"]) == 0 and "note" not in capsys.readouterr().err
    os.chdir(in_tmp / "second")  # nor where this folder's is the same file, or no file
    for same in (lambda: os.link("../tools.yaml", "tools.yaml"), lambda: os.mkdir("tools.yaml")):
        os.unlink("tools.yaml") if os.path.isfile("tools.yaml") else os.rmdir("tools.yaml")
        same()
        assert main(["validate"]) == 0 and "note" not in capsys.readouterr().err


def test_a_renamed_definition_a_handler_or_a_module_of_yours_imports_is_said_with_its_new_name(
    in_tmp: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Not "its tool's form changed": what models.py defines now that it did not is named, and a
    # module of yours beside the handlers (`_store.py`) is said too; its import fails the server.
    toolset = GOOD.replace("server: {name: s}\n", "server: {name: s}\n$defs:\n  Town: {type: string}\n")
    Path("tools.yaml").write_text(toolset)
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    Path("pkg/handlers/a.py").write_text(
        "from ..models import AInput, Town\n\n\nasync def a(args: AInput, ctx: object) -> str:\n"
        "    return Town('x')\n"
    )
    Path("pkg/handlers/_store.py").write_text("from ..models import Town\n\nKEPT: list[Town] = []\n")
    capsys.readouterr()
    Path("tools.yaml").write_text(toolset.replace("Town:", "City:"))
    warned = (
        "pkg/handlers/_store.py:1:22: warning: imports Town from models.py, which no longer defines it\n"
        "  hint: mend it to what models.py defines now: new there: City\n"
        "pkg/handlers/a.py:1:30: warning: imports Town from models.py, which no longer defines it\n"
        "  hint: mend it to what models.py defines now: its tool's AInput; new there: City\n"
        "0 errors, 2 warnings\n"
    )
    for _ in range(2):  # the run that writes it, then one that finds it current
        assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
        assert capsys.readouterr().err == warned
    # and a later run that writes the package again (another change), or checks it
    Path("tools.yaml").write_text(toolset.replace("Town:", "City:").replace("name: s", "name: t"))
    for more in ([], ["--check"], []):
        assert main(["generate", "tools.yaml", "--out", "pkg", *more]) == 0
        assert warned in capsys.readouterr().err
    Path("pkg/handlers/_store.py").write_text("from ..models import City\n\nKEPT: list[City] = []\n")
    assert main(["generate", "tools.yaml", "--out", "pkg"]) == 0
    assert capsys.readouterr().err == warned.split("\n", 2)[2].replace("2 warnings", "1 warning")
