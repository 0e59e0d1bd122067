"""surface.json records exactly what the generated server advertises, and the server reports the
same digests, which any client can recompute from what it receives."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rfc8785

from mcpstub import cli
from mcpstub.pipeline import check_toolset
from mcpstub.server_listing import read_live
from mcpstub.surface import digests
from tests.functional.helpers import imported, write_package

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "weather" / "tools.yaml"
CORPUS = ROOT / "tests" / "data" / "corpus" / "github.json"
EXTERNAL = ROOT / "tests" / "external"
KEY = "io.mcpstub/sha256"

TOOLSET = """\
mcpstub: 1
server:
  name: pin-me
  version: 2.0.0
  title: Pin "me"
  description: What the server is for.
  websiteUrl: https://example.com/pin
  icons: [{src: "https://example.com/s.png", mimeType: image/png, sizes: [48x48]}]
tools:
  - name: big
    title: "Ünïcode \\u2028 title"
    description: "tab\\tquote\\" and a lone control \\x01"
    inputSchema:
      type: object
      properties:
        n: {type: integer, maximum: 18446744073709551615, minimum: -1.0e+300}
        x: {type: number, multipleOf: 0.1, default: 1.0}
        "é": {type: string, "𝄞": 1}
    annotations: {readOnlyHint: true}
    icons: [{src: "https://example.com/i.png", mimeType: image/png}]
    _meta: {"com.example/b": 1, "com.example/a": [true, null]}
  - name: plain
    inputSchema: {type: object}
"""


def recompute(tool: dict[str, Any]) -> str:
    """A client's own digest: RFC 8785 over the object received, integers read as doubles."""

    def doubles(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: doubles(v) for k, v in value.items()}
        if isinstance(value, list):
            return [doubles(v) for v in value]
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53 - 1:
            return float(value)
        return value

    return hashlib.sha256(rfc8785.dumps(doubles(tool))).hexdigest()


@pytest.fixture(scope="module")
def pinned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("surface")
    folder, _ = write_package(root, "fx_surface_pin", TOOLSET)
    return root, json.loads((folder / "surface.json").read_text("utf-8"))


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_snapshot_is_what_each_generation_lists(pinned: tuple[Path, dict[str, Any]], mode: str) -> None:
    root, snapshot = pinned
    protocol = "2025-11-25" if mode == "legacy" else mode
    with imported(root, "fx_surface_pin") as pkg:
        listing = read_live(server=pkg.create_server(), mode=mode)
    recorded = snapshot["protocols"][protocol]
    assert listing.protocol == protocol
    assert listing.tools == recorded["tools"]  # value for value, raw JSON as it came over the wire
    assert listing.digests == recorded["sha256"]
    assert {t["name"]: recompute(t) for t in listing.tools} == recorded["sha256"]
    # Every serverInfo field the toolset sets reaches the client, as surface.json records it.
    assert listing.server_info == snapshot["serverInfo"] == {
        "name": "pin-me",
        "title": 'Pin "me"',
        "version": "2.0.0",
        "description": "What the server is for.",
        "websiteUrl": "https://example.com/pin",
        "icons": [{"src": "https://example.com/s.png", "mimeType": "image/png", "sizes": ["48x48"]}],
    }


def _digests(tmp_path: Path, text: str) -> dict[str, str]:
    source = tmp_path / "tools.yaml"
    source.write_text(text, "utf-8")
    checked = check_toolset(source)
    assert checked.toolset is not None, checked.diagnostics
    return digests(checked.toolset)["2026-07-28"]


def test_a_digest_follows_every_part_of_the_tool(tmp_path: Path) -> None:
    first = _digests(tmp_path, TOOLSET)
    edits = [
        ("readOnlyHint: true", "readOnlyHint: false"),
        ('"com.example/a": [true, null]', '"com.example/a": [true, 0]'),
        ("mimeType: image/png", "mimeType: image/gif"),
        ("multipleOf: 0.1", "multipleOf: 0.2"),
        ("maximum: 18446744073709551615", "maximum: 9007199254740993"),
        ("tab\\tquote", "tab quote"),
        ("Ünïcode", "Unicode"),
    ]
    for old, new in edits:
        assert old in TOOLSET
        changed = _digests(tmp_path, TOOLSET.replace(old, new))
        assert changed["big"] != first["big"], old
        assert changed["plain"] == first["plain"]


def test_key_order_and_number_spelling_do_not_change_a_digest(tmp_path: Path) -> None:
    reordered = TOOLSET.replace(
        "{type: number, multipleOf: 0.1, default: 1.0}", "{default: 1, multipleOf: 1e-1, type: number}"
    )
    assert reordered != TOOLSET
    assert _digests(tmp_path, reordered) == _digests(tmp_path, TOOLSET)


def test_snapshot_is_byte_stable_and_owned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "weather_tools"
    assert cli.main(["generate", str(EXAMPLE), "--out", str(out)]) == 0
    surface = out / "surface.json"
    text = surface.read_bytes()
    assert text.startswith(b'{\n  "generatedBy": "mcpstub ')
    assert cli.main(["generate", str(EXAMPLE), "--out", str(out), "--force"]) == 0
    assert surface.read_bytes() == text
    surface.write_text(text.decode().replace("Get forecast", "Get forecasts"), "utf-8")
    assert cli.main(["generate", str(EXAMPLE), "--out", str(out), "--check"]) == 1
    assert "surface.json: stale" in capsys.readouterr().err
    surface.unlink()
    assert cli.main(["generate", str(EXAMPLE), "--out", str(out)]) == 0  # no shortcut past a lost file
    assert surface.read_bytes() == text
    surface.write_text('{"mine": true}\n', "utf-8")
    capsys.readouterr()
    assert cli.main(["generate", str(EXAMPLE), "--out", str(out), "--force"]) == 1
    assert "surface.json: error: not generated by mcpstub" in capsys.readouterr().err
    assert surface.read_text("utf-8") == '{"mine": true}\n'


def test_corpus_digests_match_the_wire(tmp_path: Path) -> None:
    tools = json.loads(CORPUS.read_text("utf-8"))
    source = tmp_path / "tools.yaml"
    source.write_text(json.dumps({"mcpstub": 1, "server": {"name": "github"}, "tools": tools}), "utf-8")
    out = tmp_path / "gh_tools"
    assert cli.main(["generate", str(source), "--out", str(out)]) == 0
    snapshot = json.loads((out / "surface.json").read_text("utf-8"))
    for protocol in ("2026-07-28", "2025-11-25"):
        recorded = snapshot["protocols"][protocol]
        assert recorded["tools"] == tools
        assert {t["name"]: recompute(t) for t in tools} == recorded["sha256"]


def test_typescript_client_recomputes_the_reported_digests(pinned: tuple[Path, dict[str, Any]]) -> None:
    root, snapshot = pinned
    done = subprocess.run(
        ["node", "digests.mjs", "--", sys.executable, "-m", "fx_surface_pin"],
        cwd=EXTERNAL,
        env={"PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin", "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["reported"] == snapshot["protocols"]["2026-07-28"]["sha256"]
    assert answer["computed"] == answer["reported"]


SERVER_BLOCKS = {
    "empty icons": "  version: 1.0.0\n  icons: []\n",
    "empty strings": '  version: 1.0.0\n  title: ""\n  description: ""\n',
    "no version": "  title: T\n",
    "empty version": '  version: ""\n',
    "bare icon": "  version: 1.0.0\n  icons: [{src: 'data:image/png;base64,AA=='}]\n",
    "icon with empty lists": "  version: 1.0.0\n  icons: [{src: 'https://e.com/i.png', sizes: []}]\n",
    "empty instructions": '  version: 1.0.0\n  instructions: ""\n',
}


@pytest.mark.parametrize("case", list(SERVER_BLOCKS))
@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
def test_server_info_a_client_receives_is_what_surface_json_records(
    tmp_path: Path, case: str, mode: str
) -> None:
    """Empty lists and strings included: the snapshot and the initialize answer agree field for field."""
    tools = "tools:\n  - name: t\n    inputSchema: {type: object}\n"
    text = f"mcpstub: 1\nserver:\n  name: edge\n{SERVER_BLOCKS[case]}{tools}"
    package = f"fx_surface_edge_{list(SERVER_BLOCKS).index(case)}_{mode[:4]}"
    folder, _ = write_package(tmp_path, package, text)
    snapshot = json.loads((folder / "surface.json").read_text("utf-8"))
    with imported(tmp_path, package) as pkg:
        listing = read_live(server=pkg.create_server(), mode=mode)
    assert listing.server_info == snapshot["serverInfo"]
    assert listing.instructions == snapshot.get("instructions")


def test_tools_named_like_what_the_package_imports_or_exports_are_all_served(tmp_path: Path) -> None:
    from tests.unit.test_black_stable import CASES  # noqa: PLC0415

    text = CASES["package-names"](tmp_path).read_text("utf-8")
    names = [tool["name"] for tool in json.loads(text)["tools"]]
    write_package(tmp_path, "fx_surface_names", text)
    with imported(tmp_path, "fx_surface_names") as pkg:
        listing = read_live(server=pkg.create_server(), mode="2026-07-28")
        assert sorted(pkg.TOOLS) == sorted(names)
    assert sorted(t["name"] for t in listing.tools) == sorted(names)
