"""Load: a YAML (or JSON) file on disk -> plain JSON-like data plus the location of every node.

`load_document(path)` reads the file, composes it with PyYAML (C loader when available), and
converts the node graph to dicts, lists and scalars under the YAML 1.2 core schema (so `no` and
`2026-01-01` stay strings). Each value's and each mapping key's position is kept in a `Document`,
keyed by its JSON path. Problems come back as diagnostics, never as exceptions: bad UTF-8, tabs,
duplicate keys, an empty file, and alias bombs (expansion is bounded before it happens).

JSON text that YAML would read as exactly the same data, without a diagnostic, takes a fast path:
`json.loads` builds the data and the node graph is composed only when a position is asked for.
"""

from __future__ import annotations

import bisect
import json
import json.scanner
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import ComposerError

from mcpstub.diagnostics import Diagnostic, Location, error
from mcpstub.gcpause import gc_paused

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

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_BOOL_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?(?:\.inf|\.Inf|\.INF)$")
_NAN = re.compile(r"^(?:\.nan|\.NaN|\.NAN)$")

# The first characters of everything the core schema resolves to null, a boolean or a number.
_RESOLVED_START = frozenset("~nNtTfF-+.0123456789")

_TAG_STR = "tag:yaml.org,2002:str"
_TAG_MAP = "tag:yaml.org,2002:map"
_TAG_SEQ = "tag:yaml.org,2002:seq"
_SCALAR_TAGS = frozenset(
    {
        "tag:mcpstub,2026:plain",
        _TAG_STR,
        *(f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "null")),
    }
)


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
        """A location in `text` as a location in the file (where surrogate pairs were rewritten)."""
        moves = self._moves.get(location.line) if self._moves else None
        if not moves or location.file != self.file:
            return location
        return replace(location, col=location.col + 2 * sum(1 for col in moves if col <= location.col))

    def holds_nothing(self, path: JsonPath) -> bool:
        """True when the key at `path` is written without a value (no `:`) in a `{...}` mapping:
        `{a: b, c}`, `{a: b, c }`. Spaces, line breaks and comments may follow it."""
        return self._bare_key(path)[0]

    def cut_by_comma(self, path: JsonPath) -> bool:
        """True when the key at `path` is written without a value in a `{...}` mapping right after
        an entry whose value is unquoted text: `{description: a, b}`, where the comma ended the
        text and made `b` a key (quotes would have kept the comma in the text)."""
        return self.comma_cut(path) is not None

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


class _LoadFailed(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _mark_loc(file: str, mark: Any) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


def _offset_loc(file: str, data: bytes, offset: int) -> Location:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return Location(file, line, offset - start + 1)


def _decode(file: str, raw: bytes) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _LoadFailed(
            error(
                "invalid-utf8",
                f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})",
                _offset_loc(file, raw, exc.start),
                "save the file as UTF-8",
            )
        ) from None


def _yaml_error(file: str, text: str, exc: yaml.YAMLError) -> Diagnostic:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    loc = _mark_loc(file, mark) if mark is not None else Location(file, 1, 1)
    problem = getattr(exc, "problem", None) or str(exc)
    context = getattr(exc, "context", None)
    if "\t" in problem or _tab_at(text, loc):
        return error(
            "yaml-tab",
            "tab character used for indentation",
            loc,
            "YAML indentation must use spaces; replace the tab with spaces",
        )
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    return error("yaml-syntax", message, loc)


# A surrogate escape: a first half (and the second after it, if there), or a second half alone.
_SURROGATE = re.compile(r"\\u(d[89ab][0-9a-f]{2})(\\ud[c-f][0-9a-f]{2})?|\\ud[c-f][0-9a-f]{2}", re.IGNORECASE)


def _surrogate_error(doc: Document, text: str, exc: yaml.YAMLError) -> Diagnostic | None:
    """A surrogate escape the YAML reader refused (it points past the `\\u`), located at its
    backslash: in JSON one without its other half (pairs were rewritten, see `_astral`), in
    YAML any (YAML escapes a character beyond the BMP as `\\UXXXXXXXX`)."""
    mark = getattr(exc, "problem_mark", None)
    if mark is None or "escape code" not in str(getattr(exc, "problem", "")):
        return None
    escape = _SURROGATE.match(text, mark.index - 2)
    if escape is None:
        return None
    where = Location(doc.file, mark.line + 1, mark.column - 1)
    written = escape[0]
    if escape[2]:  # a whole pair, in YAML text
        high, low = int(written[2:6], 16) - 0xD800, int(written[8:12], 16) - 0xDC00
        return error(
            "surrogate-escape",
            f"the surrogate pair escape '{written}' is JSON's; YAML does not read it",
            where,
            f"write the character itself, or YAML's escape of it: \\U{0x10000 + (high << 10) + low:08X}",
        )
    json_text = doc.path.suffix.lower() == ".json" or _JSON_START.match(text) is not None
    half = "first" if escape[1] else "second"
    return error(
        "surrogate-escape",
        f"unpaired surrogate escape '{written}' in {'JSON' if json_text else 'a YAML string'}: it is the "
        f"{half} half of a character beyond U+FFFF, without the other",
        where,
        "write the character itself, "
        + ("or both halves of its pair (\\ud83d\\ude00 is U+1F600)" if json_text else "or its \\U escape"),
    )


def _tab_at(text: str, loc: Location) -> bool:
    lines = text.splitlines()
    if not 1 <= loc.line <= len(lines):
        return False
    line = lines[loc.line - 1]
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    return "\t" in indent


def _too_deep(file: str, mark: Any) -> _LoadFailed:
    return _LoadFailed(
        error("yaml-too-deep", f"document nests deeper than {MAX_DEPTH} levels", _mark_loc(file, mark))
    )


def _compose(file: str, text: str) -> tuple[yaml.Node | None, bool]:
    """The node graph of the single document in `text`, as `yaml.compose` builds it, and whether
    it holds an alias.

    One pass over libyaml's events, with no recursion (libyaml's own composer recurses on the C
    stack): nesting deeper than MAX_DEPTH is refused where it starts. A problem the composer finds
    (an undefined alias, a duplicate anchor, a second document) is raised only once the whole text
    has parsed, so a syntax error or deep nesting anywhere is what gets reported, as before.
    """
    loader = _Loader(text)
    scalar_event, alias_event, document_start = yaml.ScalarEvent, yaml.AliasEvent, yaml.DocumentStartEvent
    mapping_start, sequence_start = yaml.MappingStartEvent, yaml.SequenceStartEvent
    mapping_end, sequence_end, stream_end = yaml.MappingEndEvent, yaml.SequenceEndEvent, yaml.StreamEndEvent
    scalar_node, mapping_node, sequence_node = yaml.ScalarNode, yaml.MappingNode, yaml.SequenceNode
    try:
        next_event = loader.get_event
        anchors: dict[str, yaml.Node] = {}
        stack: list[yaml.Node] = []  # the open collections, innermost last
        keys: list[yaml.Node | None] = []  # per open collection: a mapping's key waiting for its value
        root: yaml.Node | None = None
        documents, depth, aliased = 0, 0, False
        failed: yaml.YAMLError | None = None
        while True:
            event = next_event()
            kind = type(event)
            node: yaml.Node
            if kind is scalar_event:
                if failed is not None:
                    continue
                tag = event.tag
                if tag is None or tag == "!":
                    tag = _TAG_PLAIN if event.implicit[0] else _TAG_STR
                node = scalar_node(tag, event.value, event.start_mark, event.end_mark, style=event.style)
            elif kind is mapping_start or kind is sequence_start:
                depth += 1
                if depth > MAX_DEPTH:
                    raise _too_deep(file, event.start_mark)
                if failed is not None:
                    continue
                tag = event.tag
                if kind is mapping_start:
                    node = mapping_node(
                        _TAG_MAP if tag is None or tag == "!" else tag,
                        [],
                        event.start_mark,
                        None,
                        flow_style=event.flow_style,
                    )
                else:
                    node = sequence_node(
                        _TAG_SEQ if tag is None or tag == "!" else tag,
                        [],
                        event.start_mark,
                        None,
                        flow_style=event.flow_style,
                    )
            elif kind is mapping_end or kind is sequence_end:
                depth -= 1
                if failed is None:
                    stack.pop().end_mark = event.end_mark
                    keys.pop()
                continue
            elif kind is alias_event:
                if failed is not None:
                    continue
                target = anchors.get(event.anchor)
                if target is None:
                    failed = ComposerError(None, None, "found undefined alias", event.start_mark)
                    continue
                aliased = True
                _attach(stack, keys, target)
                continue
            elif kind is document_start:
                documents += 1
                if documents > 1 and failed is None and root is not None:
                    failed = ComposerError(
                        "expected a single document in the stream",
                        root.start_mark,
                        "but found another document",
                        event.start_mark,
                    )
                continue
            elif kind is stream_end:
                break
            else:  # the stream's start, a document's end
                continue
            anchor = event.anchor
            if anchor is not None:
                if anchor in anchors:
                    failed = ComposerError(
                        "found duplicate anchor; first occurrence",
                        anchors[anchor].start_mark,
                        "second occurrence",
                        event.start_mark,
                    )
                    continue
                anchors[anchor] = node
            if not stack:
                root = node
            else:  # _attach, inline: this runs for every node
                parent = stack[-1]
                if type(parent) is sequence_node:
                    parent.value.append(node)
                elif keys[-1] is None:
                    keys[-1] = node
                else:
                    parent.value.append((keys[-1], node))
                    keys[-1] = None
            if kind is not scalar_event:
                stack.append(node)
                keys.append(None)
    finally:
        loader.dispose()
    if failed is not None:
        raise failed
    return root, aliased


class _NotPlain(Exception):
    """The document uses an anchor, alias, tag, non-scalar or merge key, or several documents."""


def _build(
    doc: Document, text: str, tools: _ToolLines | None = None, max_depth: int = MAX_DEPTH
) -> tuple[Any, list[Diagnostic]] | None:
    """The data and diagnostics of a plain YAML document (a mapping or sequence at the top, no
    anchors, aliases, tags, complex or merge keys: what a toolset is), read straight from libyaml's
    events with no node graph; None for any other document, which `_compose` reads instead.

    What it reports is what `_Converter` reports on the composed graph, in the same order: a
    duplicate key (its value skipped, and whatever is inside it), a number with too many digits.
    `tools`, if given, gets the lines each item of a block sequence under the top-level `tools`
    key is written on (see `_reread`).
    """
    file = doc.file
    loader = _Loader(text)
    scalar_event, mapping_start, sequence_start = (
        yaml.ScalarEvent,
        yaml.MappingStartEvent,
        yaml.SequenceStartEvent,
    )
    mapping_end, sequence_end = yaml.MappingEndEvent, yaml.SequenceEndEvent
    diagnostics: list[Diagnostic] = []
    # per open collection: [the dict or list (None when skipped), whether it is a mapping, the key
    # waiting for its value, where each of its keys was first written]
    stack: list[list[Any]] = []
    root: Any = None
    depth = 0
    resolved: dict[str, Any] = {}  # plain scalar text -> its value (repeats are common)
    tools_frame: list[Any] | None = None  # the frame of the top-level `tools` block sequence
    try:
        next_event = loader.get_event
        next_event()  # the stream's start
        if type(next_event()) is not yaml.DocumentStartEvent:
            return None
        while True:
            event = next_event()
            kind = type(event)
            if kind is mapping_end or kind is sequence_end:
                depth -= 1
                if tools is not None and stack[-1] is tools_frame:
                    mark = event.start_mark  # where the next top-level key, or the end, is
                    tools.end = mark.line + (mark.column > 0 and mark.index >= len(text))
                stack.pop()
                if not stack:
                    break
                continue
            if event.anchor is not None or event.tag is not None:  # (an alias has an anchor)
                raise _NotPlain
            frame = stack[-1] if stack else None
            if frame is not None and frame[1] and frame[2] is _NO_KEY:
                # a mapping's key: a plain string, never `<<`, reported when written twice
                if kind is not scalar_event:
                    raise _NotPlain
                key = event.value
                if key == "<<" and not event.style:
                    raise _NotPlain
                seen = frame[3]
                if key in seen:
                    if frame[0] is not None:
                        diagnostics.append(_duplicate_key(doc, key, seen[key], event.start_mark))
                    frame[2] = _SKIP
                else:
                    seen[key] = event.start_mark
                    frame[2] = key
                continue
            skipped = frame is not None and (frame[0] is None or frame[2] is _SKIP)
            if tools is not None and not skipped:
                if frame is not None and frame is tools_frame:
                    tools.starts.append(event.start_mark.line)
                elif kind is sequence_start and (
                    (frame is None and tools.at_top)
                    or (frame is not None and len(stack) == 1 and frame[1] and frame[2] == "tools")
                ):
                    tools.found = not event.flow_style
                    tools.dash = event.start_mark.column  # a block sequence starts at its first `-`
            if kind is scalar_event:
                if skipped:
                    value = None
                elif event.style or not event.implicit[0]:
                    value = event.value
                else:
                    text_value = event.value
                    value = resolved.get(text_value, _NO_KEY)
                    if value is _NO_KEY:
                        try:
                            value = _plain_scalar(text_value)
                        except ValueError:  # an integer beyond Python's digit limit for str -> int
                            diagnostics.append(_too_many_digits(file, event.start_mark))
                            value = None
                        else:
                            resolved[text_value] = value
                if frame is None:
                    return None  # a scalar document: `_compose` tells an empty one apart
            elif kind is mapping_start or kind is sequence_start:
                depth += 1
                if depth > max_depth:
                    raise _too_deep(file, event.start_mark)
                is_map = kind is mapping_start
                value = None if skipped else ({} if is_map else [])
                stack.append([value, is_map, _NO_KEY, {}])
                if tools is not None and tools.found is True and tools_frame is None:
                    tools_frame = stack[-1]
            else:  # an alias, a second document, or anything else
                raise _NotPlain
            if frame is None:
                root = value
            elif frame[1]:
                if not skipped:
                    frame[0][frame[2]] = value
                frame[2] = _NO_KEY
            elif not skipped:
                frame[0].append(value)
        if type(next_event()) is not yaml.DocumentEndEvent or type(next_event()) is not yaml.StreamEndEvent:
            return None  # another document follows
    except _NotPlain:
        return None
    finally:
        loader.dispose()
    return root, diagnostics


def _duplicate_key(doc: Document, key: str, first: Any, again: Any) -> Diagnostic:
    """A mapping key written again (`first` and `again` are where, as marks; the message names
    the first in the file as written, the location is mapped with every other, in `_parse`)."""
    prev = doc.written(_mark_loc(doc.file, first))
    return error(
        "duplicate-key",
        f"duplicate key {key!r} (first defined at line {prev.line}, column {prev.col})",
        _mark_loc(doc.file, again),
        "YAML would silently keep only the last one; remove or rename one of them",
    )


def _too_many_digits(file: str, mark: Any) -> Diagnostic:
    """An integer beyond Python's digit limit for str -> int."""
    return error("number-too-large", "number has too many digits", _mark_loc(file, mark))


_NO_KEY = object()  # a mapping waits for its next key
_SKIP = object()  # a mapping's key was written twice: its value is skipped


def _attach(stack: list[yaml.Node], keys: list[yaml.Node | None], node: yaml.Node) -> None:
    """Add `node` to the innermost open collection (as a key, or as the value of the last key)."""
    parent = stack[-1]
    if type(parent) is yaml.SequenceNode:
        parent.value.append(node)
    elif keys[-1] is None:
        keys[-1] = node
    else:
        parent.value.append((keys[-1], node))
        keys[-1] = None


def _check_expansion(file: str, root: yaml.Node) -> None:
    """Refuse recursive aliases, aliases that nest too deep, and aliases that multiply the data."""
    # node -> (weight once expanded, levels of mappings and sequences from it down); a node's
    # weight is 1, plus 1 per 64 characters of a scalar, so that long reused text counts too
    sizes: dict[int, tuple[int, int]] = {}
    active: set[int] = set()
    reused = 0  # weight that aliases add beyond what is written

    def too_deep(node: yaml.Node) -> _LoadFailed:
        return _LoadFailed(
            error(
                "yaml-too-deep",
                f"document nests deeper than {MAX_DEPTH} levels",
                _mark_loc(file, node.start_mark),
                "an alias counts as deep as what its anchor holds",
            )
        )

    def size(node: yaml.Node, depth: int) -> int:
        nonlocal reused
        key = id(node)
        cached = sizes.get(key)
        if cached is not None:  # an alias: its expansion is added again
            if depth + cached[1] > MAX_DEPTH:  # depth: mappings and sequences above the node
                raise too_deep(node)
            reused += cached[0]
            if reused > MAX_ALIAS_NODES:
                raise _LoadFailed(
                    error(
                        "yaml-alias-bomb",
                        f"aliases add more than {MAX_ALIAS_NODES:,} nodes to what is written",
                        _mark_loc(file, node.start_mark),
                        "anchors and aliases are allowed, but not reused so often that they multiply; "
                        "share schemas through $defs instead",
                    )
                )
            return cached[0]
        if isinstance(node, yaml.ScalarNode):
            weight = 1 + len(node.value) // 64
            sizes[key] = (weight, 0)
            return weight
        if key in active:
            raise _LoadFailed(
                error(
                    "yaml-recursive-alias",
                    "an alias refers to its own anchor",
                    _mark_loc(file, node.start_mark),
                )
            )
        if depth > MAX_DEPTH:
            raise too_deep(node)
        active.add(key)
        total, below = 1, 0
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                total += size(k, depth + 1) + size(v, depth + 1)
                height = sizes[id(v)][1]
                if height > below:  # noqa: PLR1730 - cheaper than max() on every node
                    below = height
        else:
            for item in node.value:
                total += size(item, depth + 1)
                height = sizes[id(item)][1]
                if height > below:  # noqa: PLR1730 - cheaper than max() on every node
                    below = height
        active.discard(key)
        sizes[key] = (total, below + 1)
        return total

    size(root, 0)


def _scalar(node: yaml.ScalarNode) -> Any:
    """Resolve a scalar with the YAML 1.2 core schema (no `yes`/`no` booleans, no dates)."""
    value: str = node.value
    if node.style or node.tag == _TAG_STR:  # quoted, block, or plainly a string
        return value
    return _plain_scalar(value)


def _plain_scalar(value: str) -> Any:
    """A plain scalar's value under the YAML 1.2 core schema."""
    if value and value[0] not in _RESOLVED_START:  # most plain text: no pattern below can match
        return value
    if _NULL.match(value):
        return None
    if _BOOL_TRUE.match(value):
        return True
    if _BOOL_FALSE.match(value):
        return False
    if _INT10.match(value):
        return int(value)
    if _INT8.match(value):
        return int(value[2:], 8)
    if _INT16.match(value):
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if _INF.match(value):
        return -math.inf if value.startswith("-") else math.inf
    if _NAN.match(value):
        return math.nan
    return value


class _Converter:
    """Turns a composed node graph into data, recording locations and duplicate keys."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.diagnostics: list[Diagnostic] = []

    def convert(self, node: yaml.Node) -> Any:
        if isinstance(node, yaml.ScalarNode):
            if node.tag not in _SCALAR_TAGS:
                self._bad_tag(node)
            try:
                return _scalar(node)
            except ValueError:  # an integer beyond Python's digit limit for str -> int
                self.diagnostics.append(_too_many_digits(self.doc.file, node.start_mark))
                return None
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _TAG_SEQ:
                self._bad_tag(node)
            return [self.convert(item) for item in node.value]
        if isinstance(node, yaml.MappingNode):
            if node.tag != _TAG_MAP:
                self._bad_tag(node)
            result: dict[str, Any] = {}
            first_seen: dict[str, yaml.Node] = {}
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    self.diagnostics.append(
                        error("yaml-key", "mapping keys must be plain strings", self._loc(key_node))
                    )
                    continue
                if key_node.tag == "tag:yaml.org,2002:merge" or (
                    key_node.value == "<<" and not key_node.style
                ):
                    self.diagnostics.append(
                        error(
                            "yaml-merge-key",
                            "merge keys (<<) are not supported",
                            self._loc(key_node),
                            "write the keys out",
                        )
                    )
                    continue
                key = key_node.value
                if key in first_seen:
                    self.diagnostics.append(
                        _duplicate_key(self.doc, key, first_seen[key].start_mark, key_node.start_mark)
                    )
                    continue
                first_seen[key] = key_node
                result[key] = self.convert(value_node)
            return result
        raise AssertionError(f"unexpected node {node!r}")  # pragma: no cover

    def _loc(self, node: yaml.Node) -> Location:
        return _mark_loc(self.doc.file, node.start_mark)

    def _bad_tag(self, node: yaml.Node) -> None:
        self.diagnostics.append(
            error(
                "yaml-tag",
                f"unsupported YAML tag {node.tag.replace('tag:yaml.org,2002:', '!!')}",
                self._loc(node),
                "remove the tag",
            )
        )


# A character beyond the BMP escaped as JSON writes it by default (`json.dumps`, ensure_ascii): a
# UTF-16 surrogate pair, `\ud83d\ude00`. JSON reads it as one character; a YAML reader refuses it,
# so in JSON text it is rewritten as YAML's own escape of the same character (`\U0001F600`, 2
# characters shorter) before reading. The backslash must not be escaped itself (`\\ud83d` is a
# backslash and text). A lone surrogate stays as written: the YAML reader reports where it is.
_SURROGATE_PAIR = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE
)


_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _astral(text: str, path: Path) -> tuple[str, dict[int, list[int]]]:
    """`text` with the surrogate pairs of JSON text rewritten for YAML, and where (see Document)."""
    if "\\" not in text or "\\u" not in text:  # (one character is found far faster than two)
        return text, {}
    if _JSON_START.match(text) is None or _SURROGATE_PAIR.search(text) is None:
        return text, {}
    if path.suffix.lower() != ".json":  # JSON by its content: a YAML scalar may hold `\u` as text
        try:
            json.loads(text)
        except (ValueError, RecursionError):
            return text, {}
    starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]  # where each line starts, as YAML counts
    parts: list[str] = []
    moves: dict[int, list[int]] = {}
    at = 0
    for match in _SURROGATE_PAIR.finditer(text):
        line = bisect.bisect_right(starts, match.start())
        high, low = int(match[2], 16) - 0xD800, int(match[3], 16) - 0xDC00
        parts += [text[at : match.start()], f"{match[1]}\\U{0x10000 + (high << 10) + low:08X}"]
        cols = moves.setdefault(line, [])
        # The rewritten text's column just after the escape (1-based), on this line.
        cols.append(match.end() - starts[line - 1] + 1 - 2 * (len(cols) + 1))
        at = match.end()
    return "".join(parts) + text[at:], moves


# The JSON fast path. JSON is YAML, but a YAML reader differs from `json.loads` on some JSON: it
# refuses duplicate keys, nesting beyond MAX_DEPTH, tabs, lone surrogate escapes (pairs: `_astral`),
# a key more than 1024 characters before its colon or on another line than it, and the characters
# below (some it refuses, some it reads as line breaks); it reads `NaN` and `Infinity` as strings.
# Text with any of these takes the YAML path, which reports each as it always has.
_NOT_YAML_ALIKE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_JSON_START = re.compile(r"[ \r\n]*[\[{]")
_NEWLINE_COLON = re.compile("\n:")
_SPACE_COLON = re.compile(" :")
_MAX_FAST_KEY = 150  # characters; written with \uXXXX escapes and a space, well under 1024


class _NotYamlAlike(Exception):
    """The JSON text holds something the YAML path reads differently or reports."""


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs) or (pairs and max(map(len, result)) > _MAX_FAST_KEY):
        raise _NotYamlAlike
    return result


def _json_constant(_name: str) -> Any:
    raise _NotYamlAlike


class _Numbers:
    """`json.loads` number hooks that note whether a number could be one JSON cannot hold: a
    float that is inf (1e400), an integer of more digits than a double's range has."""

    def __init__(self) -> None:
        self.finite = True

    def as_float(self, text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            self.finite = False
        return value

    def as_int(self, text: str) -> int:
        if len(text) > _DOUBLE_DIGITS:
            self.finite = False  # perhaps: the check looks at the value itself
        return int(text)


_DOUBLE_DIGITS = 300  # a double holds every integer below 10**308; this many digits or fewer fit


def _json_alike(text: str) -> bool:
    """Whether JSON text is free of what the YAML path reads otherwise or reports (see above)."""
    return not (
        "\t" in text
        # (One character is found many times faster than two; two faster by a regular expression.)
        or _NEWLINE_COLON.search(text) is not None
        or ("\r" in text and "\r:" in text)
        # At most one space between a key and its colon.
        or (_SPACE_COLON.search(text) is not None and text.count(" :") != text.count('" :'))
        or ("\x7f" in text if text.isascii() else _NOT_YAML_ALIKE.search(text) is not None)
        or (
            "\\" in text
            and "\\u" in text
            and _SURROGATE_ESCAPE.search(_SURROGATE_PAIR.sub("", text)) is not None
        )
    )


def _decoder(numbers: _Numbers) -> json.JSONDecoder:
    return json.JSONDecoder(
        object_pairs_hook=_json_object,
        parse_constant=_json_constant,
        parse_float=numbers.as_float,
        parse_int=numbers.as_int,
    )


def _json_data(text: str, spans: list[tuple[int, int]] | None = None) -> tuple[Any, bool] | None:
    """`(data, finite)` when `text` is JSON that the YAML path reads as the same data, without a
    diagnostic; `finite` is True when every number is one JSON can hold (see `_Numbers`).

    With `spans`, where each item of the top-level `tools` array starts and ends is put in it
    (nothing when there is no such array)."""
    if _JSON_START.match(text) is None or not _json_alike(text):
        return None
    numbers = _Numbers()
    try:
        data = _scan_tools(_scanner(numbers), text, spans) if spans is not None else None
        if data is None:
            data = _decoder(numbers).decode(text)
    # ValueError: not JSON, or too many digits; StopIteration: no value where one must be
    except (ValueError, StopIteration, RecursionError, _NotYamlAlike):
        return None
    return (data, numbers.finite) if _depth_within(data, MAX_DEPTH) else None


_SPACE = re.compile(r"[ \t\n\r]*")  # what JSON allows between tokens


def _skip(text: str, at: int) -> int:
    """Where the first character at or after `at` that is not JSON whitespace is."""
    found = _SPACE.match(text, at)
    return found.end() if found else at


# The JSON reader's own string and value scanners (its C ones, where built): `(value, end)`.
_scan_string: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_Scanner = Callable[[str, int], tuple[Any, int]]


def _scanner(numbers: _Numbers) -> _Scanner:
    scanner: _Scanner = json.scanner.make_scanner(_decoder(numbers))  # type: ignore[arg-type]
    return scanner


def _scan_tools(scan: _Scanner, text: str, spans: list[tuple[int, int]]) -> Any:
    """`text` as `json.loads` reads it where it is an object, read with the same scanner a value
    at a time, noting in `spans` where each item of its `tools` array starts and ends; None
    (`spans` left empty) when `text` is not an object."""
    at = _skip(text, 0)
    if not text.startswith("{", at):
        return None
    pairs: list[tuple[str, Any]] = []
    at = _skip(text, at + 1)
    while not text.startswith("}", at) or pairs:  # (a pair read: only the `break` below ends it)
        if not text.startswith('"', at):
            raise ValueError("a key expected")
        key, at = _scan_string(text, at + 1)
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise ValueError("a colon expected")
        at = _skip(text, at + 1)
        if key == "tools" and text.startswith("[", at) and not spans:
            value, at = _scan_items(scan, text, at, spans)
        else:
            value, at = scan(text, at)
        pairs.append((key, value))
        at = _skip(text, at)
        if text.startswith("}", at):
            break
        if not text.startswith(",", at):
            raise ValueError("a comma expected")
        at = _skip(text, at + 1)
    if _skip(text, at + 1) != len(text):
        raise ValueError("extra data")
    return _json_object(pairs)


def _scan_items(
    scan: _Scanner, text: str, at: int, spans: list[tuple[int, int]], end: int | None = None
) -> tuple[list[Any], int]:
    """The array starting at `text[at]` (`[`), its items' spans appended to `spans`; with `end`,
    the items from `at` (an item's start) to `end` (an item's end) instead, no brackets."""
    items: list[Any] = []
    if end is None:
        at = _skip(text, at + 1)
        if text.startswith("]", at):
            return items, at + 1
    while True:
        try:
            value, stop = scan(text, at)
        except StopIteration:
            raise ValueError("a value expected") from None
        items.append(value)
        spans.append((at, stop))
        if end is not None and stop >= end:
            if stop > end:
                raise ValueError("an item reaches past the part read")
            return items, stop
        at = _skip(text, stop)
        if end is None and text.startswith("]", at):
            return items, at + 1
        if not text.startswith(",", at):
            raise ValueError("a comma expected")
        at = _skip(text, at + 1)
        if end is not None and at >= end:
            raise ValueError("a value expected")


def _depth_within(data: Any, limit: int) -> bool:
    """True when lists and dicts nest at most `limit` deep."""
    level = [data] if isinstance(data, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return False
        below: list[Any] = []
        for value in level:
            items = value.values() if type(value) is dict else value
            kinds = set(map(type, items))  # at C speed: most lists (enums) hold no container
            if dict in kinds or list in kinds:
                below.extend(item for item in items if type(item) is dict or type(item) is list)
        level = below
    return True


def _compose_quietly(text: str) -> yaml.Node | None:
    """The node graph of text the fast path read (it composes without error); None if it fails."""
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=_Loader)
    except (yaml.YAMLError, RecursionError):  # pragma: no cover - the fast path excludes both
        return None
    return node


def parse_document(
    file: str, path: Path, raw: bytes, *, fast: bool = True
) -> tuple[Document, list[Diagnostic]]:
    """Parse bytes already read from `path`; `file` is the name shown in diagnostics.

    `fast=False` reads JSON through the YAML path too (the fast path's results are the same).
    """
    with gc_paused():
        return _parse(file, path, raw, fast=fast)


def _parse(file: str, path: Path, raw: bytes, *, fast: bool) -> tuple[Document, list[Diagnostic]]:
    doc = Document(file=file, path=path, raw=raw)
    doc, diagnostics = _parse_into(doc, raw, fast=fast)
    if doc._moves:
        diagnostics = [replace(d, location=doc.written(d.location)) for d in diagnostics]
    return doc, diagnostics


def _parse_into(doc: Document, raw: bytes, *, fast: bool) -> tuple[Document, list[Diagnostic]]:
    file = doc.file
    try:
        source = _decode(file, raw)
        text, doc._moves = _astral(source, doc.path)
        doc.text = text
        start = text.lstrip()[:1]  # where it is not a comment, there is more than comments
        if not start or (
            start == "#"
            and all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())
        ):
            raise _LoadFailed(error("empty-file", "file is empty", Location(file, 1, 1)))
        remembering = fast and _READS is not None and not doc._moves  # `--watch`
        if remembering:  # perhaps a save changed some tools
            json_again = _json_reread(doc, source)
            if json_again is not None:
                doc._lazy = True
                _keep(json_again)
                return doc, []
        spans: list[tuple[int, int]] = []
        found = _json_data(source, spans if remembering else None) if fast else None
        if found is not None:
            doc.data, doc.finite = found
            doc._lazy = True
            if spans:
                _keep(_JsonRead(doc, source, spans))
            return doc, []
        try:
            if _READS is not None and fast:  # a `--watch` session: perhaps one tool's lines changed
                again = _reread(doc, text)
                if again is not None:
                    doc._lazy = True
                    _keep(again)
                    return doc, []
            tools = _ToolLines() if _READS is not None else None
            built = _build(doc, text, tools)
            if built is not None:
                doc.data, doc._lazy = built[0], True
                if tools is not None and not built[1]:
                    _remember_read(doc, tools)
                return doc, built[1]
            node, aliased = _compose(file, text)
        except yaml.YAMLError as exc:
            raise _LoadFailed(_surrogate_error(doc, text, exc) or _yaml_error(file, text, exc)) from None
        if node is None or (isinstance(node, yaml.ScalarNode) and node.value == "" and not node.style):
            raise _LoadFailed(error("empty-file", "file holds no document", Location(file, 1, 1)))
        if aliased:  # without aliases, nothing is reused and the nesting is already bounded
            _check_expansion(file, node)
        converter = _Converter(doc)
        doc.root = node
        doc.data = converter.convert(node)
        return doc, converter.diagnostics
    except _LoadFailed as failed:
        return doc, [failed.diagnostic]
    except RecursionError:
        return doc, [error("yaml-too-deep", "document nests too deeply", Location(file, 1, 1))]


def _read(path: Path, shown: str) -> bytes | Diagnostic:
    try:
        return path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        return error("file-unreadable", f"cannot read file: {reason}", Location(shown, 1, 1))


def read_text(path: Path, file: str | None = None) -> tuple[str | None, list[Diagnostic]]:
    """A file's text as every reader takes it (UTF-8, a byte order mark dropped), or why not."""
    shown = file if file is not None else str(path)
    raw = _read(path, shown)
    if isinstance(raw, Diagnostic):
        return None, [raw]
    try:
        return _decode(shown, raw), []
    except _LoadFailed as failed:
        return None, [failed.diagnostic]


def load_document(path: Path, file: str | None = None) -> tuple[Document, list[Diagnostic]]:
    """Read and parse `path`; unreadable files become a diagnostic."""
    shown = file if file is not None else str(path)
    raw = _read(path, shown)
    if isinstance(raw, Diagnostic):
        return Document(file=shown, path=path), [raw]
    return parse_document(shown, path, raw)


@dataclass
class _ToolLines:
    """Where a YAML toolset writes its tools: the first line of each item of the top-level
    `tools` block sequence and the line after the last (0-based), as `_build` met them."""

    found: bool | None = None  # whether `tools` is a block sequence (None: not met)
    starts: list[int] = field(default_factory=list)
    end: int = -1
    at_top: bool = False  # the tools are the document's top-level sequence (a part read again)
    dash: int = -1  # the column of the sequence's `-` entries

    def entries(self, lines: list[str]) -> bool:
        """Whether each tool starts on the line of its own `-` entry, in the sequence's column,
        and the sequence ends after its last line: what a re-read relies on. (A `-` alone on its
        line, its tool below, does not: that tool starts on another line.)"""
        column = self.dash
        return (
            bool(self.found)
            and bool(self.starts)
            and column >= 0
            and self.starts[-1] < self.end <= len(lines)
            and all(
                lines[s][column : column + 2] == "- " and not lines[s][:column].strip(" ")
                for s in self.starts
            )
        )


@dataclass
class _Read:
    """A YAML toolset as last read, kept in a `--watch` session (`remember_reads()`)."""

    doc: Document
    lines: list[str]
    tools: _ToolLines


@dataclass
class _JsonRead:
    """A JSON toolset as last read, kept in a `--watch` session: its text, and where each item
    of its `tools` array starts and ends in it."""

    doc: Document
    text: str
    spans: list[tuple[int, int]]


# Each toolset's last plain read, by (path, name shown), once `remember_reads()` is called.
_READS: dict[tuple[Path, str], _Read | _JsonRead] | None = None
# Characters Python splits lines at but YAML does not, and those YAML 1.1 splits at too.
_ODD_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


def remember_reads() -> None:
    """Keep each toolset's last read, so that a save changing some tools re-reads only those (for
    `--watch`)."""
    global _READS  # noqa: PLW0603 - one switch for the process
    if _READS is None:
        _READS = {}


def _lines(text: str) -> list[str] | None:
    """`text`'s lines as YAML counts them, or None where Python could count otherwise."""
    if any(c in text for c in _ODD_BREAKS[:5]) or (
        not text.isascii() and any(c in text for c in _ODD_BREAKS[5:])
    ):
        return None
    return text.splitlines(keepends=True)


def _remember_read(doc: Document, tools: _ToolLines) -> None:
    if _READS is None:
        return
    key = (doc.path, doc.file)
    lines = _lines(doc.text)
    if lines is None or doc._moves or not tools.entries(lines):
        _READS.pop(key, None)
        return
    _keep(_Read(doc, lines, tools))


def _keep(read: _Read | _JsonRead) -> None:
    """Remember `read` as its file's last (in a `--watch` session)."""
    if _READS is not None:
        _READS[(read.doc.path, read.doc.file)] = read


def _reread(doc: Document, text: str) -> _Read | None:
    """`text` read from the last read of the same file where the two differ only within the
    lines of some consecutive tools: those lines are read on their own and those tools replaced,
    the rest kept. None when that does not hold: the caller reads the whole file.

    A tool's lines start with its `-` entry and end before the next one (or the next top-level
    key). When the first changed tool's first line and every line outside those tools are as they
    were, and the changed lines read on their own as a plain block sequence of one tool or more
    without a diagnostic, they read the same in the whole file: what could stay open past their
    end (a quote, a flow collection) fails that read instead, and the whole file is read.
    """
    last = _READS.get((doc.path, doc.file)) if _READS is not None else None
    if not isinstance(last, _Read) or doc._moves:
        return None
    lines = _lines(text)
    if lines is None:
        return None
    old = last.lines
    shortest = min(len(old), len(lines))
    first = 0  # the first line that differs
    while first < shortest and old[first] == lines[first]:
        first += 1
    same_end = 0  # how many lines at the end are the same, not counting those already matched
    while same_end < shortest - first and old[-1 - same_end] == lines[-1 - same_end]:
        same_end += 1
    if first == len(old) == len(lines):  # the same text
        doc.data, doc.finite = last.doc.data, last.doc.finite
        return _Read(doc, lines, last.tools)
    old_stop, delta = len(old) - same_end, len(lines) - len(old)
    starts, end = last.tools.starts, last.tools.end
    # The changed lines lie within the lines of tools `begin` to `stop - 1`: a whole number of
    # tools, whose first line (a `-` entry) is unchanged.
    begin = bisect.bisect_right(starts, first - 1) - 1
    stop = bisect.bisect_left(starts, old_stop, begin + 1)
    if begin < 0 or old_stop > end:
        return None
    window = (starts[begin], starts[stop] if stop < len(starts) else end)
    changed = lines[window[0] : window[1] + delta]
    if any(line.startswith(("---", "...", "%")) for line in changed):
        return None  # a document marker or directive: the whole file reads otherwise
    part = _ToolLines(at_top=True)
    try:
        built = _build(
            Document(file=doc.file, path=doc.path), "".join(changed), part, max_depth=MAX_DEPTH - 1
        )
    except Exception:  # any failure: the whole file is read, and reports it
        return None
    if built is None or built[1] or not isinstance(built[0], list) or not part.entries(changed):
        return None
    items: list[Any] = built[0]
    if len(items) != len(part.starts) or part.starts[0] != 0 or part.dash != last.tools.dash:
        return None
    from mcpstub.validate import all_finite  # noqa: PLC0415 - (it imports this module)

    _splice(doc, last.doc, begin, stop, items, finite=all_finite(items))
    kept = [*starts[:begin], *(window[0] + line for line in part.starts)]
    moved = _ToolLines(True, [*kept, *(line + delta for line in starts[stop:])], end + delta)
    moved.dash = last.tools.dash
    return _Read(doc, lines, moved)


def _splice(doc: Document, last: Document, begin: int, stop: int, items: list[Any], *, finite: bool) -> None:
    """`doc` holds `last`'s data with its tools `begin` to `stop - 1` replaced by `items` (read
    again; `finite`: whether their numbers are all ones JSON can hold)."""
    data = dict(last.data)
    data["tools"] = [*data["tools"][:begin], *items, *data["tools"][stop:]]
    doc.data, doc.finite = data, last.finite and finite


# Texts are compared this many characters at a time, then by halves within the first that differ.
_COMPARED = 1 << 16


def _same_start(a: str, b: str) -> int:
    """How many characters `a` and `b` start with alike."""
    shortest = min(len(a), len(b))
    at = 0
    while at < shortest and a[at : at + _COMPARED] == b[at : at + _COMPARED]:
        at += _COMPARED
    if at >= shortest:
        return shortest
    low, high = at, min(at + _COMPARED, shortest)  # a[:low] == b[:low]; they differ before `high`
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _same_end(a: str, b: str, limit: int) -> int:
    """How many characters `a` and `b` end with alike, at most `limit`."""
    at = 0
    while at < limit:
        step = min(_COMPARED, limit - at)
        if a[len(a) - at - step : len(a) - at] != b[len(b) - at - step : len(b) - at]:
            break
        at += step
    low, high = at, min(at + _COMPARED, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


def _json_reread(doc: Document, text: str) -> _JsonRead | None:
    """`text` read from the last read of the same JSON file where the two differ only within the
    items of some consecutive tools: those are read on their own and replaced, the rest kept.
    None when that does not hold: the caller reads the whole file.

    The text before the first changed item and after the last is as it was, so the reader meets
    it in the same state: reading the changed part on its own as items separated by commas,
    ending exactly where they did, is reading the whole text.
    """
    last = _READS.get((doc.path, doc.file)) if _READS is not None else None
    if not isinstance(last, _JsonRead):
        return None
    old, spans = last.text, last.spans
    if text == old:
        doc.data, doc.finite = last.doc.data, last.doc.finite
        return _JsonRead(doc, text, spans)
    first = _same_start(old, text)
    old_stop = len(old) - _same_end(old, text, min(len(old), len(text)) - first)
    delta = len(text) - len(old)
    # The changed characters lie within the items `begin` to `last_item`: the last starting at or
    # before the first change, to the first ending at or after the last change.
    begin = bisect.bisect_right(spans, first, key=lambda span: span[0]) - 1
    last_item = bisect.bisect_left(spans, old_stop, max(begin, 0), key=lambda span: span[1])
    if begin < 0 or last_item == len(spans):
        return None
    stop = last_item + 1
    start, end = spans[begin][0], spans[stop - 1][1] + delta
    if end <= start or not _json_alike(text[start:end]):
        return None
    numbers = _Numbers()
    found: list[tuple[int, int]] = []
    try:
        items, _ = _scan_items(_scanner(numbers), text, start, found, end)
    except (ValueError, StopIteration, RecursionError, _NotYamlAlike):
        return None
    if not _depth_within(items, MAX_DEPTH - 1):
        return None
    _splice(doc, last.doc, begin, stop, items, finite=numbers.finite)
    moved = [(a + delta, b + delta) for a, b in spans[stop:]]
    return _JsonRead(doc, text, [*spans[:begin], *found, *moved])
