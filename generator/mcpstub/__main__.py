"""`python -m mcpstub` runs the mcpstub command line."""

from __future__ import annotations

import sys

from mcpstub.cli import main

sys.exit(main())
