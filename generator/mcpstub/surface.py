"""Surface: a checked `Toolset` -> the snapshot of what its server advertises, and tool digests.

`wire_tool(tool, protocol)` is the one place that says which `Tool` object a connection of a
protocol generation is shown; the snapshot and the generated server's digests both come from it.
`tool_digest(wire)` is the SHA-256 of a wire object's canonical JSON (RFC 8785, JCS), and
`render_surface(toolset)` the text of `surface.json`: the `tools/list` answer of each generation,
the server info and every digest, laid out byte-stably (the same toolset gives the same bytes).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import rfc8785

from mcpstub.ir import JSON, Tool, Toolset
from mcpstub.layout import SURFACE_FORMAT, SURFACE_MARKER_KEY
from mcpstub.shapes import is_object_root, legacy_output_schema

# Protocol generations a generated server speaks, newest first.
PROTOCOLS = ("2026-07-28", "2025-11-25")
# The `_meta` key of a tools/list result that carries the digests of the tools on its page.
DIGEST_META_KEY = "io.mcpstub/sha256"
# Integers JSON numbers (IEEE doubles) hold exactly; RFC 8785 writes larger ones as doubles.
_SAFE_INTEGER = 2**53 - 1


class SurfaceError(Exception):
    """A value that has no canonical JSON form (cannot be advertised either)."""


def wire_tool(tool: Tool, protocol: str) -> dict[str, JSON]:
    """The `Tool` object a connection speaking `protocol` receives in `tools/list`."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol generation {protocol!r}")
    # Every key the author wrote, schemas bundled; a non-object output is shown to 2025-11-25
    # connections as its `{result: ...}` wrapper (shapes.py).
    wire = dict(tool.advertised)
    output = tool.output_schema
    if protocol == "2025-11-25" and output is not None and not is_object_root(output):
        wire["outputSchema"] = legacy_output_schema(output)
    return wire


def _doubles(value: Any) -> Any:
    """The value as JSON's IEEE doubles see it: integers beyond 2**53 become the nearest double."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return value if -_SAFE_INTEGER <= value <= _SAFE_INTEGER else float(value)
    if isinstance(value, dict):
        return {key: _doubles(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_doubles(item) for item in value]
    raise SurfaceError(f"{type(value).__name__} is not a JSON value")


def canonical_json(value: JSON) -> bytes:
    """RFC 8785 canonical JSON: sorted keys, no whitespace, UTF-8, ECMAScript number form."""
    try:
        return bytes(rfc8785.dumps(_doubles(value)))
    except (rfc8785.CanonicalizationError, UnicodeEncodeError, OverflowError, ValueError) as exc:
        raise SurfaceError(str(exc)) from None


def tool_digest(wire: dict[str, JSON]) -> str:
    """SHA-256 (hex) of a tool's canonical wire object."""
    return hashlib.sha256(canonical_json(wire)).hexdigest()


def digests(toolset: Toolset) -> dict[str, dict[str, str]]:
    """`{protocol: {tool name: digest}}`, tools in toolset order."""
    return {
        protocol: {tool.name: tool_digest(wire_tool(tool, protocol)) for tool in toolset.tools}
        for protocol in PROTOCOLS
    }


def server_info(toolset: Toolset) -> dict[str, JSON]:
    """The `serverInfo` the generated server reports in its initialize answer."""
    return {"name": toolset.server_name, "version": toolset.server_version or ""}


def surface(toolset: Toolset) -> dict[str, JSON]:
    """The snapshot as data (see `render_surface`)."""
    all_digests = digests(toolset)
    data: dict[str, JSON] = {
        SURFACE_MARKER_KEY: f"mcpstub from {toolset.source_name}. DO NOT EDIT: it is rewritten on every run.",
        "format": SURFACE_FORMAT,
        "serverInfo": server_info(toolset),
    }
    if toolset.instructions is not None:
        data["instructions"] = toolset.instructions
    data["digest"] = {
        "algorithm": "sha256",
        "canonicalization": "RFC 8785",
        "meta": DIGEST_META_KEY,
    }
    data["protocols"] = {
        protocol: {
            "tools": [wire_tool(tool, protocol) for tool in toolset.tools],
            "sha256": all_digests[protocol],
        }
        for protocol in PROTOCOLS
    }
    return data


def render_surface(toolset: Toolset) -> str:
    """The text of `surface.json`: two-space indented JSON, keys in a fixed order, UTF-8."""
    text = json.dumps(surface(toolset), indent=2, ensure_ascii=False, allow_nan=False)
    return text + "\n"
