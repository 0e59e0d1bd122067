"""Rewrites of the models source that datamodel-code-generator writes: pure functions of the text.

`plain_aliases` turns `X = TypeAliasType("X", T)` into `X: TypeAlias = T` wherever `T` only
names what is defined above it, so a scalar or enum definition is a plain annotated type or
`Literal` that handlers fill with plain values (and the package needs no typing_extensions);
recursive aliases keep `TypeAliasType`, which evaluates lazily. `factory_defaults` turns a default
holding a JSON object (`x: Model = {"a": 1}`, which mypy --strict refuses) into a default factory
that pydantic validates into the model, as it validated the literal before. `typed_containers`
gives a bare `list` or `dict` its item types (`Any`), as mypy --strict wants.
`postprocess` applies them all, with the header dropped and schema building deferred; `alias_values`
and `open_classes` make a tool's output a plain value or its model an open class.
Each returns the text laid out as datamodel-code-generator lays it out; long lines are left for
`format.format_piece` to split.
"""

from __future__ import annotations

import ast
import builtins
import re
import unicodedata
from collections import deque
from collections.abc import Iterator, Sequence
from decimal import Decimal
from functools import lru_cache
from typing import TypeGuard

from mcpstub.layout import LINE_LENGTH
from mcpstub.pytext import from_import, text_width, to_literal


@lru_cache(maxsize=4)
def parsed(source: str) -> ast.Module:
    """The tree of a finished models source, parsed once for the steps that only read it (the
    binding check, the split into statements): treat it as read-only."""
    return ast.parse(source)


_ALIAS_IMPORT = "from typing_extensions import TypeAliasType\n"


def plain_aliases(source: str) -> str:
    """`X = TypeAliasType("X", T)` -> `X: TypeAlias = T` where T needs no lazy evaluation."""
    if "TypeAliasType(" not in source:
        return source
    tree = ast.parse(source)
    lines = source.split("\n")
    defined = set(dir(builtins))
    replaced: list[tuple[int, int, list[str]]] = []  # (first line, last line, new lines)
    kept = False
    # A name some type refers to before it is defined is part of a recursion: a plain alias there
    # (`Bar: TypeAlias = Foo` after `Foo = TypeAliasType("Foo", list["Bar"] | str)`) is a cycle
    # mypy cannot resolve, so it stays a TypeAliasType.
    forward = _forward_names(tree)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom | ast.Import):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        alias = _alias_value(node)
        if alias is not None:
            name, value = alias
            if name not in forward and _names_in(value) <= defined and not _has_string(value):
                text = ast.unparse(value)
                replaced.append((node.lineno, node.end_lineno or node.lineno, _alias_lines(name, text)))
            else:
                kept = True
        for target in _targets(node):
            defined.add(target)
    if not replaced:
        return source
    for first, last, new in reversed(replaced):
        lines[first - 1 : last] = new
    text = "\n".join(lines)
    if not kept:
        text = text.replace(_ALIAS_IMPORT, "")
    return add_imports(text, "typing", ["TypeAlias"])


def _alias_value(node: ast.stmt) -> tuple[str, ast.expr] | None:
    """(name, aliased type) of a `X = TypeAliasType("X", T)` statement."""
    if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
        return None
    target, call = node.targets[0], node.value
    if not (
        isinstance(target, ast.Name)
        and isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and call.func.id == "TypeAliasType"
        and len(call.args) == 2
        and not call.keywords
    ):
        return None
    return target.id, call.args[1]


def _targets(node: ast.stmt) -> list[str]:
    """The module-level names a statement binds."""
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def bound_names(tree: ast.Module) -> set[str]:
    """The names a module binds at its top level, however each statement is laid out."""
    return {name for node in tree.body for name in _targets(node)}


def _forward_names(tree: ast.Module) -> set[str]:
    """The names written as forward references (strings) in the module's types: aliased types,
    class bases and field annotations."""
    found: set[str] = set()
    for node in tree.body:
        types: list[ast.expr] = []
        alias = _alias_value(node)
        if alias is not None:
            types.append(alias[1])
        elif isinstance(node, ast.AnnAssign):
            types += [node.annotation, *([node.value] if node.value is not None else [])]
        elif isinstance(node, ast.ClassDef):
            types += node.bases
            types += [item.annotation for item in node.body if isinstance(item, ast.AnnAssign)]
        for expr in types:
            for text in _strings(expr):
                try:
                    found |= _names_in(ast.parse(text, mode="eval"))
                except SyntaxError:
                    continue
    return found


def _strings(node: ast.expr) -> list[str]:
    """The strings in a type (forward references), outside `Literal[...]` and `Field(...)`."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else []
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        return []
    if isinstance(node, ast.Call):
        return []
    children = [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]
    return [text for child in children for text in _strings(child)]


def _names_in(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _has_string(node: ast.expr) -> bool:
    """True when a type holds a string (a forward reference), outside `Literal[...]` and `Field(...)`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        return False
    if isinstance(node, ast.Call):
        return False
    return any(_has_string(child) for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr))


def _alias_lines(name: str, text: str) -> list[str]:
    """`name: TypeAlias = text`, split after the last bracket's opening when too long."""
    line = f"{name}: TypeAlias = {text}"
    if len(line) <= LINE_LENGTH or not text.endswith(("]", ")")):
        return [line]
    opening = _matching_opening(text)
    if opening <= 0:
        return [line]
    return [f"{name}: TypeAlias = {text[: opening + 1]}", "    " + text[opening + 1 : -1], text[-1]]


def _matching_opening(text: str) -> int:
    """The index of the bracket that the text's last character closes (-1 if not found)."""
    depth = 0
    quote = ""
    positions: list[int] = []
    i = 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([{":
            positions.append(i)
            depth += 1
        elif char in ")]}":
            depth -= 1
            start = positions.pop()
            if i == len(text) - 1 and depth == 0:
                return start
        i += 1
    return -1


def factory_defaults(source: str) -> str:
    """`x: T = {...}` (a default holding a JSON object) -> a validated default factory."""
    if "= {" not in source and "= [" not in source:
        return source
    tree = ast.parse(source)
    lines = source.split("\n")
    edits: list[ast.expr] = []
    made = False
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and stmt.value is not None
                and any(isinstance(n, ast.Dict) for n in ast.walk(stmt.value))
            ):
                edits.append(stmt.value)
    for value in reversed(edits):
        first, last = value.lineno - 1, (value.end_lineno or value.lineno) - 1
        head = lines[first].encode()[: value.col_offset].decode()  # ast offsets count UTF-8 bytes
        tail = lines[last].encode()[value.end_col_offset or 0 :].decode()
        try:
            default = ast.literal_eval(value)
        except ValueError:  # not a plain literal: leave it as it is
            continue
        # `dict`/`list` for an empty one: ruff's default rules refuse `lambda: {}` (PIE807).
        factory = {"{}": "dict", "[]": "list"}.get(to_literal(default), f"lambda: {to_literal(default)}")
        call = f"Field(default_factory={factory}, validate_default=True)"
        inner = " " * (len(head) - len(head.lstrip()) + 4)
        body = f"default_factory={factory}, validate_default=True"
        if text_width(head + call + tail) <= LINE_LENGTH:
            new = [head + call + tail]
        elif text_width(inner + body) <= LINE_LENGTH:
            new = [head + "Field(", inner + body, inner[4:] + ")" + tail]
        else:  # black splits at the commas, then explodes the literal
            prefix = f"{inner}default_factory=lambda: "
            literal = to_literal(default, indent=len(inner), used=text_width(prefix), tail=1)
            new = [head + "Field(", f"{prefix}{literal},", f"{inner}validate_default=True,"]
            new = [*"\n".join(new).split("\n"), inner[4:] + ")" + tail]
        lines[first : last + 1] = new
        made = True
    source = "\n".join(lines)
    # `Field` may be used nowhere else in the file.
    return add_imports(source, "pydantic", ["Field"]) if made else source


# JSON numbers as the schema counts them: an integer-valued float (1.0, 1e300) is an integer and
# becomes the exact int; a number keeps an integer exact (no overflow to inf) and a float a float.
# The names keep the length of those they replace, so datamodel-code-generator's layout holds.
_NUMBER_TYPES = {"StrictInt": "_Integral", "StrictFloat": "_JsonNumber"}
_NUMBER_HELPERS = {
    "_Integral": '''def _exact_int(value: Any) -> Any:
    """JSON Schema counts an integer-valued number (1.0, 1e300) as an integer: the int it
    holds; past 2**64 the one its shortest form writes (1e300 is 10**300), as validators do."""
    if isinstance(value, float) and value.is_integer():
        return int(value) if abs(value) < 2**64 else int(Decimal(repr(value)))
    return value


_Integral: TypeAlias = Annotated[StrictInt, BeforeValidator(_exact_int)]''',
    "_JsonNumber": "_JsonNumber: TypeAlias = StrictInt | StrictFloat",
}
_HELPER_IMPORTS = {
    "_Integral": {
        "decimal": ("Decimal",),
        "typing": ("Annotated", "Any", "TypeAlias"),
        "pydantic": ("BeforeValidator", "StrictInt"),
    },
    "_JsonNumber": {"typing": ("TypeAlias",), "pydantic": ("StrictFloat", "StrictInt")},
}


_BARE = {"list": "list[Any]", "dict": "dict[str, Any]"}


def typed_containers(source: str) -> str:
    """A bare `list` or `dict` in a type (the model generator's recursive array of arrays) ->
    `list[Any]`, `dict[str, Any]`: as loose, and what mypy --strict accepts; the validator judges."""
    if not re.search(r"(?<![\w.])(?:list|dict)(?![\w\[])", source):
        return source
    tree = ast.parse(source)
    spots: list[tuple[int, int, int, str]] = []  # (line, start, end, new text)
    for node in tree.body:
        for expr in _type_expressions(node):
            heads = {id(s.value) for s in ast.walk(expr) if isinstance(s, ast.Subscript)}
            for name in _type_names(expr):
                if name.id in _BARE and id(name) not in heads:
                    end = name.end_col_offset or name.col_offset + len(name.id)
                    spots.append((name.lineno, name.col_offset, end, _BARE[name.id]))
    if not spots:
        return source
    return add_imports(_respelled(source, spots), "typing", ["Any"])


def _respelled(source: str, spots: list[tuple[int, int, int, str]]) -> str:
    """`source` with each (line, start, end, new) span replaced by `new` (ast offsets: UTF-8 bytes)."""
    lines = source.split("\n")
    for line, start, end, new in sorted(spots, reverse=True):
        raw = lines[line - 1].encode()
        lines[line - 1] = (raw[:start] + new.encode() + raw[end:]).decode()
    return "\n".join(lines)


def exact_numbers(source: str) -> str:
    """Type `integer` as `_Integral` and `number` as `_JsonNumber` wherever a type is written."""
    if not any(name in source for name in _NUMBER_TYPES):
        return source  # no number type written: nothing to parse for
    tree = ast.parse(source)
    spots: list[tuple[int, int, int, str]] = []  # (line, start, end, new name)
    for node in tree.body:
        for expr in _type_expressions(node):
            for name in _type_names(expr):
                if name.id in _NUMBER_TYPES:
                    end = name.end_col_offset or name.col_offset + len(name.id)
                    spots.append((name.lineno, name.col_offset, end, _NUMBER_TYPES[name.id]))
    if not spots:
        return source
    used = sorted({new for *_, new in spots})
    text = _respelled(source, spots)
    for helper in used:
        for module, names in _HELPER_IMPORTS[helper].items():
            text = add_imports(text, module, names)
    text = _insert_after_imports(text, "\n\n\n".join(_NUMBER_HELPERS[h] for h in used))
    return _integral_defaults(text) if "_Integral" in used else text


def written_int(value: float) -> int:
    """The integer an integer-valued float stands for, as the validator reads it: the one it holds,
    and past 2**64 the one its shortest form writes (1e25 is 10**25, not 10000000000000000905969664):
    the models' `_exact_int`."""
    return int(value) if abs(value) < 2**64 else int(Decimal(repr(value)))


# Names under which a float may stand: a default of a type without them is an integer.
_FLOAT_NAMES = frozenset({"_JsonNumber", "StrictFloat", "float", "Any", "object"})


def _integral_defaults(source: str) -> str:
    """`x: _Integral = 2.0` -> `x: _Integral = 2`: JSON Schema counts 2.0 as an integer, and
    mypy --strict refuses a float where only integers are typed (through aliases too)."""
    tree = ast.parse(source)
    aliases: dict[str, ast.expr] = {}
    for node in tree.body:
        for expr in _type_expressions(node):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                aliases[node.target.id] = expr

    def may_be_float(expr: ast.expr, seen: frozenset[str]) -> bool:
        for name in _type_names(expr):
            if name.id in _FLOAT_NAMES:
                return True
            known = name.id in aliases and name.id not in seen
            if known and may_be_float(aliases[name.id], seen | {name.id}):
                return True
        return False

    spots: list[tuple[int, int, int, str]] = []
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for stmt in cls.body:
            if not isinstance(stmt, ast.AnnAssign) or stmt.value is None or isinstance(stmt.value, ast.Call):
                continue
            if may_be_float(stmt.annotation, frozenset()):
                continue
            for const in ast.walk(stmt.value):
                if not isinstance(const, ast.Constant) or const.lineno != const.end_lineno:
                    continue
                if isinstance(const.value, float) and const.value.is_integer():
                    end = const.end_col_offset or 0
                    spots.append((const.lineno, const.col_offset, end, str(written_int(const.value))))
    if not spots:
        return source
    lines = source.split("\n")
    for line, start, end, new in sorted(spots, reverse=True):
        raw = lines[line - 1].encode()  # ast offsets count UTF-8 bytes
        lines[line - 1] = (raw[:start] + new.encode() + raw[end:]).decode()
    return "\n".join(lines)


def _type_expressions(node: ast.stmt) -> list[ast.expr]:
    """The type expressions of one module-level statement of a models module."""
    if isinstance(node, ast.ClassDef):
        found = [b for b in node.bases if isinstance(b, ast.Subscript)]
        return found + [s.annotation for s in node.body if isinstance(s, ast.AnnAssign)]
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        is_alias = isinstance(node.annotation, ast.Name) and node.annotation.id == "TypeAlias"
        return [node.value] if is_alias else []
    alias = _alias_value(node)
    return [alias[1]] if alias is not None else []


def _type_names(node: ast.expr) -> list[ast.Name]:
    """Names in a type expression, outside `Literal[...]` and calls such as `Field(...)`."""
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.Call | ast.Constant):
        return []
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
        return []
    children = [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]
    return [name for child in children for name in _type_names(child)]


# The standard library modules models import from, in the order their imports stand.
_STANDARD = ("decimal", "typing")


def add_imports(source: str, module: str, names: tuple[str, ...] | list[str]) -> str:
    """The source with `from module import` holding `names` too (a new statement if there is none)."""
    pattern = re.compile(rf"^from {re.escape(module)} import (\([^)]*\)|.*)$", re.MULTILINE)
    match = pattern.search(source)
    if match is None:
        line = from_import(module, sorted(set(names)))
        if module in _STANDARD:  # the standard library block comes first, in order
            after = "|".join(m for m in _STANDARD if m > module) or "$^"
            later = re.search(rf"^from (?:{after}) ", source, re.M)
            if later is not None:
                return f"{source[: later.start()]}{line}\n{source[later.start() :]}"
            earlier = "|".join(m for m in _STANDARD if m < module) or "$^"
            last = list(re.finditer(rf"^from (?:{earlier}) import (\([^)]*\)|.*)$", source, re.M))
            if last:
                return f"{source[: last[-1].end()]}\n{line}{source[last[-1].end() :]}"
            return f"{line}\n\n{source}"
        first = re.search(rf"^from (?!(?:{'|'.join(_STANDARD)}) )", source, re.MULTILINE)
        at = first.start() if first else 0
        return f"{source[:at]}{line}\n{source[at:]}"
    present = {n.strip() for n in match[1].strip("()").split(",") if n.strip()}
    if present >= set(names):
        return source
    line = from_import(module, sorted(present | set(names)))
    return source[: match.start()] + line + source[match.end() :]


def _insert_after_imports(source: str, block: str) -> str:
    """The source with `block` placed between the imports and the first definition."""
    lines = source.split("\n")
    last = _imports_end(lines)
    head, rest = lines[:last], lines[last:]
    while rest and not rest[0].strip():
        rest.pop(0)
    return "\n".join([*head, "", "", block, "", "", *rest])


def _imports_end(lines: list[str]) -> int:
    """The last line of the imports the module starts with (0: none), parsing only them: the
    head up to the first line that starts a statement other than an import, if it holds only
    imports (the whole module otherwise)."""
    first = next(
        (i for i, line in enumerate(lines) if line[:1] not in ("", " ", "\t", ")", "#")
         and not line.startswith(("from ", "import "))),
        len(lines),
    )  # fmt: skip
    try:
        head: list[ast.stmt] | None = ast.parse("\n".join(lines[:first])).body
    except SyntaxError:  # (not where a statement starts after all)
        head = None
    if head is None or not all(isinstance(node, ast.Import | ast.ImportFrom) for node in head):
        head = ast.parse("\n".join(lines)).body
    last = 0
    for node in head:
        if not isinstance(node, ast.Import | ast.ImportFrom):
            break
        last = node.end_lineno or node.lineno
    return last


# pydantic matches a Literal's members by Python equality: `Literal[1]` takes true, `Literal[True]`
# takes 1 and 1.0, `Literal[0, True]` takes false. JSON tells booleans from numbers, so a Literal
# of booleans, and one of numbers beside a boolean type, gets a guard that does too; a Literal of
# both is split in two (an integer-valued float stays the integer it is).
_LITERAL_GUARDS = {
    "_json_bool": '''def _json_bool(value: Any) -> Any:
    """A boolean Literal takes true and false only (not 1 or 0.0)."""
    if isinstance(value, bool):
        return value
    raise ValueError("not a boolean")''',
    "_json_number": '''def _json_number(value: Any) -> Any:
    """A number Literal beside a boolean takes no boolean (not true for 1)."""
    if not isinstance(value, bool):
        return int(value) if isinstance(value, float) and value.is_integer() else value
    raise ValueError("not a number")''',
}
_BOOL_TYPES = frozenset({"StrictBool", "bool"})
# What a source needs for a Literal to need a guard: a boolean member (not a keyword argument's
# value, such as the config's `defer_build=True`) or a boolean type.
_MAY_NEED_GUARD = re.compile(r"(?<![\w.=])(?:True|False)(?!\w)|\b(?:StrictBool|bool)\b")


def json_literals(source: str) -> str:
    """Guard each `Literal[...]` that holds, or sits beside, booleans (`_LITERAL_GUARDS`)."""
    if "Literal[" not in source or not _MAY_NEED_GUARD.search(source):
        return source
    tree = parsed(source)
    lines = source.split("\n")
    edits: list[tuple[ast.Subscript, str]] = []
    edited: list[tuple[int, int]] = []  # (statement, field) indexes of what changed; field -1: none
    used: set[str] = set()
    for index, node in enumerate(tree.body):
        if isinstance(node, ast.ClassDef):
            places = [(i, [s.annotation]) for i, s in enumerate(node.body) if isinstance(s, ast.AnnAssign)]
        else:
            places = [(-1, _type_expressions(node))]
        for field, exprs in places:
            before = len(edits)
            for expr in exprs:
                edits += _guarded_literals(expr, source, used)
            if len(edits) > before:
                edited.append((index, field))
    if not edits:
        return source
    for sub, text in sorted(edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True):
        first, last = sub.lineno - 1, (sub.end_lineno or sub.lineno) - 1  # offsets: UTF-8 bytes
        head = lines[first].encode()[: sub.col_offset].decode()
        tail = lines[last].encode()[sub.end_col_offset or 0 :].decode()
        lines[first : last + 1] = [head + text + tail]
    source = "\n".join(lines)
    body = ast.parse(source).body  # the same statements, in the same order
    lines = source.split("\n")
    from mcpstub.format import black_statement  # noqa: PLC0415 - format imports render

    # As black lays out each edited statement, from the last (those before it keep their lines).
    for index, field in reversed(edited):
        node = body[index]
        if field >= 0 and isinstance(node, ast.ClassDef):
            node = node.body[field]
        first, last = node.lineno - 1, node.end_lineno or node.lineno
        lines[first:last] = black_statement(lines[first:last], 1 if node.col_offset else 0)
    text = add_imports("\n".join(lines), "typing", ["Annotated", "Any"])
    text = add_imports(text, "pydantic", ["BeforeValidator"])
    return _insert_after_imports(text, "\n\n\n".join(_LITERAL_GUARDS[g] for g in sorted(used)))


def _guarded_literals(expr: ast.expr, source: str, used: set[str]) -> list[tuple[ast.Subscript, str]]:
    """(Literal, its guarded spelling) for the Literals of one type expression that need a guard."""
    literals = [sub for sub in _outside_literals(expr) if _is_literal(sub)]
    members = {id(sub): _literal_members(sub) for sub in literals}
    has_bool = any(bools for bools, _, _ in members.values()) or any(
        name.id in _BOOL_TYPES for name in _type_names(expr)
    )
    edits = []
    for sub in literals:
        bool_nodes, other_nodes, numbers = members[id(sub)]
        if not bool_nodes and not (other_nodes and numbers and has_bool):
            continue  # nothing to guard: the members need not be spelled out
        bools = [_written(source, e) for e in bool_nodes]
        others = [_written(source, e) for e in other_nodes]
        parts = []
        if others and numbers and has_bool:
            parts.append(f"Annotated[Literal[{', '.join(others)}], BeforeValidator(_json_number)]")
            used.add("_json_number")
        elif others and bools:
            parts.append(f"Literal[{', '.join(others)}]")
        if bools:
            parts.append(f"Annotated[Literal[{', '.join(bools)}], BeforeValidator(_json_bool)]")
            used.add("_json_bool")
        if parts:
            edits.append((sub, " | ".join(parts)))
    return edits


def _literal_members(node: ast.Subscript) -> tuple[list[ast.expr], list[ast.expr], bool]:
    """A `Literal[...]`'s boolean members, its other members and whether a number is one."""
    elements = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    bools: list[ast.expr] = []
    others: list[ast.expr] = []
    numbers = False
    for element in elements:
        if isinstance(element, ast.Constant) and isinstance(element.value, bool):
            bools.append(element)
            continue
        others.append(element)
        value = element.operand if isinstance(element, ast.UnaryOp) else element
        numbers = numbers or (isinstance(value, ast.Constant) and isinstance(value.value, int | float))
    return bools, others, numbers


# A line and its ending, as the parser counts lines (`\r\n`, `\r` or `\n`; not a form feed).
_SOURCE_LINE = re.compile(r"[^\r\n]*(?:\r\n|[\r\n])|[^\r\n]+\Z")


@lru_cache(maxsize=2)
def _source_lines(source: str) -> list[str]:
    return _SOURCE_LINE.findall(source)


def _written(source: str, node: ast.expr) -> str:
    """`ast.get_source_segment(source, node)`, with the source split into lines once, not per call."""
    lines = _source_lines(source)
    if node.end_lineno is None or node.end_col_offset is None:
        return ast.unparse(node)
    first, last = node.lineno - 1, node.end_lineno - 1
    if first == last:
        return lines[first].encode()[node.col_offset : node.end_col_offset].decode()
    head = lines[first].encode()[node.col_offset :].decode()
    tail = lines[last].encode()[: node.end_col_offset].decode()
    return "".join([head, *lines[first + 1 : last], tail])


# A class field whose name the model generator numbered (`name_1`).
_NUMBERED_FIELD = re.compile(r"^ +\w*_1\w*:", re.MULTILINE)


def own_field_names(source: str) -> str:
    """Field names for properties whose names clash (the generator numbers all but the first, in
    the order they are written) that do not depend on that order: a property named as one of the
    class's field names has it (`args.name` is `name` beside `Name`); then one named so but for a
    `_` after it (a keyword: `args.class_` is `class` beside `Class`); a property alone among those
    that spell alike (`Content-Type`, `content_type`) keeps its name; the others that spell alike
    are their stem numbered in the order of their own names (`NAME` is `name_1`, `Name` `name_2`)."""
    if _NUMBERED_FIELD.search(source) is None:  # the generator numbers the second of two clashing names
        return source
    tree = parsed(source)
    lines = source.split("\n")
    renamed: list[ast.AnnAssign] = []
    for cls in tree.body:
        if not isinstance(cls, ast.ClassDef):
            continue
        fields = [s for s in cls.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
        names = {id(f): f.target.id for f in fields if isinstance(f.target, ast.Name)}
        wire = {id(f): names[id(f)] if (alias := field_alias(f)) is None else alias for f in fields}
        free = set(names.values())  # (what the generator made of each is a valid name)
        chosen: dict[int, str] = {}
        for claim in ("{}", "{}_"):  # its own name, then its own name with `_` after it
            for field in fields:
                if id(field) not in chosen and (wanted := claim.format(wire[id(field)])) in free:
                    chosen[id(field)] = wanted
                    free.discard(wanted)
        alike: dict[str, list[ast.AnnAssign]] = {}
        for field in fields:
            spelt = unicodedata.normalize("NFKC", wire[id(field)]).casefold()
            alike.setdefault(re.sub(r"[\W_]+", "", spelt) or spelt, []).append(field)
        stems = {_stem(name) for name in names.values()}
        for key in sorted(alike):  # a name spelt as it is (`step_2` for `Step 2`, `name_1` for `Name_1`)
            for field in sorted((f for f in alike[key] if id(f) not in chosen), key=lambda f: wire[id(f)]):
                # (also a numbered name the generator may have given another in this order only:
                # `a_2` for `a-2` beside `A`, `a` and `a_1`)
                spelt = re.sub(r"_*\W+_*", "_", unicodedata.normalize("NFKC", wire[id(field)]).lower())
                numbered = {spelt} if _stem(spelt) in stems and spelt[-1].isdigit() else set()
                as_spelt = sorted(
                    name
                    for name in free | (numbered - set(chosen.values()))
                    if name.casefold().replace("_", "") == key
                )
                if as_spelt:
                    chosen[id(field)] = as_spelt[0]
                    free.discard(as_spelt[0])
        for group in alike.values():  # the one left of its spelling keeps a name no clash numbered
            left = [f for f in group if id(f) not in chosen]
            if len(left) == 1 and (own := names[id(left[0])]) in free and not re.search(r"_\d+$", own):
                chosen[id(left[0])] = own
                free.discard(own)
        # (the generator's names for the rest depend on the order: each is its stem numbered anew)
        used = set(chosen.values())
        for key in sorted(alike):
            count = 0
            for field in sorted((f for f in alike[key] if id(f) not in chosen), key=lambda f: wire[id(f)]):
                stem = _stem(names[id(field)])
                while f"{stem}_{(count := count + 1)}" in used:
                    pass
                chosen[id(field)] = f"{stem}_{count}"
                used.add(chosen[id(field)])
        names.update(chosen)
        for field in fields:
            if isinstance(field.target, ast.Name) and names[id(field)] != field.target.id:
                renamed.append(field)
                line = lines[field.lineno - 1]
                start = len(line) - len(line.lstrip())
                lines[field.lineno - 1] = (
                    line[:start] + names[id(field)] + line[start + len(field.target.id) :]
                )
    if not renamed:
        return source
    from mcpstub.format import black_statement  # noqa: PLC0415 - format imports render

    for field in sorted(renamed, key=lambda f: f.lineno, reverse=True):  # as black lays each out
        first, last = field.lineno - 1, field.end_lineno or field.lineno
        lines[first:last] = black_statement(lines[first:last], 1)
    return "\n".join(lines)


def _stem(name: str) -> str:
    """A field name without the numbering the generator adds (`name_1`, `class__2`: `name`, `class`)."""
    return re.sub(r"(?:_+\d*)+$", "", name) or name


def _is_literal(node: ast.AST) -> TypeGuard[ast.Subscript]:
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal"


def _outside_literals(root: ast.AST) -> Iterator[ast.AST]:
    """`ast.walk(root)` (breadth first), not into a `Literal[...]`: its members are constants, and
    a wide enum has thousands."""
    todo = deque([root])
    while todo:
        node = todo.popleft()
        if not _is_literal(node) or node is root:
            todo.extend(ast.iter_child_nodes(node))
        yield node


def field_alias(field: ast.AnnAssign) -> str | None:
    """The `alias=` of a field's `Field(...)`, if it has one."""
    for node in _outside_literals(field):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field":
            for keyword in node.keywords:
                if keyword.arg == "alias" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return None


_HEADER = re.compile(r"\A(?:#.*\n)+\n*")
_MODEL_CLASS = re.compile(r"class \w+\(\s*(?:BaseModel|RootModel\[)")
_MISSING_IMPORT = "from pydantic.experimental.missing_sentinel import MISSING\n"


def postprocess(source: str) -> str:
    """The generator's output without its header, with schema building deferred to first use (fast
    imports), and with this module's rewrites applied."""
    source = _HEADER.sub("", source)
    if _MISSING_IMPORT in source:  # pydantic 2.14 warns on import from the experimental module
        source = add_imports(source.replace(_MISSING_IMPORT, ""), "pydantic", ["MISSING"])
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not _MODEL_CLASS.match(line):
            continue
        while not out[-1].endswith(":"):  # a class header wrapped over several lines
            out.append(lines[i])
            i += 1
        body = lines[i]
        if body == "    model_config = ConfigDict(":
            out += [body, *_CONFIG]
            i += 1
        elif body.startswith("    model_config = ConfigDict("):
            out.append(body.replace("ConfigDict(", f"ConfigDict({_CONFIG_INLINE}", 1))
            i += 1
        else:
            out += ["    model_config = ConfigDict(", *_CONFIG, "    )"]
    source = typed_containers(plain_aliases("\n".join(out)))
    return own_field_names(json_literals(factory_defaults(exact_numbers(source))))


# What every model's config holds: built at first use (importing the package stays fast), and a
# NaN or an infinity dumped as the float it is, never null (the runtime refuses to send it; as
# null, a schema taking null would let a caller's or handler's NaN through as None).
_CONFIG = ("        defer_build=True,", '        ser_json_inf_nan="constants",')
_CONFIG_INLINE = 'defer_build=True, ser_json_inf_nan="constants", '


def alias_values(source: str, names: Sequence[str]) -> str:
    """Turn the root models of non-object outputs into type aliases, so handlers return plain values.

    `class XOutput(RootModel[list[Item]])` becomes `XOutput: TypeAlias = list[Item]`; a root that
    refers to itself, or one that is not a root model (a fallback), becomes `Any`. The output
    schema, checked on every call, stays the judge of the value.
    """
    tree = ast.parse(source)
    lines = source.split("\n")
    wanted = set(names)
    for node in reversed(tree.body):
        if not isinstance(node, ast.ClassDef) or node.name not in wanted:
            continue
        annotation = "Any"
        root = next(
            (
                item.annotation
                for item in node.body
                if isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and item.target.id == "root"
            ),
            None,
        )
        is_root_model = any(
            isinstance(base, ast.Subscript) and ast.unparse(base.value) == "RootModel" for base in node.bases
        )
        if root is not None and is_root_model:
            text = ast.unparse(root)
            if not re.search(rf"\b{re.escape(node.name)}\b", text):
                annotation = text
        end = node.end_lineno or node.lineno
        lines[node.lineno - 1 : end] = [f"{node.name}: TypeAlias = {annotation}"]
    source = "\n".join(lines)
    needed = ["TypeAlias", *(["Any"] if re.search(r"\bAny\b", source) else [])]
    source = add_imports(source.lstrip("\n"), "typing", needed)
    if not re.search(r"\bRootModel\[", source):
        source = re.sub(r"\bRootModel,\s*|,\s*RootModel\b", "", source, count=1)
    return source


_OPEN_CLASS = """class {name}(BaseModel):
    model_config = ConfigDict(
        defer_build=True,
        ser_json_inf_nan="constants",
        extra="allow",
        validate_by_name=True,
    )"""


def open_classes(source: str, names: Sequence[str]) -> str:
    """An object-rooted tool model that came out as a type alias of a plain type (an object with
    only combinators, `oneOf` of `required` lists) becomes an open model class again: the server
    validates arguments and outputs through model classes, and the schema stays the judge.
    An alias of another class (a root `$ref` to a shared object) is kept."""
    tree = parsed(source)
    defined = bound_names(tree)
    wanted = set(names)
    seen: set[str] = set()
    reopened: list[ast.AnnAssign] = []  # each wanted alias's statement, however it is laid out
    for node in tree.body:
        if not (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id in wanted
            and node.target.id not in seen
            and isinstance(node.annotation, ast.Name)
            and node.annotation.id == "TypeAlias"
        ):
            continue
        name = node.target.id
        seen.add(name)
        value = node.value
        if not (isinstance(value, ast.Name) and value.id in defined and value.id != name):
            reopened.append(node)
    if not reopened:
        return source
    starts = [0, *(m.end() for m in re.finditer("\n", source))]
    edits = [
        ((starts[node.lineno - 1], starts[end] - 1 if end < len(starts) else len(source)), node.target.id)
        for node in reopened
        if isinstance(node.target, ast.Name)
        for end in [node.end_lineno or node.lineno]
    ]
    pieces, position = [], 0
    for (start, end), name in edits:
        pieces += [source[position:start], _OPEN_CLASS.format(name=name)]
        position = end
    source = "".join(pieces) + source[position:]
    source = add_imports(source, "pydantic", ["BaseModel", "ConfigDict"])
    typing = re.search(r"^from typing import (\([^)]*\)|.*)\n", source, re.MULTILINE)
    if typing is not None:  # drop what only the replaced aliases used
        rest = source[: typing.start()] + source[typing.end() :]
        names = [n.strip() for n in typing[1].strip("()").split(",") if n.strip()]
        kept = [n for n in names if re.search(rf"\b{re.escape(n)}\b", rest)]
        line = f"from typing import {', '.join(kept)}\n" if kept else ""
        source = source[: typing.start()] + line + source[typing.end() :]
    return source
