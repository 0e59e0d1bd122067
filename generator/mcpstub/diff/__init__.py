"""`mcpstub diff`: direction-aware breaking-change findings between two versions of a toolset.

Sources become `Side`s (`side_from_toolset` for a checked toolset); `diff_sides(old, new)` returns
`Finding`s; `report` renders them as text, JSON, GitHub annotations or JUnit XML.
"""

from __future__ import annotations

from mcpstub.diff.engine import diff_sides
from mcpstub.diff.model import DiffOptions, Direction, Finding, Ignore, Severity, Side
from mcpstub.diff.source import side_from_toolset

__all__ = [
    "DiffOptions",
    "Direction",
    "Finding",
    "Ignore",
    "Severity",
    "Side",
    "diff_sides",
    "side_from_toolset",
]
