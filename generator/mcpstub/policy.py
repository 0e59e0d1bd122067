"""Policy: what a check accepts beyond the defaults, as configured by the user (never the toolset).

`vendor_keywords` are schema keywords not to warn about; `ref_root` is the folder that file
references may reach (the toolset's own folder when unset). Both come from `[tool.mcpstub]` or the
command line, so a third-party toolset cannot widen them for itself. `past` marks the OLD side a
diff compares with (a released revision, which cannot be mended): a mistake that only makes the
toolset say less than it means is a warning there, so that a check added since reads it still.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from mcpstub.diagnostics import Diagnostic, Severity

# What a past revision is not refused for: the schema or the tool still reads, and says less.
_PAST_WARNINGS = frozenset({"misspelled-keyword", "tool-key-in-schema", "annotation-misspelled"})


@dataclass(frozen=True)
class Policy:
    """Settings of one check; the defaults are the strict ones."""

    vendor_keywords: frozenset[str] = frozenset()
    ref_root: Path | None = None
    past: bool = False

    def judged(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        """`diagnostics` as this check says them: on a past revision, some errors as warnings."""
        if not self.past:
            return list(diagnostics)
        return [replace(d, severity=Severity.WARNING) if d.code in _PAST_WARNINGS else d for d in diagnostics]

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
