"""mcpstub: generate typed MCP servers from a YAML toolset."""

from __future__ import annotations

__version__ = "0.1.0"
