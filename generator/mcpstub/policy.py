"""Policy: what a check accepts beyond the defaults, as configured by the user (never the toolset).

`vendor_keywords` are schema keywords not to warn about; `ref_root` is the folder that file
references may reach (the toolset's own folder when unset). Both come from `[tool.mcpstub]` or the
command line, so a third-party toolset cannot widen them for itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Policy:
    """Settings of one check; the defaults are the strict ones."""

    vendor_keywords: frozenset[str] = frozenset()
    ref_root: Path | None = None

    def fingerprint(self, base: Path) -> str:
        """What of the policy shapes a build, as text stable across machines ("" for the defaults).

        `base` is the toolset's folder: the reference root counts relative to it.
        """
        parts = []
        if self.vendor_keywords:
            parts.append("vendor_keywords=" + ",".join(sorted(self.vendor_keywords)))
        if self.ref_root is not None:
            parts.append("ref_root=" + Path(os.path.relpath(self.ref_root, base)).as_posix())
        return "\n".join(parts)
