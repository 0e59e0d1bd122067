"""The bundled weather example: committed output is fresh, type-checks, and its tools answer."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from mcpstub.cli import main
from tests.conftest import MypyRun

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "weather"


@pytest.fixture(scope="module")
def weather() -> Iterator[Any]:
    sys.path.insert(0, str(EXAMPLE))
    try:
        import weather_tools  # noqa: PLC0415

        yield weather_tools
    finally:
        sys.path.remove(str(EXAMPLE))


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_committed_package_is_up_to_date(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["generate", str(EXAMPLE / "tools.yaml"), "--out", str(EXAMPLE / "weather_tools"), "--check"])
    assert code == 0, capsys.readouterr().err
    assert "up to date" in capsys.readouterr().out


def test_package_passes_mypy_strict(mypy_strict: MypyRun) -> None:
    done = mypy_strict("weather_tools", cwd=EXAMPLE)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_every_tool_answers(weather: Any, mode: str) -> None:
    async with Client(weather.create_server(), mode=mode) as client:  # type: ignore[arg-type]
        listed = await client.list_tools()
        assert [t.name for t in listed.tools] == ["get_forecast", "get_alerts", "radar_map", "list_cities"]
        forecast = await client.call_tool("get_forecast", {"city": "Paris", "days": 3})
        assert not forecast.is_error
        assert forecast.structured_content is not None
        days = forecast.structured_content["days"]
        assert [d["date"] for d in days] == ["2026-01-01", "2026-01-02", "2026-01-03"]
        assert json.loads(forecast.content[0].text) == forecast.structured_content  # type: ignore[union-attr]
        cities = await client.call_tool("list_cities", {})
        assert cities.structured_content == {"cities": ["Lima", "Oslo", "Paris", "Tokyo"]}
        radar = await client.call_tool("radar_map", {"city": "Lima"})
        assert [b.type for b in radar.content] == ["text", "image"]
        unknown = await client.call_tool("get_alerts", {"city": "Atlantis"})
        assert unknown.is_error and unknown.structured_content is None
        assert unknown.content[0].text == "no weather station for 'Atlantis'"  # type: ignore[union-attr]
        refused = await client.call_tool("get_forecast", {"city": "Paris", "days": 99})
        assert refused.is_error
        assert "/days" in refused.content[0].text  # type: ignore[union-attr]


def test_demo_runs_end_to_end() -> None:
    done = subprocess.run(
        [sys.executable, "examples/demo.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "tools/list: 4 tools" in done.stdout
    assert done.stdout.count("-> ok") == 4
    assert done.stdout.count("-> isError") == 2


def test_models_are_imported_on_the_first_call_not_at_start_up() -> None:
    script = """
import sys, anyio
from mcp import Client
import weather_tools
async def main():
    async with Client(weather_tools.create_server()) as client:
        await client.list_tools()
        print("after list:", "weather_tools.models" in sys.modules)
        await client.call_tool("list_cities", {})
        print("after call:", "weather_tools.models" in sys.modules)
anyio.run(main)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=EXAMPLE, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["after list: False", "after call: True"]
