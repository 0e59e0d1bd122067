"""The demo: regenerate the bundled weather example, serve it over stdio, call every tool.

Run with `make demo`. It uses the official MCP Python client, the same way any MCP host would.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, ImageContent, TextContent

from mcpstub.cli import main as mcpstub

HERE = Path(__file__).resolve().parent / "weather"

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_cities", {}),
    ("get_forecast", {"city": "Paris", "days": 2}),
    ("get_alerts", {"city": "Oslo", "severity": "moderate"}),
    ("radar_map", {"city": "Lima", "zoom": 3}),
    ("get_alerts", {"city": "Atlantis"}),  # a domain error: isError from the handler
    ("get_forecast", {"city": "Paris", "days": 99}),  # refused by the input schema
]


def show(result: CallToolResult) -> None:
    """Print a tool result the way a person would want to read it."""
    status = "isError" if result.is_error else "ok"
    print(f"  -> {status}")
    if result.structured_content is not None:
        text = json.dumps(result.structured_content, indent=2)
        print("     structuredContent: " + text.replace("\n", "\n     "))
    for block in result.content:
        if isinstance(block, TextContent):
            shown = block.text if len(block.text) < 300 else block.text[:300] + "..."
            print("     text: " + shown.replace("\n", "\n           "))
        elif isinstance(block, ImageContent):
            print(f"     image: {block.mime_type}, {len(block.data)} base64 characters")
        else:
            print(f"     {block.type} block")


async def run() -> None:
    """Serve the generated package over stdio and call each tool through the official client."""
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "weather_tools"], env=env)
    async with Client(params) as client:
        listed = await client.list_tools()
        print(f"tools/list: {len(listed.tools)} tools")
        for tool in listed.tools:
            kind = "structured" if tool.output_schema else "content"
            print(f"  {tool.name:<14} {kind:<10} {tool.description}")
        for name, arguments in CALLS:
            print(f"\ntools/call {name} {json.dumps(arguments)}")
            show(await client.call_tool(name, arguments))


def main() -> int:
    """Generate, then call."""
    print("$ mcpstub generate examples/weather/tools.yaml --out examples/weather/weather_tools")
    code = mcpstub(["generate", str(HERE / "tools.yaml"), "--out", str(HERE / "weather_tools")])
    if code != 0:
        return code
    print()
    anyio.run(run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
