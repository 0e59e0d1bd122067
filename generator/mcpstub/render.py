"""Render stage: a checked `Toolset` plus the models source -> the generated package's text.

`render_package` takes the IR and the source `models.render_models` produced, and returns every
file of the package as `{relative path: text}`, split into "ours" (rewritten on every run) and
"yours" (handler stubs, written once). Templates only loop and branch on IR fields; every piece of
user text (names, descriptions, schemas, defaults) reaches them as a Python literal made by
`pytext.to_literal`, never as raw text. The text is already laid out exactly as black would lay it out
(`format.py` names the mode), so generation never runs black.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from mcpstub.compilecheck import compile_check
from mcpstub.engine import memory
from mcpstub.engine.pieces import Piece, ToolMemo, tool_key
from mcpstub.ir import JSON, Tool, Toolset
from mcpstub.layout import (
    CLIENT_RESERVED,
    CONTRACT_TESTS,
    HEADER_PREFIX,
    LINE_LENGTH,
    OURS_FILES,
    RUNTIME_RANGE,
    RUNTIME_REQUIREMENTS,
    SERVER_FILES,
    SURFACE_FILE,
    TYPED_MARKER,
    UNSAFE_IN_COMMENT,
    WRITING_MARKER,
)
from mcpstub.output_wrapper import is_object_root, legacy_output_schema
from mcpstub.pytext import (
    RenderError,
    all_order,
    class_header,
    from_import,
    import_order,
    text_width,
    to_literal,
)
from mcpstub.resources import resource_dir
from mcpstub.stubform import stub_record
from mcpstub.surface import (
    PROTOCOLS,
    SurfaceError,
    render_surface_from,
    tool_digest,
    wire_chunks,
    wire_tool,
)

# Keys of the advertised Tool that are rendered as separate schema literals.
_SCHEMA_KEYS = ("inputSchema", "outputSchema")
# Names the package's `__init__` exports beside the per-tool result classes.
_PUBLIC_NAMES = frozenset({"create_server", "create_app", "TOOLS", "ToolError", "ToolContext", "ToolSpec"})
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
_UNSAFE_IN_COMMENT = re.compile(UNSAFE_IN_COMMENT)


@dataclass(frozen=True)
class RenderedPackage:
    """The generated package: "ours" files are rewritten every run, "yours" only created.

    `proven` names the files already known to compile: made of pieces that each compiled, in a
    frame that compiled with a stand-in statement for each piece.
    """

    ours: dict[str, str]
    yours: dict[str, str]
    proven: frozenset[str] = frozenset()
    stubs: dict[str, tuple[str, str]] = field(default_factory=dict)  # each handler's `stub_record`


@dataclass(frozen=True)
class _ToolView:
    """What the templates need of one tool: IR names plus ready-made literals."""

    tool: Tool
    name_literal: str
    # The schema literals of tools.py: input, output and, for a non-object output, the
    # 2025-11-25 form of the output schema (`{result: ...}`).
    assignments: str
    legacy_output_name: str
    advertised_literal: str
    dialect_literal: str
    output_dialect_literal: str
    timeout_literal: str
    elicitations_literal: str
    elicitation_classes_literal: str
    handler_type_literal: str
    result_class_header: str
    output_type_line: str
    stub_imports: str
    stub_signature: str
    stub_comment: str
    digests_literal: str = ""  # the tool's wire digests by protocol generation
    entry: str = ""  # its entry in tools.py's TOOLS (`tool_entry.py.jinja`)
    # Definitions' texts inside `assignments` (`to_literal`'s `_parts`): compiled once each.
    literal_parts: tuple[str, ...] = ()


def header_lines(toolset: Toolset) -> str:
    """The line that marks an "ours" file (without a trailing newline).

    It names neither a hash nor a version, so a file whose content does not change keeps its bytes;
    the stamp file (`layout.STAMP_FILE`) records what the run was made from.
    """
    if _UNSAFE_IN_COMMENT.search(toolset.source_name):
        raise RenderError(
            f"toolset source name {toolset.source_name!r} contains a control or bidirectional"
            " formatting character, or is not UTF-8; rename the file"
        )
    return f"{HEADER_PREFIX} from {toolset.source_name}. DO NOT EDIT: it is rewritten on every run."


def templates_dir() -> Path:
    """The templates folder: inside the installed package, else beside it in a checkout."""
    return resource_dir("templates")


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        # The templates are mcpstub's own (in its fingerprint): not looked at again on every use.
        auto_reload=False,
    )


def _check_advertised(tool: Tool) -> None:
    """The advertised object must carry the IR's schemas."""
    advertised = tool.advertised
    if (
        advertised.get("inputSchema") != tool.input_schema
        or advertised.get("outputSchema") != tool.output_schema
    ):
        raise RenderError(f"tool {tool.name!r}: advertised schemas differ from the IR schemas")
    if (tool.output_schema is None) != (tool.output_class is None):
        raise RenderError(f"tool {tool.name!r}: output schema and output class disagree")
    # That the SDK's Tool model carries every key of the format value for value is checked by the
    # test suite (tests/unit/test_render.py), not here: importing the SDK costs more than a run.


def _view(tool: Tool) -> _ToolView:
    _check_advertised(tool)
    rest = {key: value for key, value in tool.advertised.items() if key not in _SCHEMA_KEYS}
    output = tool.output_class
    wrapped = tool.output_schema is not None and not is_object_root(tool.output_schema, tool.output_dialect)
    legacy_name = f"_LEGACY_OUTPUT_{tool.identifier}" if wrapped else f"_OUTPUT_{tool.identifier}"
    returns: list[str]
    if output is not None:
        base = f'StructuredResult["models.{output}"]'
        returns = [output, tool.result_class]
    else:
        base = "ContentResult"
        returns = [tool.result_class, "str"]
    models_names: list[str] = [tool.input_class, *([output] if output is not None else [])]
    parts: list[str] = []
    assignments = [
        _assignment(f"_INPUT_{tool.identifier}", "dict[str, Any]", tool.input_schema, parts),
        _assignment(f"_OUTPUT_{tool.identifier}", "dict[str, Any] | None", tool.output_schema, parts),
    ]
    if wrapped and tool.output_schema is not None:
        legacy = legacy_output_schema(tool.output_schema, tool.output_dialect)
        assignments.append(_assignment(legacy_name, "dict[str, Any]", legacy, parts))
    return _ToolView(
        tool=tool,
        name_literal=to_literal(tool.name),
        assignments="\n".join(assignments),
        literal_parts=tuple(parts),
        legacy_output_name=legacy_name,
        advertised_literal=to_literal(rest, indent=16, used=16),
        dialect_literal=to_literal(tool.dialect),
        output_dialect_literal=to_literal(tool.output_dialect),
        timeout_literal=to_literal(tool.timeout),
        elicitations_literal=to_literal(tool.elicitations, indent=12, used=25),
        elicitation_classes_literal=to_literal(dict(tool.elicitation_classes), indent=12, used=32),
        handler_type_literal=to_literal(_handler_type(tool, models_names, returns)),
        result_class_header=class_header(tool.result_class, base),
        # A non-object output is a plain value (a type alias in models.py): no class to check.
        output_type_line=(
            _class_attribute("_output_name", to_literal(None if wrapped else output)) if output else ""
        ),
        stub_imports=from_import("..models", import_order(models_names))
        + "\n"
        + from_import("..results", [tool.result_class]),
        stub_signature=_signature(
            f"async def {tool.identifier}(",
            [f"args: {tool.input_class}", "ctx: ToolContext"],
            returns,
        ),
        # Only a name made of MCP's tool-name characters may appear in a stub's comment.
        stub_comment=_stub_comment(tool),
    )


def _handler_type(tool: Tool, models_names: list[str], returns: list[str]) -> str:
    """The type of a handler for `tool`, as server.py names it: async or sync, same signature."""
    qualified = [
        f"models.{name}" if name in models_names else f"results.{name}" if name == tool.result_class else name
        for name in returns
    ]
    result = " | ".join(qualified)
    return f"Callable[[models.{tool.input_class}, ToolContext], Awaitable[{result}] | {result}]"


def _stub_comment(tool: Tool) -> str:
    """The comment above a stub's `raise`: what a client gets, on one line or two, naming the tool
    where it fits."""
    # Only a name made of MCP's tool-name characters may appear in a comment.
    name = tool.name if _TOOL_NAME.fullmatch(tool.name) else tool.identifier
    said = f'"{name} is not implemented yet".'
    head = "    # Until this is filled in, a call answers isError:"
    forms = list(tool.elicitation_classes.values())
    asks = ""
    if len(forms) == 1:
        asks = (
            f'\n    # It may ask its user: `answer = await ctx.elicit("...", {forms[0]})`, with'
            f"\n    # `from ..models import {forms[0]}`; `answer.action` is accept,"
            "\n    # decline or cancel, and `answer.data` the form filled in when accepted."
        )
    elif forms:
        asks = (
            '\n    # It may ask its user: `answer = await ctx.elicit("...", Form)`, Form one of'
            f"\n    # {', '.join(forms)} (from ..models); `answer.action` is accept,"
            "\n    # decline or cancel, and `answer.data` the form filled in when accepted."
        )
    if text_width(f"{head} {said}") <= LINE_LENGTH:
        return f"{head} {said}{asks}"
    if text_width(f"    # {said}") > LINE_LENGTH:
        said = '"... is not implemented yet".'
    return f"{head}\n    # {said}{asks}"


def _assignment(target: str, annotation: str, value: JSON, parts: list[str] | None = None) -> str:
    """`target: annotation = literal` at module level, laid out as black would (`parts`: see
    `to_literal`)."""
    head = f"{target}: {annotation} = "
    found: list[str] = []
    literal = to_literal(value, indent=0, used=text_width(head), tail=0, _parts=found)
    if text_width(head + literal.split("\n", 1)[0]) <= LINE_LENGTH:
        if parts is not None:
            parts += found
        return head + literal
    if "\n" not in literal and text_width(head + "(") <= LINE_LENGTH:
        # A scalar too long for the line: black wraps it in parentheses, even if still too long.
        return f"{head}(\n    {literal}\n)"
    # A first line too long even so: black splits the annotation instead, and explodes the value.
    literal = to_literal(value, indent=0, used=LINE_LENGTH, tail=0, _parts=parts)
    subscript = re.fullmatch(r"(\w+\[)(.*)\]", annotation)
    if subscript and " | " not in annotation:
        # A bare subscript splits inside its brackets, unless only parentheses make it fit.
        opening = f"{target}: {subscript[1]}"
        if text_width(opening) <= LINE_LENGTH or text_width(f"{target}: (") > LINE_LENGTH:
            return f"{opening}\n    {subscript[2]}\n] = {literal}"
    return f"{target}: (\n    {annotation}\n) = {literal}"


def _class_attribute(name: str, value: str) -> str:
    """`    name = value` in a class body; black parenthesizes a value that then fits."""
    line = f"    {name} = {value}"
    if text_width(line) <= LINE_LENGTH or text_width(f"        {value}") > LINE_LENGTH:
        return line
    return f"    {name} = (\n        {value}\n    )"


def _signature(head: str, params: list[str], returns: list[str], indent: str = "") -> str:
    """An `async def` line (without the body) at `indent`, split as black splits a long signature."""
    annotation = " | ".join(returns)
    one_line = f"{indent}{head}{', '.join(params)}) -> {annotation}:"
    if text_width(one_line) <= LINE_LENGTH:
        return one_line
    inner = indent + "    "
    body = inner + ", ".join(params)
    if text_width(body) > LINE_LENGTH:
        body = "\n".join(f"{inner}{param}," for param in params)
    tail = f"{indent}) -> {annotation}:"
    if text_width(tail) > LINE_LENGTH:
        # black parenthesizes a return annotation too long for the line, split at `|` if needed
        wrapped = inner + annotation
        if text_width(wrapped) > LINE_LENGTH:
            wrapped = f"\n{inner}| ".join([inner + returns[0], *returns[1:]])
        tail = f"{indent}) -> (\n{wrapped}\n{indent}):"
    return f"{indent}{head}\n{body}\n{tail}"


def _call(head: str, args: list[str], indent: str) -> str:
    """`head(args)` as a statement at `indent`, split as black splits a call too long for the line."""
    one_line = f"{indent}{head}({', '.join(args)})"
    if text_width(one_line) <= LINE_LENGTH:
        return one_line
    inner = indent + "    "
    body = inner + ", ".join(args)
    if len(args) > 1 and text_width(body) > LINE_LENGTH:
        body = "\n".join(f"{inner}{arg}," for arg in args)
    return f"{indent}{head}(\n{body}\n{indent})"


def client_method(tool: Tool) -> str:
    """The typed client's method for `tool`: keyword arguments from its input model, its output
    type as the return type (content blocks without an output schema)."""
    name = tool.identifier + "_" if tool.identifier in CLIENT_RESERVED else tool.identifier
    argument = f"_models.{tool.input_class}"
    returns = f"_models.{tool.output_class}" if tool.output_class else "_ContentBlocks"
    call = [to_literal(tool.name), "args"]
    lines = [
        _call("@_runtime.arguments", [argument], "    "),
        _signature(f"async def {name}(", ["self", f"args: {argument}"], [returns], "    "),
    ]
    if tool.output_class is not None:
        # Declared apart, so that no line holds both the output type and the tool's name.
        declared = f"        output: {returns}"
        if text_width(declared) > LINE_LENGTH:
            declared = f"        output: (\n            {returns}\n        )"
        lines += [
            declared,
            _call("output = await self._output", call, "        "),
            "        return output",
        ]
    else:
        lines.append(_call("return await self._content", call, "        "))
    return "\n".join(lines)


def _check_names(toolset: Toolset) -> None:
    seen: dict[str, str] = {}
    for tool in toolset.tools:
        for name in (tool.identifier, tool.result_class):
            if name in _PUBLIC_NAMES:
                raise RenderError(f"tool {tool.name!r}: {name!r} clashes with a package name")
            if seen.setdefault(name, tool.name) != tool.name:
                raise RenderError(f"tools {seen[name]!r} and {tool.name!r} both use {name!r}")
    names = [tool.name for tool in toolset.tools]
    if len(set(names)) != len(names):
        raise RenderError("duplicate tool names")


def _examples(toolset: Toolset) -> list[JSON]:
    """Every `examples` input, as the contract tests call them."""
    return [
        {"tool": tool.name, "arguments": example.input} for tool in toolset.tools for example in tool.examples
    ]


def models_file(toolset: Toolset, models_source: str) -> str:
    """The text of models.py: the header, then the generated models."""
    body = models_source.rstrip()
    return f"{header_lines(toolset)}\n{body}\n" if body else f"{header_lines(toolset)}\n"


# Stand-ins for a tool's schema literals (statements) and its TOOLS entry (a dict item) while
# tools.py's frame is compile-checked; each piece put back in their place compiled on its own.
_PLACE = "__mcpstub_piece__ = {}"
_ENTRY = "        __mcpstub_entry__: {},"
_PLACE_LINE = re.compile(
    r"^(?:__mcpstub_piece__ = ([0-9]+)|        __mcpstub_entry__: ([0-9]+),)$", re.MULTILINE
)


def _piece(tool: Tool, env: jinja2.Environment, memo: ToolMemo) -> Piece:
    """What rendering makes of `tool` alone; each piece of Python in it compiled on its own."""
    view = _view(tool)
    wires = {protocol: wire_tool(tool, protocol) for protocol in PROTOCOLS}
    # The generations see the same object unless the output is not an object: digest and
    # write it once then.
    texts: dict[str, tuple[str, tuple[str, ...]]] = {}
    for protocol, wire in wires.items():
        same = next((p for p in texts if _same_object(wires[p], wire)), None)
        texts[protocol] = texts[same] if same is not None else (tool_digest(wire), wire_chunks(wire))
    digests = {protocol: digest for protocol, (digest, _) in texts.items()}
    view = replace(view, digests_literal=to_literal(digests, indent=12, used=len("            digests=")))
    view = replace(view, entry=env.get_template("tool_entry.py.jinja").render(t=view).rstrip("\n"))
    stub = env.get_template("handlers/tool.py.jinja").render(t=view)
    memo.compile_check(f"handlers/{tool.identifier}.py", stub)
    assignments = _chunks(view.assignments, view.literal_parts)
    _compile_assignments(assignments, memo)
    memo.compile_check("tools.py", f"_ = {{\n{view.entry}\n}}\n")
    return {
        "view": {
            **{f.name: getattr(view, f.name) for f in fields(_ToolView) if f.name not in _NOT_KEPT},
            "assignments": assignments,
        },
        "stub": stub,
        "stub_record": stub_record(f"handlers/{tool.identifier}.py", stub),
        "digest": digests,
        "surface": {protocol: text for protocol, (_, text) in texts.items()},
    }


_NOT_KEPT = frozenset(("tool", "literal_parts"))


def _chunks(text: str, parts: tuple[str, ...]) -> tuple[str, ...]:
    """`text` cut around the definitions' entries it holds, in order: those chunks are the same
    objects in every tool's piece, so a memo stores each once.

    An entry is cut only where it starts a line after a line ending in `{` or `,` (where
    `to_literal` puts it): `_compile_assignments` relies on that.
    """
    chunks: list[str] = []
    start = 0
    for part in parts:
        at = text.find(part, start)
        if at < 2 or text[at - 2 : at] not in _ENTRY_AFTER:  # not found, or not an entry there: left in
            continue
        chunks += [text[start:at], part]
        start = at + len(part)
    chunks.append(text[start:])
    return tuple(chunks)


_ENTRY_AFTER = frozenset(("{\n", ",\n"))

# What stands for a run of definitions' entries while the rest of the assignments is compiled.
_STAND_IN = "0: 0,\n"


def _compiles_alone(entry: str) -> None:
    compile_check("tools.py", f"_ = {{\n{entry}}}\n")


def _compile_assignments(chunks: tuple[str, ...], memo: ToolMemo) -> None:
    """Compile-check a tool's schema assignments, cut by `_chunks`: each definition's entry on
    its own (once per run: a definition copied into many tools is compiled once), and the rest
    with a stand-in for each run of entries.

    An entry is whole lines `key: value,` (strings never hold a line break, so no token spans its
    ends), cut where a line ending in `{` or `,` precedes it. A run of entries there and the
    stand-in `0: 0,` are both dict items, each ending in a comma: with each entry compiled in a
    dict display of its own, the rest compiles exactly when the whole does. An entry inside an
    entry is never cut out of it.
    """
    for part in chunks[1::2]:
        memory.keyed("compiles", part, _compiles_alone, part)
    rest = [chunks[0]]
    for between in chunks[2::2]:
        if rest[-1] is not _STAND_IN:
            rest.append(_STAND_IN)
        if between:
            rest.append(between)
    memo.compile_check("tools.py", "".join(rest))


def _same_object(a: dict[str, JSON], b: dict[str, JSON]) -> bool:
    """True when two wire objects hold the very same values under the same keys, in order."""
    return list(a) == list(b) and all(a[key] is b[key] for key in a)


def _pieces(toolset: Toolset, env: jinja2.Environment, memo: ToolMemo) -> list[Piece]:
    pieces = []
    for tool in toolset.tools:
        key = tool_key(tool)
        piece = memo.get(key)
        if piece is None:
            piece = _piece(tool, env, memo)
            memo.put(key, piece)
        pieces.append(piece)
    return pieces


def render_package(
    toolset: Toolset,
    models_source: str,
    *,
    emit_tests: bool = False,
    memo: ToolMemo | None = None,
    client_only: bool = False,
) -> RenderedPackage:
    """Render every file of the generated package, laid out as black would.

    What depends on one tool alone is taken from `memo` when that tool is unchanged. With
    `client_only`, the package is the typed client alone: no server, handlers or contract tests.
    """
    _check_names(toolset)
    header = header_lines(toolset)
    env = _environment()
    memo = memo if memo is not None else ToolMemo(None)
    try:
        pieces = _pieces(toolset, env, memo)
    except SurfaceError as exc:
        raise RenderError(f"the advertised tools have no canonical JSON form: {exc}") from None
    views = [
        _ToolView(tool=tool, **{**piece["view"], "assignments": "".join(piece["view"]["assignments"])})
        for tool, piece in zip(toolset.tools, pieces, strict=True)
    ]
    tool_digests = {
        protocol: {
            tool.name: piece["digest"][protocol] for tool, piece in zip(toolset.tools, pieces, strict=True)
        }
        for protocol in PROTOCOLS
    }
    surface_text = render_surface_from(toolset, [piece["surface"] for piece in pieces], tool_digests)
    results = [str(tool.result_class) for tool in toolset.tools]
    context: dict[str, Any] = {
        "header": header,
        "marker": WRITING_MARKER,
        "requirements": ", ".join(RUNTIME_REQUIREMENTS),
        "runtime_range": RUNTIME_RANGE,
        # The runtime's result bases the tools use, and ToolError, as one import line.
        "result_bases": ", ".join(
            import_order(
                [
                    "ToolError",
                    *(["StructuredResult"] if any(t.output_class is not None for t in toolset.tools) else []),
                    *(["ContentResult"] if any(t.output_class is None for t in toolset.tools) else []),
                ]
            )
        ),
        "toolset": toolset,
        "tools": views,
        # Sorted as ruff's defaults want them (isort, RUF022), so a lint run leaves them alone.
        "results_imported": import_order(["ToolError", *results]),
        "results_all": all_order(["ToolError", *results]),
        "package_all": all_order(
            ["TOOLS", "ToolError", "ToolSpec", "Client", "connect"]
            if client_only
            else [*_PUBLIC_NAMES, *results]
        ),
        "client_only": client_only,
        "handler_check": _handler_check(toolset.tools),
        "server_assignments": "\n".join(
            [
                _assignment("SERVER_NAME", "str", toolset.server_name),
                _assignment("SERVER_VERSION", "str", toolset.server_version or ""),
                _assignment("INSTRUCTIONS", "str | None", toolset.instructions),
                _assignment("SERVER_TITLE", "str | None", toolset.server_info.get("title")),
                _assignment("SERVER_DESCRIPTION", "str | None", toolset.server_info.get("description")),
                _assignment("SERVER_WEBSITE_URL", "str | None", toolset.server_info.get("websiteUrl")),
                _assignment("SERVER_ICONS", "list[dict[str, Any]] | None", toolset.server_info.get("icons")),
            ]
        ),
        "protocols_literal": to_literal(list(PROTOCOLS)),
    }

    def render(template: str, **extra: Any) -> str:
        return env.get_template(template).render(**context, **extra)

    # tools.py is checked as a frame with a stand-in for each tool's schema literals, each of
    # which compiled on its own: the whole compiles, without compiling megabytes of literals.
    places = [
        replace(view, assignments=_PLACE.format(n), entry=_ENTRY.format(n)) for n, view in enumerate(views)
    ]
    frame = env.get_template("tools.py.jinja").render({**context, "tools": places})
    memo.compile_check("tools.py", frame)
    tools_text = _PLACE_LINE.sub(
        lambda m: views[int(m[1])].assignments if m[1] is not None else views[int(m[2])].entry, frame
    )

    ours = {
        "__init__.py": render("__init__.py.jinja"),
        "__main__.py": render("__main__.py.jinja"),
        "models.py": models_file(toolset, models_source),
        "results.py": render("results.py.jinja"),
        "tools.py": tools_text,
        "server.py": render("server.py.jinja"),
        "testing.py": render("testing.py.jinja"),
        "client.py": render(
            "client.py.jinja",
            methods=[client_method(tool) for tool in toolset.tools],
            content_tools=any(tool.output_class is None for tool in toolset.tools),
        ),
    }
    if tuple(ours) != OURS_FILES:  # the fast path and the writer rely on this list
        raise RenderError(f"generated files {tuple(ours)} differ from the layout {OURS_FILES}")
    ours[SURFACE_FILE] = surface_text
    if client_only:
        ours = {name: text for name, text in ours.items() if name not in SERVER_FILES}
        return RenderedPackage(ours=ours, yours={TYPED_MARKER: ""}, proven=frozenset(["tools.py"]))
    if emit_tests:
        examples = _assignment("EXAMPLES", "list[dict[str, Any]]", _examples(toolset))
        # Only tools that say they change nothing are called unless the user opts in.
        safe = [
            t.name
            for t in toolset.tools
            if (t.advertised.get("annotations") or {}).get("readOnlyHint") is True
            and (t.advertised.get("annotations") or {}).get("destructiveHint") is not True
        ]
        ours[CONTRACT_TESTS] = render(
            "test_contract.py.jinja",
            examples_assignment=examples,
            read_only_assignment=_assignment("READ_ONLY", "list[str]", safe),
        )
    yours = {TYPED_MARKER: "", "handlers/__init__.py": render("handlers/__init__.py.jinja")}
    stubs: dict[str, tuple[str, str]] = {}
    for tool, piece in zip(toolset.tools, pieces, strict=True):
        yours[f"handlers/{tool.identifier}.py"] = piece["stub"]
        digest, form = piece["stub_record"]
        stubs[f"handlers/{tool.identifier}.py"] = (digest, form)
    proven = frozenset(["tools.py", *(f"handlers/{tool.identifier}.py" for tool in toolset.tools)])
    return RenderedPackage(ours=ours, yours=yours, proven=proven, stubs=stubs)


def _handler_check(tools: Sequence[Tool]) -> str:
    """server.py's last lines: each handler module's function as a `Handlers` entry, for mypy alone
    (a handler is imported on its tool's first call, so nothing else checks it against its tool's
    types: a handler left returning `str` when an output schema is added would pass unseen)."""
    if not tools:
        return ""
    lines = [
        "",
        "",
        "# For mypy: each handler bound to what its tool takes and returns. An error on a line here",
        "# is that tool's handler (handlers/<tool>.py) no longer fitting its tool: change its",
        "# signature and what it returns to the models the error names.",
        "if TYPE_CHECKING:",
    ]
    for ident in import_order([str(tool.identifier) for tool in tools]):
        line = f"    from .handlers import {ident} as _handler_{ident}"
        if text_width(line) > LINE_LENGTH:
            line = f"    from .handlers import (\n        {ident} as _handler_{ident},\n    )"
        lines.append(line)
    lines += ["", "    _HANDLER_FUNCTIONS: Handlers = {"]
    for tool in tools:
        lines.append(f"        {to_literal(tool.name)}: _handler_{tool.identifier}.{tool.identifier},")
    lines.append("    }")
    return "\n".join(lines) + "\n"
