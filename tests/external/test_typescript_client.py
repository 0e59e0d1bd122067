"""An external client: the TypeScript MCP SDK lists the bundled example's tools and calls them.

The TypeScript SDK validates `structuredContent` against the advertised `outputSchema` itself, so
a call that comes back without error proves the payload matched the schema the client was shown.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parents[1] / "examples" / "weather"



def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if not (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("the TypeScript client is not installed: run `make test` (it runs npm ci)")
    env = {**os.environ, "PYTHONPATH": str(EXAMPLE)}
    done = subprocess.run(
        ["node", "client.mjs", tool, json.dumps(arguments), "--", sys.executable, "-m", "weather_tools"],
        cwd=HERE,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_lists_tools_and_calls_structured_tool() -> None:
    answer = call("get_forecast", {"city": "Paris", "days": 2})
    names = [t["name"] for t in answer["tools"]]
    assert names == ["get_forecast", "get_alerts", "radar_map", "list_cities"]
    forecast = next(t for t in answer["tools"] if t["name"] == "get_forecast")
    assert forecast["outputSchema"]["required"] == ["city", "location", "days"]
    result = answer["result"]
    assert not result.get("isError")
    assert result["structuredContent"]["city"] == "Paris"
    assert len(result["structuredContent"]["days"]) == 2
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]


def test_invalid_arguments_come_back_as_tool_error() -> None:
    result = call("get_forecast", {"city": "Paris", "days": 99})["result"]
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert "days" in result["content"][0]["text"]
