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


def test_every_benchmark_shape_validates_and_edits_stay_valid(tmp_path: Path) -> None:
    import json  # noqa: PLC0415

    from benchmarks.toolset import SHAPES, build_shaped, edit_tools  # noqa: PLC0415

    for shape in SHAPES:
        doc = edit_tools(build_shaped(shape, 12), [0, 5], 1)
        path = tmp_path / f"{shape}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        checked = check_toolset(path)
        assert checked.ok, (shape, [d.format() for d in checked.diagnostics])
        assert checked.toolset is not None and len(checked.toolset.tools) == 12
