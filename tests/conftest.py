"""Test-wide settings: generation runs share one model cache, kept out of the user's home."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("MCPSTUB_CACHE_DIR", os.path.join(tempfile.gettempdir(), "mcpstub-test-cache"))
