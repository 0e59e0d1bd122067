"""Surface: a checked `Toolset` -> the snapshot of what its server advertises, and tool digests.

`wire_tool` is the one place that says which `Tool` object a connection of a protocol generation is
shown; the snapshot and the generated server's digests both come from it. A digest is the SHA-256 of
RFC 8785 (JCS) canonical JSON; `surface.json` is byte-stable (the same toolset, the same bytes).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import rfc8785

from mcpstub.engine import memory, session
from mcpstub.engine.fingerprints import value_bytes
from mcpstub.engine.jsonread import yaml_alike
from mcpstub.ir import JSON, Tool, Toolset
from mcpstub.layout import SURFACE_FORMAT, SURFACE_MARKER_KEY
from mcpstub.output_wrapper import is_object_root, legacy_output_schema

# Protocol generations a generated server speaks, newest first.
PROTOCOLS = ("2026-07-28", "2025-11-25")
# The `_meta` key of a tools/list result that carries the digests of the tools on its page.
DIGEST_META_KEY = "io.mcpstub/sha256"
# Integers JSON numbers (IEEE doubles) hold exactly; RFC 8785 writes larger ones as doubles.
_SAFE_INTEGER = 2**53 - 1
# What Python's own JSON writer cannot be trusted to write as RFC 8785 does: a character beyond
# the BMP (RFC 8785 sorts keys by UTF-16 code units, Python by code points) anywhere.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
# Outside strings: a fraction or exponent (a double, written the ECMAScript way) or an integer of
# 16 digits or more (beyond 2**53 it is a double too).
_STRING_OR_WORD = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|true|false|null')  # (strings unrolled: 3x faster)
_NOT_PLAIN_NUMBER = re.compile(r"[.eE]|[0-9]{16}")


class SurfaceError(Exception):
    """A value that has no canonical JSON form (cannot be advertised either)."""


def wire_tool(tool: Tool, protocol: str) -> dict[str, JSON]:
    """The `Tool` object a connection speaking `protocol` receives in `tools/list`."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol generation {protocol!r}")
    # Every key the author wrote, schemas bundled; a non-object output is shown to 2025-11-25
    # connections as its `{result: ...}` wrapper (output_wrapper.py).
    wire = dict(tool.advertised)
    output = tool.output_schema
    if protocol == "2025-11-25" and output is not None and not is_object_root(output, tool.output_dialect):
        wire["outputSchema"] = legacy_output_schema(output, tool.output_dialect)
    return wire


def _doubles(value: Any) -> Any:
    """The value as JSON's IEEE doubles see it: integers beyond 2**53 become the nearest double."""
    if isinstance(value, bool) or value is None or isinstance(value, str | float):
        return value
    if isinstance(value, int):
        return value if -_SAFE_INTEGER <= value <= _SAFE_INTEGER else float(value)
    if isinstance(value, dict):
        return {key: _doubles(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_doubles(item) for item in value]
    raise SurfaceError(f"{type(value).__name__} is not a JSON value")


def canonical_json(value: JSON) -> bytes:
    """RFC 8785 canonical JSON: sorted keys, no whitespace, UTF-8, ECMAScript number form."""
    text = _plain_canonical(value)
    if text is not None:
        return text.encode("utf-8")
    return _rfc8785(value)


def _plain_canonical(value: JSON) -> str | None:
    """Canonical JSON by Python's C writer, or None where it would not spell what RFC 8785 does."""
    try:
        # Without doubles, big integers and characters beyond the BMP, Python's C writer spells
        # exactly what RFC 8785 does (same escapes, same key order), many times faster.
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")  # a lone surrogate has no UTF-8 form: RFC 8785's writer says so
        if not _ASTRAL.search(text) and not _NOT_PLAIN_NUMBER.search(_STRING_OR_WORD.sub("", text)):
            return text
    except (TypeError, ValueError):  # not JSON, or a lone surrogate: RFC 8785's writer says why
        pass
    return None


def _rfc8785(value: JSON) -> bytes:
    try:
        return bytes(rfc8785.dumps(_doubles(value)))
    except (rfc8785.CanonicalizationError, UnicodeEncodeError, OverflowError, ValueError) as exc:
        raise SurfaceError(str(exc)) from None


def tool_digest(wire: dict[str, JSON]) -> str:
    """SHA-256 (hex) of a tool's canonical wire object."""
    chunks = _by_definition(wire, _CANONICAL)
    if chunks is not None:
        return hashlib.sha256("".join(chunks).encode("utf-8")).hexdigest()
    return hashlib.sha256(canonical_json(wire)).hexdigest()


# Bundling copies shared definitions into every tool schema using them: a wire object's text is made
# with each definitions mapping as a placeholder, then each placeholder is replaced by the mapping's
# text, each entry made once per distinct definition. The placeholder holds a per-process secret, so
# no user text is taken for one; a text where a placeholder is not found exactly once is made whole.
_SECRET = secrets.token_hex(16)
_PLACEHOLDER = re.compile(r'"\\u0000' + _SECRET + r':([0-9]+)"')
# Where a definition's value sits in a wire object: tool > schema > `$defs` > name.
_DEFINITION_DEPTH = 3


@dataclass(frozen=True)
class _Layout:
    """How a kind of text writes a value, and a `$defs` mapping of a tool schema entry by entry."""

    name: str
    whole: Callable[[JSON], str | None]  # any value at the top level; None: not so
    item: Callable[[JSON], str | None]  # a definition where it sits in the mapping
    first: str  # before the first entry ({name} and {item} filled in)
    then: str  # before each other entry
    close: str  # after the last one
    sort: bool  # entries in the order of their names (code points)


def _by_definition(wire: dict[str, JSON], layout: _Layout) -> tuple[str, ...] | None:
    """`wire`'s text in `layout`, in chunks: each definition entry one chunk, the same string object
    wherever an equal entry sits at the same place; None when it cannot be made so."""
    apart = _definitions_apart(wire)
    if apart is None:
        return None
    skeleton, mappings = apart
    text = layout.whole(skeleton)
    if text is None:
        return None
    pieces: list[str] = []
    seen: list[int] = []
    start = 0
    for match in _PLACEHOLDER.finditer(text):
        index = int(match[1])
        entries = _entries(layout, mappings[index]) if index < len(mappings) else None
        if entries is None:
            return None
        pieces.append(text[start : match.start()])
        pieces += entries
        seen.append(index)
        start = match.end()
    if sorted(seen) != list(range(len(mappings))):
        return None
    pieces.append(text[start:])
    return tuple(pieces)


def _definitions_apart(wire: dict[str, JSON]) -> tuple[dict[str, JSON], list[dict[str, JSON]]] | None:
    """`wire` with each non-empty definitions mapping as a placeholder, and those mappings; or None."""
    mappings: list[dict[str, JSON]] = []
    skeleton = dict(wire)
    for key in ("inputSchema", "outputSchema"):
        schema = skeleton.get(key)
        if not isinstance(schema, dict):
            continue
        for defs_key in ("$defs", "definitions"):
            mapping = schema.get(defs_key)
            if not isinstance(mapping, dict) or not mapping:
                continue
            schema = skeleton[key] = {**schema, defs_key: f"\0{_SECRET}:{len(mappings)}"}
            mappings.append(mapping)
    return (skeleton, mappings) if mappings else None


def _entries(layout: _Layout, mapping: dict[str, JSON]) -> list[str] | None:
    """The chunks of a definitions mapping's text in `layout`; None when it cannot be made so."""
    names = sorted(mapping) if layout.sort else list(mapping)
    chunks: list[str] = []
    for name in names:
        entry = _entry(layout, not chunks, name, mapping[name])
        if entry is None:
            return None
        chunks.append(entry)
    chunks.append(layout.close)
    return chunks


def _entry(layout: _Layout, first: bool, name: str, item: JSON) -> str | None:
    try:
        key = (layout.name, first, name, value_bytes(item))  # equal bytes: equal value, types and order kept
    except ValueError:
        key = None
    if key is None:
        return _make_entry(layout, first, name, item)
    return memory.keyed("surface-entry", key, _make_entry, layout, first, name, item)


def _make_entry(layout: _Layout, first: bool, name: str, item: JSON) -> str | None:
    name_text, item_text = layout.whole(name), layout.item(item)
    if name_text is None or item_text is None:
        return None
    return (layout.first if first else layout.then).format(name=name_text, item=item_text)


def digests(toolset: Toolset) -> dict[str, dict[str, str]]:
    """`{protocol: {tool name: digest}}`, tools in toolset order."""
    return {
        protocol: {tool.name: tool_digest(wire_tool(tool, protocol)) for tool in toolset.tools}
        for protocol in PROTOCOLS
    }


def server_info(toolset: Toolset) -> dict[str, JSON]:
    """The `serverInfo` the generated server reports in its initialize answer, keys in the order
    the SDK sends them (name, title, version, description, websiteUrl, icons)."""
    info: dict[str, JSON] = {"name": toolset.server_name}
    if "title" in toolset.server_info:
        info["title"] = toolset.server_info["title"]
    info["version"] = toolset.server_version or ""
    info.update((k, v) for k, v in toolset.server_info.items() if k != "title")
    return info


def surface(
    toolset: Toolset,
    tools: Mapping[str, Sequence[JSON]] | None = None,
    all_digests: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, JSON]:
    """The snapshot as data (see `render_surface`); `tools` and `all_digests` if already known."""
    if all_digests is None:
        all_digests = digests(toolset)
    data: dict[str, JSON] = {
        SURFACE_MARKER_KEY: f"mcpstub from {toolset.source_name}. DO NOT EDIT: it is rewritten on every run.",
        "format": SURFACE_FORMAT,
        "serverInfo": server_info(toolset),
    }
    if toolset.instructions is not None:
        data["instructions"] = toolset.instructions
    data["digest"] = {
        "algorithm": "sha256",
        "canonicalization": "RFC 8785",
        "meta": DIGEST_META_KEY,
    }
    data["protocols"] = {
        protocol: {
            "tools": (
                list(tools[protocol])
                if tools is not None
                else [wire_tool(tool, protocol) for tool in toolset.tools]
            ),
            "sha256": dict(all_digests[protocol]),
        }
        for protocol in PROTOCOLS
    }
    asked = requested_schemas(toolset)
    if asked:
        data["elicitations"] = asked
    return data


def requested_schemas(toolset: Toolset) -> dict[str, dict[str, JSON]]:
    """`{tool name: {key: {requestedSchema, sha256}}}` for the tools that ask their user (the
    same for both generations: an `elicitation/create` request, or an input request)."""
    return {
        tool.name: {
            key: {"requestedSchema": schema, "sha256": hashlib.sha256(canonical_json(schema)).hexdigest()}
            for key, schema in tool.elicitations.items()
        }
        for tool in toolset.tools
        if tool.elicitations
    }


def render_surface(toolset: Toolset) -> str:
    """The text of `surface.json`: two-space indented JSON, keys in a fixed order, UTF-8."""
    text = _indented(surface(toolset))
    return text + "\n"


# A tool's place in the skeleton `render_surface_from` fills: the string "\0<protocol>:<index>".
_PLACE = re.compile(r'^( *)"\\u0000(\d+):(\d+)"(,?)$', re.MULTILINE)


def wire_chunks(wire: dict[str, JSON]) -> tuple[str, ...]:
    """A wire tool as `surface.json` writes it, at the top level, in chunks (see `_by_definition`:
    a shared definition's text is kept once wherever it is stored)."""
    return _by_definition(wire, _INDENTED) or (_indented(wire),)


def _indented(value: JSON) -> str:
    return yaml_alike(json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False))


def _nested(value: JSON) -> str:
    """`value` as `_indented` writes it where a definition's value sits in a wire object."""
    return _indented(value).replace("\n", "\n" + "  " * _DEFINITION_DEPTH)


_CANONICAL = _Layout(
    "canonical", _plain_canonical, _plain_canonical, "{{{name}:{item}", ",{name}:{item}", "}", sort=True
)
_ENTRY_LINE = "\n" + "  " * _DEFINITION_DEPTH + "{name}: {item}"
_CLOSE_LINE = "\n" + "  " * (_DEFINITION_DEPTH - 1) + "}"
_INDENTED = _Layout(
    "indented", _indented, _nested, "{{" + _ENTRY_LINE, "," + _ENTRY_LINE, _CLOSE_LINE, sort=False
)


def render_surface_from(
    toolset: Toolset,
    texts: Sequence[Mapping[str, Sequence[str]]],
    all_digests: Mapping[str, Mapping[str, str]],
) -> str:
    """`render_surface(toolset)` from each tool's `wire_chunks` by protocol, already made."""
    places = {p: [f"\0{i}:{n}" for n in range(len(texts))] for i, p in enumerate(PROTOCOLS)}
    skeleton = _indented(surface(toolset, places, all_digests))

    filled: dict[tuple[str, tuple[str, ...]], str] = {}
    # In a session, each tool's text as the last run made it: an unchanged tool's chunks are the
    # same, and so is its text.
    kept = session.current()
    known = kept.surface_texts if kept is not None else {}

    def fill(match: re.Match[str]) -> str:
        indent, protocol, index, comma = match[1], PROTOCOLS[int(match[2])], int(match[3]), match[4]
        chunks = tuple(texts[index][protocol])
        key = (indent, chunks)
        text = known.get(key)
        if text is None:
            text = indent + "".join(chunks).replace("\n", "\n" + indent)
        filled[key] = text
        return text + comma

    # Only a tool's place is an array element on a line of its own: the other strings of the
    # skeleton are values of keys, so user text that looks like a place is never taken for one.
    result = _PLACE.sub(fill, skeleton + "\n")  # the line break added to the skeleton: no copy of the whole
    if kept is not None:  # this run's texts only: what is gone is forgotten
        kept.surface_texts = filled
    return result
