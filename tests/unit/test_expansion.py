"""Expansion bounds: a small toolset never expands into a huge build; it is refused in seconds."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcpstub import bundle
from mcpstub.load import MAX_ALIAS_NODES, MAX_DEPTH
from mcpstub.pipeline import check_toolset

ROOT = Path(__file__).resolve().parents[2]
HEAD = "mcpstub: 1\nserver: {name: s}\n"


def big_object(properties: int, description: str = "d") -> str:
    fields = ", ".join(f"p{i}: {{type: string, description: {description}{i}}}" for i in range(properties))
    return f"{{type: object, properties: {{{fields}}}}}"


def validate_in_child(folder: Path, name: str) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """Run `mcpstub validate` in a fresh process: (result, seconds, peak memory in MB)."""
    code = (
        "import sys\n"
        "from mcpstub.cli import main\n"
        "code = main(['validate', sys.argv[1]])\n"
        # VmHWM is this program's own peak; ru_maxrss would include the forking test process's
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
        "print(int(peak) // 1024, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-c", code, name],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    elapsed = time.monotonic() - started
    peak = int(result.stderr.strip().splitlines()[-1])
    return result, elapsed, peak


def test_aliases_reused_across_tools_are_refused_quickly(tmp_path: Path) -> None:
    # 4,000 written nodes, reused by 300 tools: 1.2 million nodes once expanded
    tools = "".join(
        f"  - name: t{i}\n    inputSchema: {{type: object, properties: {{x: *big}}}}\n" for i in range(300)
    )
    (tmp_path / "tools.yaml").write_text(f"{HEAD}$defs:\n  Big: &big {big_object(1000)}\ntools:\n{tools}")
    result, elapsed, peak = validate_in_child(tmp_path, "tools.yaml")
    assert result.returncode == 1
    assert "[yaml-alias-bomb]" in result.stderr and "tools.yaml:4:8:" in result.stderr
    assert f"more than {MAX_ALIAS_NODES:,} nodes" in result.stderr
    assert elapsed < 20 and peak < 300, (elapsed, peak)


def test_a_big_definition_bundled_into_many_tools_is_refused_quickly(tmp_path: Path) -> None:
    # a 250 KB definition referenced by 400 tools would advertise 100 MB
    tools = "".join(
        f"  - name: t{i}\n    inputSchema: {{type: object, properties: {{x: {{$ref: '#/$defs/Big'}}}}}}\n"
        for i in range(400)
    )
    (tmp_path / "tools.yaml").write_text(
        f"{HEAD}$defs:\n  Big: {big_object(2000, 'd' * 80)}\ntools:\n{tools}"
    )
    result, elapsed, peak = validate_in_child(tmp_path, "tools.yaml")
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(lines) == 1 and "[expansion-too-large]" in lines[0], result.stderr
    assert "would copy more than 8 MB" in lines[0]
    assert elapsed < 20 and peak < 300, (elapsed, peak)


def test_an_alias_counts_as_deep_as_its_anchor(tmp_path: Path) -> None:
    inner = "{a: " * 60 + "x" + "}" * 60
    outer = "{b: " * 50 + "*deep" + "}" * 50
    (tmp_path / "tools.yaml").write_text(
        f"{HEAD}$defs:\n  D: &deep {inner}\ntools:\n  - name: t\n"
        f"    inputSchema: {{type: object, properties: {{p: {outer}}}}}\n"
    )
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    [d] = checked.diagnostics
    assert d.code == "yaml-too-deep" and f"deeper than {MAX_DEPTH}" in d.message


def test_moderate_reuse_is_fine(tmp_path: Path) -> None:
    tools = "".join(
        f"  - name: t{i}\n    inputSchema:\n      type: object\n"
        f"      properties: {{x: *page, y: {{$ref: '#/$defs/Big'}}}}\n"
        for i in range(200)
    )
    (tmp_path / "tools.yaml").write_text(
        f"{HEAD}$defs:\n  Big: {big_object(100)}\n  Page: &page {big_object(20)}\ntools:\n{tools}"
    )
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert checked.ok and checked.diagnostics == []


def test_long_text_reused_through_aliases_counts(tmp_path: Path) -> None:
    # one 100 KB description, aliased 200 times: 20 MB of text from a 100 KB file
    props = ", ".join(f"p{i}: {{type: string, description: *long}}" for i in range(200))
    (tmp_path / "tools.yaml").write_text(
        f"{HEAD}$defs:\n  Text: {{description: &long {'x' * 100_000}}}\ntools:\n  - name: t\n"
        f"    inputSchema: {{type: object, properties: {{{props}}}}}\n"
    )
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert [d.code for d in checked.diagnostics] == ["yaml-alias-bomb"]


def test_past_the_budget_and_beside_a_nameless_tool_shared_definitions_are_not_read_in_a_guessed_dialect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tool past the budget, or without a name, is not bundled: the dialect it reads a definition
    # in is not known, and the draft-07 `Pair` is no 2020-12 mistake.
    monkeypatch.setattr(bundle, "MAX_COPIED_BYTES", 6_000)
    d7 = "http://json-schema.org/draft-07/schema#"
    pair = "Pair: {type: array, items: [{type: string}], additionalItems: false}"
    uses = "inputSchema: {type: object, properties: {x: {$ref: '#/$defs/Big'}}}"
    old = f"inputSchema: {{$schema: '{d7}', type: object, properties: {{p: {{$ref: '#/$defs/Pair'}}}}}}"
    past = "".join(f"  - name: t{i}\n    {uses}\n" for i in range(4)) + f"  - name: old\n    {old}\n"
    nameless = f"  - description: no name\n    {old}\n"
    # (one that refers to nothing reaches nothing: the definitions are read, their mistakes said)
    unused = "Unused: {type: object, requird: [a]}"
    (tmp_path / "tools.yaml").write_text(
        f"{HEAD}$defs:\n  {unused}\ntools:\n  - description: d\n    inputSchema: {{type: object}}\n"
    )
    codes = sorted(d.code for d in check_toolset(tmp_path / "tools.yaml", "tools.yaml").diagnostics)
    assert codes == ["missing-key", "misspelled-keyword"], codes
    for tools, code in ((past, "expansion-too-large"), (nameless, "missing-key")):
        definitions = f"$defs:\n  Big: {big_object(60)}\n  {pair}\n"
        (tmp_path / "tools.yaml").write_text(f"{HEAD}{definitions}tools:\n{tools}")
        checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
        assert [d.code for d in checked.diagnostics] == [code], checked.diagnostics


def test_a_definition_no_tool_uses_is_not_counted_in_the_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (its copies are advertised in no tool)
    monkeypatch.setattr(bundle, "MAX_COPIED_BYTES", 6_000)
    uses = "inputSchema: {type: object, properties: {x: {$ref: '#/$defs/Big'}}}"
    tools = "".join(f"  - name: t{i}\n    {uses}\n" for i in range(2))
    wrap = "Wrap: {type: object, properties: {w: {$ref: '#/$defs/Big'}}}"
    (tmp_path / "tools.yaml").write_text(f"{HEAD}$defs:\n  Big: {big_object(60)}\n  {wrap}\ntools:\n{tools}")
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    assert checked.ok and checked.diagnostics == [], checked.diagnostics
