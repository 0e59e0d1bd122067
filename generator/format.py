"""Format stage: rendered text -> black-formatted text, every Python file proven to compile.

`format_files` takes `{relative path: text}` and returns the same keys with black's output (in
memory, with a pinned mode so output is deterministic). A file that does not compile is a
generator bug, never a user mistake: it is raised as `GeneratedCodeError` with the text attached.
"""

from __future__ import annotations

from collections.abc import Mapping

import black
from black.mode import Mode, TargetVersion
from black.parsing import InvalidInput

from generator.render import LINE_LENGTH, RenderedPackage

MODE = Mode(target_versions={TargetVersion.PY311}, line_length=LINE_LENGTH)


class GeneratedCodeError(Exception):
    """mcpstub produced Python that does not compile: a bug in mcpstub."""

    def __init__(self, path: str, text: str, cause: Exception) -> None:
        super().__init__(
            f"mcpstub bug: generated {path} does not compile ({cause}). "
            "Please report it with the text below.\n"
            f"----- {path} -----\n{text}"
        )
        self.path = path
        self.text = text


def format_source(path: str, text: str) -> str:
    """Black-format one Python file and check that the result compiles."""
    try:
        formatted = black.format_str(text, mode=MODE)
    except InvalidInput as exc:
        _compile(path, text)  # raises with the exact line when it is a syntax error
        raise GeneratedCodeError(path, text, exc) from exc
    _compile(path, formatted)
    return formatted


def format_files(files: Mapping[str, str]) -> dict[str, str]:
    """Format and compile-check every `.py` file; other files pass through unchanged."""
    return {path: format_source(path, text) if path.endswith(".py") else text for path, text in files.items()}


def format_package(package: RenderedPackage) -> RenderedPackage:
    """`format_files` over both halves of a rendered package."""
    return RenderedPackage(ours=format_files(package.ours), yours=format_files(package.yours))


def _compile(path: str, text: str) -> None:
    try:
        compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise GeneratedCodeError(path, text, exc) from exc
