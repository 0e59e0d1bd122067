"""The benchmarks' synthetic toolset builder still produces a valid toolset."""

from __future__ import annotations

from pathlib import Path

from benchmarks.toolset import build_toolset, write_toolset
from mcpstub.pipeline import check_toolset


def test_synthetic_toolset_validates(tmp_path: Path) -> None:
    checked = check_toolset(write_toolset(tmp_path / "tools.json", 3))
    assert checked.ok, checked.diagnostics
    assert checked.toolset is not None
    assert [t.name for t in checked.toolset.tools] == [t["name"] for t in build_toolset(3)["tools"]]
    assert sum(t.output_schema is not None for t in checked.toolset.tools) == 3
