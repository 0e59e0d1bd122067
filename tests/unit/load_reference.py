"""The loader's YAML path as it was before it composed from events in one pass: kept as the
oracle the current loader must agree with (tests/unit/test_load_yaml_paths.py), not used by mcpstub."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mcpstub import load, yamlread
from mcpstub.diagnostics import Diagnostic, Location, error
from mcpstub.load import _surrogate_error
from mcpstub.yamlhints import explain
from mcpstub.yamlread import _odd_break_hint

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
    root: yaml.Node | None = None  # the composed node graph: positions are looked up on demand
    text: str = ""

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
        return _mark_loc(self.file, node.start_mark) if node is not None else Location(self.file, 1, 1)

    def key_loc(self, path: JsonPath) -> Location:
        """Where the mapping key holding `path` starts (falls back to the value)."""
        node, key_node, complete = self._walk(path)
        if complete and key_node is not None:
            return _mark_loc(self.file, key_node.start_mark)
        return _mark_loc(self.file, node.start_mark) if node is not None else Location(self.file, 1, 1)


def _is_key(node: yaml.Node, name: str) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.value == name


class _LoadFailed(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def _mark_loc(file: str, mark: Any) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


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
    odd = _odd_break_hint(text, mark.index if mark is not None else 0)
    explained = None if odd else explain(text, exc)  # (the writer's words, as the loader gives them)
    if explained is None:
        return error("yaml-syntax", message, loc)
    said, (line, col), hint = explained
    return error("yaml-syntax", f"invalid YAML: {said}", Location(file, line, col), hint)


def _tab_at(text: str, loc: Location) -> bool:
    lines = text.splitlines()
    if not 1 <= loc.line <= len(lines):
        return False
    line = lines[loc.line - 1]
    indent = line[: len(line) - len(line.lstrip(" \t-"))]  # (and after a list entry's `-`)
    return "\t" in indent


def _check_depth(file: str, text: str) -> None:
    """Refuse deep nesting before composing: libyaml's composer recurses on the C stack."""
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise _LoadFailed(
                    error(
                        "yaml-too-deep",
                        f"document nests deeper than {MAX_DEPTH} levels",
                        _mark_loc(file, event.start_mark),
                    )
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


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
                self.diagnostics.append(
                    error("number-too-large", "number has too many digits", self._loc(node))
                )
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
                    prev = self._loc(first_seen[key])
                    self.diagnostics.append(
                        error(
                            "duplicate-key",
                            f"duplicate key {key!r} (first defined at line {prev.line}, column {prev.col})",
                            self._loc(key_node),
                            "YAML would silently keep only the last one; remove or rename one of them",
                        )
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


def parse_document(file: str, path: Path, raw: bytes) -> tuple[Document, list[Diagnostic]]:
    """Parse bytes already read from `path`; `file` is the name shown in diagnostics."""
    doc = Document(file=file, path=path)
    try:
        try:  # (decoding is not what this is the oracle of: the loader's own)
            text = yamlread._decode(file, raw)
        except yamlread._LoadFailed as exc:
            raise _LoadFailed(exc.diagnostic) from None
        doc.text = text
        if not text.strip() or all(
            not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()
        ):
            raise _LoadFailed(error("empty-file", "file is empty", Location(file, 1, 1)))
        try:
            _check_depth(file, text)
            node = yaml.compose(text, Loader=_Loader)
        except yaml.YAMLError as exc:
            # A surrogate escape is reported at its backslash, as what it is, since the loader
            # learnt to tell it apart: the oracle says the same.
            surrogate = _surrogate_error(load.Document(file=file, path=path), text, exc)
            raise _LoadFailed(surrogate or _yaml_error(file, text, exc)) from None
        if node is None or (isinstance(node, yaml.ScalarNode) and node.value == "" and not node.style):
            raise _LoadFailed(error("empty-file", "file holds no document", Location(file, 1, 1)))
        _check_expansion(file, node)
        converter = _Converter(doc)
        doc.root = node
        doc.data = converter.convert(node)
        return doc, converter.diagnostics
    except _LoadFailed as failed:
        return doc, [failed.diagnostic]
    except RecursionError:
        return doc, [error("yaml-too-deep", "document nests too deeply", Location(file, 1, 1))]


def load_document(path: Path, file: str | None = None) -> tuple[Document, list[Diagnostic]]:
    """Read and parse `path`; unreadable files become a diagnostic."""
    shown = file if file is not None else str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        return Document(file=shown, path=path), [
            error("file-unreadable", f"cannot read file: {reason}", Location(shown, 1, 1))
        ]
    return parse_document(shown, path, raw)
