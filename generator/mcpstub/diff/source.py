"""A checked toolset as a diff side: the advertised tool wire objects and their places in the file.

Tools are the advertised `Tool` objects (schemas bundled, so self-contained). A pointer into a
bundled definition is located where that definition is written: the document's `$defs`, or the
file a `$ref` took it from.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpstub.diagnostics import Location, SourceError
from mcpstub.diff.model import Side
from mcpstub.load import Document, JsonPath
from mcpstub.pointers import ref_file, resolve, split, split_fragment

if TYPE_CHECKING:
    from mcpstub.pipeline import Checked
    from mcpstub.policy import Policy


def _path(data: Any, parts: Sequence[str], start: JsonPath = ()) -> JsonPath:
    """Pointer parts as a document path below `start`: list indexes as integers as far as the
    data goes, the parts past it as they are."""
    _, _, walked = resolve(data, parts)
    return (*start, *walked, *parts[len(walked) :])


def _get(data: Any, path: JsonPath) -> Any:
    for part in path:
        if isinstance(data, dict) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and part < len(data):
            data = data[part]
        else:
            return None
    return data


def side_from_toolset(checked: Checked) -> Side:
    """The diff side of a checked toolset (its IR must be present)."""
    toolset = checked.toolset
    if toolset is None:
        raise ValueError("the toolset has errors")
    doc = checked.document
    tools = {tool.name: tool.advertised for tool in toolset.tools}
    shared = {tool.name: tool.shared_def_names for tool in toolset.tools}
    index: dict[str, int] = {}
    if doc is not None and isinstance(doc.data, dict) and isinstance(doc.data.get("tools"), list):
        for i, raw in enumerate(doc.data["tools"]):
            if isinstance(raw, dict) and isinstance(raw.get("name"), str):
                index.setdefault(raw["name"], i)

    docs = {} if doc is None else {d.path.resolve(): d for d, _ in doc.bundled_from.values()}
    if doc is not None:
        docs[doc.path.resolve()] = doc

    def locate(tool: str, pointer: str) -> Location | None:
        if doc is None:
            return None
        parts = split(pointer)
        if parts is None:
            return None
        if tool == "":
            return _where(doc, _path(doc.data, parts))
        if tool not in index:
            return None
        base: JsonPath = ("tools", index[tool])
        if not parts or parts[0] not in ("inputSchema", "outputSchema"):
            return _where(doc, _path(_get(doc.data, base), parts, base))
        schema: JsonPath = (*base, parts[0])
        if len(parts) >= 3 and parts[1] in ("$defs", "definitions"):
            own = _get(doc.data, (*schema, parts[1]))
            name = parts[2]
            origin = doc.bundled_from.get((schema, name))
            if not (isinstance(own, dict) and name in own) and origin is not None:
                # copied from another file (or elsewhere in this one): located where it is written
                return _written(origin[0], docs, (), origin[1], parts[3:])
            if not (isinstance(own, dict) and name in own) and name in shared.get(tool, ()):
                return _written(doc, docs, (), ("$defs", name), parts[3:])
        return _written(doc, docs, schema, schema, parts[1:])

    asked = {tool.name: tool.elicitations for tool in toolset.tools if tool.elicitations}
    return Side(toolset.server_version, tools, locate, asked, server_name=toolset.server_name)


def _written(
    doc: Document, docs: dict[Path, Document], root: JsonPath, start: JsonPath, parts: Sequence[str]
) -> Location:
    """Where the schema at pointer `parts` below `start` in `doc` is written, following the `$ref`s
    on the way (into shared definitions, other files) as the bundled schema does; `root` is what
    the document's local pointers start from (a tool schema, or the document)."""
    path, node = start, _get(doc.data, start)
    hops = 0
    at = 0
    while at < len(parts):
        found, value, walked = resolve(node, parts[at : at + 1])
        if found:
            path, node = (*path, *walked), value
        elif isinstance(node, dict) and isinstance(node.get("$ref"), str) and hops < 64:
            target = _target(doc, docs, root, node["$ref"])
            if target is None:
                break
            doc, root, path = target
            node = _get(doc.data, path)
            hops += 1
            continue
        else:
            break
        at += 1
    return _where(doc, path)


def _target(
    doc: Document, docs: dict[Path, Document], root: JsonPath, ref: str
) -> tuple[Document, JsonPath, JsonPath] | None:
    """Where a `$ref` in `doc` points among the loaded documents: (document, local root, path)."""
    file_part, _, fragment = ref.partition("#")
    parts = split_fragment(fragment)
    if parts is None or "://" in file_part:
        return None
    if file_part:
        file = ref_file(doc.path.parent, file_part)
        found_doc = None if file is None else docs.get(file)
        if found_doc is None:
            return None
        doc, root = found_doc, ()
    found, _, path = resolve(_get(doc.data, root), parts)
    if found:
        return doc, root, (*root, *path)
    if root and len(parts) >= 2 and parts[0] in ("$defs", "definitions"):
        found, _, path = resolve(doc.data, ["$defs", *parts[1:]])  # the shared definitions
        if found:
            return doc, (), path
    return None


def _where(doc: Document, path: JsonPath) -> Location:
    """The key that holds a value when it is there; else the nearest written ancestor."""
    return doc.key_loc(path) if path and isinstance(path[-1], str) else doc.loc(path)


def load_side(spec: str, shown: str | None = None, policy: Policy | None = None) -> Side:
    """A diff side from a toolset file path (checked with the project's policy)."""
    from mcpstub.diagnostics import has_errors  # noqa: PLC0415
    from mcpstub.pipeline import check_toolset  # noqa: PLC0415

    path = Path(spec)
    if not path.is_file():
        raise SourceError(f"toolset file not found: {spec}")
    checked = check_toolset(path, shown or spec, policy)
    if has_errors(checked.diagnostics) or checked.toolset is None:
        for d in checked.diagnostics:
            print(d.format(), file=sys.stderr)
        message = f"{shown or spec} is not a valid toolset; fix it first (mcpstub validate)"
        raise SourceError(message, diagnostics=checked.diagnostics)
    return side_from_toolset(checked)
