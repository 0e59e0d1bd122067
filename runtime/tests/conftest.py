"""The runtime's tests run on a hand-written fixture package (runtime_fixture.py)."""

from runtime_fixture import tools

__all__ = ["tools"]
