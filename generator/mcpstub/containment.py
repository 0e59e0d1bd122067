"""Containment: a file reference must stay inside the folder that references may reach.

`check_ref_file(written, base_dir, root, configured)` returns None when the referenced file lies under
`root` (the toolset's folder, or a wider one the user configured with `ref_root`), after `..`
and symlinks are resolved, or a reason why not. An absolute path is refused wherever it points:
a toolset must build the same on every machine.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath, PureWindowsPath


def check_ref_file(written: str, base_dir: Path, root: Path, configured: bool) -> str | None:
    """None when the path `written` (a `$ref`'s file part, percent-decoded), relative to
    `base_dir`, resolves inside `root`; else the reason."""
    if PurePosixPath(written).is_absolute() or PureWindowsPath(written).is_absolute():
        return "is an absolute path"
    try:
        target = (base_dir / written).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL byte
        return "cannot be resolved"
    if not target.is_relative_to(root):
        return "leaves the configured ref_root" if configured else "leaves the toolset's folder"
    return None
