"""A checked toolset as a diff side: the advertised tool wire objects and their places in the file.

`side_from_toolset(checked)` takes `pipeline.check_toolset`'s result. Tools are the advertised
`Tool` objects (schemas bundled, so self-contained); a pointer inside one is located in the
toolset file, and a pointer into a shared definition bundled into the tool's `$defs` is located
where that definition is written in the document-level `$defs`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcpstub.bundle import split_pointer
from mcpstub.diagnostics import Location
from mcpstub.diff.model import Side
from mcpstub.load import Document, JsonPath

if TYPE_CHECKING:
    from mcpstub.pipeline import Checked


def _path(data: Any, parts: list[str], start: JsonPath = ()) -> JsonPath:
    """Pointer parts as a document path (list indexes as integers), as far as the data goes."""
    path: list[str | int] = list(start)
    for part in parts:
        if isinstance(data, list) and part.isdigit():
            index = int(part)
            path.append(index)
            data = data[index] if index < len(data) else None
        else:
            path.append(part)
            data = data.get(part) if isinstance(data, dict) else None
    return tuple(path)


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

    def locate(tool: str, pointer: str) -> Location | None:
        if doc is None:
            return None
        parts = split_pointer(pointer)
        if parts is None:
            return None
        if tool == "":
            return _where(doc, _path(doc.data, parts))
        if tool not in index:
            return None
        base: JsonPath = ("tools", index[tool])
        if (
            len(parts) >= 3
            and parts[0] in ("inputSchema", "outputSchema")
            and parts[1] in ("$defs", "definitions")
        ):
            own = _get(doc.data, (*base, parts[0], parts[1]))
            name = parts[2]
            if not (isinstance(own, dict) and name in own) and name in shared.get(tool, ()):
                return _where(doc, _path(doc.data, ["$defs", *parts[2:]]))
        return _where(doc, _path(_get(doc.data, base), parts, base))

    return Side(toolset.server_version, tools, locate)


def _where(doc: Document, path: JsonPath) -> Location:
    """The key that holds a value when it is there; else the nearest written ancestor."""
    return doc.key_loc(path) if path and isinstance(path[-1], str) else doc.loc(path)
