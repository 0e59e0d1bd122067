"""Compile check: every generated Python file must compile, or mcpstub has a bug.

`compile_check(path, text)` raises `GeneratedCodeError`, with the text attached, when it does not.
"""

from __future__ import annotations


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


def compile_check(path: str, text: str) -> None:
    """Raise `GeneratedCodeError` unless `text` compiles as the module `path`."""
    try:
        compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise GeneratedCodeError(path, text, exc) from exc
