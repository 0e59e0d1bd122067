"""Tool objects go out as written: title, icons, _meta, execution and annotation extension keys.

The SDK's own `Tool` models drop keys they do not know; the generated server sends its frozen wire
objects instead, on both protocol generations. Checked value for value against the toolset through
the official Python client (both modes) and the TypeScript client (2025-11-25).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client, types
from pydantic import TypeAdapter

from mcpstub.ir import Toolset
from mcpstub.output_wrapper import is_object_root, legacy_output_schema

from .helpers import imported, write_package

PACKAGE = "fx_advertised"
EXTERNAL = Path(__file__).resolve().parents[1] / "external"

TOOLSET = """\
mcpstub: 1
server: {name: advertised}
tools:
  - name: search
    title: Search the archive
    description: Full-text search.
    inputSchema: {type: object, properties: {q: {type: string}}, required: [q]}
    outputSchema: {type: array, items: {type: string}}
    annotations:
      title: Archive search
      readOnlyHint: true
      openWorldHint: false
      category: retrieval
      x-vendor: {rank: 3, tags: [a, b], nested: {deep: null}}
    icons:
      - {src: "https://example.com/a.png", mimeType: image/png, sizes: [48x48, 96x96], theme: dark}
      - {src: "data:image/svg+xml;base64,PHN2Zy8+"}
    execution: {taskSupport: forbidden}
    _meta: {example.com/owner: archive-team, example.com/weights: [1, 2.5, true, null]}
  - name: stat
    inputSchema: {type: object}
    outputSchema: {type: object, properties: {size: {type: integer}}, required: [size]}
    annotations: {destructiveHint: false, cost: high}
"""


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ModuleType, Toolset]]:
    root = tmp_path_factory.mktemp("advertised")
    _, toolset = write_package(root, PACKAGE, TOOLSET)
    with imported(root, PACKAGE) as package:
        yield root, package, toolset


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def expected_wire(toolset: Toolset, legacy: bool) -> list[dict[str, Any]]:
    tools = []
    for tool in toolset.tools:
        wire = dict(tool.advertised)
        output = tool.output_schema
        if legacy and output is not None and not is_object_root(output, tool.output_dialect):
            wire["outputSchema"] = legacy_output_schema(tool.output_schema, tool.output_dialect)
        tools.append(wire)
    return tools


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_python_client_receives_the_tools_as_written(
    generated: tuple[Path, ModuleType, Toolset], mode: str
) -> None:
    _, pkg, toolset = generated
    async with Client(pkg.create_server(), mode=mode) as client:
        answer = await client.session.send_request(types.ListToolsRequest(), TypeAdapter(dict[str, Any]))
        parsed = await client.list_tools()
    wire = answer["tools"]
    assert wire == expected_wire(toolset, legacy=mode == "legacy")
    search = wire[0]
    assert search["annotations"]["category"] == "retrieval"
    assert search["annotations"]["x-vendor"] == {"rank": 3, "tags": ["a", "b"], "nested": {"deep": None}}
    assert search["icons"][0]["theme"] == "dark" and search["title"] == "Search the archive"
    assert search["_meta"]["example.com/weights"] == [1, 2.5, True, None]
    assert wire[1]["annotations"] == {"destructiveHint": False, "cost": "high"}
    # The SDK's models still parse every tool (they ignore what they do not know).
    assert [tool.name for tool in parsed.tools] == ["search", "stat"]


def test_typescript_client_receives_the_tools_as_written(generated: tuple[Path, ModuleType, Toolset]) -> None:
    root, _, toolset = generated
    if not (EXTERNAL / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("the TypeScript client is not installed: run `make test` (it runs npm ci)")
    done = subprocess.run(
        ["node", "client.mjs", "--calls", "[]", "--", sys.executable, "-m", PACKAGE],
        cwd=EXTERNAL, env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["wireTools"] == expected_wire(toolset, legacy=True)
    assert [tool["name"] for tool in answer["tools"]] == ["search", "stat"]  # its models accept them


@pytest.mark.anyio
@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26", "2024-11-05"])
async def test_older_protocol_versions_get_the_2025_11_25_objects_their_digests_describe(
    generated: tuple[Path, ModuleType, Toolset], version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client of an earlier version is shown the 2025-11-25 tool objects whole, so the digest
    the answer carries is the digest of what it received (annotation extension keys included)."""
    _, pkg, toolset = generated
    monkeypatch.setattr("mcp.client.session.LATEST_HANDSHAKE_VERSION", version)
    async with Client(pkg.create_server(), mode="legacy") as client:
        assert client.protocol_version == version
        answer = await client.session.send_request(types.ListToolsRequest(), TypeAdapter(dict[str, Any]))
    assert answer["tools"] == expected_wire(toolset, legacy=True)
    digests = {name: spec.digests["2025-11-25"] for name, spec in pkg.TOOLS.items()}
    assert answer["_meta"]["io.mcpstub/sha256"] == digests
