"""Bundle: make one tool schema self-contained, as it is advertised.

`bundle_schema` takes a tool's input or output schema as written and returns a copy in which every
reference that leaves the schema (to the toolset's shared `$defs` or to a relative local file) is
copied into the schema's own `$defs` (`definitions` for draft-07) and pointed at there. Refs inside
the schema stay as written. Remote refs, unresolvable refs and cycles of bare refs are diagnostics
(an unresolved one names the close name it may mean). A definition of another file gets one name
for the whole toolset when first copied (`share`), so that, as the toolset's own definitions, it is
one shared class (`shared_definitions`).
"""

from __future__ import annotations

import difflib
import errno
import json
import marshal
import os
import posixpath
import re
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote

from mcpstub.containment import LOOP, broken_link, check_ref_file
from mcpstub.diagnostics import Diagnostic, error, warning
from mcpstub.document import Document, JsonPath, Where
from mcpstub.errortext import close_file
from mcpstub.ir import definitions_key
from mcpstub.keywords import DEFS_KEYWORDS, closest, position, subschemas
from mcpstub.pointers import (
    percent_decoded,
    ref_file,
    resolve,
    split,
    split_fragment,
    to_fragment,
    to_pointer,
)

_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default", "deprecated"})
# Keywords that apply their schemas to the very value the schema applies to (not to a part of it).
_IN_PLACE_ONE = frozenset({"not", "if", "then", "else"})
_IN_PLACE_LIST = frozenset({"allOf", "anyOf", "oneOf"})
_IN_PLACE_MAP = frozenset({"dependentSchemas", "dependencies"})
_IN_PLACE = _IN_PLACE_ONE | _IN_PLACE_LIST | _IN_PLACE_MAP
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

_PERCENT_HINT = "in a reference `%` begins two hex digits of UTF-8: write a `%` of the name as %25"
# What references may copy into tool schemas, in all: a small toolset must not expand into a
# huge build (the same big definition bundled into many tools).
MAX_COPIED_BYTES = 8_000_000

LoadFile = Callable[[Path], tuple[Document | None, list[Diagnostic]]]


def iter_refs(schema: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, str]]:
    """Yield (path of the `$ref` value, ref string) for every reference in a schema."""
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        yield (*path, "$ref"), ref
    for key, at, sub in subschemas(schema):
        yield from iter_refs(sub, (*path, key) if at is None else (*path, key, at))


@lru_cache(maxsize=4096)
def definition_pointer(defs_key: str, name: str, rest: tuple[str, ...] = ()) -> str:
    """`#/$defs/NAME/rest...`, as a `$ref` fragment."""
    return to_fragment((defs_key, name, *rest))


@dataclass
class _Target:
    doc: Document
    unit: JsonPath  # the part copied into $defs
    rest: list[str]  # pointer below the unit


# What bundling a schema has yet to look through: the document, the path there and value of a
# schema or unit, its references (None: found by walking it), and for a unit its name in `$defs`
# and the bytes of its value (`value_bytes`).
_Queued = tuple[Document, JsonPath, Any, "list[tuple[JsonPath, str]] | None", "tuple[str, bytes] | None"]


_Resolved = tuple[Document, _Target, Any, int, tuple[str, JsonPath], tuple[str, ...]]


@dataclass
class _State:
    """What bundling one tool schema has done so far."""

    original: Any
    schema_path: JsonPath
    defs_key: str
    taken: set[str]
    names: dict[tuple[str, JsonPath], str] = field(default_factory=dict)  # by (file, unit)
    shared: set[str] = field(default_factory=set)
    added: dict[str, Any] = field(default_factory=dict)


@dataclass
class Bundler:
    """Bundles the schemas of one toolset; shares loaded files between tools."""

    toolset: Document
    load_file: LoadFile
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: dict[Path, Document] = field(default_factory=dict)
    # Each way a reference reached a file, in the order met, as a path from the toolset's folder,
    # and the file it led to (None: none there). The toolset's references as written, symlinks not
    # followed (`schemas/common.yaml`); a referenced file's, from the folder the file really is in
    # (where they are resolved from). Read this way, a path leads where the check was led while no
    # symlink changes; what changes one changes where it leads.
    routes: dict[str, Path | None] = field(default_factory=dict)
    root: Path | None = None  # the folder file references may reach; None: the toolset's own
    # Files beside a document whose reference did not resolve, read for a hint (`_beside`).
    _beside_read: dict[Path, list[tuple[Path, Any]]] = field(default_factory=dict)
    copied_bytes: int = 0  # JSON text of the definitions copied into tool schemas so far
    # where each definition copied into a schema's `$defs` is written, by (the schema's path in the
    # toolset, its name there): the document and the path of what was copied
    origins: dict[tuple[JsonPath, str], tuple[Document, JsonPath]] = field(default_factory=dict)
    # A definition of another file is one shared class, as a definition of the toolset is: `share`
    # names it (given the name it wants; "" for none) when it is first copied, and a schema shares
    # it where its copy has that name. The names, by (file, the unit's path there):
    share: Callable[[str], str] | None = None
    shared_files: dict[tuple[str, JsonPath], str] = field(default_factory=dict)
    # each unit copied so far, by (id of its document, its path there): its JSON size, a
    # `value_bytes`, its refs
    _units: dict[tuple[int, JsonPath], tuple[int, bytes, list[tuple[JsonPath, str]]]] = field(
        default_factory=dict, init=False, repr=False
    )
    # refs already resolved, by (id of the document holding the ref, ref): the target, its value,
    # how many files were loaded then (valid while no file has been loaded since: a cycle through
    # a file shows only once it is loaded), the target's key in a schema's names and the pointer
    # below its unit
    _resolved: dict[tuple[int, str], _Resolved] = field(default_factory=dict, init=False, repr=False)
    # whether the schema holding a `$ref` (by id of its document, its path there) comes back to
    # itself in place; valid while no file has been loaded since
    _loops: dict[tuple[int, JsonPath], tuple[bool, int]] = field(default_factory=dict, init=False, repr=False)

    @property
    def over_budget(self) -> bool:
        """True once bundling has copied more than it may: later schemas are not bundled."""
        return self.copied_bytes > MAX_COPIED_BYTES

    _root: Path | None = field(default=None, init=False, repr=False)
    _base: Path = field(default=Path(), init=False, repr=False)  # the toolset's folder, resolved

    def bundle_schema(self, schema_path: JsonPath, dialect: str) -> tuple[dict[str, Any], frozenset[str]]:
        """A self-contained copy of the schema at `schema_path`, and the shared def names it took."""
        original = _get(self.toolset.data, schema_path)
        result: dict[str, Any] = _copy(original)
        if self.over_budget:  # reported once, where the budget ran out
            return result, frozenset()
        defs_key = definitions_key(dialect)
        own_defs = result.get(defs_key)
        state = _State(
            original, schema_path, defs_key, set(own_defs) if isinstance(own_defs, dict) else set()
        )
        queue: list[_Queued] = [(self.toolset, schema_path, result, None, None)]
        while queue:
            doc, base, node, refs, unit = queue.pop()
            changed: list[tuple[JsonPath, str]] = []
            for ref_path, ref in refs if refs is not None else list(iter_refs(node)):
                new_ref = self._rewrite(state, doc, base, ref_path, ref, queue)
                if new_ref is not None and new_ref != ref:
                    changed.append((ref_path, new_ref))
            if changed and unit is not None:
                # A unit is the very object read, shared by every schema that takes it as it
                # is (nothing changes it once read); one whose references are written anew
                # here is a copy of its own.
                node = state.added[unit[0]] = marshal.loads(unit[1])
            for ref_path, new_ref in changed:
                _set(node, ref_path, new_ref)
        if state.added and isinstance(result.setdefault(defs_key, {}), dict):
            result[defs_key].update(state.added)  # (not an object: the meta-schema check says so)
        return result, frozenset(state.shared)

    def _rewrite(
        self,
        state: _State,
        doc: Document,
        base: JsonPath,
        ref_path: JsonPath,
        ref: str,
        queue: list[_Queued],
    ) -> str | None:
        root_schema = state.original if doc is self.toolset and base == state.schema_path else None
        resolved = None if root_schema is not None else self._resolved.get((id(doc), ref))
        if resolved is not None and resolved[3] == len(self.files):
            target_doc, target, value, _, key, rest = resolved
            name = state.names.get(key)
            if name is not None:  # (the common case: a definition this schema has taken already)
                return definition_pointer(state.defs_key, name, rest)
            loc = Where(doc, base, ref_path)
        else:
            loc = Where(doc, base, ref_path)
            found_target = self._resolve(doc, ref, root_schema, loc)
            if found_target is None or isinstance(found_target, str):
                return found_target
            target_doc, target, value = found_target
            key, rest = (str(target_doc.path), target.unit), tuple(target.rest)
            if root_schema is None:  # the same ref from the same file resolves the same way again
                self._resolved[(id(doc), ref)] = (*found_target, len(self.files), key, rest)
            name = state.names.get(key)
            if name is not None:
                return definition_pointer(state.defs_key, name, rest)
        is_shared = target_doc is self.toolset and len(target.unit) == 2 and target.unit[0] == "$defs"
        wanted = str(target.unit[-1]) if target.unit else Path(target_doc.path).stem
        # Its name for the whole toolset, whichever definition a schema copies first: the toolset's
        # own by its name, another file's by the name `share` gave it (`Item2` beside the toolset's
        # `Item`), so that each is one shared class. A name the schema's own definitions hold
        # already makes a copy of its own, numbered past the names other files' definitions share.
        shared_name = None
        if not is_shared and self.share is not None:
            shared_name = self.shared_files.get(key)
            if shared_name is None:
                shared_name = self.shared_files[key] = self.share(wanted)
        name = shared_name or wanted
        counter = 2
        shared_names = self.shared_files.values()
        while name in state.taken or (name not in (shared_name, wanted) and name in shared_names):
            name = f"{wanted}{counter}"  # (a number no other file's shared definition is named by)
            counter += 1
        state.taken.add(name)
        state.names[key] = name
        self.origins[(state.schema_path, name)] = (target_doc, target.unit)
        if (is_shared and name == wanted) or (shared_name is not None and name == shared_name):
            state.shared.add(name)
        size, frozen, refs = self._unit((id(target_doc), target.unit), value)
        self.copied_bytes += size
        if self.copied_bytes > MAX_COPIED_BYTES:
            self.diagnostics.append(
                error(
                    "expansion-too-large",
                    f"bundling {ref!r} into every tool that uses it would copy more than "
                    f"{MAX_COPIED_BYTES // 1_000_000} MB of definitions",
                    loc.location,
                    "a shared definition is copied into each tool schema that references it; "
                    "make it smaller or reference it from fewer tools",
                )
            )
            return None
        state.added[name] = value
        queue.append((target_doc, target.unit, value, refs, (name, frozen)))
        return definition_pointer(state.defs_key, name, rest)

    def shared_definitions(self) -> dict[str, Any]:
        """The definitions of other files that are shared classes (`share`), by name, each as
        shared definitions refer to one another (`pointing_at_shared`)."""
        found: dict[str, Any] = {}
        for name, (doc, unit) in self.shared_origins().items():
            ok, value, _ = resolve(doc.data, [str(p) for p in unit])
            if ok:
                found[name] = self.pointing_at_shared(doc, value)
        return found

    def shared_origins(self) -> dict[str, tuple[Document, JsonPath]]:
        """Where each definition of another file that is a shared class is written, by its name."""
        found: dict[str, tuple[Document, JsonPath]] = {}
        for (path, unit), name in self.shared_files.items():
            doc = self.toolset if path == str(self.toolset.path) else self.files.get(Path(path))
            if name and doc is not None:
                found[name] = (doc, unit)
        return found

    def pointing_at_shared(self, doc: Document, schema: Any) -> Any:
        """`schema` (a definition written in `doc`) with each reference to a shared definition
        (the toolset's, or another file's that `shared_definitions` holds) written
        `#/$defs/NAME[/...]`; the toolset's own references stay as written."""
        refs = [
            (path, ref) for path, ref in iter_refs(schema) if doc is not self.toolset or ref.partition("#")[0]
        ]
        if not refs:
            return schema
        copy = _copy(schema)
        before = len(self.diagnostics)  # every reference resolved while bundling: nothing to say
        for ref_path, ref in refs:
            target = self._resolve(doc, ref, None, Where(doc, (), ref_path))
            if target is None or isinstance(target, str):
                continue
            target_doc, unit, _ = target
            if target_doc is self.toolset and len(unit.unit) == 2 and unit.unit[0] == "$defs":
                name = str(unit.unit[1])
            else:
                name = self.shared_files.get((str(target_doc.path), unit.unit), "")
            if name:
                _set(copy, ref_path, definition_pointer("$defs", name, tuple(unit.rest)))
        del self.diagnostics[before:]
        return copy

    def _resolve(
        self, doc: Document, ref: str, root_schema: Any, loc: Where
    ) -> tuple[Document, _Target, Any] | str | None:
        """Where `ref` (in `doc`) points: the document, unit and unit's value; `ref` itself when it
        points inside the tool schema; None, with a diagnostic, when it points nowhere usable."""
        file_part, _, fragment = ref.partition("#")
        if _SCHEME.match(file_part):
            self.diagnostics.append(
                error(
                    "remote-ref",
                    f"remote reference {ref!r} is not allowed",
                    loc.location,
                    "a build never touches the network: copy the schema into $defs or a local file",
                )
            )
            return None
        parts = split_fragment(fragment)
        if parts is None:
            decoded = percent_decoded(fragment)
            if decoded is None:
                said, hint = "has a malformed percent-escape", _PERCENT_HINT
            elif decoded.startswith("/"):
                said, hint = "has a `~` that escapes nothing", "in a JSON pointer `~` is written ~0, `/` ~1"
            else:
                said = "is not a JSON pointer"
                hint = f"anchors are not supported; use {file_part}#/$defs/NAME"
            self.diagnostics.append(error("unsupported-ref", f"reference {ref!r} {said}", loc.location, hint))
            return None
        if file_part and len(parts) >= 2 and parts[0] == "$defs" and self._names_toolset(doc, file_part):
            # A definition of the toolset named through its own file: the one `#/$defs/...` names
            # (one class, not a second copy), read as that is (no file of its own). A route to it by
            # another name (a link, `v/tools.yaml`) is one: what the name leads to may change.
            target_doc = self.toolset
            route = self._route(doc, percent_decoded(file_part) or file_part)
            if route != self.toolset.path.name:
                self.routes[route] = self.toolset.path.resolve()
        elif file_part:
            loaded = self._file(doc, file_part, loc)
            if loaded is None:
                return None
            target_doc = loaded
        else:
            target_doc = doc
            if root_schema is not None:
                found, value, _ = resolve(root_schema, parts)
                if found:  # a pointer inside the tool schema itself
                    if self._definitions(ref, parts, value, loc, loc.base):
                        return None
                    if not isinstance(value, dict | bool):
                        self._not_schema(ref, value, loc)
                    elif self._is_cycle(doc, root_schema, parts):
                        self._cycle(ref, loc)
                    elif self._loops_in_place(doc, loc.path, value):
                        self._loop(ref, loc)
                    return ref
                at_toolset = resolve(target_doc.data, parts)
                if at_toolset[0] and self._definitions(ref, parts, at_toolset[1], loc, ()):
                    return None
                if not (len(parts) >= 2 and parts[0] in ("$defs", "definitions")):
                    tries: list[tuple[Any, Sequence[str]]] = [(root_schema, parts)]
                    close = _close_pointer(target_doc.data, parts, ref) or ""
                    if close.startswith(("/$defs/", "/definitions/")):  # (`#/defs/X`: the toolset's)
                        tries.append((target_doc.data, parts))
                    self._unresolved(ref, loc, tries, doc)
                    return None
                parts = ("$defs", *parts[1:])  # the toolset's shared definitions
        target = self._target(target_doc, parts)
        found, value, _ = resolve(target_doc.data, [str(p) for p in target.unit])
        found_rest, pointed, _ = resolve(value, target.rest) if found else (False, None, ())
        if not found_rest:
            own = [(root_schema, parts)] if root_schema is not None else []
            self._unresolved(ref, loc, [*own, (target_doc.data, parts)], doc)
            return None
        if self._definitions(ref, parts, pointed, loc, () if target_doc is doc else None):
            return None
        if not isinstance(pointed, dict | bool):
            self._not_schema(ref, pointed, loc)
            return None
        if self._is_cycle(target_doc, target_doc.data, parts):
            self._cycle(ref, loc)
            return None
        if self._loops_in_place(doc, loc.path, pointed):
            self._loop(ref, loc)
            return None
        if file_part and not parts and isinstance(pointed, dict) and _definitions_only(pointed):
            self._definitions_file(ref, file_part, pointed, loc)
        return target_doc, target, value

    def _definitions_file(self, ref: str, file_part: str, root: dict[str, Any], loc: Where) -> None:
        """The warning for a reference to the root of a file that holds only definitions: that
        root accepts any value (`isbn: {$ref: common.yaml}`, the `#/$defs/Isbn` left out)."""
        names = [(key, str(name)) for key in DEFS_KEYWORDS for name in root.get(key) or ()]
        said = f"reference {ref!r} is the root of {file_part}, which holds only definitions: "
        said += "it accepts any value"
        # (a property's reference names the definition closest to the property's name)
        written = loc.path[-2] if loc.path[-3:-2] == ("properties",) else None
        meant = closest(str(written), [name for _, name in names]) if written is not None else None
        key, name = next(((k, n) for k, n in names if n == meant), names[0])
        example = file_part + to_fragment((key, name))
        hint = f"did you mean {example!r}?" if meant else f"name the definition it means, e.g. {example}"
        self.diagnostics.append(warning("ref-definitions-only", said, loc.location, hint))

    def _unit(self, key: tuple[int, JsonPath], value: Any) -> tuple[int, bytes, list[tuple[JsonPath, str]]]:
        """What copying the unit at `key` (id of its document, its path there; holding `value`)
        takes, worked out once per run."""
        known = self._units.get(key)
        if known is None:
            known = (len(json.dumps(value)), marshal.dumps(value, _MARSHAL), list(iter_refs(value)))
            self._units[key] = known
        return known

    def _target(self, doc: Document, parts: Sequence[str]) -> _Target:
        if len(parts) >= 2 and parts[0] in ("$defs", "definitions"):
            return _Target(doc, (parts[0], parts[1]), list(parts[2:]))
        return _Target(doc, tuple(parts), [])

    def _names_toolset(self, doc: Document, file_part: str) -> bool:
        """Whether `file_part`, written in `doc`, names the toolset's own file."""
        return ref_file(doc.path.parent, file_part) == self.toolset.path.resolve()

    def _route(self, doc: Document, written: str) -> str:
        """The route (see `routes`) of a file reference `written` (percent-decoded) in `doc`."""
        if self._root is None:
            self._root = (self.root or self.toolset.path.parent).resolve()
            self._base = self.toolset.path.parent.resolve()
        folder = "" if doc is self.toolset else os.path.relpath(doc.path.parent, self._base)
        route = posixpath.join(folder.replace(os.sep, "/"), written.replace(os.sep, "/"))
        # `./` and doubled slashes go; a `..` stays (the folder before it may be a symlink).
        parts = [part for part in route.split("/") if part not in ("", ".")]
        return "/" * route.startswith("/") + "/".join(parts)

    def _file(self, doc: Document, file_part: str, loc: Where) -> Document | None:
        written = percent_decoded(file_part)
        if written is None:
            self.diagnostics.append(
                error(
                    "unsupported-ref",
                    f"referenced file {file_part!r} has a malformed percent-escape",
                    loc.location,
                    _PERCENT_HINT,
                )
            )
            return None
        route = self._route(doc, written)
        root = self._root
        assert root is not None
        self.routes.setdefault(route, None)
        problem = check_ref_file(written, doc.path.parent, root, self.root is not None)
        if problem == LOOP:
            loop = f"referenced file {file_part!r} {problem}"
            mend = "point the link at the file it means"
            self.diagnostics.append(error("ref-file", loop, loc.location, mend))
            return None
        if problem is not None:
            self.diagnostics.append(
                error(
                    "ref-outside",
                    f"referenced file {file_part!r} {problem}",
                    loc.location,
                    "keep referenced files beside the toolset (relative paths, no symlinks out), or "
                    "set ref_root in [tool.mcpstub] to a folder holding both",
                )
            )
            return None
        path = (doc.path.parent / written).resolve()
        self.routes[route] = path
        cached = self.files.get(path)
        if cached is not None:
            return cached
        loaded, diagnostics = self.load_file(path)
        if diagnostics:
            self.diagnostics.extend(diagnostics)
        if loaded is None or (loaded.data is None and diagnostics):
            if not diagnostics:
                link = broken_link(doc.path.parent / written)  # (said as for a toolset file)
                why = f"is {link}" if link else _missing(path)
                hint = close_file(doc.path.parent, written) if why == "does not exist" else None
                if why == "does not exist" and resolve(doc.data, written.split("/"))[0]:
                    hint = f"did you mean '#/{written}'? A reference into this file starts with '#'"
                folder = os.path.dirname(doc.file)
                if why == "does not exist" and folder not in {"", "."}:
                    # (`./` goes, a `..` stays: the folder before it may be a link, as in `_route`)
                    shown = os.path.join(folder, *(p for p in written.split("/") if p not in ("", ".")))
                    why = f"does not exist as {shown} (a path is taken from the folder of the file it is in)"
                said = error("ref-file", f"referenced file {file_part!r} {why}", loc.location, hint)
                self.diagnostics.append(said)
            return None
        self.files[path] = loaded
        return loaded

    def _unresolved(
        self, ref: str, loc: Where, tries: list[tuple[Any, Sequence[str]]], doc: Document
    ) -> None:
        """Report `ref`, written in `doc`, as unresolved; `tries` are the (data, pointer parts) it
        was looked up in, where a close name is looked for. Else the hint says where the name is
        (another file read), or what the place it names holds."""
        closes = (_close_pointer(data, parts, ref) for data, parts in tries)
        close = next((c for c in closes if c is not None), None)
        hint = _holds(*tries[-1], ref.partition("#")[0])
        written, wanted = ref.partition("#")[0], tries[-1][1]
        if close is None and len(wanted) >= 2 and wanted[0] in DEFS_KEYWORDS:
            other = ("definitions" if wanted[0] == "$defs" else "$defs", *wanted[1:])
            close = to_pointer(other) if resolve(tries[-1][0], list(other))[0] else None
        if close is not None and (held := _misnamed_container(close, wanted)) is not None:
            # (the file's key is what is misspelt: one fix there, not one in each reference)
            file = written or "the toolset"
            hint = f"{file} holds its definitions under {held!r}: rename that key to {wanted[0]}"
        elif close is not None:
            hint = f"did you mean {written + '#' + close!r}?"
        elif (elsewhere := self._defined_elsewhere(tries[-1][1], doc)) is not None:
            hint = f"it is defined in another file: write {elsewhere + to_fragment(tries[-1][1])!r}"
        self.diagnostics.append(
            error("unresolved-ref", f"reference {ref!r} does not resolve", loc.location, hint)
        )

    def _defined_elsewhere(self, parts: Sequence[str], doc: Document) -> str | None:
        """A file that holds the pointer `parts`, other than `doc`: one read for this toolset, else
        a YAML or JSON file beside `doc` no reference has reached yet; its path from `doc`'s folder."""
        read = (self.toolset, *self.files.values())
        for other in read:
            if other is not doc and other.data is not None and resolve(other.data, list(parts))[0]:
                return quote(Path(os.path.relpath(other.path, doc.path.parent)).as_posix())
        for name, data in self._beside(doc.path.parent, {other.path.resolve() for other in read}):
            if resolve(data, list(parts))[0]:
                return quote(name)
        return None

    def _beside(self, folder: Path, read: set[Path]) -> list[tuple[str, Any]]:
        """The data of the small YAML and JSON files in `folder` that no reference read (plain
        files only, no links: what a reference may name), each read once a run."""
        if folder not in self._beside_read:
            found = []
            for path in _beside(folder):
                loaded, problems = self.load_file(path)
                if loaded is not None and not problems:
                    found.append((path, loaded.data))
            self._beside_read[folder] = found
        return [(p.name, data) for p, data in self._beside_read[folder] if p.resolve() not in read]

    def _definitions(
        self, ref: str, parts: Sequence[str], value: Any, loc: Where, start: JsonPath | None
    ) -> bool:
        """Report `ref` when it points at a mapping of schemas itself (`$defs`, `properties`, ...), not
        at one of them (read as a schema, its names would be unknown keywords, their references left
        unbundled: anything accepted); True then. The hint names a schema in it, not the one the
        reference is written in (`start`: where the pointer starts in the reference's document;
        None, another document)."""
        if position(parts) != "map":
            return False
        held = value.items() if isinstance(value, dict) else ()
        file_part = ref.partition("#")[0]

        def around(name: str) -> bool:
            within = (*start, *parts, name) if start is not None else None
            return within is not None and tuple(loc.path[: len(within)]) == within

        names = sorted(str(n) for n, schema in held if isinstance(schema, dict | bool) and not around(str(n)))
        hint = f"name the schema meant: {file_part + to_fragment((*parts, names[0] if names else 'NAME'))!r}"
        if names:
            hint += f" (it holds {', '.join(map(repr, names[:5]))}{', ...' if len(names) > 5 else ''})"
        said = f"reference {ref!r} points at {parts[-1]} itself, not at a schema in it"
        self.diagnostics.append(error("ref-not-schema", said, loc.location, hint))
        return True

    def _not_schema(self, ref: str, value: Any, loc: Where) -> None:
        names = {list: "an array", str: "a string", int: "an integer", float: "a number"}
        kind = names.get(type(value), "null")
        self.diagnostics.append(
            error(
                "ref-not-schema",
                f"reference {ref!r} points at {kind}, not a schema",
                loc.location,
                "point the reference at a schema (an object)",
            )
        )

    def _cycle(self, ref: str, loc: Where) -> None:
        self.diagnostics.append(
            error(
                "ref-cycle",
                f"reference {ref!r} is part of a cycle that never reaches a schema",
                loc.location,
                "a chain of $ref must end in a real schema",
            )
        )

    def _loop(self, ref: str, loc: Where) -> None:
        self.diagnostics.append(
            error(
                "ref-cycle",
                f"reference {ref!r} leads back to the schema holding it without entering a "
                "property or an item: checking a value against it never ends",
                loc.location,
                "a schema may refer to itself only below properties, items or "
                "additionalProperties (e.g. `{type: array, items: {$ref: ...}}`), not as one of its "
                "own allOf/anyOf/oneOf branches; drop or move the reference",
            )
        )

    def _loops_in_place(self, doc: Document, ref_path: JsonPath, target: Any) -> bool:
        """True when the `$ref` at `ref_path` in `doc` (pointing at `target`) leads, through
        references and keywords that apply to the same value (allOf, anyOf, oneOf, not,
        if/then/else, dependentSchemas), back to the schema holding it: an infinitely recursive
        schema (`Foo: {anyOf: [{$ref: Foo}, ...]}`), whose validation is undefined and which no
        type alias can express."""
        if not isinstance(target, dict) or ("$ref" not in target and _IN_PLACE.isdisjoint(target)):
            return False  # a schema that applies nothing else to the value (most): no way back
        key = (id(doc), ref_path)
        known = self._loops.get(key)
        if known is not None and known[1] == len(self.files):
            return known[0]
        _, holder, here = resolve(doc.data, [str(p) for p in ref_path[:-1]])
        start = (doc.path, here)
        seen: set[tuple[Path, JsonPath]] = set()
        pending: list[tuple[Document, JsonPath, Any]] = []
        ref = holder.get("$ref") if isinstance(holder, dict) else None
        first = self._follow(doc, here, ref) if isinstance(ref, str) else None
        if first is not None:
            pending.append(first)
        found = first is not None and (first[0].path, first[1]) == start
        while pending and not found:
            here_doc, here, node = pending.pop()
            if not isinstance(node, dict):
                continue
            steps = list(_in_place(here_doc, here, node))
            ref = node.get("$ref")
            if isinstance(ref, str) and (through := self._follow(here_doc, here, ref)) is not None:
                steps.append(through)
            for next_doc, next_path, sub in steps:
                if (next_doc.path, next_path) == start:
                    found = True
                elif (next_doc.path, next_path) not in seen:
                    seen.add((next_doc.path, next_path))
                    pending.append((next_doc, next_path, sub))
        self._loops[key] = (found, len(self.files))
        return found

    def _follow(self, doc: Document, where: JsonPath, ref: str) -> tuple[Document, JsonPath, Any] | None:
        """Where a `$ref` found at `where` in `doc` points, among the documents loaded so far."""
        file_part, _, fragment = ref.partition("#")
        parts = split_fragment(fragment)
        if parts is None or _SCHEME.match(file_part):
            return None
        if file_part:
            file = ref_file(doc.path.parent, file_part)
            if file is None:
                return None
            target = self.toolset if file == self.toolset.path.resolve() else self.files.get(file)
            if target is None:
                return None
            found, value, path = resolve(target.data, parts)
            return (target, path, value) if found else None
        if doc is self.toolset and where[:1] in (("tools",), ("$defs",)):
            # a tool schema (or shared definition) is the root its own pointers start from
            base = where[:3] if where[0] == "tools" else where[:2]
            found, value, path = (False, None, ())
            if len(base) > 1:
                found, value, path = resolve(_get(doc.data, base), parts)
            if found:
                return doc, (*base, *path), value
            if not (len(parts) >= 2 and parts[0] in ("$defs", "definitions")):
                return None
            parts = ("$defs", *parts[1:])  # the toolset's shared definitions
        found, value, path = resolve(doc.data, parts)
        return (doc, path, value) if found else None

    def _is_cycle(self, doc: Document, root: Any, parts: Sequence[str]) -> bool:
        """True when following bare `$ref`s from here comes back without reaching a schema."""
        seen: set[tuple[Path, int, tuple[str, ...]]] = set()
        while True:
            key = (doc.path, id(root), tuple(parts))
            if key in seen:
                return True
            seen.add(key)
            found, value, _ = resolve(root, parts)
            if not found or not isinstance(value, dict) or not isinstance(value.get("$ref"), str):
                return False
            if set(value) - _ANNOTATIONS - {"$ref"}:
                return False
            file_part, _, fragment = value["$ref"].partition("#")
            next_parts = split_fragment(fragment)
            if next_parts is None or _SCHEME.match(file_part):
                return False
            if file_part:
                file = ref_file(doc.path.parent, file_part)
                nxt = None if file is None else self.files.get(file)
                if nxt is None:
                    return False
                doc, root = nxt, nxt.data
            parts = next_parts


def _in_place(
    doc: Document, path: JsonPath, node: dict[str, Any]
) -> Iterator[tuple[Document, JsonPath, Any]]:
    """(document, path, subschema) of each subschema of `node` that applies to the value `node`
    applies to."""
    for key, value in node.items():
        if key in _IN_PLACE_ONE and isinstance(value, dict):
            yield doc, (*path, key), value
        elif key in _IN_PLACE_LIST and isinstance(value, list):
            yield from ((doc, (*path, key, i), v) for i, v in enumerate(value) if isinstance(v, dict))
        elif key in _IN_PLACE_MAP and isinstance(value, dict):
            yield from ((doc, (*path, key, k), v) for k, v in value.items() if isinstance(v, dict))


def _holds(data: Any, parts: Sequence[str], file: str = "") -> str:
    """What the place a pointer's last name was looked up in (in `file`, as the reference names
    it) holds, for the hint of a name not found there."""
    found, parent, _ = resolve(data, list(parts[:-1]))
    where = f"{file}#{to_pointer(parts[:-1])}" if parts[:-1] else f"the root of {file or 'the document'}"
    if not found:
        return f"there is no {where}: check the name and path"
    if isinstance(parent, dict) and parent:
        names = sorted(str(k) for k in parent)
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        return f"{where} holds {shown}"
    if isinstance(parent, list):
        return f"{where} is a list of {len(parent)}, numbered from 0"
    return f"{where} holds no names: check the name and path"


def _close_pointer(data: Any, parts: Sequence[str], ref: str = "") -> str | None:
    """The pointer `parts` with its first name that `data` lacks replaced by a close one that
    it has, such that it points at a schema other than the one holding `ref` (`/$defs/Stauts` ->
    `/$defs/Status`), written as a reference writes it; None if there is none."""
    root = data
    for i, part in enumerate(parts):
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and part.isascii() and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        elif isinstance(data, dict):
            names = [k for k in data if isinstance(k, str)]
            lowered = {k.lower(): k for k in names}
            close = [lowered[part.lower()]] if part.lower() in lowered else []
            for name in close or difflib.get_close_matches(part, names, n=3, cutoff=0.6):
                meant = (*parts[:i], name, *parts[i + 1 :])
                found, target, _ = resolve(root, list(meant))  # (`$ref/Book` is not `$defs/Book`)
                schema = isinstance(target, bool) or (isinstance(target, dict) and target.get("$ref") != ref)
                if found and schema:
                    return to_pointer(meant).replace("%", "%25")
            return None
        else:
            return None
    return None


def _get(data: Any, path: JsonPath) -> Any:
    for part in path:
        data = data[part]
    return data


# marshal format 2 keeps no references: a copy shares no list or dict, even where the data did
_MARSHAL = 2


# What the root of a file of shared definitions holds beside them: nothing a value is judged by.
_ROOT_WORDS = frozenset({"$schema", "$id", "$comment", "title", "description"})


def _misnamed_container(close: str, wanted: Sequence[str]) -> str | None:
    """The key a close pointer (`/defs/Book`) has where the one wanted (`$defs`, `Book`) has `$defs`
    or `definitions`, the rest alike, where that key is neither (then the reference is what to
    change: `definitions` is as good a key); else None."""
    parts = split(close)
    if parts is None or len(wanted) < 2 or wanted[0] not in DEFS_KEYWORDS or parts[0] in DEFS_KEYWORDS:
        return None
    return parts[0] if tuple(parts[1:]) == tuple(wanted[1:]) else None


def _definitions_only(root: dict[str, Any]) -> bool:
    """Whether a file's root holds definitions and nothing that judges a value."""
    return (
        any(isinstance(root.get(key), dict) and root[key] for key in DEFS_KEYWORDS)
        and set(root) <= {*DEFS_KEYWORDS, *_ROOT_WORDS}
    )


def _copy(value: Any) -> Any:
    """A deep copy of JSON data (several times faster than copy.deepcopy)."""
    return marshal.loads(marshal.dumps(value, _MARSHAL))


def _set(data: Any, path: JsonPath, value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


# Files beside a document that a hint looks into (only when a reference does not resolve).
_BESIDE_SUFFIXES = (".yaml", ".yml", ".json")
_BESIDE_MAX_FILES, _BESIDE_MAX_BYTES = 10, 1 << 18


def _beside(folder: Path) -> list[Path]:
    """The small YAML and JSON files in `folder` (plain files, not links, with names that are
    text), in name order, a few at most."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return []
    found = []
    for entry in entries:
        path = Path(entry.path)
        try:
            entry.name.encode("utf-8")
            small = entry.is_file(follow_symlinks=False) and entry.stat().st_size <= _BESIDE_MAX_BYTES
        except (OSError, UnicodeEncodeError):
            continue
        if small and path.suffix in _BESIDE_SUFFIXES:
            found.append(path)
    return found[:_BESIDE_MAX_FILES]


def _missing(path: Path) -> str:
    """Why the file at `path` cannot be read as a referenced document."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:  # (a name longer than the system allows, a loop of links, ...)
        gone = exc.errno in (errno.ENOENT, errno.ENOTDIR)
        return "does not exist" if gone else f"cannot be read: {exc.strerror}"
    return "is a folder" if stat.S_ISDIR(mode) else "is not a regular file"
