"""Resources: where the templates and schemas shipped with mcpstub are found.

An installed wheel carries them inside the package (`mcpstub/templates`, `mcpstub/schemas`);
a source checkout keeps them at the project root, two levels above (`generator/mcpstub/`).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """The `templates` or `schemas` folder, installed or in a checkout."""
    inside = _PACKAGE / name
    return inside if inside.is_dir() else _PACKAGE.parent.parent / name


def resource_path(folder: str, name: str) -> Path:
    """A file in one of the resource folders."""
    return resource_dir(folder) / name


@cache
def format_schema() -> dict[str, Any]:
    """The toolset format's JSON Schema."""
    loaded: dict[str, Any] = json.loads(resource_path("schemas", "toolset.schema.json").read_text("utf-8"))
    return loaded


def tool_keys(*, advertised: bool) -> tuple[str, ...]:
    """The keys of a tool entry (the format's `Tool`): those MCP advertises, or the generator's own
    (described as "Generator-only")."""
    keys = format_schema()["$defs"]["Tool"]["properties"]
    return tuple(
        key for key, spec in keys.items()
        if spec.get("description", "").startswith("Generator-only") != advertised
    )  # fmt: skip
