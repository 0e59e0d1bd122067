"""Model merging: one module from the models of several groups, statement by statement.

`split_source` cuts a generated module into its top-level statements (kind, names bound, text);
`merge_parts` joins the statements of several: imports united, identical definitions kept once, a
name defined twice with different bodies refused (`Clash`: the toolset is then generated in one
call), the spacing and import layout black gives. The merged module compiles by construction: every
part is a whole statement parsed out of a generated module.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable

from mcpstub.model_source import parsed
from mcpstub.models import STAND_IN_MODULE
from mcpstub.pytext import from_import, import_order


class Clash(Exception):
    """Two groups define one name differently: the groups cannot be merged."""


# A top-level statement of generated models: (kind, names, text). Kinds: "from" (names imported
# from the module in text), "import", "class", "alias" (names defined by text), "other".
Part = tuple[str, tuple[str, ...], str]


def merge_sources(sources: Iterable[str]) -> str:
    """One module from several generated ones: imports united, identical definitions kept once."""
    return merge_parts(split_source(s) for s in sources)


def split_source(source: str) -> list[Part]:
    """A generated module's top-level statements, each with its kind, the names it binds, its text."""
    parts: list[Part] = []
    if not source.strip():
        return parts
    lines = source.splitlines()
    for node in parsed(source).body:
        start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        text = "\n".join(lines[start - 1 : node.end_lineno])
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = tuple(a.name if a.asname is None else f"{a.name} as {a.asname}" for a in node.names)
            parts.append(("from", names, node.module))
        elif isinstance(node, ast.Import):
            parts.append(("import", (), text))
        elif names := tuple(_defined_names(node)):
            parts.append(("alias" if isinstance(node, ast.Assign | ast.AnnAssign) else "class", names, text))
        else:
            parts.append(("other", (), text))
    return parts


def merge_parts(units: Iterable[list[Part]]) -> str:
    """One module from the statements of several: imports united, identical definitions kept once."""
    imports: dict[str, set[str]] = {}
    plain_imports: set[str] = set()
    body: list[tuple[str, str]] = []  # (kind: class, alias or other; text)
    defined: dict[str, str] = {}
    seen_other: set[str] = set()
    stand_ins: set[str] = set()  # imported by a group: to be defined by another
    for parts in units:
        for kind, names, text in parts:
            if kind == "from" and text == STAND_IN_MODULE:
                stand_ins.update(names)
            elif kind == "from":
                imports.setdefault(text, set()).update(names)
            elif kind == "import":
                plain_imports.add(text)
            elif names:
                known = [defined.get(n) for n in names]
                if all(k == text for k in known):
                    continue
                if any(k is not None for k in known):
                    raise Clash(", ".join(names))
                defined.update(dict.fromkeys(names, text))
                body.append((kind, text))
            elif text not in seen_other:
                seen_other.add(text)
                body.append(("other", text))
    if not stand_ins.issubset(defined):
        raise Clash(", ".join(sorted(stand_ins - set(defined))))
    if not body and not imports and not plain_imports:
        return ""
    head = sorted(plain_imports, key=_import_order) + [
        from_import(module, import_order(list(names)))  # as ruff's isort rule wants them
        for module, names in sorted(imports.items(), key=lambda m: _import_order(m[0]))
    ]
    out = [_join_imports(head, sorted(plain_imports, key=_import_order), sorted(imports, key=_import_order))]
    previous = ""
    for kind, text in body:
        # Black's spacing: two blank lines around classes, one between aliases, none between calls.
        if "class" in (previous, kind):
            gap = "\n\n\n" if previous or kind == "class" else "\n\n"
        else:
            gap = "\n" if previous == kind == "other" else "\n\n"
        out.append(gap + text)
        previous = kind
    return "".join(out) + "\n"


def _defined_names(node: ast.stmt) -> list[str]:
    """The module-level names a statement defines (a class, an alias), or [] for anything else."""
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.name]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if sys.version_info >= (3, 12) and isinstance(node, ast.TypeAlias):  # pragma: no cover
        return [node.name.id] if isinstance(node.name, ast.Name) else []
    return []


def _import_order(module_or_line: str) -> tuple[int, str]:
    """Future imports, then the standard library, then the rest, as isort groups them."""
    name = module_or_line.removeprefix("import ").split()[0]
    top = name.split(".")[0]
    group = 0 if top == "__future__" else 1 if top in sys.stdlib_module_names else 2
    return group, name


def _join_imports(lines: list[str], plain: list[str], modules: list[str]) -> str:
    """The import block, one blank line between isort groups."""
    keyed = [(_import_order(p)[0], p) for p in plain]
    keyed += [(_import_order(m)[0], line) for m, line in zip(modules, lines[len(plain) :], strict=True)]
    keyed.sort(key=lambda k: k[0])
    out: list[str] = []
    group = None
    for g, line in keyed:
        if group is not None and g != group:
            out.append("")
        out.append(line)
        group = g
    return "\n".join(out)
