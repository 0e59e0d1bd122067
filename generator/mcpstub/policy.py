"""Policy: what a check accepts beyond the defaults, as configured by the user (never the toolset).

`vendor_keywords` are schema keywords not to warn about; `ref_root` is the folder that file
references may reach (the toolset's own folder when unset). Both come from `[tool.mcpstub]` or the
command line, so a third-party toolset cannot widen them for itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Policy:
    """Settings of one check; the defaults are the strict ones."""

    vendor_keywords: frozenset[str] = frozenset()
    ref_root: Path | None = None
