"""`python -m mcpstub`, and the `mcpstub` command: the command line."""

from __future__ import annotations

from typing import NoReturn


def run() -> NoReturn:
    """The `mcpstub` command (`cli.run`). A Ctrl-C while the command line is still being imported
    ends it as one during a run does: exit code 130, no traceback."""
    try:
        from mcpstub.cli import run as run_command  # noqa: PLC0415
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    run_command()


if __name__ == "__main__":
    run()
