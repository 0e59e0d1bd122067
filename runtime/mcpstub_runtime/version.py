"""The runtime's version, and the check a generated package makes of it at import."""

from __future__ import annotations

import re

__all__ = ["__version__", "require"]

__version__ = "0.1.0"

_BOUND = re.compile(r"(>=|<)\s*([0-9]+(?:\.[0-9]+)*)")


def _numbers(version: str) -> tuple[int, ...]:
    """The leading release numbers of a version (`0.1.0rc1` -> (0, 1, 0))."""
    found = re.match(r"[0-9]+(?:\.[0-9]+)*", version)
    return tuple(int(part) for part in found[0].split(".")) if found else ()


def fits(version: str, wanted: str) -> bool:
    """Whether `version` lies in `wanted`, a range such as `>=0.1,<0.2`."""
    have = _numbers(version)
    for operator, bound in _BOUND.findall(wanted):
        limit = _numbers(bound)
        width = max(len(have), len(limit))
        have, limit = have + (0,) * (width - len(have)), limit + (0,) * (width - len(limit))
        if (operator == ">=" and have < limit) or (operator == "<" and have >= limit):
            return False
    return True


def require(package: str, wanted: str, version: str | None = None) -> None:
    """Raise ImportError unless this runtime (or `version`) lies in `wanted`, the range the
    package `package` was generated for."""
    version = __version__ if version is None else version
    if not fits(version, wanted):
        raise ImportError(
            f"{package} was generated for mcpstub-runtime {wanted}, but mcpstub-runtime "
            f"{version} is installed; run: pip install 'mcpstub-runtime{wanted}' "
            "(or regenerate the package with an mcpstub that matches the installed runtime)"
        )
