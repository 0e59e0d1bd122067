"""Fast path: tell, without parsing anything, that a generated package is already current.

Every "ours" file starts with a header naming the generator version and a hash of the toolset and
every file it references (listed in the header). If each "ours" file is present with the header a
run would write now, nothing changed since the last run and generation can be skipped.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from mcpstub import __version__
from mcpstub.layout import CONTRACT_TESTS, HASH_PREFIX, HEADER_PREFIX, OURS_FILES
from mcpstub.resources import resource_dir


@cache
def generator_fingerprint() -> str:
    """Hash of mcpstub's own code and templates: output changes whenever they do."""
    package = Path(__file__).resolve().parent
    templates = resource_dir("templates")
    digest = hashlib.sha256(__version__.encode())
    for path in sorted([*package.glob("*.py"), *templates.rglob("*.jinja")]):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def source_hash(paths: list[Path]) -> str:
    """Hash of the generator (version, code, templates) and every source file's bytes."""
    digest = hashlib.sha256(f"mcpstub {generator_fingerprint()}\n".encode())
    for path in paths:
        data = path.read_bytes()
        digest.update(f"{path.name}\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()[:32]


def _header(path: Path) -> tuple[str, str] | None:
    try:
        with path.open(encoding="utf-8") as handle:
            return handle.readline(), handle.readline()
    except (OSError, UnicodeDecodeError):
        return None


def is_current(toolset: Path, out: Path, *, emit_tests: bool = False) -> bool:
    """True when `out` holds every generated file, written by this version from these sources."""
    first = _header(out / "models.py")
    if first is None or not first[0].startswith(f"{HEADER_PREFIX} {__version__} from {toolset.name}. "):
        return False
    parts = first[1].removeprefix(HASH_PREFIX).strip().split(" ", 1)
    if not first[1].startswith(HASH_PREFIX) or len(parts) != 2:
        return False
    recorded, sources_json = parts
    try:
        sources = json.loads(sources_json)
    except ValueError:
        return False
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        return False
    files = [toolset, *(toolset.parent / s for s in sources)]
    try:
        if source_hash(files) != recorded:
            return False
    except OSError:
        return False
    if not (out / "handlers").is_dir():
        return False
    if not emit_tests and (out / CONTRACT_TESTS).exists():
        return False
    expected = (*OURS_FILES, CONTRACT_TESTS) if emit_tests else OURS_FILES
    return all(_header(out / name) == first for name in expected)
