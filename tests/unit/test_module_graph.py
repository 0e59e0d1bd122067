"""The generator's modules: none imports another that imports it back, none too long to read."""

from __future__ import annotations

import ast
from pathlib import Path

import mcpstub

PACKAGE = Path(mcpstub.__file__).parent
MAX_LINES = 800  # non-blank lines


def _module_name(path: Path) -> str:
    parts = ("mcpstub", *path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each module of the package and the modules of the package it imports, anywhere in it
    (at the top, inside a function, or for type checking only)."""
    modules = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # `from .x import y`: relative to the module's package
                    parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    parts = parts[: len(parts) - node.level + 1]
                    base = ".".join([*parts, base] if base else parts)
                imported.add(base)
                imported.update(f"{base}.{alias.name}" for alias in node.names)
        graph[name] = {m for m in imported if m in modules and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_one_that_imports_it_back() -> None:
    graph = import_graph()
    assert len(graph) > 40 and "mcpstub.load" in graph["mcpstub.validate"]  # the graph is read
    assert cycles(graph) == []


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": {"e"}, "f": set()}
    assert cycles(graph) == [["a", "b", "c"], ["e", "e2"]]


def test_no_module_is_longer_than_a_sitting_reads() -> None:
    lengths = {
        path.relative_to(PACKAGE).as_posix(): sum(
            1 for line in path.read_text("utf-8").splitlines() if line.strip()
        )
        for path in PACKAGE.rglob("*.py")
    }
    too_long = {name: count for name, count in lengths.items() if count > MAX_LINES}
    assert too_long == {}


# Module-level state a stage may not keep: what a run remembers is in its `memory.Memory`, what a
# session keeps is in its `session.Session`. The two allowed are facts about the process itself.
_PROCESS_FACTS = {
    ("cli.py", "_LEAVING"),  # the command line runs as the `mcpstub` command (it exits with it)
    ("write.py", "_LOCKED"),  # the output folders whose lock this process holds
}
_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter", "Memory"}


def module_state(source: str) -> list[str]:
    """Names a module binds at its top level to a mutable container it could fill as it runs: an
    empty `{}`, `[]`, `set()` and the like, a one-item list (a switch), or a store's instance; and
    functions of arguments whose results are kept without bound (`@cache`, `lru_cache(None)`),
    which grow with every name a long `--watch` session sees. A bounded cache of a pure function,
    or a cache of a function without arguments (a constant made when first needed), is no state."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.args.args:
            for decorator in node.decorator_list:
                text = ast.unparse(decorator)
                if text in {"cache", "functools.cache", "lru_cache", "functools.lru_cache"} or (
                    "lru_cache(" in text and "maxsize=None" in text
                ):
                    found.append(node.name)
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        empty = isinstance(value, ast.Dict) and not value.keys
        empty |= isinstance(value, ast.Set) and not value.elts
        empty |= isinstance(value, ast.List) and len(value.elts) <= 1
        called = isinstance(value, ast.Call) and ast.unparse(value.func).rpartition(".")[2] in _CONTAINERS
        if empty or called:
            found.extend(t.id for t in targets if isinstance(t, ast.Name))
    return found


def test_no_stage_keeps_module_level_state() -> None:
    held = {
        (path.relative_to(PACKAGE).as_posix(), name)
        for path in PACKAGE.rglob("*.py")
        for name in module_state(path.read_text("utf-8"))
    }
    assert held == _PROCESS_FACTS


def test_module_state_is_found() -> None:
    source = "A = {}\nB: dict[int, str] = {}\nC = [False]\nD = set()\nE = memory.Memory()\n"
    grows = "@cache\ndef f(x): pass\n@lru_cache(maxsize=None)\ndef g(x): pass\n"
    fine = "@cache\ndef h(): pass\n@lru_cache(maxsize=64)\ndef i(x): pass\n"
    assert module_state(grows + fine) == ["f", "g"]
    assert module_state(source + "F = {1: 2}\nG = (1,)\nH = {'x'}\nI = [1, 2]\n") == ["A", "B", "C", "D", "E"]


def names_bound_twice(source: str) -> list[str]:
    """Names a module binds at its top level more than once (a constant, a function or a class):
    the later binding is the one every function of the module reads, the earlier one's users
    included. Bindings under `if`/`try` (a fallback import, TYPE_CHECKING) are not counted."""
    seen: set[str] = set()
    twice: list[str] = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names = [node.name]
        elif isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names = [node.target.id]
        else:
            continue
        twice.extend(name for name in names if name in seen)
        seen.update(names)
    return twice


def test_no_module_binds_a_name_twice() -> None:
    # (`_ANNOTATIONS` of bundle.py was given a second meaning further down, which its first user read)
    packages = [PACKAGE, PACKAGE.parent.parent / "runtime" / "mcpstub_runtime"]
    twice = {
        (path.name, name)
        for package in packages
        for path in package.rglob("*.py")
        for name in names_bound_twice(path.read_text("utf-8"))
    }
    assert twice == set()
    assert names_bound_twice("A = 1\ndef f(): return A\nA = 2\nclass B: pass\nB = 3\n") == ["A", "B"]
