"""Resources: where the templates and schemas shipped with mcpstub are found.

An installed wheel carries them inside the package (`mcpstub/templates`, `mcpstub/schemas`);
a source checkout keeps them at the project root, two levels above (`generator/mcpstub/`).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The `templates` or `schemas` folder, installed or in a checkout."""
    inside = _PACKAGE / name
    return inside if inside.is_dir() else _PACKAGE.parent.parent / name


def resource_path(folder: str, name: str) -> Path:
    """A file in one of the resource folders."""
    return resource_dir(folder) / name
