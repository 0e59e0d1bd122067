"""The bundled examples validate through the command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpstub.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "path",
    ["schemas/examples/minimal.yaml", "schemas/examples/full.yaml", "schemas/examples/starter.yaml",
     "examples/weather/tools.yaml"],
)  # fmt: skip
def test_bundled_toolsets_validate(path: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(ROOT / path)]) == 0
    out = capsys.readouterr()
    assert ": ok: server" in out.out
    assert out.err == ""
