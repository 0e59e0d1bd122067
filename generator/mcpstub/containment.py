"""Containment: a file reference must stay inside the folder that references may reach.

`check_ref_file(written, base_dir, root, configured)` returns None when the referenced file lies under
`root` (the toolset's folder, or a wider one the user configured with `ref_root`), after `..`
and symlinks are resolved, or a reason why not. An absolute path is refused wherever it points:
a toolset must build the same on every machine.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path, PurePosixPath, PureWindowsPath

# Why a referenced file cannot be followed, where it is no matter of staying inside the folder.
LOOP = "is a symbolic link that leads back to itself"


def check_ref_file(written: str, base_dir: Path, root: Path, configured: bool) -> str | None:
    """None when the path `written` (a `$ref`'s file part, percent-decoded), relative to
    `base_dir`, resolves inside `root`; else the reason (`LOOP` for a loop of symbolic links)."""
    if PurePosixPath(written).is_absolute() or PureWindowsPath(written).is_absolute():
        return "is an absolute path"
    try:
        target = (base_dir / written).resolve()
    except RuntimeError:  # (Python 3.11's word for a loop; later ones raise OSError ELOOP)
        return LOOP
    except (OSError, ValueError) as exc:  # a loop, a NUL byte
        return LOOP if getattr(exc, "errno", None) == errno.ELOOP else "cannot be resolved"
    if not target.is_relative_to(root):
        return "leaves the configured ref_root" if configured else "leaves the toolset's folder"
    return None


def broken_link(path: Path) -> str | None:
    """What a symbolic link at `path` that leads to no file is (a loop, a chain too long to
    follow, a link to nothing), or None where `path` is no such link."""
    try:
        if not path.is_symlink():
            return None
    except OSError:  # (a name longer than the system allows: no link)
        return None
    try:
        os.stat(path)
        return None
    except OSError:
        pass
    written, hop = os.readlink(path), os.path.abspath(path)
    seen: set[str] = set()
    while os.path.islink(hop):
        if hop in seen:
            return LOOP.removeprefix("is ")
        seen.add(hop)
        hop = os.path.normpath(os.path.join(os.path.dirname(hop), os.readlink(hop)))
    if os.path.exists(hop):  # (followed here, but more links than the system follows)
        return f"a chain of {len(seen)} symbolic links, more than the system follows"
    if len(seen) == 1:
        return f"a symbolic link to {written}, which does not exist"
    final = os.path.relpath(hop, os.path.dirname(os.path.abspath(path)))
    return f"a symbolic link to {final} (through {written}), which does not exist"
