"""Import: an existing server's `tools/list` answer -> a toolset that advertises the same tools.

A saved answer (a JSON-RPC response, a `tools/list` result, a list of tools, or a `surface.json`) or a
live one (`server_listing.read_live`) becomes a `Source`; `toolset_text` writes every tool exactly as
advertised, key order kept. What the format cannot express is written as it is: `check_import` loads
the written file with the ordinary pipeline and reports, located in it, every problem and every tool
that would not be advertised as the source did.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from mcpstub.diagnostics import Diagnostic, Location, SourceError, error, warning
from mcpstub.engine.jsonread import yaml_alike
from mcpstub.ir import CLASS_SUFFIXES, SERVER_INFO_KEYS, to_class_prefix
from mcpstub.keywords import DEFS_KEYWORDS, SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE, subschemas
from mcpstub.load import json_mistake, parse_document, read_text, text_place
from mcpstub.pointers import escape
from mcpstub.resources import tool_keys
from mcpstub.server_listing import Listing
from mcpstub.yamltext import DumpError, dump_yaml

JSON = Any
# Keys a toolset's `server` section takes from the source's serverInfo, in this order.
_SERVER_KEYS = ("name", "version", *SERVER_INFO_KEYS)
_DEF_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
# A subschema holding one of these means something only where it is: it is never moved.
_PINNED = frozenset({"$ref", "$dynamicRef", "$recursiveRef", "$id", "$anchor", "$dynamicAnchor", "$schema"})
# Subschemas shorter than this (canonical JSON) are not worth a shared definition.
MIN_SHARED_SIZE = 60


@dataclass(frozen=True)
class Source:
    """What a server advertises: its info, instructions and tool objects (raw JSON)."""

    name: str  # how to name the source in messages
    tools: list[dict[str, JSON]]
    server_info: dict[str, JSON] = field(default_factory=dict)
    instructions: str | None = None
    fallback_name: str = "imported"
    notes: tuple[Diagnostic, ...] = ()  # what the reader of the source should know (a page left out)
    shows_asking: bool = False  # whether it says what each tool asks its user (a surface snapshot)


class _TooLarge(ValueError):
    pass


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _TooLarge(text)
    return value


# A JSON string (skipped), or (group 1) a lone surrogate escape in one, which no YAML file can hold.
_LONE_SURROGATE = re.compile(
    r'"(?:[^"\\]|\\(?!u[dD][89abAB])[^u]|\\u(?![dD][89a-fA-F])[0-9a-fA-F]{4}'
    r"|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})*"
    r"(\\u[dD][89a-fA-F][0-9a-fA-F]{2})?"
)


class _Twice(ValueError):
    """A key written twice in one object of a saved answer."""


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        keys = [key for key, _ in pairs]
        raise _Twice(repr(next(key for i, key in enumerate(keys) if key in keys[:i])))
    return found


def read_listing_file(path: Path, shown: str) -> Source:
    """A saved tools/list answer, JSON-RPC response, list of tools, or surface snapshot; what makes
    it no such thing is said at its place in the file."""
    text, problems = read_text(path, shown)  # as a toolset is read (a byte order mark, bad UTF-8)
    if text is None:  # (with its hint, as a mistake in the JSON is said)
        hint = f" (hint: {problems[0].hint})" if problems[0].hint else ""
        raise SourceError(problems[0].message + hint, problems[0].location)
    wrong = json_mistake(shown, text)  # (a syntax error, NaN or Infinity, with a hint to mend it)
    if wrong is not None:  # (the hint to name a toolset .yaml is not for a saved answer)
        hint = f" (hint: {wrong.hint})" if wrong.hint and ".yaml" not in wrong.hint else ""
        raise SourceError(wrong.message + hint, wrong.location)
    try:
        data = json.loads(text, parse_float=_finite, object_pairs_hook=_once_each)
    except _Twice as exc:  # (JSON takes the last; said where YAML's reader says it)
        _, read = parse_document(shown, path, text.encode("utf-8"))
        twice = next((d for d in read if d.code == "duplicate-key"), None)
        if twice is None:
            raise SourceError(f"key {exc} is written twice in one object", Location(shown, 1, 1)) from None
        raise SourceError(twice.message, twice.location) from None
    except _TooLarge as exc:
        message = f"{exc} is too large for a JSON number (a double holds up to about 1.8e308)"
        raise SourceError(message, text_place(shown, text, _outside_strings(text, str(exc)))) from None
    except (ValueError, RecursionError) as exc:  # too deep, too many digits
        if type(exc) is ValueError:  # (an integer past the 4,300 digits Python reads: said at it)
            _, read = parse_document(shown, path, text.encode("utf-8"))
            if (found := next((d for d in read if d.is_error), None)) is not None:
                raise SourceError(found.message, found.location) from None
        raise SourceError(f"not JSON: {exc or type(exc).__name__}", Location(shown, 1, 1)) from None
    lone = next((m for m in _LONE_SURROGATE.finditer(text) if m.group(1)), None)
    if lone is not None:
        message = (
            f"the string escape {lone.group(1)} is half of a character (a lone surrogate): "
            "no YAML file can hold it"
        )
        raise SourceError(message, text_place(shown, text, lone.start(1)))
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", path.stem).strip("-") or "imported"
    at: list[str | int] = []  # where `data` is in the file

    def where(*more: str) -> Location:  # (the text read, parsed again only to say a place in it)
        doc, _ = parse_document(shown, path, text.encode("utf-8"))
        return doc.loc((*at, *more)) if doc.data is not None else Location(shown, 1, 1)

    if isinstance(data, dict) and isinstance(data.get("protocols"), dict):  # a surface snapshot
        latest = data["protocols"].get("2026-07-28")
        tools = latest.get("tools") if isinstance(latest, dict) else None
        info = data.get("serverInfo")
        instructions = data.get("instructions")
        at += ["protocols", "2026-07-28", "tools"]
        listed = _tool_list(tools, at, where)
        asked = data.get("elicitations")  # what each tool asks its user (no tools/list says it)
        if isinstance(asked, dict):
            listed = [_asking(tool, asked.get(tool.get("name"))) for tool in listed]
        return Source(
            shown,
            listed,
            info if isinstance(info, dict) else {},
            instructions if isinstance(instructions, str) else None,
            stem,
            shows_asking=True,
        )
    if isinstance(data, dict) and "jsonrpc" in data:
        if "result" not in data:
            raise SourceError("a JSON-RPC message without a result (an error answer?)", where())
        data = data["result"]
        at.append("result")
    notes: tuple[Diagnostic, ...] = ()
    if isinstance(data, dict) and isinstance(data.get("nextCursor"), str):
        said = "the answer has a next page (nextCursor): its tools are not in this file, nor in the toolset"
        hint = "import from the server itself (--server-command or a URL), which reads every page"
        notes = (warning("import-partial", said, where("nextCursor"), hint),)
    if isinstance(data, dict) and "tools" in data:
        data = data["tools"]
        at.append("tools")
    return Source(shown, _tool_list(data, at, where), fallback_name=stem, notes=notes)


def _asking(tool: dict[str, JSON], asked: JSON) -> dict[str, JSON]:
    """The tool with its `elicitations` as the surface snapshot records them (key -> schema)."""
    if not isinstance(asked, dict):
        return tool
    schemas = {
        key: entry["requestedSchema"]
        for key, entry in asked.items()
        if isinstance(entry, dict) and "requestedSchema" in entry
    }
    return {**tool, "elicitations": schemas} if schemas else tool


def _outside_strings(text: str, token: str) -> int:
    """The offset of the first `token` in `text` that is not inside a JSON string."""
    for match in re.finditer(r'"(?:[^"\\]|\\.)*"|(' + re.escape(token) + ")", text):
        if match.group(1):
            return match.start(1)
    return 0


def source_from_listing(listing: Listing) -> Source:
    """A live server's listing as an import source."""
    for index, tool in enumerate(listing.tools):
        _no_generator_keys(tool, index, lambda *_: Location(listing.source, 1, 1))
    return Source(listing.source, listing.tools, listing.server_info, listing.instructions)


def _no_generator_keys(tool: dict[str, JSON], index: int, where: Callable[..., Location]) -> None:
    """Refuse a tool holding a key the toolset format reads as its own (`timeout`, `examples`):
    written into a toolset, it would be a setting, no longer advertised."""
    for key in tool_keys(advertised=False):
        if key in tool:
            said = (
                f"tools[{index}] has the key {key!r}, which a toolset reads as a setting of mcpstub's own:"
                " it cannot be advertised as written"
            )
            raise SourceError(said, where(index, key))


def _tool_list(data: Any, at: list[str | int], where: Callable[[], Location]) -> list[dict[str, JSON]]:
    if not isinstance(data, list):
        raise SourceError(
            'expected a tools/list answer: {"tools": [...]}, a JSON-RPC response holding one, '
            "a list of tools, or a surface.json",
            where(),
        )
    for index, tool in enumerate(data):
        if not isinstance(tool, dict):
            at.append(index)
            raise SourceError(f"tools[{index}] is not a tool object", where())
        _no_generator_keys(tool, index, where)
    return data


def server_section(source: Source) -> dict[str, JSON]:
    """The toolset's `server` mapping: the source's serverInfo keys the format knows."""
    info = source.server_info
    name = info.get("name")
    server: dict[str, JSON] = {"name": name if isinstance(name, str) and name else source.fallback_name}
    for key in _SERVER_KEYS[1:]:
        if key in info:
            server[key] = info[key]
    if source.instructions is not None:
        server["instructions"] = source.instructions
    return server


def build_document(source: Source, *, extract_defs: bool = False) -> dict[str, JSON]:
    """The toolset as data: `mcpstub: 1`, the server, shared `$defs` if asked, the tools."""
    # The name first (live servers send keys in their own order); everything else as it came.
    first = ("name",)
    tools = [
        {**{k: tool[k] for k in first if k in tool}, **{k: v for k, v in tool.items() if k not in first}}
        for tool in source.tools
    ]
    document: dict[str, JSON] = {"mcpstub": 1, "server": server_section(source)}
    if extract_defs:
        shared, tools = extract_shared(tools)
        if shared:
            document["$defs"] = shared
    document["tools"] = tools
    return document


def toolset_text(
    source: Source, *, extract_defs: bool = False, schema_uri: str | None = None, as_json: bool = False
) -> str:
    """The toolset file's text: YAML, or JSON (`as_json`, for a file named .json). DumpError for a
    value YAML cannot hold (a lone surrogate from a live server)."""
    document = build_document(source, extract_defs=extract_defs)
    if as_json:
        try:
            return yaml_alike(json.dumps(document, indent=2, ensure_ascii=False)) + "\n"
        except RecursionError:
            raise DumpError("it nests too deeply to be written") from None
    head = f"# yaml-language-server: $schema={schema_uri}\n" if schema_uri else ""
    return head + dump_yaml(document)


# --- shared definitions -------------------------------------------------------------------------


def _canonical(value: JSON) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _subschemas(schema: JSON, path: tuple[str | int, ...]) -> list[tuple[tuple[str | int, ...], JSON]]:
    """Every subschema position below `schema` (not the root itself, nor definitions, nor a resource
    of its own), outermost first."""
    found: list[tuple[tuple[str | int, ...], JSON]] = []
    for key, at, sub in subschemas(schema) if isinstance(schema, dict) else ():
        # (below an `$id`, a `#/$defs/...` reference would resolve in that resource, not the root)
        if isinstance(sub, dict) and key not in (*DEFS_KEYWORDS, "dependencies") and "$id" not in sub:
            where = (*path, key) if at is None else (*path, key, at)
            found.append((where, sub))
            found.extend(_subschemas(sub, where))
    return found


def _movable(schema: JSON) -> bool:
    """No reference, identifier or dialect inside: the subschema means the same anywhere."""
    if isinstance(schema, dict):
        return not (_PINNED & set(schema)) and all(_movable(v) for v in schema.values())
    if isinstance(schema, list):
        return all(_movable(v) for v in schema)
    return True


def _ref_targets(schema: JSON) -> list[tuple[str, ...]]:
    """The places (pointer parts from the schema's root) its references within it point at."""
    found: list[tuple[str, ...]] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                pointer = unquote(ref[1:])
                found.append(tuple(p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _pointed_at(path: tuple[str | int, ...], targets: list[tuple[str, ...]]) -> bool:
    parts = tuple(str(p) for p in path)
    return any(target[: len(parts)] == parts for target in targets)


def _is_2020(schema: JSON) -> bool:
    dialect = schema.get("$schema") if isinstance(schema, dict) else None
    return dialect is None or (isinstance(dialect, str) and "2020-12" in dialect)


def _set(root: JSON, path: tuple[str | int, ...], value: JSON) -> None:
    target = root
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def _class_prefix(name: str) -> str:
    try:
        return str(to_class_prefix(name))
    except ValueError:  # a name whose class prefix would be a keyword (`None`)
        return f"{name}_"


def _name_for(path: tuple[str | int, ...], schema: dict[str, JSON], taken: set[str]) -> str:
    """A definition name from the schema's title or the property that holds it."""
    title = schema.get("title")
    keywords = {*SUBSCHEMA_ONE, *SUBSCHEMA_LIST, *SUBSCHEMA_MAP, "inputSchema", "outputSchema"}
    words = (
        title
        if isinstance(title, str)
        else next((p for p in reversed(path) if isinstance(p, str) and p not in keywords), "Shared")
    )
    base = _class_prefix(words) if any(c.isalnum() for c in words) else "Shared"
    if not _DEF_NAME.fullmatch(base):
        base = "Shared"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def extract_shared(tools: list[dict[str, JSON]]) -> tuple[dict[str, JSON], list[dict[str, JSON]]]:
    """Move identical repeated subschemas into shared `$defs`, largest first: only in 2020-12 schemas,
    only those without references or identifiers (they mean the same wherever they stand)."""
    tools = json.loads(json.dumps(tools))  # a private copy to rewrite
    # Names a shared definition must not take: the classes generated for the tools themselves, and
    # any tool's own definitions (a tool's `#/$defs/NAME` finds its own first).
    taken: set[str] = set()
    for tool in tools:
        name = tool.get("name")
        if isinstance(name, str):
            prefix = _class_prefix(name)
            taken.update({prefix, *(prefix + suffix for suffix in CLASS_SUFFIXES)})
        for key in ("inputSchema", "outputSchema"):
            schema = tool.get(key)
            for defs in ("$defs", "definitions"):
                own = schema.get(defs) if isinstance(schema, dict) else None
                if isinstance(own, dict):
                    taken.update(_class_prefix(n) for n in own if isinstance(n, str))
                    taken.update(n for n in own if isinstance(n, str))
    shared: dict[str, JSON] = {}
    while True:
        places: dict[str, list[tuple[int, tuple[str | int, ...]]]] = {}
        values: dict[str, JSON] = {}
        for index, tool in enumerate(tools):
            for key in ("inputSchema", "outputSchema"):
                schema = tool.get(key)
                if not isinstance(schema, dict) or not _is_2020(schema):
                    continue
                targets = _ref_targets(schema)
                for path, sub in _subschemas(schema, (key,)):
                    # (a default applies where it is written; a place a reference points at, or
                    # into, must stay where it is)
                    if not _movable(sub) or "default" in sub or _pointed_at(path[1:], targets):
                        continue
                    text = _canonical(sub)
                    if len(text) < MIN_SHARED_SIZE:
                        continue
                    places.setdefault(text, []).append((index, path))
                    values.setdefault(text, sub)
        repeated = [text for text, where in places.items() if len(where) > 1]
        if not repeated:
            break
        text = max(repeated, key=lambda t: (len(t), t))
        where = places[text]
        name = _name_for(where[0][1], values[text], taken)
        shared[name] = json.loads(text)
        # Equal subschemas cannot nest in one another, so the places stay valid as each is replaced.
        for index, path in where:
            _set(tools[index], path, {"$ref": f"#/$defs/{name}"})
    return shared, tools


# --- proving the written toolset ----------------------------------------------------------------


def same(a: JSON, b: JSON) -> bool:
    """Equal as JSON values, with kinds: `1` is not `1.0` and `true` is not `1`."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) or isinstance(b, float):
        return type(a) is type(b) and a == b
    return type(a) is type(b) and a == b


def first_difference(a: JSON, b: JSON, pointer: str = "") -> str | None:
    """The JSON pointer of the first place two values differ (as `same` judges), or None."""
    if same(a, b):
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            where = f"{pointer}/{escape(key)}"
            if key not in a or key not in b:
                return where
            found = first_difference(a[key], b[key], where)
            if found is not None:
                return found
        return pointer or "/"
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{pointer}/{i}")
            if found is not None:
                return found
    return pointer or "/"


def check_import(path: Path, shown: str, source: Source, *, extract_defs: bool) -> list[Diagnostic]:
    """Validate the written toolset; say where a tool would be advertised unlike the source."""
    from mcpstub.pipeline import check_toolset  # noqa: PLC0415

    checked = check_toolset(path, shown)
    diagnostics = list(checked.diagnostics)
    if checked.toolset is None or extract_defs:
        return diagnostics
    advertised = {tool.name: tool.advertised for tool in checked.toolset.tools}
    for index, tool in enumerate(source.tools):
        name = tool.get("name")
        mine = advertised.get(name) if isinstance(name, str) else None
        if mine is None:
            continue
        sent = {k: v for k, v in tool.items() if k != "elicitations"}  # (asked, not advertised)
        where = first_difference(_order(sent), _order(mine))
        if where is not None:
            doc_loc = Location(shown, 1, 1)
            if checked.document is not None:
                doc_loc = checked.document.loc(("tools", index))
            diagnostics.append(
                warning(
                    "import-differs",
                    f"tool {name!r} would be advertised differently from the source at {where}",
                    doc_loc,
                    "the format rewrites this part; compare with the source before you serve it",
                )
            )
    return diagnostics


def _order(value: JSON) -> JSON:
    """Key order does not matter on the wire: compare with keys sorted."""
    if isinstance(value, dict):
        return {k: _order(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_order(v) for v in value]
    return value


def refuse(message: str, location: Location) -> Diagnostic:
    """A source problem as a diagnostic."""
    return error("import-source", message, location)
