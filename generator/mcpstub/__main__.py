"""`python -m mcpstub` runs the mcpstub command line."""

from __future__ import annotations

from mcpstub import run

run()
