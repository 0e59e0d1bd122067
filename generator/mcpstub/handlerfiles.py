"""Handler files: what a run says of the package's handler modules it does not write.

`warn_orphans` names each handler whose tool is gone (with the move that keeps its code, where its
tool was probably renamed); `warn_old_stubs` each one still the stub of an earlier form of its tool.
Handlers are created when missing and never rewritten (`write.plan`).
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from mcpstub.diagnostics import SourceError
from mcpstub.options import shown_path


def _renamed_handlers(out: Path, ours: dict[str, str]) -> dict[str, str]:
    """Orphaned handler module name -> the tool its tool was probably renamed to (as `diff` guesses,
    from the surface written last time and the one about to be written)."""
    from mcpstub.diff.engine import renames  # noqa: PLC0415
    from mcpstub.ir import to_identifier  # noqa: PLC0415
    from mcpstub.layout import SURFACE_FILE  # noqa: PLC0415
    from mcpstub.sources import surface_tools  # noqa: PLC0415

    try:
        old = surface_tools((out / SURFACE_FILE).read_text("utf-8"))
        new = surface_tools(ours[SURFACE_FILE])
    except (OSError, KeyError, ValueError):
        return {}
    added = {name: tool for name, tool in new.items() if name not in old}
    gone = {name: tool for name, tool in old.items() if name not in new}
    return {str(to_identifier(name)): other for name, other in renames(gone, added).items()}


def _tracked(path: Path) -> bool:
    """Whether git tracks `path` (so a move should be git's); False without git or a repository."""
    from mcpstub.sources import _git  # noqa: PLC0415

    try:
        _git(["ls-files", "--error-unmatch", "--", path.name], path.parent)
    except (SourceError, OSError):
        return False
    return True


def warn_orphans(
    out: Path, orphans: list[str], ours: dict[str, str] | None = None, yours: dict[str, str] | None = None
) -> None:
    from mcpstub.ir import to_identifier  # noqa: PLC0415

    renamed = _renamed_handlers(out, ours) if orphans and ours else {}
    for rel in orphans:
        old = Path(rel).stem
        shown = shown_path(out / rel)
        print(f"{shown}: warning: handler has no tool in the toolset (orphaned)", file=sys.stderr)
        if old in renamed:
            new = to_identifier(renamed[old])
            target = out / "handlers" / f"{new}.py"
            said = f"  hint: tool {renamed[old]!r} is probably its tool renamed"
            if _is_stub(target, (yours or {}).get(f"handlers/{new}.py")):
                move = "git mv -f" if _tracked(out / rel) else "mv -f"
                said += (
                    f"; to keep your code: {move} {shlex.quote(shown)} {shlex.quote(shown_path(target))}"
                    f" (over the new stub), then rename its function {old} to {new} and its model imports"
                )
            else:  # the renamed tool's handler holds code already: neither file is to be overwritten
                said += f", whose handler {shown_path(target)} has code: keep what you need of {shown} there"
            print(said, file=sys.stderr)
    if len(renamed) < len(orphans):  # the hint once, however many there are
        print("  hint: move what you still need into a tool's handler, then delete each; a helper module"
              " of yours is never reported if its name starts with '_'", file=sys.stderr)  # fmt: skip


def warn_old_stubs(out: Path, yours: dict[str, str]) -> None:
    """A warning for each handler that is still a stub, but one written for an earlier form of its
    tool (it may import a model that is gone): stubs are never rewritten, and it holds no code."""
    for rel, stub in yours.items():
        path = out / rel
        if not rel.startswith("handlers/") or rel == "handlers/__init__.py":
            continue
        try:
            text = path.read_text("utf-8") if path.stat().st_size < 8192 else ""
        except (OSError, UnicodeDecodeError):
            continue
        if text == stub or "NotImplementedError" not in text:
            continue
        written, current = _stub_form(text, path.stem), _stub_form(stub, path.stem)
        if written is not None and current is not None and written != current:
            said = "still a stub, written for an earlier form of its tool: not the one it gets now"
            print(f"{shown_path(path)}: warning: {said}", file=sys.stderr)
            hint = "delete it and run again for the current stub (it holds no code; keep any note of yours)"
            print(f"  hint: {hint}", file=sys.stderr)


def _stub_form(text: str, name: str) -> tuple[frozenset[str], str] | None:
    """What a handler module that holds nothing but imports and the function `name` raising
    NotImplementedError says of its tool (the names it imports, the function's signature); None for
    any other module. Comments and layout do not count."""
    import ast  # noqa: PLC0415

    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    imports = [node for node in body if isinstance(node, ast.ImportFrom | ast.Import)]
    functions = [node for node in body if node not in imports]
    if len(functions) != 1 or not isinstance(functions[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    function = functions[0]
    raised = function.body[-1] if function.body else None
    if not (
        function.name == name
        and len(function.body) == 1
        and isinstance(raised, ast.Raise)
        and isinstance(raised.exc, ast.Name)
        and raised.exc.id == "NotImplementedError"
    ):
        return None
    names = frozenset(
        alias.name
        for node in imports
        if not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        for alias in node.names
    )
    return names, ast.dump(function.args) + ast.dump(function.returns or ast.Constant(None))


def _is_stub(path: Path, stub: str | None) -> bool:
    """Whether the handler at `path` is missing (its stub is written) or is the stub as written."""
    try:
        return stub is not None and path.read_bytes() == stub.encode()
    except FileNotFoundError:
        return True
    except OSError:
        return False
