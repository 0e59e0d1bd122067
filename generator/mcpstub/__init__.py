"""mcpstub: generate typed MCP servers from a YAML toolset."""

from __future__ import annotations

from typing import NoReturn

__version__ = "0.1.0"


def run() -> NoReturn:
    """The `mcpstub` command (`cli.run`). A Ctrl-C while the command line is still being imported
    ends it as one during a run does: exit code 130, no traceback."""
    try:
        from mcpstub.cli import run as run_command  # noqa: PLC0415
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    run_command()
