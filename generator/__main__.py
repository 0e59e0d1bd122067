"""`python -m generator` runs the mcpstub command line."""

from __future__ import annotations

import sys

from generator.cli import main

sys.exit(main())
