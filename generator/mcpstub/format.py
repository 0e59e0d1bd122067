"""Format stage: Python text laid out as black lays it out, and proof that every file compiles.

`format_piece` lays out generated models as black (`black_mode()`) would: quotes, numbers and long
bracketed lines by hand, a statement the hand layout does not cover by black itself; the templates
and `pytext.to_literal` write the other files that way already. Black on every piece measured 10-30x
slower, ruff's formatter 1.07-1.12x the cold run (docs/performance.md), so black runs on whole files
only in the tests (`format_with_black`). A file that fails `compile_files` is a generator bug, never
a user mistake (`GeneratedCodeError`, the text attached).
"""
from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from mcpstub.compilecheck import GeneratedCodeError, compile_check
from mcpstub.engine import memory
from mcpstub.engine.pieces import ToolMemo
from mcpstub.layout import LINE_LENGTH
from mcpstub.pytext import class_header, import_order, text_width

__all__ = ["GeneratedCodeError", "compile_files", "compile_package"]

if TYPE_CHECKING:
    from black.mode import Mode

    from mcpstub.render import RenderedPackage


def compile_files(
    files: Mapping[str, str], proven: Collection[str] = (), memo: ToolMemo | None = None
) -> dict[str, str]:
    """Compile-check every `.py` file not `proven` to compile (nor known to `memo`); return them."""
    for path, text in files.items():
        if path.endswith(".py") and path not in proven:
            if memo is not None:
                memo.compile_check(path, text)
            else:
                compile_check(path, text)
    return dict(files)


def compile_package(package: RenderedPackage) -> RenderedPackage:
    """`compile_files` over both halves of a rendered package."""
    from mcpstub.render import RenderedPackage  # noqa: PLC0415 - the models' layout needs no templates

    return RenderedPackage(
        ours=compile_files(package.ours, package.proven),
        yours=compile_files(package.yours, package.proven),
        proven=package.proven,
    )


@cache
def black_mode() -> Mode:
    """The black mode generated code is laid out for (imports black: tests only)."""
    from black.mode import Mode, TargetVersion  # noqa: PLC0415

    return Mode(target_versions={TargetVersion.PY311}, line_length=LINE_LENGTH)


def format_with_black(text: str) -> str:
    """What black makes of a file (tests only: generated files must come out unchanged)."""
    import black  # noqa: PLC0415

    formatted: str = black.format_str(text, mode=black_mode())
    return formatted


# --- Layout of datamodel-code-generator's output -------------------------------------------------
# Its builtin formatter is close to black; `format_piece` fixes the rest: string quotes and the
# type expressions it leaves on one line too long.

_STRING = re.compile(r"""(?<![\w"'])[rRbBuUfFtT]*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')""")
# black's patterns for a quote escaped, and not escaped, in a string body
_ESCAPED = {q: re.compile(rf"([^\\]|^)\\((?:\\\\)*){q}") for q in "'\""}
_UNESCAPED = {q: re.compile(rf"(([^\\]|^)(\\\\)*){q}") for q in "'\""}
_TOKEN = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[\[\](){},|]|[^\s\[\](){},|"']+)""")
# A line made of such tokens only, and nothing else (atomic: no backtracking, however long).
_TOKENS = re.compile(
    r"""(?:\s*+(?>"(?:[^"\\]|\\.)*+"|'(?:[^'\\]|\\.)*+'|[\[\](){},|]|[^\s\[\](){},|"']++))*+\s*+"""
)
_CLOSING = {"(": ")", "[": "]", "{": "}"}
_CLASS = re.compile(r"^class (\w+)\(.+\):$")
_FIELD = re.compile(r"^( +)(\w+): (.+) = \($")
# A float repr() writes as 1e+300, which black writes 1e300.
_NUMBER = re.compile(r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(?<![\w.])(\d+(?:\.\d*)?)e\+(?=\d)""")


_FROM_IMPORT = re.compile(r"^from ([\w.]+) import (\(\n(?:    \w+,\n)+\)|[\w, ]+)$", re.M)
# `Union[` or `Optional[` in code; a string or a comment (a description, an enum value) is matched
# first, so that nothing in one is taken for code.
_SUBSCRIPT = re.compile(
    r"""("{3}[\s\S]*?"{3}|'{3}[\s\S]*?'{3}|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|#[^\n]*)"""
    r"|(?<![\w.])(Union|Optional)\["
)
_TYPING_NAMES = re.compile(r"^from typing import (\([^)]*\)|.*)\n", re.M)


def ruff_layout(source: str) -> str:
    """What ruff's default rules want of the generator's output: imports in isort's order (I001), and
    `A | B`, `A | None` (UP007, UP045) unless a member is a forward reference (a bare string)."""
    if "Union[" in source or "Optional[" in source:
        source = _optionals(_unions(source))
        body = source.split("\n\n", 1)[-1]
        unused = {"Union", "Optional"} - {m[2] for m in _SUBSCRIPT.finditer(body) if m[2]}
        if unused:
            source = _TYPING_NAMES.sub(lambda m: _without_names(m, unused), source, count=1)
    return _FROM_IMPORT.sub(_sorted_import, source)


def _without_names(match: re.Match[str], names: set[str]) -> str:
    """The `from typing import` statement without `names` (nothing when none is left)."""
    kept = [n.strip() for n in match[1].strip("()").split(",") if n.strip() and n.strip() not in names]
    if not kept:
        return ""
    line = f"from typing import {', '.join(kept)}"
    if len(line) <= LINE_LENGTH:
        return line + "\n"
    return "from typing import (\n" + "".join(f"    {n},\n" for n in kept) + ")\n"


def _sorted_import(match: re.Match[str]) -> str:
    names = import_order([n.strip() for n in match[2].strip("()").split(",") if n.strip()])
    line = f"from {match[1]} import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return line
    return f"from {match[1]} import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def _unions(source: str) -> str:
    out: list[str] = []
    position = 0
    for match in _SUBSCRIPT.finditer(source):
        if match[2] != "Union" or match.start() < position:
            continue  # a string, an Optional, or inside a Union already rewritten
        end, members = _bracketed(source, match.end())
        if end is None or any(m[:1] in {"'", '"'} for m in members) or len(members) < 2:
            continue
        out += [source[position : match.start()], " | ".join(_unions(m) for m in members)]
        position = end
    return "".join(out) + source[position:]


def _optionals(source: str) -> str:
    out: list[str] = []
    position = 0
    for match in _SUBSCRIPT.finditer(source):
        if match[2] != "Optional" or match.start() < position:
            continue
        end, members = _bracketed(source, match.end())
        if end is None or len(members) != 1 or members[0][:1] in {"'", '"'}:
            continue  # `Optional["X"]`: a forward reference cannot take `|`
        inner = _optionals(members[0])
        union = _SUBSCRIPT.match(inner)
        if union is not None and union[2] == "Union" and _bracketed(inner, union.end())[0] == len(inner):
            text = f"{inner[:-1]}, None]"  # `Union` still there: a member is a forward reference
        else:
            text = f"{inner} | None"
        out += [source[position : match.start()], text]
        position = end
    return "".join(out) + source[position:]


def _bracketed(source: str, start: int, closing: str = "]") -> tuple[int | None, list[str]]:
    """The end of the bracket opened before `start` (closed by `closing`), and its top-level items."""
    depth, quote, item_start = 0, "", start
    members: list[str] = []
    for index in range(start, len(source)):
        char = source[index]
        if quote:
            if char == quote and source[index - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}" and depth:
            depth -= 1
        elif char == closing:
            members.append(source[item_start:index])
            members = [" ".join(m.split()) for m in members]
            return index + 1, [m.rstrip(",").strip() for m in members if m.strip().rstrip(",")]
        elif char == "," and not depth:
            members.append(source[item_start:index])
            item_start = index + 1
    return None, []


def format_piece(source: str) -> str:
    """Python text with black's string quotes, and long bracketed lines split as black would. Pure;
    a memory of its own makes each piece's flat text once, or a deep line would cost its depth times."""
    with memory.remembering(memory.Memory()):
        return _black_layout(source)


def _black_layout(source: str) -> str:
    if "'" in source or "\\" in source:
        source = _STRING.sub(_quotes, source)
    if "e+" in source:
        source = _NUMBER.sub(lambda m: m[1] or f"{m[2]}e", source)
    lines = source.split("\n")
    if all(len(line) <= LINE_LENGTH for line in lines) and source.isascii():
        return source
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if text_width(line) <= LINE_LENGTH:
            out.append(line)
        elif depth:
            tokens = _tokens(line)
            split = _split_line(line, tokens) if tokens is not None else None
            out.extend(split if split is not None else [line])
        elif not depth and (header := _CLASS.match(line)):
            out.extend(_class_header(line, header[1]))
        elif (field := _FIELD.match(line)) and i + 1 < len(lines) and lines[i + 1].strip() == ")":
            # `name: T = (\n value\n)` with a first line too long: black splits T instead
            indent, name, annotation = field.groups()
            whole = _split_annotated(indent, name, f"{annotation} = {lines[i].strip()}")
            tokens = _tokens(annotation)
            split = _split_line(indent + "    " + annotation, tokens) if tokens is not None else None
            if whole is not None or split is not None:
                out += whole or [f"{indent}{name}: (", *(split or []), f"{indent}) = {lines[i].strip()}"]
                i += 2
                continue  # three balanced lines: the depth stays
            out.append(line)
        elif not depth and (annotated := _ANNOTATED.match(line)):
            split = _split_annotated(*annotated.groups())
            out.extend(split if split is not None else [line])
        else:
            out.append(line)
        if any(bracket in line for bracket in "()[]{}"):
            code = _STRING.sub('""', line) if "'" in line or '"' in line else line
            depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
    return _black_statements("\n".join(out))


# A line black cannot shorten: one string literal, maybe a keyword's value, maybe a comma.
_LONE_STRING = re.compile(
    r'(?:\w+=)?[rRbBuU]?(?:"{3}(?:[^\\]|\\.)*?"{3}|"(?:[^"\\]|\\.)*"|' + r"'(?:[^'\\]|\\.)*'),?"
)
_COMPOUND = (
    ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef, ast.If, ast.For, ast.While, ast.With, ast.Try
)


def _black_statements(source: str) -> str:
    """Statements still holding a line too long (a long name before a long annotation), laid out by
    black alone, at their indentation: only these pay for importing black."""
    lines = source.split("\n")
    long_lines = [
        number
        for number, line in enumerate(lines, 1)
        if text_width(line) > LINE_LENGTH and not _LONE_STRING.fullmatch(line.strip())
    ]
    if not long_lines:
        return source
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    spans = sorted(
        {
            (node.lineno, node.end_lineno or node.lineno, node.col_offset)
            for node in ast.walk(tree)
            if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND)
            for number in long_lines
            if node.lineno <= number <= (node.end_lineno or node.lineno)
        },
        reverse=True,
    )
    for first, last, column in spans:
        lines[first - 1 : last] = black_statement(lines[first - 1 : last], column // 4)
    return "\n".join(lines)


def black_statement(lines: list[str], depth: int) -> list[str]:
    """The lines of one statement, `depth` classes deep, as black lays them out."""
    import black  # noqa: PLC0415 - only for the rare statements the hand layout leaves

    wrapper = "".join("    " * level + "class _:\n" for level in range(depth))
    text = wrapper + "\n".join(lines) + "\n"
    return list(black.format_str(text, mode=black_mode()).rstrip("\n").split("\n")[depth:])


def _class_header(line: str, name: str) -> list[str]:
    """A class header too long for one line: one base split as black does, several one a line with a
    trailing comma (as the model generator lays them out; black keeps it)."""
    end, bases = _bracketed(line, len(f"class {name}("), ")")
    if end != len(line) - 1 or not bases:
        return [line]
    if len(bases) == 1:
        return class_header(name, bases[0]).split("\n")
    return [f"class {name}(", *(f"    {b}," for b in bases), "):"]


_ANNOTATED = re.compile(r"^( *)(\w+): (.+)$")
# A default black puts in parentheses of its own on a line of their own: a name, a number (maybe
# negative) or a string (see `_split_annotated`).
_PLAIN_DEFAULT = re.compile(r'-?[\w.]+|"(?:[^"\\]|\\.)*"')
# A default black leaves after the closing bracket: a name, a number, a string, `[]` or `{}`.
_ATOM = re.compile(r'[\w.+-]+|\[\]|\{\}|"(?:[^"\\]|\\.)*"')


# What decides where a top-level ` = ` is: strings (skipped whole), brackets and ` = ` itself.
_EQUALS_SCAN = re.compile(r""""(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|[(\[{]|[)\]}]| = """)


def _top_level_equals(text: str) -> int:
    """Where ` = ` stands outside brackets and strings in `text`, or -1."""
    depth = 0
    for match in _EQUALS_SCAN.finditer(text):
        token = match[0]
        if token == " = ":
            if not depth:
                return match.start()
        elif token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
    return -1


def _split_annotated(indent: str, name: str, rest: str) -> list[str] | None:
    """`name: T[...]`, `name: T[...] = atom` or `name: TypeAlias = T[...]`, too long: split
    inside the last bracket as black does, or None when black would lay it out otherwise."""
    equals = _top_level_equals(rest)
    annotation, default = (rest, None) if equals < 0 else (rest[:equals], rest[equals + 3 :])
    if annotation == "TypeAlias" and default is not None:
        prefix, value, trailing = f"{name}: TypeAlias = ", default, ""
    elif default is not None and text_width(f"{indent}{name}: {annotation} = (") <= LINE_LENGTH:
        # With the head up to `= (` short enough, black puts a plain default in parentheses of its
        # own rather than split the annotation (`_prefer_split_rhs_oop_over_rhs`); black decides
        # anything else.
        body = f"{indent}    {default}"
        if _PLAIN_DEFAULT.fullmatch(default) and text_width(body) <= LINE_LENGTH and ",]" not in annotation:
            return [f"{indent}{name}: {annotation} = (", body, f"{indent})"]
        return None
    elif default is None or _ATOM.fullmatch(default):
        prefix, value, trailing = f"{name}: ", annotation, "" if default is None else f" = {default}"
    else:
        return None
    tokens = _tokens(value)
    if tokens is None:
        return None
    try:
        items, _ = _parse(tokens, 0, None)
    except ValueError:
        return None
    if len(items) != 1 or _flat_item(items[0]) != value or any(not operand for operand in items[0]):
        return None  # spacing this parser does not reproduce
    if len(items[0]) > 1:  # a union: black puts it in parentheses of its own
        lines = [f"{indent}{prefix}(", *_lay(items[0], indent + "    ", ""), f"{indent}){trailing}"]
    elif isinstance(items[0][0][-1], str):
        return None
    else:
        lines = _lay_operand(items[0][0], indent, prefix, trailing)
    if text_width(lines[0]) > LINE_LENGTH or text_width(lines[-1]) > LINE_LENGTH:
        return None  # black then parenthesises the annotation or the default
    return lines


def _quotes(match: re.Match[str]) -> str:
    """black's normalize_string_quotes, for one string literal without prefix."""
    literal = match[0]
    if literal[0] not in "\"'" or literal[:3] in {'"""', "'''"}:
        return literal
    orig, new = literal[0], "'" if literal[0] == '"' else '"'
    esc_new, esc_orig = _ESCAPED[new], _ESCAPED[orig]
    body = literal[1:-1]
    if "\\" not in body:  # no escapes: a double quote inside keeps the single quotes
        return literal if orig == '"' or '"' in body else f'"{body}"'
    body = _sub_twice(esc_new, rf"\1\2{new}", body)
    literal = orig + body + orig
    new_body = _sub_twice(esc_orig, rf"\1\2{orig}", body)
    new_body = _sub_twice(_UNESCAPED[new], rf"\1\\{new}", new_body)
    if new_body.count("\\") > body.count("\\"):
        return literal
    if new_body.count("\\") == body.count("\\") and orig == '"':
        return literal
    return new + new_body + new


def _sub_twice(pattern: re.Pattern[str], replacement: str, text: str) -> str:
    return pattern.sub(replacement, pattern.sub(replacement, text))


def _tokens(line: str) -> list[str] | None:
    """The tokens of one line of code, or None when the line is not simple enough to split."""
    text = line.strip()
    if _TOKENS.fullmatch(text) is None:
        return None
    return _TOKEN.findall(text)


# A parsed line: items of `|`-separated operands, each a list of atoms: a str, or a group
# (opening text such as "Literal[", [item, ...], closing bracket). An item is list[list[atom]].
_Atom = Any


def _parse(tokens: list[str], start: int, closing: str | None) -> tuple[list[list[list[_Atom]]], int]:
    """Comma-separated items of `|`-separated operands up to `closing`."""
    items: list[list[list[_Atom]]] = [[[]]]
    i = start
    while i < len(tokens):
        token = tokens[i]
        if token == closing:
            return items, i + 1
        if token in {")", "]", "}"}:
            raise ValueError("unbalanced")
        if token == ",":
            items.append([[]])
        elif token == "|":
            items[-1].append([])
        elif token in _CLOSING:
            flat = _flat_group(tokens, i + 1, _CLOSING[token])
            inner, i = flat if flat is not None else _parse(tokens, i + 1, _CLOSING[token])
            operand = items[-1][-1]
            head = operand.pop() if operand and isinstance(operand[-1], str) and _glues(operand[-1]) else ""
            operand.append((head + token, inner, _CLOSING[token]))
            continue
        else:
            items[-1][-1].append(token)
        i += 1
    if closing is not None:
        raise ValueError("unbalanced")
    return items, i


class _Flat(list[str]):
    """The items of a bracket that holds no bracket and no `|` (a `Literal[...]` of values), as
    their texts: what `_parse` would make of them, without a list per item."""


# Tokens that end a run of plain items: brackets and `|`.
_STRUCTURE = frozenset("()[]{}|")


def _flat_group(tokens: list[str], start: int, closing: str) -> tuple[_Flat, int] | None:
    """The plain items from `start` to `closing`, and the index after it; None if anything else comes."""
    texts = _Flat()
    run: list[str] = []
    for index in range(start, len(tokens)):
        token = tokens[index]
        if token == ",":
            texts.append("".join(run))
            run = []
        elif token in _STRUCTURE:
            if token != closing:
                return None
            texts.append("".join(run))
            return texts, index + 1
        else:
            run.append(token)
    return None


def _glues(token: str) -> bool:
    """True when a bracket right after the token belongs to it (`name[`, `f(`, `x=[`)."""
    return token[-1].isalnum() or token[-1] in "_.="


def _token(item: list[list[_Atom]]) -> str | None:
    """The item's text when it is one plain token (a name, a number, a string), else None."""
    if len(item) == 1 and len(item[0]) == 1 and type(item[0][0]) is str:
        return item[0][0]
    return None


def _flat_item(item: list[list[_Atom]]) -> str:
    token = _token(item)
    if token is not None:
        return token  # nothing to remember
    text: str | None = memory.known("flat", item)
    if text is None:
        text = " | ".join("".join(_flat_atom(a) for a in operand) for operand in item)
        memory.put("flat", item, text)
    return text


def _flat_atom(atom: _Atom) -> str:
    if isinstance(atom, str):
        return atom
    text: str | None = memory.known("flat", atom)
    if text is None:
        if isinstance(atom[1], _Flat):
            text = atom[0] + ", ".join(t for t in atom[1] if t) + atom[2]
        else:
            inner = [i for i in atom[1] if i != [[]]]
            text = atom[0] + ", ".join(_flat_item(i) for i in inner) + atom[2]
        memory.put("flat", atom, text)
    return text


def _split_line(line: str, tokens: list[str]) -> list[str] | None:
    """black's split of one too long line inside brackets, or None when it is not understood."""
    try:
        items, _ = _parse(tokens, 0, None)
    except ValueError:
        return None
    trailing = ""
    if len(items) == 2 and items[1] == [[]]:
        trailing = ","
        items = items[:1]
    if any(not operand for item in items for operand in item):
        return None
    indent = line[: len(line) - len(line.lstrip())]
    if ", ".join(_flat_item(item) for item in items) + trailing != line.strip():
        return None  # spacing this parser does not reproduce: leave the line alone
    if len(items) > 1:  # black splits at the commas first, adding a trailing one
        return [out for item in items for out in _lay(item, indent, ",")]
    return _lay(items[0], indent, trailing)


def _joined_within(texts: list[str], room: int) -> str | None:
    """The texts joined by ", ", or None when longer than `room` (a text is at least as wide)."""
    if sum(len(t) + 2 for t in texts) - 2 > room:
        return None
    return ", ".join(texts)


def _lay(item: list[list[_Atom]], indent: str, trailing: str) -> list[str]:
    """Lines for one bracketed item (`A | B[...]`) followed by `trailing`, as black lays them out."""
    token = _token(item)
    if token is not None:
        return [indent + token + trailing]  # one line, however long
    flat = indent + _flat_item(item) + trailing
    if text_width(flat) <= LINE_LENGTH:
        return [flat]
    if len(item) > 1:  # split at `|`, then lay out each operand
        lines: list[str] = []
        for index, operand in enumerate(item):
            prefix = "| " if index else ""
            end = trailing if index == len(item) - 1 else ""
            lines += _lay_operand(operand, indent, prefix, end)
        return lines
    return _lay_operand(item[0], indent, "", trailing)


def _lay_operand(operand: list[_Atom], indent: str, prefix: str, trailing: str) -> list[str]:
    flat = indent + prefix + "".join(_flat_atom(a) for a in operand) + trailing
    last = operand[-1] if operand else None
    if text_width(flat) <= LINE_LENGTH or isinstance(last, str) or last is None:
        return [flat]
    opening, items, closing = last
    head = indent + prefix + "".join(_flat_atom(a) for a in operand[:-1]) + opening
    inner = indent + "    "
    is_literal = opening in _CLOSING  # a bare list, dict or tuple display always explodes
    kept: list[Any]
    if isinstance(items, _Flat):  # plain items: each one line, however long
        kept = [t for t in items if t]

        def lay(item: Any, end: str) -> list[str]:
            return [inner + item + end]

    else:
        kept = [i for i in items if i != [[]]]

        def lay(item: Any, end: str) -> list[str]:
            return _lay(item, inner, end)

    if len(kept) == 1:
        lines = lay(kept[0], "")
    else:
        texts = kept if isinstance(items, _Flat) else [_flat_item(i) for i in kept]
        body = None if is_literal else _joined_within(texts, LINE_LENGTH - len(inner))
        if body is not None and text_width(inner + body) <= LINE_LENGTH:
            lines = [inner + body]
        else:
            lines = [line for i in kept for line in lay(i, ",")]
    return [head, *lines, indent + closing + trailing]
