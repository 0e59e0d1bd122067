"""YAML reading: text -> plain JSON-like data under the YAML 1.2 core schema, with diagnostics.

`_build` reads the usual toolset in one pass; anything it does not take (aliases, tags, odd
keys) is composed into a node graph and converted (`_compose`, `_Converter`), with alias
expansion bounded before it happens. Problems are `_LoadFailed` or diagnostics.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.composer import ComposerError

from mcpstub.diagnostics import Diagnostic, Location, error
from mcpstub.document import (
    _TAG_PLAIN,
    MAX_ALIAS_NODES,
    MAX_DEPTH,
    YAML_LINE_BREAK,
    YAML_ONLY_BREAKS,
    Document,
    _Loader,
    _mark_loc,
)
from mcpstub.engine.jsonread import _JSON_START
from mcpstub.yamlhints import Shown, explain

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


class _LoadFailed(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _offset_loc(file: str, data: bytes, offset: int) -> Location:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    return Location(file, line, offset - start + 1)


def _reader_loc(file: str, text: str, position: int) -> Location:
    """Where the YAML reader's `position` is: libyaml counts UTF-8 bytes, PyYAML characters."""
    if hasattr(yaml, "CSafeLoader") and issubclass(_Loader, yaml.CSafeLoader):
        data = text.encode("utf-8", "surrogatepass")[: max(position, 0)]
        before = data.decode("utf-8", "replace")
    else:
        before = text[: max(position, 0)]
    breaks = list(YAML_LINE_BREAK.finditer(before))  # lines as the YAML reader counts them
    return Location(file, len(breaks) + 1, len(before) - (breaks[-1].end() if breaks else 0) + 1)


def _decode(file: str, raw: bytes) -> str:
    if encoding := _wide_encoding(raw):  # as Windows editors save "Unicode"
        said = f"file is {encoding}, not UTF-8"
        raise _LoadFailed(error("invalid-utf8", said, Location(file, 1, 1), _AS_UTF8))
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        said = f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x})"
        raise _LoadFailed(error("invalid-utf8", said, _offset_loc(file, raw, exc.start), _AS_UTF8)) from None


_AS_UTF8 = "save the file as UTF-8"
_WIDE_MARKS = (("UTF-32", (b"\xff\xfe\0\0", b"\0\0\xfe\xff")), ("UTF-16", (b"\xff\xfe", b"\xfe\xff")))


def _wide_encoding(raw: bytes) -> str:
    """"UTF-16" or "UTF-32" where `raw` begins with that encoding's byte order mark or, with none,
    reads as text in it and has the zero bytes it writes: UTF-32 a zero in every fourth byte (no
    code point needs it), UTF-16 four at least, nine in ten of them in the high byte of a unit
    (ASCII's). Else "": UTF-8 text holds no zero byte but NUL, which YAML and JSON refuse."""
    for encoding, marks in _WIDE_MARKS:
        if raw.startswith(marks):
            return encoding
    if b"\0" not in raw:
        return ""
    whole = raw[: len(raw) - len(raw) % 4]  # (a byte added at the end by a UTF-8 editor or `echo`)
    for codec, high in (("utf-32-le", whole[3::4]), ("utf-32-be", whole[0::4])):
        if len(whole) >= 4 and high.count(0) == len(high) and _reads_as(whole, codec):
            return "UTF-32"
    even, odd = raw[0::2].count(0), raw[1::2].count(0)
    for codec, zeros, others in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if zeros >= 4 and zeros >= 9 * others and _reads_as(raw[: len(raw) - len(raw) % 2], codec):
            return "UTF-16"
    return ""


def _reads_as(raw: bytes, codec: str) -> bool:
    try:
        raw.decode(codec)
    except UnicodeDecodeError:
        return False
    return True


def _yaml_error(file: str, text: str, exc: yaml.YAMLError, shown: Shown | None = None) -> Diagnostic:
    """The diagnostic of a YAML reader's error; `shown` names a line of `text` as an editor does."""
    kind = "JSON" if file.lower().endswith(".json") else "YAML"
    if isinstance(exc, yaml.reader.ReaderError):  # a character YAML does not allow: no mark, an offset
        code = exc.character
        shown_code = f"U+{code:04X}" if isinstance(code, int) else repr(code)
        message = f"invalid {kind}: the character {shown_code} is not allowed here ({exc.reason})"
        hint = "remove it, or write it as an escape (\\xNN, \\uNNNN) in a double-quoted string"
        return error("yaml-syntax", message, _reader_loc(file, text, exc.position), hint)
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
    message = f"invalid {kind}: {problem}" + (f" ({context})" if context else "")
    odd = _odd_break_hint(text, mark.index if mark is not None else 0)
    explained = None if odd is not None else explain(text, exc, shown)  # (the break explains it)
    if explained is None:
        return error("yaml-syntax", message, loc, odd)
    said, (line, col), hint = explained
    return error("yaml-syntax", f"invalid {kind}: {said}", Location(file, line, col), hint)


def _odd_break_hint(text: str, index: int) -> str | None:
    """A hint where the line up to `index`, or the line before it outside quotes, holds a
    character YAML reads as a line break and an editor shows as none (NEL, LS, PS)."""
    start = max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1
    odd = next((c for c in text[start:index] if c in YAML_ONLY_BREAKS), None)
    which = "this line"
    if odd is None and start > 0:
        end = start - 2 if text[start - 2 : start] == "\r\n" else start - 1
        above = text[max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1 : end]
        unquoted = (
            c for i, c in enumerate(above) if above.count('"', 0, i) % 2 == 0 == above.count("'", 0, i) % 2
        )
        odd, which = next((c for c in unquoted if c in YAML_ONLY_BREAKS), None), "the line above"
    if odd is None:
        return None
    return (
        f"{which} holds U+{ord(odd):04X}, which YAML reads as a line break: remove it, or write it"
        f" as the escape \\u{ord(odd):04x} in a double-quoted string"
    )


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
    json_text = doc.is_json or _JSON_START.match(text) is not None
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
    indent = line[: len(line) - len(line.lstrip(" \t-"))]  # (and after a list entry's `-`)
    return "\t" in indent


def _too_deep(file: str, mark: Any) -> _LoadFailed:
    return _LoadFailed(
        error("yaml-too-deep", f"document nests deeper than {MAX_DEPTH} levels", _mark_loc(file, mark))
    )


def _compose(file: str, text: str) -> tuple[yaml.Node | None, bool]:
    """The node graph of the single document in `text`, as `yaml.compose` builds it, and whether it
    holds an alias. No recursion (libyaml's composer recurses on the C stack): nesting past MAX_DEPTH
    is refused where it starts. A composer problem (an undefined alias, a duplicate anchor, a second
    document) is raised only once the whole text parsed, so a syntax error anywhere is reported first."""
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
    """The data and diagnostics of a plain YAML document (a collection at the top; no anchors,
    aliases, tags, complex or merge keys), read from libyaml's events; None for any other, which
    `_compose` reads. It reports what `_Converter` would, in the same order. `tools` gets where the
    top-level `tools` items are written (see `reread`)."""
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
    """A key written again; the message names the first as written (`_parse` maps the location)."""
    prev = doc.written(_mark_loc(doc.file, first))
    return error(
        "duplicate-key",
        f"duplicate key {key!r} (first defined at line {prev.line}, column {prev.col})",
        _mark_loc(doc.file, again),
        "YAML would silently keep only the last one; remove or rename one of them",
    )


def _too_many_digits(file: str, mark: Any) -> Diagnostic:
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
    if _NULL.fullmatch(value):
        return None
    if _BOOL_TRUE.fullmatch(value):
        return True
    if _BOOL_FALSE.fullmatch(value):
        return False
    if _INT10.fullmatch(value):
        return int(value)
    if _INT8.fullmatch(value):
        return int(value[2:], 8)
    if _INT16.fullmatch(value):
        return int(value[2:], 16)
    if _FLOAT.fullmatch(value):
        return float(value)
    if _INF.fullmatch(value):
        return -math.inf if value.startswith("-") else math.inf
    if _NAN.fullmatch(value):
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
                "remove the tag"
                + (
                    f', or quote the value if the "!" is text: {json.dumps(f"{node.tag} {node.value}")}'
                    if isinstance(node, yaml.ScalarNode) and not node.tag.startswith("tag:")
                    else ""
                ),
            )
        )


@dataclass
class _ToolLines:
    """The first line of each item of the top-level `tools` block sequence, and the line after (0-based)."""

    found: bool | None = None  # whether `tools` is a block sequence (None: not met)
    starts: list[int] = field(default_factory=list)
    end: int = -1
    at_top: bool = False  # the tools are the document's top-level sequence (a part read again)
    dash: int = -1  # the column of the sequence's `-` entries

    def entries(self, lines: list[str]) -> bool:
        """Whether each tool starts on the line of its own `-` entry (not a `-` alone on its line), in
        the sequence's column, and the sequence ends after its last line: what a re-read relies on."""
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
