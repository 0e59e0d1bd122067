"""A toolset with no tools yet generates a package that serves an empty tool list."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from mcpstub.format import format_with_black

from .helpers import imported, write_package


@pytest.mark.anyio
async def test_no_tools_yet(tmp_path: Path) -> None:
    folder, _ = write_package(tmp_path, "empty_pkg", "mcpstub: 1\nserver: {name: empty}\ntools: []\n")
    for path in folder.rglob("*.py"):
        text = path.read_text("utf-8")
        assert format_with_black(text) == text, path.name
    with imported(tmp_path, "empty_pkg") as pkg:
        assert dict(pkg.TOOLS) == {}
        async with Client(pkg.create_server()) as client:
            assert (await client.list_tools()).tools == []
