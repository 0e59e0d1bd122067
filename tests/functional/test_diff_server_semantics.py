"""`diff`'s semantics are the generated server's: for formats and content keywords in each dialect,
what `semantics.server_validator` accepts is exactly what a generated server lets through."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client

from mcpstub.diff.semantics import server_validator
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_diff_semantics"
PROPERTIES = """
      properties:
        id: {type: string, format: uuid}
        span: {type: string, format: duration}
        blob: {type: string, contentEncoding: base64}
        doc: {type: string, contentMediaType: application/json}
"""
TOOLSET = f"""\
mcpstub: 1
server: {{name: semantics, version: 0.1.0}}
tools:
  - name: legacy
    inputSchema:
      $schema: http://json-schema.org/draft-07/schema#
      type: object{PROPERTIES}
  - name: modern
    inputSchema:
      type: object{PROPERTIES}
"""
INSTANCES = [
    {"id": "not-a-uuid"}, {"id": "123e4567-e89b-12d3-a456-426614174000"}, {"span": "soon"},
    {"span": "P1D"}, {"blob": "!!"}, {"blob": "aGk="}, {"doc": "{"}, {"doc": "{}"},
]  # fmt: skip


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root: Path = tmp_path_factory.mktemp("semantics")
    write_package(root, PACKAGE, TOOLSET)
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["legacy", "modern"])
async def test_the_server_accepts_what_diffs_validator_accepts(pkg: ModuleType, tool: str) -> None:
    async def handler(args: Any, ctx: Any) -> str:
        return "ok"

    async with Client(pkg.create_server({tool: handler}), mode="legacy") as client:
        listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
        schema = listed[tool]
        predicted = server_validator(schema).is_valid
        for instance in INSTANCES:
            result = await client.call_tool(tool, instance)
            assert (result.is_error is not True) == predicted(instance), (tool, instance, result.content)
    # The two dialects do differ on these instances: the test tells them apart.
    legacy, modern = (server_validator(listed[t]).is_valid for t in ("legacy", "modern"))
    assert [legacy(i) for i in INSTANCES] != [modern(i) for i in INSTANCES]
