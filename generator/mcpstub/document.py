"""Document: a loaded file's data, and where every value and mapping key of it is written.

`Document.loc(path)` and `key_loc(path)` find a JSON path's place in the file; the YAML node
graph behind them is composed only when a place is first asked for (`_compose_quietly`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from mcpstub.diagnostics import Location
from mcpstub.errortext import describe_path

try:
    _BaseLoader: type[Any] = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - PyYAML built without libyaml
    _BaseLoader = yaml.SafeLoader

# Untagged plain scalars get this tag, so `_scalar` resolves them by the YAML 1.2 core schema
# (PyYAML's 1.1 resolver would call `1e3` and `0o17` strings, and `!!str 5` looks the same).
_TAG_PLAIN = "tag:mcpstub,2026:plain"


class _Loader(_BaseLoader):  # type: ignore[misc]
    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            return _TAG_PLAIN
        return super().resolve(kind, value, implicit)


JsonPath = tuple[str | int, ...]

# Bounds on alias expansion: a document may reuse anchors, but not blow up.
MAX_ALIAS_NODES = 200_000  # nodes (a scalar: 1 per 64 characters) aliases may add beyond those written
MAX_DEPTH = 100  # far beyond any real schema; generated literals stay within Python's parser limit (200)


@dataclass
class Document:
    """A loaded file: its data and where every value and mapping key sits."""

    file: str  # as shown in diagnostics
    path: Path  # resolved path on disk
    data: Any = None
    text: str = ""
    _root: yaml.Node | None = field(default=None, repr=False)
    _lazy: bool = field(default=False, repr=False)  # the node graph is composed on first use
    # line -> columns of `text` just after each surrogate pair `_astral` rewrote (2 shorter each)
    _moves: dict[int, list[int]] = field(default_factory=dict, repr=False)
    # YAML line -> (line, column offset) in the file, where `text` holds a line break YAML counts
    # and an editor does not (`yaml_lines`); None where the two count alike.
    _breaks: list[tuple[int, int]] | None = field(default=None, repr=False)
    # True when the reader saw every number and each is one JSON can hold (finite, an integer
    # within a double's range); False when that is not known.
    finite: bool = field(default=False, repr=False)
    # The bytes read from the file: what was parsed, whatever the file holds by now.
    raw: bytes = field(default=b"", repr=False)
    # Set once a toolset is checked: where each definition bundled into a tool schema's `$defs`
    # is written, by (the schema's path here, its name there): the document and the path there.
    bundled_from: dict[tuple[JsonPath, str], tuple[Document, JsonPath]] = field(
        default_factory=dict, repr=False
    )
    # Set once a toolset is checked: the files its references loaded, by resolved path.
    referenced: dict[Path, Document] = field(default_factory=dict, repr=False)
    # Set once a toolset is checked: where each definition of another file that is a shared class
    # is written, by its shared name: the document and the path there.
    shared_from: dict[str, tuple[Document, JsonPath]] = field(default_factory=dict, repr=False)
    # What messages call the whole document: a file a reference reaches is named by its name.
    root_name: str = field(default="toolset", repr=False)

    def describe(self, path: JsonPath) -> str:
        """`('tools', 2, 'name')` -> `tools[2].name`; the empty path is the whole document."""
        return describe_path(path, self.root_name)

    @property
    def root(self) -> yaml.Node | None:
        """The composed node graph: positions are looked up on demand."""
        if self._lazy:
            self._lazy = False
            self._root = _compose_quietly(self.text)
        return self._root

    @root.setter
    def root(self, node: yaml.Node | None) -> None:
        self._root, self._lazy = node, False

    def _walk(self, path: JsonPath) -> tuple[yaml.Node | None, yaml.Node | None, bool]:
        """The deepest node along `path`, the key node holding it, and whether it is the end."""
        node, key_node = self.root, None
        for part in path:
            if isinstance(node, yaml.MappingNode) and isinstance(part, str):
                found = next((pair for pair in node.value if _is_key(pair[0], part)), None)
                if found is None:
                    return node, None, False
                key_node, node = found
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
                key_node, node = None, node.value[part]
            else:
                return node, None, False
        return node, key_node, True

    def loc(self, path: JsonPath) -> Location:
        """Where the value at `path` starts, or its nearest located ancestor."""
        node, _, _ = self._walk(path)
        return (
            self.written(_mark_loc(self.file, node.start_mark))
            if node is not None
            else Location(self.file, 1, 1)
        )

    def written(self, location: Location) -> Location:
        """A location in `text`, as the YAML reader counts lines, as a location in the file: where
        surrogate pairs were rewritten, and where YAML counted a line break an editor does not."""
        if location.file != self.file:
            return location
        moves = self._moves.get(location.line) if self._moves else None
        if moves:
            location = replace(location, col=location.col + 2 * sum(col <= location.col for col in moves))
        if self._breaks is not None and 0 < location.line <= len(self._breaks):
            line, offset = self._breaks[location.line - 1]
            location = replace(location, line=line, col=location.col + offset)
        return location

    @property
    def is_json(self) -> bool:
        """Whether the file is named as JSON (`.json`): it must be JSON, and hints speak JSON."""
        return self.path.suffix.lower() == ".json"

    def written_plain(self, path: JsonPath) -> bool:
        """True when the value at `path` is written as plain (unquoted) text."""
        node, _, complete = self._walk(path)
        return complete and node is not None and _is_plain(node)

    def holds_nothing(self, path: JsonPath) -> bool:
        """True when the key at `path` is written without a value (no `:`) in a `{...}` mapping:
        `{a: b, c}`, `{a: b, c }`. Spaces, line breaks and comments may follow it."""
        return self._bare_key(path)[0]

    def comma_cut(self, path: JsonPath) -> tuple[str, str] | None:
        """When the key at `path` is plain text a comma cut from the plain text before it in a
        `{...}` mapping (`{description: a,b}`, `{description: a, b, c}`): the key whose value was
        cut, and the text as written from that value to the last key the commas cut off (line
        breaks and comments as a quoted text would read them). None when the key is quoted,
        tagged, written with `?` or a `:`, or follows anything but plain text and a comma."""
        parent, _, complete = self._walk(path[:-1])
        key = path[-1] if path else None
        if not (complete and isinstance(parent, yaml.MappingNode) and isinstance(key, str)):
            return None
        at = next((i for i, (k, _) in enumerate(parent.value) if _is_key(k, key)), None)
        if at is None or not self._cut_key(parent, at):
            return None
        start = at
        while start > 0 and self._cut_key(parent, start - 1):
            start -= 1
        if start == 0:
            return None  # the first entry: no text before it to cut
        key_node, value = parent.value[start - 1]
        if not (isinstance(key_node, yaml.ScalarNode) and _is_plain(value) and value.value):
            return None
        end = at
        while end + 1 < len(parent.value) and self._cut_key(parent, end + 1):
            end += 1
        text = self.text[value.start_mark.index : value.end_mark.index]
        for i in range(start, end + 1):
            after = value if i == start else parent.value[i - 1][0]  # (an empty value has no place)
            gap = self.text[after.end_mark.index : parent.value[i][0].start_mark.index]
            text += _COMMENT.sub("", gap) + parent.value[i][0].value
        return key_node.value, _FOLD.sub(" ", text)

    def _bare_key(self, path: JsonPath) -> tuple[bool, yaml.Node | None]:
        """Whether the key at `path` is written without a value in a `{...}` mapping, and the
        value node of the entry before it (None for the first entry)."""
        parent, _, complete = self._walk(path[:-1])
        key = path[-1] if path else None
        flow = complete and isinstance(parent, yaml.MappingNode) and parent.flow_style
        if not (flow and isinstance(parent, yaml.MappingNode) and isinstance(key, str)):
            return False, None
        at = next((i for i, (k, _) in enumerate(parent.value) if _is_key(k, key)), None)
        if at is None:
            return False, None
        key_node, node = parent.value[at]
        if not (isinstance(node, yaml.ScalarNode) and node.value == "" and not node.style):
            return False, None
        if _FLOW_ENTRY_END.match(self.text, key_node.end_mark.index) is None:
            return False, None  # `c: ` has a value, written empty
        return True, parent.value[at - 1][1] if at else None

    def _cut_key(self, parent: yaml.MappingNode, at: int) -> bool:
        """Whether entry `at` of a `{...}` mapping is a plain key without a value, written right
        after a comma that follows the entry before it (spaces, line breaks, comments between)."""
        if not parent.flow_style or at == 0:
            return False
        key_node, node = parent.value[at]
        if not (_is_plain(node) and node.value == "" and _is_plain(key_node)):
            return False
        if self.text[key_node.start_mark.index : key_node.end_mark.index] != key_node.value:
            return False  # a tag, an anchor or an escape written on it
        if _FLOW_ENTRY_END.match(self.text, key_node.end_mark.index) is None:
            return False  # `c: ` has a value, written empty
        previous_key, previous = parent.value[at - 1]
        if _is_plain(previous) and previous.value == "":
            previous = previous_key  # a key without a value: its empty value has no place
        gap = self.text[previous.end_mark.index : key_node.start_mark.index]
        return _COMMA_GAP.fullmatch(gap) is not None

    def key_loc(self, path: JsonPath) -> Location:
        """Where the mapping key holding `path` starts (falls back to the value)."""
        node, key_node, complete = self._walk(path)
        if complete and key_node is not None:
            return self.written(_mark_loc(self.file, key_node.start_mark))
        return (
            self.written(_mark_loc(self.file, node.start_mark))
            if node is not None
            else Location(self.file, 1, 1)
        )


# What may follow a key written without a value in a `{...}` mapping: the end of the entry.
_FLOW_ENTRY_END = re.compile(r"(?:\s|#[^\n]*)*[,}]")


# Between a plain text and the key a comma cut from it: one comma, spaces, line breaks, comments.
_COMMA_GAP = re.compile(r"(?:\s|(?<=\s)#[^\n]*)*,(?:\s|(?<=\s)#[^\n]*)*")
_COMMENT = re.compile(r"(?<=\s)#[^\n]*")
# A line break with the spaces around it: one space in a quoted text.
_FOLD = re.compile(r"[ \t]*\n\s*")


def _is_plain(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and not node.style  # '' from libyaml: plain


def _is_key(node: yaml.Node, name: str) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.value == name


# Line breaks to the YAML reader (YAML 1.1) and to no editor: NEL, LS and PS.
YAML_ONLY_BREAKS = "\x85\u2028\u2029"
# The line breaks the YAML reader counts.
YAML_LINE_BREAK = re.compile(f"\r\n|[\r\n{YAML_ONLY_BREAKS}]")
_EDITOR_LINE_BREAK = re.compile("\r\n|[\r\n]")


def editor_lines(text: str) -> list[str]:
    """The lines of `text` as an editor shows them, and as locations count them (`Location.line`):
    NEL, LS and PS break none."""
    return _EDITOR_LINE_BREAK.split(text)


def yaml_lines(text: str) -> list[tuple[int, int]] | None:
    """For each line of `text` as the YAML reader counts them, the line it starts on as an editor
    counts them and the column it starts at there, less one; None where the two count alike."""
    if text.isascii() or not any(c in text for c in YAML_ONLY_BREAKS):
        return None
    lines, line, start = [(1, 0)], 1, 0
    for match in YAML_LINE_BREAK.finditer(text):
        if match[0] in YAML_ONLY_BREAKS:
            lines.append((line, match.end() - start))
        else:
            line, start = line + 1, match.end()
            lines.append((line, 0))
    return lines


def _mark_loc(file: str, mark: Any) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


def _compose_quietly(text: str) -> yaml.Node | None:
    """The node graph of text the fast path read (it composes without error); None if it fails."""
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError):  # pragma: no cover - the fast path excludes both
        return None
    return node


class Where:
    """Where a value of `doc` is written, at `base` then `rest`: its path and position are made
    only when needed (a diagnostic; a clean JSON toolset then never composes its YAML nodes)."""

    def __init__(self, doc: Document, base: JsonPath, rest: JsonPath = ()) -> None:
        self.doc, self._base, self._rest = doc, base, rest

    @property
    def base(self) -> JsonPath:
        """The path of the schema the value is in (where its `#` pointers start)."""
        return self._base

    @cached_property
    def path(self) -> JsonPath:
        """The value's path in its document."""
        return (*self._base, *self._rest) if self._rest else self._base

    @cached_property
    def location(self) -> Location:
        """The value's file:line:col."""
        return self.doc.loc(self.path)
