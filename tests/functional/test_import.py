"""`mcpstub import`: import -> generate -> tools/list through a real client equals the source."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcpstub import cli
from mcpstub.diff import command as diff_command
from mcpstub.diff.model import DiffOptions
from mcpstub.importer import extract_shared, same
from mcpstub.pipeline import check_toolset
from mcpstub.server_listing import read_live
from tests.functional.helpers import imported

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus" / "github.json"
EXAMPLE = ROOT / "examples" / "weather"


def ordered(value: Any) -> Any:
    """Key order is not part of a JSON value: sort keys, keep everything else (kinds too)."""
    if isinstance(value, dict):
        return {k: ordered(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [ordered(v) for v in value]
    return value


def generate(toolset: Path, package: str) -> Path:
    out = toolset.parent / package
    assert cli.main(["generate", str(toolset), "--out", str(out)]) == 0
    return out


def listed(root: Path, package: str, mode: str = "2026-07-28") -> Any:
    with imported(root, package) as pkg:
        return read_live(server=pkg.create_server(), mode=mode)


def test_github_corpus_round_trips_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = json.loads(CORPUS.read_text("utf-8"))
    saved = tmp_path / "answer.json"  # a saved JSON-RPC answer, as a client logs it
    saved.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": source}}), "utf-8")
    toolset = tmp_path / "tools.yaml"
    assert cli.main(["import", str(saved), "-o", str(toolset)]) == 0
    assert "117 tools" in capsys.readouterr().out
    text = toolset.read_text("utf-8")
    assert text.startswith("# yaml-language-server: $schema=file://")
    assert "\nmcpstub: 1\nserver: {name: answer}\ntools:\n" in text
    generate(toolset, "gh_imported")
    for mode in ("2026-07-28", "legacy"):
        listing = listed(tmp_path, "gh_imported", mode)
        assert [t["name"] for t in listing.tools] == [t["name"] for t in source]
        for got, want in zip(listing.tools, source, strict=True):
            assert same(ordered(got), ordered(want)), want["name"]


def test_bundled_example_round_trips_from_a_stdio_server(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE)}
    command = f"{sys.executable} -m weather_tools"
    original = read_live(command=command, mode="2026-07-28", cwd=str(EXAMPLE))
    toolset = tmp_path / "tools.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "mcpstub", "import", "--server-command", command, "-o", str(toolset)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    generate(toolset, "weather_again")
    for mode in ("2026-07-28", "legacy"):
        again = listed(tmp_path, "weather_again", mode)
        assert same(ordered(again.tools), ordered(original.tools))
        assert again.digests == original.digests  # the same surface, so the same digests
    assert again.server_info == original.server_info == {"name": "weather", "version": "1.2.0"}
    assert again.instructions == original.instructions == "Forecasts, alerts and radar maps for cities."


def test_a_surface_snapshot_imports_too(tmp_path: Path) -> None:
    toolset = tmp_path / "tools.yaml"
    assert cli.main(["import", str(EXAMPLE / "weather_tools" / "surface.json"), "-o", str(toolset)]) == 0
    checked = check_toolset(toolset)
    assert checked.toolset is not None and checked.toolset.server_name == "weather"
    snapshot = json.loads((EXAMPLE / "weather_tools" / "surface.json").read_text("utf-8"))
    wire = snapshot["protocols"]["2026-07-28"]["tools"]
    assert [ordered(t.advertised) for t in checked.toolset.tools] == [ordered(t) for t in wire]


def inline(schema: Any, shared: dict[str, Any]) -> Any:
    """The schema with every `#/$defs/NAME` reference to a shared definition replaced by it."""
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if set(schema) == {"$ref"} and isinstance(ref, str) and ref.removeprefix("#/$defs/") in shared:
            return inline(shared[ref.removeprefix("#/$defs/")], shared)
        return {k: inline(v, shared) for k, v in schema.items() if k != "$defs"} | (
            {"$defs": schema["$defs"]} if "$defs" in schema else {}
        )
    if isinstance(schema, list):
        return [inline(v, shared) for v in schema]
    return schema


def test_extract_defs_shares_repeated_subschemas_without_changing_meaning(tmp_path: Path) -> None:
    source = json.loads(CORPUS.read_text("utf-8"))
    plain, shared_file = tmp_path / "plain.yaml", tmp_path / "shared.yaml"
    assert cli.main(["import", str(CORPUS), "-o", str(plain)]) == 0
    assert cli.main(["import", str(CORPUS), "-o", str(shared_file), "--extract-defs"]) == 0
    assert len(shared_file.read_bytes()) < len(plain.read_bytes())
    checked = check_toolset(shared_file)
    assert checked.toolset is not None and not [d for d in checked.diagnostics if d.is_error]
    shared = checked.toolset.shared_defs
    assert shared, "the corpus repeats subschemas; some must be shared"
    for tool, want in zip(checked.toolset.tools, source, strict=True):
        for key in ("inputSchema", "outputSchema"):
            if key in want:
                own = {k: v for k, v in tool.advertised[key].get("$defs", {}).items()}
                got = inline(tool.advertised[key], own)
                got.pop("$defs", None) if "$defs" not in want[key] else None
                assert same(ordered(got), ordered(want[key])), want["name"]
    generate(shared_file, "gh_shared")


def test_extract_defs_keeps_references_and_own_definitions_in_place() -> None:
    item = {"type": "object", "properties": {"a": {"type": "string", "description": "x" * 60}}}
    pinned = {"type": "object", "properties": {"r": {"$ref": "#/$defs/Item"}, "pad": {"title": "y" * 30}}}
    tools = [
        {"name": "one", "inputSchema": {"type": "object", "properties": {"p": item, "q": pinned}}},
        {
            "name": "two",
            "inputSchema": {
                "type": "object",
                "properties": {"p": item, "q": pinned},
                "$defs": {"Item": {"type": "integer"}},
            },
        },
    ]
    shared, rewritten = extract_shared(tools)
    assert list(shared) == ["P"]  # named after the property; the one holding a $ref stays put
    for tool in rewritten:
        assert tool["inputSchema"]["properties"]["p"] == {"$ref": "#/$defs/P"}
        assert tool["inputSchema"]["properties"]["q"] == pinned
    assert tools[0]["inputSchema"]["properties"]["p"] == item  # the input is not modified


def test_extract_defs_leaves_a_default_and_what_a_pointer_reaches_where_they_are(tmp_path: Path) -> None:
    # A default applies only where it is written (a definition's fills no field); a `$ref` by a
    # JSON pointer into the schema (zod-to-json-schema writes them) must still find its target.
    limit = {"type": "integer", "default": 30, "minimum": 1, "maximum": 100, "description": "Max results"}
    address = {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}
    same_as = {"$ref": "#/properties/order/properties/billing"}
    order = {"type": "object", "properties": {"billing": address, "shipping": same_as}}
    tools = [
        {"name": n, "inputSchema": {"type": "object", "properties": {"limit": limit, "order": order}}}
        for n in ("one", "two")
    ]
    saved = tmp_path / "answer.json"
    saved.write_text(json.dumps({"tools": tools}), "utf-8")
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "t.yaml"), "--extract-defs"]) == 0
    checked = check_toolset(tmp_path / "t.yaml")
    assert checked.toolset is not None
    for tool in checked.toolset.tools:
        properties = tool.advertised["inputSchema"]["properties"]
        assert properties["limit"] == limit and properties["order"] == order, properties
    models = (generate(tmp_path / "t.yaml", "fx_defaults") / "models.py").read_text("utf-8")
    assert models.count("le=100)] = 30\n") == 2, models


def test_what_the_format_cannot_express_is_reported_in_the_written_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = {
        "tools": [
            {"name": "fine", "inputSchema": {"type": "object"}},
            {"name": "listy", "inputSchema": {"type": "array"}},
            {"name": "tasky", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}},
        ]
    }
    saved = tmp_path / "answer.json"
    saved.write_text(json.dumps(answer), "utf-8")
    toolset = tmp_path / "tools.yaml"
    assert cli.main(["import", str(saved), "-o", str(toolset)]) == 1
    err = capsys.readouterr().err
    lines = toolset.read_text("utf-8").splitlines()
    errors = [line for line in err.splitlines() if ": error: " in line]
    assert len(errors) >= 2, err
    for line in errors:  # each located in the written toolset, at the tool it is about
        file, row, _ = line.split(":", 2)
        assert file.endswith("tools.yaml")
        assert "listy" in "\n".join(lines[: int(row)]) or "tasky" in "\n".join(lines[: int(row)])
    assert "it does not validate yet" in err
    assert cli.main(["import", str(saved), "-o", str(toolset)]) == 2  # never replaced unasked


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ('{"tools": [\n  {"name": "a",}\n]}', ":2:"),
        ('{"tools": {"name": "a"}}', ":1:11:"),
        ('{"jsonrpc": "2.0", "id": 1, "error": {"code": -1}}', ":1:1:"),
        ('{"tools": [\n  {"name": "a"},\n  NaN]}', ":3:3:"),
        ('{"tools": [\n  {"name": "a"},\n  3]}', ":3:3:"),
        ('{"result": {"tools": [{"name": "a", "x": "1e400"}, {"name": "b", "x": 1e400}]}}', ":1:71:"),
        ('{"tools": [{"name": "a\\\\ud800", "title": "\\ud83d\\ude00 \\ud800"}]}', ":1:56:"),
        ('{"tools": [\n  {"name": "a", "x": ' + "9" * 5000 + "}]}", ":2:22:"),  # (past what Python reads)
    ],
    ids=["syntax", "no-list", "error-answer", "nan", "not-a-tool", "too-large", "lone-surrogate", "digits"],
)
def test_a_source_that_is_not_a_listing_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, where: str
) -> None:
    saved = tmp_path / "answer.json"
    saved.write_text(content, "utf-8")
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "t.yaml")]) == 1
    err = capsys.readouterr().err
    assert f"answer.json{where}" in err and "error:" in err and "Traceback" not in err
    assert not (tmp_path / "t.yaml").exists()


@pytest.mark.parametrize(
    ("raw", "said"),
    [('{"tools": []}'.encode("utf-16"), "1:1: error: file is UTF-16, not UTF-8"),
     (b'{"tools": [],\n "x": "caf\xe9"}', "2:11: error: file is not valid UTF-8 (byte 0xe9)")],
)  # fmt: skip
def test_a_saved_answer_that_is_no_utf_8_is_said_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], raw: bytes, said: str
) -> None:
    (tmp_path / "answer.json").write_bytes(raw)
    assert cli.main(["import", str(tmp_path / "answer.json"), "-o", str(tmp_path / "t.yaml")]) == 1
    assert f"answer.json:{said} (hint: save the file as UTF-8) [import-source]" in capsys.readouterr().err


def test_a_json_toolset_is_written_as_json_and_a_folder_is_no_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "answer.json"
    saved.write_text('{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}', "utf-8")
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "t.json")]) == 0
    assert json.loads((tmp_path / "t.json").read_text("utf-8"))["tools"][0]["name"] == "a"
    assert cli.main(["validate", str(tmp_path / "t.json")]) == 0
    capsys.readouterr()
    assert cli.main(["import", str(tmp_path), "-o", str(tmp_path / "u.yaml")]) == 2
    assert "is a folder" in capsys.readouterr().err


def test_a_server_that_cannot_start_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = f"{sys.executable} -c 'import sys; sys.exit(\"no config file\")'"
    code = cli.main(["import", "--server-command", command, "-o", str(tmp_path / "t.yaml")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("mcpstub: error: server command") and "Traceback" not in err
    assert "the server said: no config file" in err
    assert cli.main(["import", "http://192.0.2.1/mcp", "-o", str(tmp_path / "t.yaml")]) == 2
    assert "loopback" in capsys.readouterr().err


@pytest.mark.parametrize(
    "port", ["٣٠٠٠", "+80", "99999", "0", "8_0", "0x50", " 80", "\uff18\uff10", "9" * 5000]
)
@pytest.mark.parametrize("command", ["import", "diff"])
def test_a_url_port_is_digits_0_to_9_from_1_to_65535(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], port: str, command: str
) -> None:
    """HTTP clients take other digits or a sign as a port (and connect somewhere): a usage error."""
    url = f"http://127.0.0.1:{port}/mcp"
    args = ["import", url, "-o", str(tmp_path / "t.yaml")] if command == "import" else ["diff", url, url]
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert "the port must be a number from 1 to 65535, in digits 0-9" in err, err
    assert "Traceback" not in err and not (tmp_path / "t.yaml").exists()


# A stdio server that answers tools/list with what the MCP SDK refuses (`inputSchema: {}`).
RAW_SERVER = """\
import json, sys
TOOLS = [{"name": "a", "inputSchema": {}}, {"name": "b", "inputSchema": {"type": "object"}}]
for line in sys.stdin:
    msg = json.loads(line)
    if "id" not in msg:
        continue
    if msg["method"] == "initialize":
        info = {"name": "raw", "version": "1"}
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": info}
    elif msg["method"] == "tools/list":
        result = {"tools": TOOLS}
    else:
        error = {"code": -32601, "message": "no " + msg["method"]}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"""


def test_a_live_listing_the_sdk_refuses_is_imported_and_its_problems_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # As a saved answer with the same tools would be: written as it is, then each problem said.
    (tmp_path / "raw_server.py").write_text(RAW_SERVER, "utf-8")
    command = f"{sys.executable} {tmp_path / 'raw_server.py'}"
    target = tmp_path / "t.yaml"
    assert cli.main(["import", "--server-command", command, "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert f"{target}:4:" in err and "[root-not-object]" in err and "Traceback" not in err, err
    assert [t["name"] for t in yaml.safe_load(target.read_text("utf-8"))["tools"]] == ["a", "b"]


def test_a_surface_snapshot_brings_what_each_tool_asks_its_user(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The snapshot records each tool's requested schemas (no tools/list says them): a toolset
    # imported from it asks the same, and says nothing differs.
    asked = {"when": {"type": "object", "properties": {"due": {"type": "string", "format": "date"}}}}
    toolset = {"mcpstub": 1, "server": {"name": "asks"}, "tools": [
        {"name": "book", "inputSchema": {"type": "object"}, "elicitations": asked},
        {"name": "plain", "inputSchema": {"type": "object"}},
    ]}  # fmt: skip
    (tmp_path / "tools.json").write_text(json.dumps(toolset), "utf-8")
    generate(tmp_path / "tools.json", "fx_asks")
    capsys.readouterr()
    surface = tmp_path / "fx_asks" / "surface.json"
    assert cli.main(["import", str(surface), "-o", str(tmp_path / "t.yaml")]) == 0
    assert capsys.readouterr().err == ""
    tools = yaml.safe_load((tmp_path / "t.yaml").read_text("utf-8"))["tools"]
    assert [t.get("elicitations") for t in tools] == [asked, None]
    # A tools/list answer cannot say them: that no form is written is said, and where they are.
    listing = {"tools": json.loads(surface.read_text("utf-8"))["protocols"]["2026-07-28"]["tools"]}
    (tmp_path / "listing.json").write_text(json.dumps(listing), "utf-8")
    assert cli.main(["import", str(tmp_path / "listing.json"), "-o", str(tmp_path / "l.yaml")]) == 0
    assert capsys.readouterr().err == (
        "mcpstub: note: a tools/list answer does not say what tools ask their user: no `elicitations`"
        " are written; an mcpstub server's surface.json says it (import that)\n"
    )


def test_a_saved_page_with_a_next_one_is_said_to_be_partial(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "answer.json"
    tool = {"name": "a", "inputSchema": {"type": "object"}}
    saved.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool], "nextCursor": "2"}}))
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "t.yaml")]) == 0  # (a warning)
    err = capsys.readouterr().err
    assert f"{saved}:1:" in err and "[import-partial]" in err and "next page" in err, err


def _round_trip(tmp_path: Path, tools: list[dict[str, Any]], name: str, *flags: str) -> Path:
    """Import `tools` saved as an answer into NAME (YAML or JSON by its suffix), generate, and hold
    the served tools/list to the source, key for key."""
    saved = tmp_path / f"{Path(name).stem}.source.json"
    saved.write_text(json.dumps({"tools": tools}), "utf-8")  # (escaped: the source is ASCII)
    toolset = tmp_path / name
    assert cli.main(["import", str(saved), "-o", str(toolset), *flags]) == 0
    package = f"rt_{Path(name).stem}_{Path(name).suffix[1:]}"
    generate(toolset, package)
    if "--extract-defs" not in flags:  # (which rewrites schemas, keeping what they accept)
        assert ordered(listed(tmp_path, package).tools) == ordered(tools)
    assert cli.main(["diff", str(saved), str(toolset)]) == 0
    return toolset


TEXTS = [
    "\n xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",  # a block's first line with text sets its indentation
    "\n\n  indented\nnext line, long enough to be a block of its own: more than forty",
    "a\x7fb \x85 \x9f \u2028 \u2029 \ufeff \ufffe \uffff end",  # JSON holds them raw, YAML does not
]


@pytest.mark.parametrize("suffix", ["yaml", "json"])
def test_any_description_round_trips_in_yaml_and_in_json(tmp_path: Path, suffix: str) -> None:
    tools = [
        {"name": f"t{i}", "description": text, "inputSchema": {"type": "object"}}
        for i, text in enumerate(TEXTS)
    ]
    toolset = _round_trip(tmp_path, tools, f"tools.{suffix}")
    surface = next(tmp_path.glob("rt_*/surface.json"))  # mcpstub's own snapshot reads back too
    assert cli.main(["diff", str(surface), str(toolset)]) == 0


def test_extract_defs_moves_nothing_out_of_a_resource_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The diff of the round trip cannot decide a nested $id and searches; 1 s of it is enough here.
    monkeypatch.setattr(diff_command, "DiffOptions", functools.partial(DiffOptions, search_seconds=1))
    big = {
        "type": "object",
        "properties": {"x": {"type": "string", "minLength": 3}, "y": {"type": "integer"}},
    }
    inner = {"$id": "https://example.com/inner", "type": "object", "properties": {"p": big, "q": big}}
    schema = {"type": "object", "properties": {"a": inner, "b": big, "c": big}}
    toolset = _round_trip(tmp_path, [{"name": "t", "inputSchema": schema}], "tools.yaml", "--extract-defs")
    assert check_toolset(toolset).ok


@pytest.mark.parametrize(
    ("text", "said", "line"),
    [
        ('{"tools": [{"name": "s", "description": "a",\n "description": "b", "inputSchema": {}}]}',
         "duplicate key 'description'", 2),
        ('{"tools": [{"name": "s", "inputSchema": {},\n "timeout": 5}]}',
         "tools[0] has the key 'timeout', which a toolset reads as a setting of mcpstub's own", 2),
        ('{"tools": [{"name": "s", "inputSchema": {"type": "object"},\n "elicitations": {}}]}',
         "tools[0] has the key 'elicitations'", 2),
    ],
)  # fmt: skip
def test_what_a_toolset_would_read_otherwise_is_refused_at_its_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str, line: int
) -> None:
    saved = tmp_path / "answer.json"
    saved.write_text(text, "utf-8")
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "tools.yaml")]) == 1
    err = capsys.readouterr().err
    assert f"answer.json:{line}:" in err and said in err and "Traceback" not in err, err
    assert not (tmp_path / "tools.yaml").exists()


def test_a_source_nested_too_deep_to_write_is_a_located_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema: dict[str, Any] = {"type": "object"}
    for _ in range(300):
        schema = {"type": "object", "properties": {"a": schema}}
    saved = tmp_path / "deep.json"
    saved.write_text(json.dumps({"tools": [{"name": "t", "inputSchema": schema}]}), "utf-8")
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "tools.yaml")]) == 1
    err = capsys.readouterr().err
    assert "deep.json:1:1: error:" in err and "too deeply" in err and "Traceback" not in err, err
    assert not list(tmp_path.glob("*tools*")), list(tmp_path.iterdir())
    # JSON holds it: the file is written, and said to nest deeper than a toolset may, at its place.
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "tools.json")]) == 1
    err = capsys.readouterr().err
    assert "tools.json:" in err and "nests deeper than 100 levels" in err and "Traceback" not in err, err


def test_an_output_that_is_a_folder_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "answer.json"
    saved.write_text('{"tools": []}', "utf-8")
    (tmp_path / "out").mkdir()
    assert cli.main(["import", str(saved), "-o", str(tmp_path / "out"), "--force"]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["answer.json", "out"]
