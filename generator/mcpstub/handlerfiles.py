"""Handler files: what a run says of the package's handler modules it does not write.

`warn_orphans` names each handler whose tool is gone (with the move that keeps its code, where its
tool was probably renamed); `warn_old_stubs` each one still the stub of an earlier form of its tool;
`lost_models` each one with code that imports models the package no longer has.
Handlers are created when missing and never rewritten (`write.plan`).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import shlex
import stat
import sys
import tokenize
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mcpstub.diagnostics import SourceError
from mcpstub.options import shown_path
from mcpstub.stubform import stub_form, stub_names

if TYPE_CHECKING:
    from mcpstub.engine.stamp import Recorded
    from mcpstub.ir import Tool


def renamed_handlers(
    out: Path, ours: dict[str, str], tools: Sequence[Tool], recorded: Recorded
) -> dict[str, str]:
    """Handler module name -> the tool its tool was probably renamed to: as `diff` guesses from the
    surface written last time and the one about to be written, and as the last stamp recorded, for
    each such handler still there (orphaned) and tool still in `tools`. The stamp keeps them: the
    move that keeps the handler's code is said on every run until it is made."""
    idents = {str(tool.identifier) for tool in tools}
    try:  # (the surfaces are read only where a handler has no tool: 39 MB at 500 `shared` tools)
        handlers = (p for p in (out / "handlers").glob("*.py") if not p.stem.startswith("_"))  # (helpers)
        orphans = {p.stem for p in handlers if p.stem not in idents and p.is_file()}
    except OSError:
        return {}
    if not orphans:
        return {}
    names = {tool.name for tool in tools}
    merged = {**recorded.renamed, **_renamed_handlers(out, ours)}
    return {old: new for old, new in sorted(merged.items()) if new in names and old in orphans}


def _renamed_handlers(out: Path, ours: dict[str, str]) -> dict[str, str]:
    """Orphaned handler module name -> the tool its tool was probably renamed to (as `diff` guesses,
    from the surface written last time and the one about to be written)."""
    from mcpstub.diff.engine import renames  # noqa: PLC0415
    from mcpstub.engine.store import read_regular  # noqa: PLC0415
    from mcpstub.ir import to_identifier  # noqa: PLC0415
    from mcpstub.layout import SURFACE_FILE  # noqa: PLC0415
    from mcpstub.sources import surface_tools  # noqa: PLC0415

    try:
        old = surface_tools(read_regular(out / SURFACE_FILE).decode("utf-8"))
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


def say_handlers(
    out: Path,
    client_only: bool,
    orphans: list[str],
    renamed: dict[str, str],
    stubs: dict[str, tuple[str, str]],
) -> int:
    """Each orphaned handler and old stub of a server package; in a client-only package, which has
    no handlers, the folder once, where it holds a server's handler modules. How many warnings."""
    if not client_only:
        return warn_orphans(out, orphans, renamed, stubs) + warn_old_stubs(out, stubs)
    folder, held = out / "handlers", False
    with contextlib.suppress(OSError):  # (a folder it cannot list is not said)
        held = folder.is_dir() and any(p.name not in {"__init__.py", "__pycache__"} for p in folder.iterdir())
    if held:
        handlers = shown_path(folder)
        print(f"{handlers}: warning: the handlers of a server stay, yours, in a client-only package, which"
              " has no server for them to import", file=sys.stderr)  # fmt: skip
        print(f"  hint: delete {handlers} if this package no longer serves; to serve again, generate"
              " with --no-client-only (or with neither --client-only nor client_only = true)",
              file=sys.stderr)  # fmt: skip
    return int(held)


def warn_orphans(
    out: Path, orphans: list[str], renamed: dict[str, str], stubs: Mapping[str, tuple[str, str]]
) -> int:
    """Warn of each handler module without a tool (`renamed`: those whose tool was renamed, with the
    move that keeps their code; `stubs`: each handler's stub hash and form); how many."""
    from mcpstub.ir import to_identifier  # noqa: PLC0415

    renamed = {old: new for old, new in renamed.items() if f"handlers/{old}.py" in orphans}
    for rel in orphans:
        old = Path(rel).stem
        shown = shown_path(out / rel)
        print(f"{shown}: warning: handler has no tool in the toolset (orphaned)", file=sys.stderr)
        if old in renamed:
            new = to_identifier(renamed[old])
            target = out / "handlers" / f"{new}.py"
            said = f"  hint: tool {renamed[old]!r} is probably its tool renamed"
            if _is_stub(target, stubs.get(f"handlers/{new}.py", ("", ""))[0]):
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
    return len(orphans)


def warn_old_stubs(out: Path, stubs: dict[str, tuple[str, str]]) -> int:
    """A warning for each handler that is still a stub, but one written for an earlier form of its
    tool (its signature names models the tool no longer has, or not those it has now): stubs are
    never rewritten, and it holds no code. `stubs`: each handler's (stub hash, stub form). How many."""
    count = 0
    for rel, (digest, form) in stubs.items():
        if form and _old_stub(out / rel, digest, form):
            said = "still a stub, written for an earlier form of its tool: not the one it gets now"
            print(f"{shown_path(out / rel)}: warning: {said}", file=sys.stderr)
            hint = "delete it and run again for the current stub (it holds no code; keep any note of yours)"
            print(f"  hint: {hint}", file=sys.stderr)
            count += 1
    return count


def _old_stub(path: Path, digest: str, form: str) -> bool:
    """Whether the handler at `path` is a stub (imports and its function raising
    NotImplementedError, nothing else) other than the one whose hash is `digest`, saying another
    `form` of its tool. A file of 8 KiB or more is taken to hold code."""
    from mcpstub.engine.stamp import file_hash  # noqa: PLC0415

    text = _text(path, 8192)  # (a FIFO, a device or a folder there is no stub: never read)
    if text is None or "NotImplementedError" not in text or file_hash(text.encode("utf-8")) == digest:
        return False
    written = stub_form(text, path.stem)
    return written is not None and written != form


# A name models.py defines or imports (top level): `class A`, `A: TypeAlias = ...`, `from x import A`.
_DEFINED = re.compile(
    r"^(?:class\s+(\w+)|(\w+)\s*(?::[^=\n]*)?=|from\s+\S+\s+import\s+(\([^)]*\)|[^\n]*))", re.MULTILINE
)


def _names(models: str) -> set[str]:
    """The names models.py defines or imports at its top level. Its classes and aliases are found
    by literal searches (a regex tried at each of its lines took 75 ms for the 8 MB of 500 `enums`
    tools, twice a run; these take 6 ms); the rest of its top level (imports, other assignments)
    by the regex, on the lines before its first class."""
    found = set(re.findall(r"\nclass (\w+)", models))
    for alias in (": TypeAlias =", " = TypeAliasType("):  # (the second: a recursive one)
        at = models.find(alias)
        while at != -1:
            if (name := models[models.rfind("\n", 0, at) + 1 : at]).isidentifier():
                found.add(name)
            at = models.find(alias, at + 1)
    for defined, assigned, imported in _DEFINED.findall(models.partition("\nclass ")[0]):
        found.add(defined or assigned)
        found.update(part.split(" as ")[-1].strip(" ()\n") for part in imported.split(","))
    return found


def _from_models(text: str, package: str) -> dict[str, tuple[int, int]]:
    """The names a handler module takes from its package's models, however imported (`from
    ..models import A`, `from pkg.models import A as B`, `from .. import models` then `models.A`,
    `import pkg.models as m` then `m.A`, in any block), each with the line and column (1-based,
    in characters) where it is first named; empty for a module Python cannot parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    lines = re.split(r"\r\n|\r|\n", text)  # (as Python counts lines: a form feed ends none)
    names: dict[str, tuple[int, int]] = {}

    def take(name: str, line: int, byte: int) -> None:  # (ast counts columns in UTF-8 bytes)
        column = len(lines[line - 1].encode("utf-8")[:byte].decode("utf-8", "replace")) + 1
        if (line, column) < names.get(name, (line + 1, 0)):
            names[name] = (line, column)

    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = (node.level, node.module or "")
            if module in ((2, "models"), (0, f"{package}.models")):
                for alias in node.names:
                    if alias.name != "*":
                        take(alias.name, alias.lineno, alias.col_offset)
            elif module in ((2, ""), (0, package)):
                aliases.update(alias.asname or alias.name for alias in node.names if alias.name == "models")
        elif isinstance(node, ast.Import):
            aliases.update(a.asname for a in node.names if a.name == f"{package}.models" and a.asname)
            if any(a.name == f"{package}.models" and not a.asname for a in node.names):
                aliases.add(f"{package}.models")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and ast.unparse(node.value) in aliases:
            end = (node.end_lineno or node.lineno, node.end_col_offset or 0)
            take(node.attr, end[0], end[1] - len(node.attr.encode("utf-8")))
    return names


def lost_models(
    out: Path, models: str, tools: Sequence[Tool], recorded: Recorded
) -> dict[str, list[list[str]]]:
    """Each handler with code that takes from the package's models a class the models about to be
    written (`models`) no longer have: one that the models on disk had, or one the last run found
    lost (the stamp keeps them). Its import would fail as the server starts, and mypy would point
    at server.py. Handler path -> [the names lost, the classes of models.py its tool has now]: what
    `say_lost_models` says, and what the stamp keeps for a run that finds the package current."""
    from mcpstub.write import text_of  # noqa: PLC0415

    try:
        had = _names(text_of(out / "models.py"))
    except (OSError, UnicodeDecodeError):
        had = set()
    before, now = recorded.lost, _names(models)
    gone = (had | {name for lost, *_ in before.values() for name in lost}) - now
    new = sorted(now - had) if had else []  # (what a renamed definition is called now, say)

    def named_new(rel: str) -> list[str]:  # (new since the run that found it lost, still there)
        earlier = before.get(rel, [])
        return new or [name for name in (earlier[2] if len(earlier) > 2 else []) if name in now]

    found: dict[str, list[list[str]]] = {}
    for tool in tools if gone else ():
        rel = f"handlers/{tool.identifier}.py"
        text = _text(out / rel)
        if text is None or not any(name in text for name in gone):
            continue
        lost = sorted(_from_models(text, out.name).keys() & gone)
        signed = stub_names(text, tool.identifier)  # (what `warn_old_stubs` says of a stub)
        if lost and (signed is None or not signed.issuperset(lost)):
            classes: list[str] = [tool.input_class, *filter(None, [tool.output_class])]
            found[rel] = [lost, [*classes, *tool.elicitation_classes.values()], named_new(rel)]
    for rel in _helpers(out) if gone else ():  # a module of yours the handlers import fails them too
        text = _text(out / rel)
        if text is not None and (lost := sorted(_from_models(text, out.name).keys() & gone)):
            found[rel] = [lost, [], named_new(rel)]
    return found


def _helpers(out: Path) -> list[str]:
    """The modules of yours beside the handlers (`handlers/_store.py`; not `__init__.py`)."""
    try:
        with os.scandir(out / "handlers") as entries:
            names = [e.name for e in entries if re.fullmatch(r"_(?!_init__\.py)\w*\.py", e.name)]
    except OSError:
        return []
    return [f"handlers/{name}" for name in sorted(names)]


def say_unfit_handlers(out: Path, rels: Iterable[str]) -> int:
    """Warn of each handler module of `rels` ("handlers/<name>.py"; other files are left) that is
    not what the server imports as its handler (a module of yours a new tool took over, a function
    renamed): every call of its tool answers an internal error. Every run reads them all: a module
    that surely defines the function at its top level, as its stub does, is not parsed (13 ms at
    500 handlers, where parsing each takes 65: the medians of 15 runs)."""
    try:
        with os.scandir(out / "handlers") as entries:
            found = {entry.name: entry for entry in entries}
    except OSError:
        return 0
    count = 0
    for rel in rels:
        name = rel[len("handlers/") : -len(".py")]
        if not re.fullmatch(r"handlers/[A-Za-z]\w*\.py", rel):
            continue
        if name not in found and _defines(found.get(f"{name}.py"), name):  # (no package of its name)
            continue
        if unfit := _unfit(out, rel):
            where, said, hint = unfit
            said += ": every call of its tool answers an internal error"
            print(f"{shown_path(out / where)}: warning: {said}\n  hint: {hint}", file=sys.stderr)
            count += 1
    return count


# A function defined at a module's top level as a stub defines it; before it, nothing that could
# make it part of a text (a triple quote, a line continued).
_TOP_LEVEL_DEF = re.compile(rb"^(?:async[ \t]+)?def[ \t]+(\w+)[ \t]*\(", re.MULTILINE)
_IN_TEXT = re.compile(rb"\"{3}|'{3}|\\\r?\n")


def _defines(entry: os.DirEntry[str] | None, name: str) -> bool:
    """Whether the regular file `entry` surely defines the function `name` as a stub does (False:
    it may not)."""
    try:
        if entry is None or not entry.is_file() or entry.stat().st_size >= 1 << 20:
            return False
        with open(entry.path, "rb") as module:
            text = module.read()
    except OSError:
        return False
    found = next((m for m in _TOP_LEVEL_DEF.finditer(text) if m[1] == name.encode()), None)
    return found is not None and not _IN_TEXT.search(text, 0, found.start())


def _unfit(out: Path, rel: str) -> tuple[str, str, str] | None:
    """Where the module Python imports as the handler `rel` is (a package of its name beside it
    comes first), why it is no handler (it binds the function's name nowhere at its top level),
    and what to do; None where it is one (a missing module has its stub written, one that does
    not parse or binds names unseen, `import *`, `__getattr__`, the server's check judges)."""
    name = Path(rel).stem
    package = f"handlers/{name}/__init__.py"
    where = package if (out / package).is_file() else rel
    text = _text(out / where)
    if text is None:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    if name in _bound(tree) or {"*", "__getattr__"} & _bound(tree):
        return None
    said = f"defines no function {name!r}"
    if where == package:
        return where, f"{said} (a package: Python imports it, not {rel})", "define it there, or rename it"
    hint = "write the handler there, or move the module away: the run then writes its stub"
    return where, said, f"{hint} (async def {name}(args, ctx))"


def _bound(tree: ast.Module) -> set[str]:
    """The names a module binds as it runs its top level (under `if`, `try`, `with`, `match` too;
    a walrus in a default or a decorator; not in a function's or a class's body, nor a
    comprehension's own variable), `*` for `from ... import *`."""
    found: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            if not isinstance(node, ast.Lambda):
                found.add(node.name)
                todo.extend([*node.decorator_list, *filter(None, [node.returns])])
            todo.extend([*node.args.defaults, *filter(None, node.args.kw_defaults)])
            continue
        if isinstance(node, ast.ClassDef):
            found.add(node.name)
            todo.extend([*node.decorator_list, *node.bases, *node.keywords])
            continue
        if isinstance(node, ast.AnnAssign) and node.value is None:  # (an annotation binds nothing)
            continue
        if isinstance(node, ast.comprehension):  # (its own variable stays in the comprehension)
            todo.extend([node.iter, *node.ifs])
            continue
        if isinstance(node, ast.alias):
            found.add(node.asname or node.name.partition(".")[0])
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            found.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            found.add(node.rest)
        todo.extend(ast.iter_child_nodes(node))
    return found


def _text(path: Path, limit: int = 1 << 20) -> str | None:
    """The text of a regular file of less than `limit` bytes at `path` (never a FIFO or a device
    read), decoded as Python reads a module (a byte order mark, a coding line); None for anything
    else."""
    try:
        found = path.stat()
        if not stat.S_ISREG(found.st_mode) or found.st_size >= limit:
            return None
        data = path.read_bytes()
        return data.decode(tokenize.detect_encoding(io.BytesIO(data).readline)[0])
    except (OSError, SyntaxError, LookupError, UnicodeDecodeError):  # (SyntaxError: a bad coding line)
        return None


def say_lost_models(out: Path, found: dict[str, list[list[str]]], *, current: bool = False) -> int:
    """Warn of each handler `lost_models` found; `current`: found by an earlier run, whose models
    are the same: each handler is judged again by its imports (it may have been mended since).
    How many."""
    count = 0
    for rel, (recorded, classes, *more) in sorted(found.items()):
        path = out / rel
        text = _text(path)
        named = _from_models(text, out.name) if text is not None else {}
        lost = sorted(named.keys() & set(recorded)) if current else recorded
        if not lost:
            continue
        them = "it" if len(lost) == 1 else "them"
        said = f"imports {', '.join(lost)} from models.py, which no longer defines {them}"
        place = "".join(f":{n}" for n in min((named[name] for name in lost if name in named), default=()))
        print(f"{shown_path(path)}{place}: warning: {said}", file=sys.stderr)
        new = more[0] if more else []
        hint = f"its tool's form changed: mend the handler to the classes it has now, {', '.join(classes)}"
        if new:  # (a definition renamed, perhaps)
            have = f"its tool's {', '.join(classes)}; " if classes else ""
            hint = f"mend it to what models.py defines now: {have}new there: {', '.join(new)}"
        elif not classes:
            hint = "mend it to the classes models.py defines now"
        print(f"  hint: {hint}", file=sys.stderr)
        count += 1
    return count


def _is_stub(path: Path, digest: str) -> bool:
    """Whether the handler at `path` is missing (its stub is written) or is the stub as written
    (its hash `digest`)."""
    from mcpstub.engine.stamp import hashes_as  # noqa: PLC0415

    try:
        regular = stat.S_ISREG(path.stat().st_mode)
        return bool(digest) and regular and hashes_as(path.read_bytes(), digest)
    except FileNotFoundError:
        return True
    except OSError:
        return False
