"""Validate: a loaded toolset document -> a checked `Toolset` (the IR) plus diagnostics.

First the format (`formatcheck.py`: shape, unknown keys with "did you mean" hints),
then meaning: tool names and the Python names they map to, each schema against its dialect's
meta-schema, root type object, references (bundled by `bundle.py`), and every example against the
tool's advertised schemas. Every problem is collected; the IR is returned only when there is no
error.
"""

from __future__ import annotations

import dataclasses
import marshal
import math
import os
import posixpath
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcpstub.bundle import Bundler, definition_pointer, iter_refs
from mcpstub.classnames import IMPORTED, class_name
from mcpstub.compiles import blame, validator
from mcpstub.defaults import default_mismatches
from mcpstub.diagnostics import Diagnostic, Location, error, has_errors
from mcpstub.document import Document, JsonPath, Where
from mcpstub.elicitations import check_elicitations
from mcpstub.engine.fingerprints import value_bytes
from mcpstub.engine.jsonread import _holds_as_double, all_finite
from mcpstub.engine.pieces import ToolMemo, check_key
from mcpstub.errortext import describe_error, describe_path, echo_value, first_line
from mcpstub.formatcheck import format_errors, type_name
from mcpstub.ir import (
    CLASS_SUFFIXES,
    DIALECT_URIS,
    SERVER_INFO_KEYS,
    ClassName,
    Dialect,
    Example,
    PythonIdentifier,
    Tool,
    Toolset,
    definitions_key,
    elicitation_class,
    entry_classes,
    schema_dialect,
    to_class_prefix,
    to_identifier,
)
from mcpstub.keywords import (
    JSON_TYPES,
    unread_dialect,
    unsupported_dialect,
)
from mcpstub.load import load_document
from mcpstub.once_a_place import OncePerPlace
from mcpstub.output_wrapper import is_object_root, ref_target
from mcpstub.pointers import resolve
from mcpstub.policy import Policy
from mcpstub.resources import tool_keys
from mcpstub.schema_check import schema_problems
from mcpstub.toolrules import check_tool_entry

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_-]")  # in a shared definition's name (and `.`, for models)
_MCP_KEYS = frozenset(tool_keys(advertised=True))
_SCHEMA_KEYS = ("inputSchema", "outputSchema")


def _timeout(value: Any) -> float | None:
    """A tool's `timeout` in seconds; a wrong one is reported by the format check."""
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 86400:
        return float(value)
    return None


def _digits(value: int) -> str:
    """How many decimal digits `value` has (Python writes no more than 4,300 of an integer)."""
    return f"{len(str(abs(value)))}" if abs(value) < 10**4300 else "more than 4,300"


_BEYOND = "beyond what a JSON number can hold (clients read numbers as IEEE doubles, up to about 1.8e308)"


def _non_json_numbers(doc: Document, finite: bool) -> Iterator[Diagnostic]:
    if finite:  # the common case, found by `all_finite`; the walk below names paths
        return
    stack: list[tuple[JsonPath, Any]] = [((), doc.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, float) and math.isnan(value):
            yield error("not-json", f"{doc.describe(path)}: NaN is not a JSON number", doc.loc(path))
        elif isinstance(value, float) and not math.isfinite(value):
            message = f"{doc.describe(path)}: a number {_BEYOND}: it reads as {'-' * (value < 0)}infinity"
            yield error("not-json", message, doc.loc(path))
        elif isinstance(value, int) and not isinstance(value, bool) and not _holds_as_double([value]):
            message = f"{doc.describe(path)}: an integer of {_digits(value)} digits is {_BEYOND}"
            yield error("not-json", message, doc.loc(path))
        elif isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))


def _shown_beside(file: str, relative: str) -> str:
    """How the file at `relative` from the one shown as `file` is shown: from the same folder, and
    from the same revision where `file` is one of a revision (`HEAD:tools.yaml`, no file here)."""
    rev, colon, rest = file.partition(":")
    if colon and rev and not os.path.exists(file):  # (`origin/main:tools.yaml` too)
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(rest), relative))
        here = rest.startswith("./") and not joined.startswith("../")  # (`REV:./`: from this folder)
        return f"{rev}:{'./' * here}{joined}"
    return os.path.normpath(os.path.join(os.path.dirname(file), relative))


def _defines(data: Any) -> bool:
    """Whether a document has `$defs` to check as it is read (a mapping of definitions)."""
    return isinstance(data, dict) and isinstance(data.get("$defs"), dict)


def _dialect_note(doc: Document, where: JsonPath, schema: Any, dialect: Dialect) -> Iterator[Diagnostic]:
    """What is said of the `$schema` of `schema` (at `where`), read in `dialect` where a `$ref` leads."""
    if isinstance(schema, dict) and "$schema" in schema:
        own = schema_dialect(schema)
        if own is None:
            yield unsupported_dialect(doc, where, schema)
        elif own != dialect:
            yield unread_dialect(doc, where, own, dialect)


class _Checker:
    """Collects diagnostics for one toolset document."""

    def __init__(
        self,
        doc: Document,
        policy: Policy,
        memo: ToolMemo | None = None,
    ) -> None:
        self.doc = doc
        self.policy = policy
        self.memo = memo  # tools that checked clean in earlier runs, by their input
        self._shared: bytes | None = None  # the shared definitions' `value_bytes`, made once
        self._policy_text = ""
        self.diagnostics: list[Diagnostic] = []
        self.bundler = Bundler(doc, self._load_file, root=policy.ref_root, share=self._share)
        self._classes: set[str] | None = None  # class names taken (`_share`), made when first needed
        self._validators: dict[int, tuple[Any, Any]] = {}  # by id of a checked schema: it, compiled
        # what a definition refers to if it compiles on its own (else None), by (`$schema`, its
        # `$defs` key, its marshal)
        self._compiled_definitions: dict[tuple[Any, str, bytes], frozenset[str] | None] = {}
        self._finite_docs: dict[int, bool] = {}  # by id of a loaded document: holds no inf or nan
        self._broken_defs: set[str] = set()  # shared definitions with an error said where written
        self._reach: dict[str, set[Dialect]] = {}  # the dialects reaching each of the toolset's definitions
        self._tool_reach: set[tuple[str, Dialect]] = set()  # of them, those the tool checked now reaches
        self._reach_known = True  # False: a tool's schemas were not bundled (no name; past the budget)
        # Shared definitions in a schema that compiled, with that schema's dialect.
        self._proven: set[tuple[int, JsonPath, Dialect]] = set()
        # Each tool schema that cannot be compiled, with its bundled schema, that schema's dialect
        # and its path: said where the fault is (`_compile_errors`).
        self._unsaid: list[tuple[Diagnostic, dict[str, Any], Dialect, JsonPath]] = []
        self._linted: set[tuple[int, JsonPath, str]] = set()  # what `_bundle` linted, in which dialect
        self._files_read: set[tuple[int, str]] = set()  # the files `_bundle` reached, in which dialect
        self._said = OncePerPlace(self.bundler.diagnostics)  # with what `_bundle` says of other files

    def _finite(self, doc: Document) -> bool:
        """True when no number in `doc` is inf or nan (then no schema bundled from it holds one)."""
        known = self._finite_docs.get(id(doc))
        if known is None:
            known = self._finite_docs[id(doc)] = doc.finite or all_finite(doc.data)
            doc.finite = known  # (a file read again from this one keeps it: `load._reread`)
        return known

    def _share(self, wanted: str) -> str:
        """The name under which a definition of another file, which would be called `wanted`, is
        one shared class: `wanted` (each character a shared definition's name may not hold written
        `_`), or `wanted2`, ... where a definition of the toolset, a tool or another file's
        definition has that class name."""
        if self._classes is None:
            data = self.doc.data if isinstance(self.doc.data, dict) else {}
            defs, tools = data.get("$defs"), data.get("tools")
            self._classes = set()
            for name in defs if isinstance(defs, dict) else ():
                if isinstance(name, str):
                    self._classes.update(_classes_of(name))
            for raw in tools if isinstance(tools, list) else ():
                if isinstance(raw, dict) and isinstance(raw.get("name"), str):
                    self._classes.update(entry_classes(raw))
        # The model generator reads a dotted name as module.Class, and `a~1b` in a reference as a
        # path: such a name makes no class of models.py.
        wanted = _NOT_IN_NAMES.sub("_", wanted) or "Definition"
        name, counter = wanted, 2
        while not self._classes.isdisjoint(_classes_of(name)):
            name, counter = f"{wanted}{counter}", counter + 1
        self._classes.update(_classes_of(name))
        return name

    def _load_file(self, path: Path) -> tuple[Document | None, list[Diagnostic]]:
        shown = _shown_beside(self.doc.file, os.path.relpath(path, self.doc.path.parent.resolve()))
        try:
            regular = path.is_file()
        except OSError:  # (a name longer than the system allows)
            regular = False
        if not regular:
            return None, []  # reported by the bundler, at the reference
        loaded, diagnostics = load_document(path, shown)
        loaded.root_name = os.path.basename(shown)  # (what messages call the whole file)
        if not has_errors(diagnostics):  # (its definitions are read as what reaches them reads them)
            diagnostics = [*diagnostics, *_non_json_numbers(loaded, self._finite(loaded))]
        return loaded, diagnostics

    def _check_unreached_file_definitions(self) -> None:
        """Another file's definitions no tool reached (nor the file, whole) are checked as they
        declare; those reached were, in each dialect reaching them (`_bundle`)."""
        if not self._reach_known or self.bundler.over_budget:
            return  # (read in dialects not known: a tool's schemas were not bundled)
        reached = {(source, where[:2]) for source, where, _ in self._linted}
        for doc in list(self.bundler.files.values()):
            for name, value in doc.data["$defs"].items() if _defines(doc.data) else ():
                at: JsonPath = ("$defs", name)
                if not {(id(doc), ()), (id(doc), ("$defs",)), (id(doc), at)} & reached:
                    own = isinstance(value, dict) and "$schema" in value  # (else as its file declares)
                    dialect = (schema_dialect(value) if own else schema_dialect(doc.data)) or "2020-12"
                    read = value
                    if isinstance(value, dict) and not own:
                        read = {**value, "$schema": DIALECT_URIS[dialect]}
                    for said in schema_problems(doc, at, read, dialect, self.policy):
                        self._said.add(said, dialect)

    def run(self) -> Toolset | None:
        doc = self.doc
        if not isinstance(doc.data, dict):
            self.diagnostics.append(
                error(
                    "not-a-mapping",
                    f"the toolset must be a mapping, not {type_name(doc.data)}",
                    doc.loc(()),
                    "start with `mcpstub: 1`, then `server:` and `tools:`",
                )
            )
            return None
        self.diagnostics.extend(format_errors(doc))
        self.diagnostics.extend(_non_json_numbers(doc, self._finite(doc)))
        def_classes: dict[str, str] = {}
        definitions: list[tuple[str, Any]] = []
        for name, value in (
            (doc.data.get("$defs") or {}).items() if isinstance(doc.data.get("$defs"), dict) else ()
        ):
            if isinstance(name, str) and "." in name:
                # The model generator reads a dotted name as module.Class: no class of this module.
                self.diagnostics.append(
                    error(
                        "invalid-def-name",
                        f"shared definition name {name!r} cannot name a model class (it holds '.')",
                        doc.key_loc(("$defs", name)),
                        "rename the definition without '.' (and the references to it)",
                    )
                )
            elif isinstance(name, str):
                # A name models.py imports is generated as `<name>Model`: both are the definition's.
                spelled = class_name(name)
                clash = ""
                for candidate in (spelled, spelled + "Model") if spelled in IMPORTED else (spelled,):
                    taken = def_classes.setdefault(candidate, name)
                    clash = clash or (candidate if taken != name else "")
                if clash:
                    self.diagnostics.append(
                        error(
                            "name-collision",
                            f"shared definitions {def_classes[clash]!r} and {name!r} both map to the class"
                            f" name {clash!r}",
                            doc.key_loc(("$defs", name)),
                            "rename one of the definitions",
                        )
                    )
            if isinstance(value, dict | bool):  # (else the format check reports it)
                definitions.append((str(name), value))
        for name, value in definitions:  # (what they reach in other files is named in this order)
            if isinstance(value, dict):
                advertised = self.bundler.copied_bytes
                self.bundler.bundle_schema(("$defs", name), schema_dialect(value) or "2020-12")
                self.bundler.copied_bytes = advertised
        tools = self._tools()
        self._check_definitions(definitions)
        self._check_unreached_file_definitions()
        # (a tool that cannot be compiled for a definition's error said where it is is not said)
        self.diagnostics.extend(self._compile_errors())
        self.diagnostics.extend(self._said.kept())
        if has_errors(self.diagnostics):
            return None
        server = doc.data["server"]
        # What the shared definitions and the tools reach in other files is shared beside them
        # (`_share`): the toolset's values say all its models are made of, whatever folder they
        # are made in.
        shared = dict(doc.data.get("$defs") or {})
        if self.bundler.shared_files:
            shared = {n: self.bundler.pointing_at_shared(doc, v) for n, v in shared.items()}
            shared.update(self.bundler.shared_definitions())
        return Toolset(
            server_name=server["name"],
            server_version=server.get("version"),
            instructions=server.get("instructions"),
            shared_defs=shared,
            server_info={key: server[key] for key in SERVER_INFO_KEYS if key in server},
            tools=tuple(tools),
            source_name=Path(doc.file).name,
        )

    def _check_definitions(self, definitions: list[tuple[str, Any]]) -> None:
        """Check each of the toolset's definitions in the dialect of each tool schema the tools'
        bundling found reaching it (its own `$schema` is not read there: said), or as it declares
        where none does; each problem once, as the gravest reading says it. All are linted before
        any is bundled (what one reaches in another dialect is said once)."""
        doc = self.doc
        readings: list[tuple[str, Any, Dialect, list[JsonPath]]] = []
        known = self._reach_known and not self.bundler.over_budget
        for name, value in definitions:
            if not (known or name in self._reach):
                continue  # (read in dialects not known: a tool's schemas were not bundled)
            own = schema_dialect(value)
            said = OncePerPlace([])  # (each problem once, as the gravest reading says it)
            for dialect in sorted(self._reach.get(name, ())) or [own or "2020-12"]:
                defaults: list[JsonPath] = []
                found = list(_dialect_note(doc, ("$defs", name), value, dialect))
                if own is not None:  # (a `$schema` naming no dialect is refused, and read no further)
                    read = {**value, "$schema": DIALECT_URIS[dialect]} if isinstance(value, dict) else value
                    by_ref, at = dialect != own, ("$defs", name)
                    found += schema_problems(doc, at, read, dialect, self.policy, defaults, by_ref)
                    readings.append((name, value, dialect, defaults))
                for d in found:
                    said.add(d, dialect)
            kept = list(said.kept())
            self.diagnostics.extend(kept)
            if has_errors(kept):
                self._broken_defs.add(name)
        for name, value, dialect, defaults in readings:  # its refs must resolve even when no tool uses it
            if not isinstance(value, dict):
                continue
            errors_before, advertised = len(self.bundler.diagnostics), self.bundler.copied_bytes
            self.bundler.copied_bytes = 0  # (copies of it are advertised in no tool: not counted)
            bundled, _ = self._bundle(("$defs", name), dialect)
            over, self.bundler.copied_bytes = self.bundler.over_budget, advertised
            if not over:
                if name in self._broken_defs or has_errors(self.bundler.diagnostics[errors_before:]):
                    bundled = value  # a keyword or a reference is wrong: judged as written still
                bundled = {**bundled, "$schema": DIALECT_URIS[dialect]}
                before = {(d.location, d.code) for d in self.diagnostics}
                judged = default_mismatches(doc, ("$defs", name), bundled, defaults)
                self.diagnostics.extend(d for d in judged if (d.location, d.code) not in before)

    def _unit_key(self, source: Document, unit: JsonPath, dialect: Dialect) -> tuple[int, JsonPath, Dialect]:
        """A shared definition's copy read in `dialect`, as `_proven` knows it (one of the
        toolset's by its name)."""
        return id(source), tuple(unit[:2]) if source is self.doc else tuple(unit), dialect

    def _copies(
        self, path: JsonPath, bundled: dict[str, Any], dialect: Dialect
    ) -> dict[str, tuple[Document, JsonPath]]:
        """The copies of shared definitions bundled into the schema at `path`, by their name
        there: where each is written (its document and path there)."""
        origins = self.bundler.origins
        names = bundled.get(definitions_key(dialect))
        names = names if isinstance(names, dict) else {}  # (`$defs: 7`, refused: it copies nothing)
        return {n: origins[(path, n)] for n in names if (path, n) in origins}

    def _prove(self, path: JsonPath, bundled: dict[str, Any], dialect: Dialect) -> None:
        """The shared definitions copied into a schema that compiles: none of them is to blame."""
        copies = self._copies(path, bundled, dialect).values()
        self._proven.update(self._unit_key(*unit, dialect) for unit in copies)

    def _compile_errors(self) -> Iterator[Diagnostic]:
        """Each tool schema's "cannot be compiled", said where the fault is: at a shared definition
        (of the toolset or another file) that does not compile alone, once, and at the tool only
        for a mistake of its own (with its own reason); not for a definition whose mistake is said
        where it is written (`_broken_defs`)."""
        said_at: set[Location] = set()
        # (a copy from another file with an error, said where it is written, is as broken)
        faulty = {d.location.file for d in self.bundler.diagnostics if d.is_error}
        for said, bundled, dialect, path in self._unsaid:
            units = self._copies(path, bundled, dialect)
            broken = {
                n for n, (source, unit) in units.items()
                if (source is self.doc and unit[:1] == ("$defs",) and str(unit[1]) in self._broken_defs)
                or (source is not self.doc and source.file in faulty)
            }  # fmt: skip
            unproven = {n for n, unit in units.items() if self._unit_key(*unit, dialect) not in self._proven}
            blamed, own = blame(bundled, dialect, unproven, broken)
            for name, reason in blamed.items():
                source, unit = units[name]
                where = resolve(source.data, map(str, unit))[2]
                if source.key_loc(where) not in said_at:
                    said_at.add(source.key_loc(where))
                    message = f"{source.describe(where)} cannot be compiled: {reason}"
                    yield error("invalid-schema", message, source.key_loc(where))
            if own is not None:
                head = said.message.partition(" cannot be compiled: ")[0]
                yield dataclasses.replace(said, message=f"{head} cannot be compiled: {own}")

    def _tools(self) -> list[Tool]:
        doc = self.doc
        raw_tools = doc.data.get("tools")
        if not isinstance(raw_tools, list):
            return []
        result: list[Tool] = []
        names: dict[str, Where] = {}
        identifiers: dict[str, str] = {}
        classes: dict[str, str] = {}
        shared_classes = {class_name(n): n for n in (doc.data.get("$defs") or {}) if isinstance(n, str)}
        for index, raw in enumerate(raw_tools):
            path: JsonPath = ("tools", index)
            if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
                if any(next(iter_refs(raw.get(k)), None) for k in _SCHEMA_KEYS if isinstance(raw, dict)):
                    self._reach_known = False  # (what its schemas reach is not known)
                continue
            name = raw["name"]
            ident, prefix = to_identifier(name), to_class_prefix(name)
            asks = raw.get("elicitations")
            keys = asks if isinstance(asks, dict) else ()
            asked = tuple(elicitation_class(name, k) for k in keys if isinstance(k, str))
            problem = self._name_problem(
                name, Where(doc, (*path, "name")), names, identifiers, classes, shared_classes, asked
            )
            if problem is not None:
                self.diagnostics.append(problem)
            before, bundled_before = len(self.diagnostics), len(self.bundler.diagnostics)
            copied_before = self.bundler.copied_bytes
            entry = check_tool_entry(doc, path, raw, name_ok=problem is None)
            self.diagnostics.extend(self.policy.judged(entry))
            key = self._memo_key(raw) if problem is None and not self.bundler.over_budget else None
            hit = self.memo.checked(key) if key is not None and self.memo is not None else None
            if hit is not None and len(self.diagnostics) == before:
                known, copied, reached = hit  # checked clean from this very input before: no diagnostics
                self.bundler.copied_bytes += copied
                if not self.bundler.over_budget:
                    result.append(known)
                    for name, dialect in reached:
                        read: Dialect = "draft-07" if dialect == "draft-07" else "2020-12"
                        self._reach.setdefault(name, set()).add(read)
                        self._proven.add(self._unit_key(doc, ("$defs", name), read))  # (compiled with it)
                    continue
                # Its copies cross the expansion bound here: checked again, to report where.
                self.bundler.copied_bytes -= copied
            self._tool_reach = set()
            tool = self._tool(path, raw, ident, prefix)  # schemas are checked even when the name is bad
            unsaid = (d for d, *_ in self._unsaid)
            if tool is None and not has_errors([*self.diagnostics, *self.bundler.diagnostics, *unsaid]):
                # A tool is never left out in silence: the check that refused it says why, or this.
                message = f"tool {name!r} could not be checked, so it is left out"
                self.diagnostics.append(error("invalid-tool", message, doc.loc(path)))
            if tool is not None and problem is None:
                result.append(tool)
                clean = len(self.diagnostics) == before and len(self.bundler.diagnostics) == bundled_before
                # Only a tool that reaches no other file, nor this one by another name (a link to
                # it): its check depends on this document alone.
                if key is not None and self.memo is not None and clean and not self.bundler.routes:
                    self.memo.check_passed(
                        key, tool, self.bundler.copied_bytes - copied_before, frozenset(self._tool_reach)
                    )
        return result

    def _memo_key(self, raw: dict[str, Any]) -> str | None:
        """The key of a tool's check in the memo: its entry, the shared definitions, the policy."""
        if self.memo is None:
            return None
        if self._shared is None:
            try:
                self._shared = marshal.dumps(self.doc.data.get("$defs"), 2)
            except ValueError:
                self._shared = b""
            self._policy_text = self.policy.fingerprint(self.doc.path.parent)
        if not self._shared and self.doc.data.get("$defs") is not None:
            return None
        return check_key(raw, self._shared, self._policy_text)

    @staticmethod
    def _name_problem(
        name: str,
        name_loc: Where,
        names: dict[str, Where],
        identifiers: dict[str, str],
        classes: dict[str, str],
        shared_classes: dict[str, str],
        elicitation_classes: tuple[str, ...] = (),
    ) -> Diagnostic | None:
        """The first problem with a tool's name or the Python names it maps to, recording it."""
        if not _NAME.fullmatch(name):
            return error(
                "invalid-tool-name",
                f"tool name {echo_value(name)} is not valid",
                name_loc.location,
                "MCP tool names are 1-128 characters of A-Z a-z 0-9 _ - .",
            )
        if name in names:
            first = names[name]
            return error(
                "duplicate-tool",
                f"tool {name!r} is defined twice (first at line {first.location.line})",
                name_loc.location,
            )
        names[name] = name_loc
        ident, prefix = to_identifier(name), to_class_prefix(name)
        if ident in identifiers:
            return error(
                "name-collision",
                f"tools {identifiers[ident]!r} and {name!r} both map to the Python name {ident!r}",
                name_loc.location,
                "rename one of the tools",
            )
        identifiers[ident] = name
        tool_classes = [prefix + suffix for suffix in CLASS_SUFFIXES]
        tool_classes += [c for c in elicitation_classes if c not in tool_classes]
        clash = next((c for c in tool_classes if c in classes or c in shared_classes), None)
        if clash is not None:
            other = classes.get(clash) or f"shared definition {shared_classes[clash]!r}"
            return error(
                "name-collision",
                f"tool {name!r} needs the class name {clash!r}, already taken by {other}",
                name_loc.location,
                "rename the tool or the definition",
            )
        classes.update((c, f"tool {name!r}") for c in tool_classes)
        return None

    def _schema(self, path: JsonPath, schema: Any) -> tuple[dict[str, Any], frozenset[str], Dialect] | None:
        doc = self.doc
        if not isinstance(schema, dict):
            return None
        where = describe_path(path)
        dialect = schema_dialect(schema)
        if dialect is None:
            self.diagnostics.append(unsupported_dialect(doc, path, schema))
            return None
        before = len(self.diagnostics)
        defaults: list[JsonPath] = []
        self.diagnostics.extend(schema_problems(doc, path, schema, dialect, self.policy, defaults))

        def root_error() -> Diagnostic:
            return error(
                "root-not-object",
                f"{where} must have `type: object` at its root",
                doc.loc((*path, "type")) if "type" in schema else doc.key_loc(path),
                "MCP tool arguments are always a JSON object; wrap other values in a property",
            )

        # Arguments are always an object; an output may be any JSON value (see output_wrapper.py).
        is_input = path[-1] == "inputSchema"
        by_ref = "type" not in schema and isinstance(schema.get("$ref"), str)  # checked once bundled
        declared = schema.get("type")
        names = [declared] if isinstance(declared, str) else declared if isinstance(declared, list) else []
        mistyped = any(isinstance(n, str) and n not in JSON_TYPES for n in names)  # (an unknown-type error)
        if is_input and declared != "object" and not by_ref and not mistyped:
            self.diagnostics.append(root_error())
        errors_before = len(self.bundler.diagnostics)
        bundled, shared = self._bundle(path, dialect)
        if self.bundler.over_budget:
            return None
        # A keyword or a reference is wrong (a referenced file's warnings keep it): the defaults
        # are judged all the same, so that one run says every problem of the schema. A mistake
        # inside what was copied from another file, said there, is left out where the schema is
        # compiled (`_compile_errors`), so that the schema's own is said too.
        new_errors = [d for d in self.bundler.diagnostics[errors_before:] if d.is_error]
        copied = {s.file for s, _ in self._copies(path, bundled, dialect).values()} if new_errors else set()
        if has_errors(self.diagnostics[before:]) or any(
            d.location.file not in copied - {doc.file} for d in new_errors
        ):
            # (judged in the schema bundled as far as it could be: a default beside a `$ref` that
            # resolved, or on one, is judged as well; what cannot be checked is left)
            self.diagnostics.extend(default_mismatches(doc, path, bundled, defaults))
            return None
        if is_input and not by_ref and declared == "object" and not is_object_root(bundled, dialect):
            self.diagnostics.append(
                error(
                    "root-not-object",
                    f"{where} is what its $ref names, which is not an object: in draft-07 the"
                    " `type: object` beside $ref is ignored",
                    doc.loc((*path, "$ref")),
                    "refer to an object definition; MCP tool arguments are always a JSON object",
                )
            )
            return None
        if by_ref:
            end = ref_target(bundled, dialect == "draft-07")
            if isinstance(end, dict) and end.get("type") == "object":
                # MCP clients require `type: object` at the root; it says what the reference says.
                bundled = {"type": "object", **bundled}
            elif is_input:
                self.diagnostics.append(root_error())
                return None
        finite = self._finite(doc) and all(self._finite(f) for f in self.bundler.files.values())
        if not finite and not all_finite(bundled):  # already reported as not-json
            return None
        try:
            compiled = self._compile(bundled, shared, dialect)
            if compiled is not None:
                self._validators[id(bundled)] = (bundled, compiled)
            self._prove(path, bundled, dialect)
        except Exception as exc:  # jsonschema-rs reports any schema it cannot compile this way
            reason = first_line(exc)
            said = error("invalid-schema", f"{where} cannot be compiled: {reason}", doc.key_loc(path))
            self._unsaid.append((said, bundled, dialect, path))  # (said where the fault is)
            # (the defaults are judged all the same: each where the schema holding it compiles)
            self.diagnostics.extend(default_mismatches(doc, path, bundled, defaults))
            return None
        self.diagnostics.extend(default_mismatches(doc, path, bundled, defaults))
        return bundled, shared, dialect

    def _bundle(self, path: JsonPath, dialect: Dialect) -> tuple[dict[str, Any], frozenset[str]]:
        """The schema at `path` bundled; what its references reached in other files (each
        definition copied into it, `bundler.origins`) is linted as its own keywords are (a
        misspelled keyword there checks less than it says), in its dialect, each mistake once."""
        bundled, shared = self.bundler.bundle_schema(path, dialect)
        defs_key = definitions_key(dialect)
        copied = bundled.get(defs_key)
        for name in copied if isinstance(copied, dict) else ():
            if (path, name) not in self.bundler.origins:
                continue  # (its own definition)
            source, unit = self.bundler.origins[(path, name)]
            found, value, where = resolve(source.data, map(str, unit))
            if source is self.doc and len(unit) >= 2 and unit[0] == "$defs":
                self._reach.setdefault(str(unit[1]), set()).add(dialect)  # (checked so: `_check_definitions`)
                self._tool_reach.add((str(unit[1]), dialect))
            if not found or source is self.doc or (id(source), where, dialect) in self._linted:
                continue
            self._linted.add((id(source), where, dialect))
            # Read as the server reads it: in the dialect of the schema it is copied into (a `$schema`
            # below a root is not read; one naming no dialect mcpstub knows is refused all the same).
            said: list[Diagnostic] = []
            # (neither its own `$schema` nor its file's is read where a `$ref` leads)
            if where and isinstance(source.data, dict) and (id(source), dialect) not in self._files_read:
                self._files_read.add((id(source), dialect))
                said += _dialect_note(source, (), source.data, dialect)
            own = list(_dialect_note(source, where, value, dialect))
            said += own
            if not has_errors(own):
                read = {**value, "$schema": DIALECT_URIS[dialect]} if isinstance(value, dict) else value
                defaults: list[JsonPath] = []
                said += schema_problems(source, where, read, dialect, self.policy, defaults, by_ref=True)
                # its defaults, judged in the schema it was copied into (also beside a mistake: what
                # the check cannot compile is not judged)
                said += default_mismatches(source, where, bundled, defaults, (defs_key, name))
            # Once a problem a place (a unit inside another one, or read in both dialects, says it
            # again), the gravest reading: an error a dialect sees is not hidden by another's warning.
            for linted in said:
                self._said.add(linted, dialect)
        return bundled, shared

    def _compile(self, schema: dict[str, Any], shared: frozenset[str], dialect: Dialect) -> Any | None:
        """Raise as `validator(schema)` does when `schema` cannot be compiled; its validator, or
        None when it was checked another way.

        A shared definition bundled into many tools is compiled once on its own (behind a
        `$ref`, its siblings empty), and each tool with its copies of them left empty: what
        compiles so compiles whole, as bundling has made every reference resolve, provided a
        copy refers to nothing but other copies (what else it reaches is compiled with neither).
        Anything else (a copy that refers elsewhere or into a copy, a copy that fails on its own)
        compiles the whole schema, which decides and says why.
        """
        defs_key = definitions_key(dialect)
        defs = schema.get(defs_key)
        if not isinstance(defs, dict):
            return validator(schema)
        copies = {n for n in shared if isinstance(defs.get(n), dict) and defs[n]}
        if len(copies) < 2:
            return validator(schema)
        pointers = {definition_pointer(defs_key, n) for n in copies}
        try:
            if all(self._definition_compiles(schema, defs, defs_key, name, pointers) for name in copies):
                validator({**schema, defs_key: {n: {} if n in copies else v for n, v in defs.items()}})
                return None
        except Exception:  # the whole schema decides, below
            pass
        return validator(schema)

    def _definition_compiles(
        self, schema: dict[str, Any], defs: dict[str, Any], defs_key: str, name: str, pointers: set[str]
    ) -> bool:
        """Whether the definition `name` of `schema` compiles on its own and refers to nothing
        but `pointers` (the copies'); what it compiles to and refers to is known once per value."""
        try:
            key = (schema.get("$schema"), defs_key, value_bytes(defs[name]))
        except ValueError:
            return False
        if key in self._compiled_definitions:
            known = self._compiled_definitions[key]
        else:
            alone: dict[str, Any] = {defs_key: {**{n: {} for n in defs}, name: defs[name]}}
            alone["$ref"] = definition_pointer(defs_key, name)
            if "$schema" in schema:
                alone = {"$schema": schema["$schema"], **alone}
            try:
                validator(alone)
                known = frozenset(ref for _, ref in iter_refs(defs[name]))
            except Exception:
                known = None
            self._compiled_definitions[key] = known
        return known is not None and known <= pointers

    def _tool(
        self, path: JsonPath, raw: dict[str, Any], ident: PythonIdentifier, prefix: ClassName
    ) -> Tool | None:
        # Compiled schemas serve this tool's examples only: an earlier tool's are let go, which
        # bounds what checking a large toolset holds in memory.
        self._validators.clear()
        elicitations, problems = check_elicitations(
            self.doc, (*path, "elicitations"), raw["name"], raw.get("elicitations")
        )
        self.diagnostics.extend(problems)
        asked_wrong = has_errors(problems)
        checked_in = self._schema((*path, "inputSchema"), raw.get("inputSchema"))
        checked_out: tuple[dict[str, Any], frozenset[str], Dialect] | None = None
        if raw.get("outputSchema") is True:
            # Any value: advertised as `{}`, the same schema in the object form MCP requires.
            checked_out = ({}, frozenset(), "2020-12")
        elif raw.get("outputSchema") is False:
            self.diagnostics.append(
                error(
                    "output-schema-false",
                    f"{describe_path((*path, 'outputSchema'))} is false: no output could ever be sent",
                    self.doc.loc((*path, "outputSchema")),
                    "give the output's schema, or leave outputSchema out for a tool that answers "
                    "with content blocks",
                )
            )
            if checked_in is not None:  # (its examples' inputs are judged all the same)
                self._examples(path, raw, checked_in[0], None, (True, False))
            return None
        elif "outputSchema" in raw:
            checked_out = self._schema((*path, "outputSchema"), raw["outputSchema"])
        if checked_in is None or ("outputSchema" in raw and checked_out is None):
            # (the examples are still judged by whichever schema stands: every problem at once)
            standing = (checked_in is not None, checked_out is not None or "outputSchema" not in raw)
            in_schema, out_schema = (c[0] if c else None for c in (checked_in, checked_out))
            self._examples(path, raw, in_schema, out_schema, standing)
            return None
        input_schema, shared_in, dialect = checked_in
        output_schema, shared_out = (checked_out[0], checked_out[1]) if checked_out else (None, frozenset())
        examples = self._examples(path, raw, input_schema, output_schema)
        if asked_wrong:
            return None
        advertised = {key: raw[key] for key in raw if key in _MCP_KEYS}
        advertised["inputSchema"] = input_schema
        if output_schema is not None:
            advertised["outputSchema"] = output_schema
        return Tool(
            name=raw["name"],
            identifier=ident,
            class_prefix=prefix,
            input_class=ClassName(prefix + "Input"),
            output_class=ClassName(prefix + "Output") if output_schema is not None else None,
            result_class=ClassName(prefix + "Result"),
            dialect=dialect,
            input_schema=input_schema,
            output_schema=output_schema,
            advertised=advertised,
            examples=tuple(examples),
            shared_def_names=shared_in | shared_out,
            output_dialect=checked_out[2] if checked_out else None,
            timeout=_timeout(raw.get("timeout")),
            elicitations=elicitations,
        )

    def _examples(
        self, path: JsonPath, raw: dict[str, Any], input_schema: Any, output_schema: Any,
        standing: tuple[bool, bool] = (True, True),
    ) -> list[Example]:
        """The tool's examples, each judged by its schemas (`standing`: whether the input schema,
        and the output schema, if declared, checked without an error)."""
        doc = self.doc
        found: list[Example] = []
        for i, example in enumerate(raw.get("examples") or []):
            if not isinstance(example, dict):
                continue
            ex_path: JsonPath = (*path, "examples", i)
            # A number JSON cannot hold is reported where it is written (not-json), not again here.
            if standing[0] and isinstance(example.get("input"), dict) and all_finite(example["input"]):
                self._check_instance((*ex_path, "input"), example["input"], input_schema, "input")
            if "output" in example and standing[1]:
                if output_schema is None:
                    self.diagnostics.append(
                        error(
                            "example-output",
                            "example has an output but the tool declares no outputSchema",
                            doc.key_loc((*ex_path, "output")),
                        )
                    )
                elif all_finite(example["output"]):
                    self._check_instance((*ex_path, "output"), example["output"], output_schema, "output")
            found.append(Example(example.get("input"), example.get("output"), "output" in example))
        return found

    def _check_instance(self, path: JsonPath, instance: Any, schema: Any, which: str) -> None:
        compiled = self._validators.get(id(schema))
        checker = compiled[1] if compiled is not None else validator(schema)
        for err in checker.iter_errors(instance):
            where = (*path, *err.instance_path)
            self.diagnostics.append(
                error(
                    "example-invalid",
                    f"example {which} does not match the {which} schema at "
                    + describe_error(err.instance_path, err.message, err.instance),
                    self.doc.loc(where),
                )
            )


def _classes_of(name: str) -> set[str]:
    """The class names a definition called `name` takes (`<name>Model` too for a name models.py
    imports)."""
    spelled = class_name(name)
    return {spelled, spelled + "Model"} if spelled in IMPORTED else {spelled}


def check_document(
    doc: Document,
    policy: Policy | None = None,
    memo: ToolMemo | None = None,
) -> tuple[Toolset | None, list[Diagnostic], dict[str, Path | None]]:
    """Check a loaded toolset: (the Toolset or None on error, diagnostics, the routes by which its
    references reached files and the file each led to, `Bundler.routes`).

    A tool `memo` knows to have checked clean from the same input is taken from it.
    """
    checker = _Checker(doc, policy or Policy(), memo)
    try:
        toolset = checker.run()
    except RecursionError:  # the loader bounds nesting; this is the last line of defence
        checker.diagnostics.append(
            error("too-deep", "the toolset nests too deeply to be checked", doc.loc(()))
        )
        toolset = None
    doc.bundled_from = checker.bundler.origins
    doc.referenced = checker.bundler.files
    doc.shared_from = checker.bundler.shared_origins()
    return toolset, checker.diagnostics, dict(checker.bundler.routes)
