"""What a handler stub says of its tool: the annotations of its signature, however written.

A handler module that holds nothing but imports and its function raising NotImplementedError is a
stub; `generate` warns of one whose form is not that of the stub it would write now (`handlerfiles`),
and the stamp records each stub's form so that an up-to-date run warns too.
"""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path

from mcpstub.engine.stamp import file_hash

# Names an annotation wraps classes in: they say nothing of the tool.
_WRAPPERS = frozenset({"Union", "Optional", "Annotated"})


def stub_record(rel: str, stub: str) -> tuple[str, str]:
    """What the stamp keeps of a handler's stub: its hash, and its form (see `stub_form`)."""
    return file_hash(stub.encode("utf-8")), stub_form(stub, Path(rel).stem) or ""


def stub_form(text: str, name: str) -> str | None:
    """What a stub says of its tool, as a short hash (None for a module that is not a stub)."""
    form = _stub_form(text, name)
    return None if form is None else hashlib.sha256("\n".join(form).encode()).hexdigest()[:16]


def stub_names(text: str, name: str) -> set[str] | None:
    """The class names a stub's signature names (None for a module that is not a stub)."""
    form = _stub_form(text, name)
    return None if form is None else {n for part in form for n in part.split()}


def _stub_form(text: str, name: str) -> tuple[str, ...] | None:
    """What a handler module that holds nothing but imports and the function `name` raising
    NotImplementedError says of its tool: the classes the annotations of its parameters and its
    return name, each read as written anywhere. None for any other module (a decorator, a default,
    a computed message or a cause is code). Comments, docstrings, a message written out, layout,
    parameter names and other imports do not count."""
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    imports = [node for node in body if isinstance(node, ast.ImportFrom | ast.Import)]
    rest = [node for node in body if node not in imports and not _docstring(node)]
    if len(rest) != 1 or not isinstance(rest[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    function, given = rest[0], rest[0].args
    if function.name != name or function.decorator_list or given.defaults or any(given.kw_defaults):
        return None  # (a decorator or a default is code of the user's)
    statements = [node for node in function.body if not _docstring(node)]
    raised = statements[0] if len(statements) == 1 and isinstance(statements[0], ast.Raise) else None
    error = raised.exc if raised is not None and raised.cause is None else None
    if isinstance(error, ast.Call) and not error.keywords and all(_text(a) for a in error.args):
        error = error.func  # (`NotImplementedError("soon")`: a note; a message computed is code)
    if not (isinstance(error, ast.Name) and error.id == "NotImplementedError"):
        return None
    aliases = {alias.asname: alias.name for node in imports for alias in node.names if alias.asname}

    def read(annotation: ast.expr | None) -> str:
        """The class names an annotation mentions, however spelled (quoted, qualified by its module,
        under an alias, in a union of any order or `typing.Union`)."""
        names: set[str] = set()
        stack: list[ast.AST] = [] if annotation is None else [annotation]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                try:
                    stack.append(ast.parse(node.value, mode="eval").body)
                except SyntaxError:
                    names.add(node.value)
            elif isinstance(node, ast.Attribute):
                names.add(node.attr)  # (`models.XInput`: the name, not the module)
            else:
                if isinstance(node, ast.Name):
                    names.add(aliases.get(node.id, node.id))
                stack.extend(ast.iter_child_nodes(node))
        return " ".join(sorted(n for n in names if n[:1].isupper() and n not in _WRAPPERS))

    parameters = [*given.posonlyargs, *given.args, given.vararg, *given.kwonlyargs, given.kwarg]
    return (*(read(p.annotation) if p is not None else "-" for p in parameters), read(function.returns))


def _docstring(node: object) -> bool:
    return isinstance(node, ast.Expr) and _text(node.value)


def _text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
