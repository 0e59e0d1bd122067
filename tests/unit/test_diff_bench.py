"""The diff benchmark's changed toolset is valid and its changes are found with the right rules."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.bench_diff import changed_toolset
from benchmarks.toolset import build_toolset
from mcpstub.diff import diff_sides
from mcpstub.diff.source import load_side


def test_benchmark_changes_are_found(tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text(json.dumps(build_toolset(10)))
    (tmp_path / "new.json").write_text(json.dumps(changed_toolset(10, 5)))
    found = diff_sides(load_side(str(tmp_path / "old.json")), load_side(str(tmp_path / "new.json")))
    rules = {(f.rule, f.severity) for f in found}
    assert {
        ("input-required-added", "breaking"),
        ("input-enum-narrowed", "breaking"),
        ("description-changed", "info"),
        ("output-constraint-relaxed", "breaking"),
        ("input-pattern-changed", "breaking"),
    } <= rules
    pattern = next(f for f in found if f.rule == "input-pattern-changed")
    assert pattern.has_counterexample
    assert "version-not-bumped" not in {f.rule for f in found}
