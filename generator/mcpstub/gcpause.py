"""Switches for Python's cycle collector around work that builds many objects."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cycle collector: loading and checking build many small objects that hold no
    cycles, which it would otherwise traverse again and again (half the time of a large file)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def gc_running() -> Iterator[None]:
    """Run the cycle collector within, even inside `gc_paused()`: for work that leaves cycles
    behind (model generation), which would otherwise pile up until the process ends."""
    enabled = gc.isenabled()
    gc.enable()
    try:
        yield
    finally:
        if not enabled:
            gc.disable()
