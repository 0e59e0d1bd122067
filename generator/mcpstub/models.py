"""Pydantic models for a toolset: the only module that imports datamodel_code_generator.

Every tool schema and shared definition goes into one JSON Schema document whose `$defs` are the
classes to generate (made in `model_schemas`), and datamodel-code-generator runs once on it, in
memory; the text is finished in `model_source`. A schema it cannot handle becomes a permissive model
and a warning, so one odd tool never blocks the rest.
"""

from __future__ import annotations

import itertools
import keyword
import re
import unicodedata
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from mcpstub.classnames import IMPORTED, Namer, imported_free, root_names
from mcpstub.classnames import class_name as key_class_name
from mcpstub.diagnostics import Diagnostic, Location, error, warning
from mcpstub.ir import DIALECT_URIS, JSON, Tool, Toolset
from mcpstub.keywords import subschemas, with_subschemas
from mcpstub.layout import LINE_LENGTH
from mcpstub.model_schemas import (
    ANY_KEYWORDS,
    Unsupported,
    children,
    hoist,
    permissive,
    rewrite,
    uses_unsupported,
)
from mcpstub.model_source import (
    alias_values,
    bound_names,
    field_alias,
    open_classes,
    parsed,
    postprocess,
)
from mcpstub.output_wrapper import is_object_root
from mcpstub.pointers import escape, split_fragment


@dataclass(frozen=True)
class ModelsResult:
    """The text of models.py and what went wrong while producing it."""

    source: str
    diagnostics: list[Diagnostic]
    # Shared definitions generated as stand-ins (`Toolset.stand_ins`): their statements in
    # `source` are not theirs and are to be dropped, with the imports only they use.
    stand_ins: tuple[str, ...] = ()


def render_models(toolset: Toolset) -> ModelsResult:
    """Generate the pydantic models of every tool and shared definition in one call."""
    where = Location(toolset.source_name, 1, 1)
    diagnostics: list[Diagnostic] = []
    units: dict[str, dict[str, JSON]] = {}  # a shared def or a tool schema -> its `$defs` entries
    # A definition named like an import of models.py is generated as `<name>Model`, and no nested
    # class takes an imported name: the imported names are roots too (see classnames.Namer).
    renamed = {n: imported_free(n) for n in toolset.shared_defs if imported_free(n) != n}
    taken = set(toolset.shared_defs) | {n for t in toolset.tools for n in _class_names(t)}
    taken |= IMPORTED | set(renamed.values())
    namer = Namer(root_names(toolset) | toolset.reserved_roots | IMPORTED | set(renamed.values()))
    kinds = {n: d["type"] for n, d in toolset.shared_defs.items() if isinstance(d, dict) and "type" in d}
    kinds = {n: kind for n, kind in kinds.items() if isinstance(kind, str)}
    for name, schema in toolset.shared_defs.items():
        units[name] = namer.scope(name, {name: rewrite(schema, "", None, "", False, kinds=kinds)}, taken)
        if uses_unsupported(schema):
            units[name] = {name: {}}
            what = f"shared definition {name!r}"
            diagnostics.append(_fallback_warning(what, "", where, ("$defs", name), {}))
    for tool in toolset.tools:
        for class_name, schema in _schemas(tool):
            if class_name in units:
                message = f"tool {tool.name!r}: class {class_name} is already defined"
                hint = "rename the tool or the shared definition that clashes with it"
                clash = error("models-class-clash", message, where, hint)
                diagnostics.append(replace(clash, subject=("tool", tool.name, class_name)))
                continue
            try:
                units[class_name] = hoist(tool, class_name, schema, toolset.shared_defs, taken, namer)
            except Unsupported as exc:
                units[class_name] = {class_name: _fallback(class_name, schema, toolset)}
                subject = ("tool", tool.name, class_name)
                warned = _fallback_warning(f"tool {tool.name!r}", str(exc), where, subject, units[class_name])
                diagnostics.append(warned)
    if not units:  # a toolset with no tools yet: nothing to model
        return ModelsResult("", diagnostics)
    units = _definition_defaults_dropped(units, set(toolset.shared_defs))
    stand_ins: tuple[str, ...] = ()
    wire: frozenset[str] = frozenset()
    if toolset.stand_ins and toolset.shared_defs:
        units, stand_ins, wire = _stand_ins(units, set(toolset.shared_defs))
    if renamed:
        units = _renamed(units, renamed)
        stand_ins = tuple(sorted(renamed.get(n, n) for n in stand_ins))
    try:
        # A group's statements are merged, imports and spacing made anew (`engine.model_groups`): the
        # generator's own layout pass, which the layout below redoes, is not needed there.
        source = _generate_standing_in(units, stand_ins, wire, formatted=not toolset.stand_ins)
    except Exception:
        source = None
    if source is None:
        # Rare path: find the culprits, first those refused for accepting nothing, found by reading
        # (bisection costs a generator call a step: 13 s of the JSON-Schema-Test-Suite's 40), then
        # by bisection, among shared defs, then among tool schemas.
        owners = {c: t.name for t in toolset.tools for c in _class_names(t)}
        written = {key: name for name, key in renamed.items()}  # (a definition as the toolset names it)

        def fall_back(name: str, why: str = "") -> None:
            """Replace unit `name` with what takes what its schema may, and say so (and `why`)."""
            place: tuple[str, ...]
            if name in owners:  # a tool's class
                units[name] = {name: _fallback(name, units[name].get(name, {}), toolset)}
                what, place = f"tool {owners[name]!r} ({name})", ("tool", owners[name], name)
            else:  # a shared definition
                units[name] = {name: {}}
                defined = written.get(name, name)
                what, place = f"shared definition {defined!r}", ("$defs", defined)
            diagnostics.append(_fallback_warning(what, why, where, place, units[name]))

        for name, why in _accepting_nothing(units).items():
            fall_back(name, why)
        shared = [k for n in toolset.shared_defs if (k := renamed.get(n, n)) in units]
        for name in _find_failing(shared, lambda names: _only(units, names, stub=shared)):
            fall_back(name)
        tools = [n for n in units if n not in shared]
        for name in _find_failing(tools, lambda names: _only(units, [*shared, *names])):
            fall_back(name)
        try:
            source = _generate(units, wire)
        except Exception as exc:
            message = f"cannot generate models: {exc}"
            return ModelsResult("", [*diagnostics, error("models-failed", message, where)])
    from mcpstub.format import format_piece, ruff_layout  # noqa: PLC0415 - format imports render

    source = format_piece(ruff_layout(postprocess(source)))
    values = [
        t.output_class
        for t in toolset.tools
        if t.output_class is not None
        and t.output_schema is not None
        and not is_object_root(t.output_schema, t.output_dialect)
    ]
    if values:
        source = format_piece(alias_values(source, values))
    objects = [c for t in toolset.tools for c in (t.input_class, *t.elicitation_classes.values())] + [
        t.output_class
        for t in toolset.tools
        if t.output_class is not None
        and t.output_schema is not None
        and is_object_root(t.output_schema, t.output_dialect)
    ]
    if (reopened := open_classes(source, objects)) != source:
        source = format_piece(reopened)
    defined = bound_names(parsed(source))
    diagnostics += _check_binding(source, units, toolset, where)
    for tool in toolset.tools:
        for class_name in _class_names(tool):
            if class_name not in defined:
                message = f"tool {tool.name!r}: class {class_name} is missing from the models"
                hint = "rename the tool or the shared definition that clashes with it"
                diagnostics.append(error("models-missing-class", message, where, hint))
    return ModelsResult(source, diagnostics, stand_ins)


def _renamed(units: dict[str, dict[str, JSON]], renamed: dict[str, str]) -> dict[str, dict[str, JSON]]:
    """The units with the `$defs` keys in `renamed` replaced, and every `$ref` to them."""

    def walk(node: JSON) -> JSON:
        if not isinstance(node, dict):
            return node
        out = with_subschemas(node, walk)
        key = _defs_key(out.get("$ref"))
        if key in renamed:
            out["$ref"] = f"#/$defs/{escape(renamed[key])}"
        return out

    return {
        renamed.get(unit, unit): {renamed.get(key, key): walk(schema) for key, schema in entries.items()}
        for unit, entries in units.items()
    }


def _defs_key(ref: object) -> str | None:
    """The `$defs` key a `$ref` of the combined document names, or None for any other value."""
    tokens = split_fragment(ref[1:]) if isinstance(ref, str) and ref.startswith("#") else None
    return tokens[1] if tokens is not None and len(tokens) == 2 and tokens[0] == "$defs" else None


def _definition_defaults_dropped(
    units: dict[str, dict[str, JSON]], shared: set[str]
) -> dict[str, dict[str, JSON]]:
    """The units without a `default` at the root of a definition: a default fills a field only where
    written on that property, not one that refers to the definition (the generator would also make
    every field using it optional). A hoisted property's default stays there (`model_schemas.rewrite`)."""

    def dropped(unit: str, key: str, schema: JSON) -> JSON:
        is_definition = unit in shared or key != unit
        if is_definition and isinstance(schema, dict) and "default" in schema:
            return {k: v for k, v in schema.items() if k != "default"}
        return schema

    return {
        unit: {key: dropped(unit, key, schema) for key, schema in entries.items()}
        for unit, entries in units.items()
    }


# Where a `$ref` to a shared class renders as the class's name alone, whatever the class holds.
_NAME_ONLY_CHILDREN = (
    "/properties/", "/items", "/prefixItems/", "/additionalProperties", "/anyOf/", "/oneOf/"
)  # fmt: skip
# Keywords beside such a `$ref` that do not change how it renders.
_NAME_ONLY_SIBLINGS = frozenset({"$ref", "title", "description", "$comment", "examples", "deprecated"})
# Keywords that could make a shared object definition anything but a plain class.
_NOT_PLAIN_CLASS = ANY_KEYWORDS | {"$ref", "enum", "const", "default", "nullable", "discriminator"}


def _stand_ins(
    units: dict[str, dict[str, JSON]], shared: set[str]
) -> tuple[dict[str, dict[str, JSON]], tuple[str, ...], frozenset[str]]:
    """Replace the shared classes the tools only name by stand-ins, and drop those unreached. A plain
    object class reached only through `$ref`s that render as its name (no default, `allOf` or
    discriminator on the way) becomes an empty class of that name; its real statements come from the
    shared definitions' generation. The property names left out are returned (`wire`)."""
    real: set[str] = set()
    named: set[str] = set()
    pending = [n for n in units if n not in shared]
    while pending:
        for key, name_only in _shared_refs(units[pending.pop()], shared):
            target = units.get(key, {}).get(key)
            if name_only and _plain_class(target):
                named.add(key)
            elif key not in real:
                real.add(key)
                pending.append(key)
    stand_ins = named - real
    wire: set[str] = set()
    kept: dict[str, dict[str, JSON]] = {}
    for name, entries in units.items():
        if name not in shared or name in real:
            kept[name] = entries
            continue
        _property_names(entries, wire)
        if name in stand_ins:
            kept[name] = {name: {"type": "object", "properties": {}}}
    return kept, tuple(sorted(stand_ins)), frozenset(wire)


# The module a group's generation imports the stand-ins it names from: no schema can name it
# (`customTypePath` is not read from schemas), and its import is dropped with the stand-ins.
STAND_IN_MODULE = "__mcpstub_stand_ins__"
# What the model generator adds to the config of a class with an imported field type.
_ARBITRARY_TYPES = "        arbitrary_types_allowed=True,\n"
_SIMPLE_CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9]*")


def _generate_standing_in(
    units: dict[str, dict[str, JSON]], stand_ins: Sequence[str], wire: frozenset[str], *, formatted: bool
) -> str:
    """`_generate(units, wire)` with the stand-ins imported, not generated: an empty class costs as
    much as a real one, and a group names many. The import and the config key the generator adds for
    imported types are dropped here (the merge checks every name so imported is defined). A stand-in
    whose class name the generator could spell otherwise stays an empty class."""
    imported = {n for n in stand_ins if _imports_as_itself(n)} - _merged_through(units)
    if not imported:
        return _generate(units, wire, formatted=formatted)
    source = _generate(_imported_stand_ins(units, imported), wire, formatted=formatted)
    source = source.replace(_ARBITRARY_TYPES, "")
    if "arbitrary_types_allowed" in source or "ConfigDict(\n    )" in source:  # laid out otherwise
        return _generate(units, wire, formatted=formatted)
    return source


def _imports_as_itself(name: str) -> bool:
    """Whether the generator names the class of `$defs` key `name` `name`, in every context."""
    return (
        _SIMPLE_CLASS_NAME.fullmatch(name) is not None
        and not keyword.iskeyword(name)
        and name not in _BUILTIN_NAMES
        and name not in IMPORTED
    )


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


# Keywords of a schema that make the generator look into the definitions it refers to.
_LOOKS_INTO = frozenset({"default", "discriminator", "allOf"})


def _merged_through(units: dict[str, dict[str, JSON]]) -> set[str]:
    """The definitions reached from an `allOf`, a default or a discriminator: the generator looks
    into these (merging, checking a default), so they must be classes."""
    defs = {name: schema for entries in units.values() for name, schema in entries.items()}

    def targets(node: JSON, within: bool) -> Iterator[str]:
        """Definitions `node` refers to: all if `within`, else only those below `_LOOKS_INTO`."""
        if isinstance(node, dict):
            within = within or not _LOOKS_INTO.isdisjoint(node)
            key = _defs_key(node.get("$ref"))
            if within and key is not None:
                yield key
            for _, _, sub in subschemas(node):
                yield from targets(sub, within)

    pending = [t for schema in defs.values() for t in targets(schema, False)]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in reached:
            reached.add(name)
            pending.extend(targets(defs.get(name), True))
    return reached


def _imported_stand_ins(units: dict[str, dict[str, JSON]], imported: set[str]) -> dict[str, dict[str, JSON]]:
    """The units without the `imported` stand-ins, each `$ref` to one an import of its class."""

    def walk(node: JSON) -> JSON:
        if not isinstance(node, dict):
            return node
        target = _defs_key(node.get("$ref"))
        if target in imported:  # the reference, in its place among its siblings, becomes the import
            path = f"{STAND_IN_MODULE}.{target}"
            return dict(("customTypePath", path) if k == "$ref" else (k, v) for k, v in node.items())
        return with_subschemas(node, walk)

    return {
        unit: {key: walk(schema) for key, schema in entries.items()}
        for unit, entries in units.items()
        if unit not in imported
    }


def _plain_class(schema: JSON) -> bool:
    """Whether a (rewritten) shared definition is sure to be a class of its own."""
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and isinstance(schema.get("properties"), dict)
        and bool(schema["properties"])
        and _NOT_PLAIN_CLASS.isdisjoint(schema)
    )


def _shared_refs(entries: dict[str, JSON], shared: set[str]) -> Iterator[tuple[str, bool]]:
    """(shared name, whether it renders as the name alone) for each `$ref` to a shared definition."""

    def walk(node: JSON, name_only: bool) -> Iterator[tuple[str, bool]]:
        if not isinstance(node, dict):
            return
        # Below a default or a discriminator, a reference renders from what its class holds.
        name_only = name_only and "default" not in node and "discriminator" not in node
        ref = node.get("$ref")
        if (key := _defs_key(ref)) is not None and key in shared:
            yield key, name_only and _NAME_ONLY_SIBLINGS.issuperset(node)
        for suffix, sub in children(node):
            yield from walk(sub, name_only and suffix.startswith(_NAME_ONLY_CHILDREN))

    for schema in entries.values():
        # A root that is a reference is an alias of the class: never a stand-in.
        yield from walk(schema, not (isinstance(schema, dict) and "$ref" in schema))


def _check_binding(
    source: str, units: dict[str, dict[str, JSON]], toolset: Toolset, where: Location
) -> list[Diagnostic]:
    """Errors where a tool's class is not the one generated from its own schema: an object schema's
    class has exactly its property names as wire names; a reference names the class it ends at."""
    import ast  # noqa: PLC0415

    nodes: dict[str, ast.stmt] = {}
    made: set[str] = set()  # what models.py itself defines (not what it imports, as `Any`)
    for node in parsed(source).body:
        if isinstance(node, ast.ClassDef):
            nodes[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            nodes[node.target.id] = node
        elif isinstance(node, ast.Assign):  # (a recursive alias: `X = TypeAliasType(...)`)
            made.update(target.id for target in node.targets if isinstance(target, ast.Name))
    made.update(nodes)
    defs = {name: schema for entries in units.values() for name, schema in entries.items()}

    def resolve_source(name: str) -> str:
        seen = set()
        while name not in seen and isinstance(node := nodes.get(name), ast.AnnAssign):
            seen.add(name)
            if not isinstance(node.value, ast.Name) or node.value.id not in made:
                break  # (an alias of `Any`, or of another import, ends at its own name)
            name = node.value.id
        return name

    def resolve_units(name: str) -> str:
        seen = set()
        while name not in seen and isinstance(schema := defs.get(name), dict) and set(schema) == {"$ref"}:
            seen.add(name)
            if (key := _defs_key(schema["$ref"])) is None:
                break
            name = key
        return name

    problems: list[Diagnostic] = []
    for tool in toolset.tools:
        for class_name in _class_names(tool):
            schema = defs.get(class_name)
            if class_name not in nodes or not isinstance(schema, dict):
                continue  # reported as missing, or not modelled by this run
            wrong = ""
            if set(schema) == {"$ref"}:
                target = resolve_units(class_name)  # a `$defs` key: the generator spells it as a class
                if resolve_source(class_name) not in (target, key_class_name(target)):
                    wrong = f"is not the class its schema refers to ({target})"
            elif (
                schema.get("type") == "object"
                and isinstance(schema.get("properties"), dict)
                and ANY_KEYWORDS.isdisjoint(schema)
            ):
                node = nodes[class_name]
                expected = set(schema["properties"])
                found = _wire_names(node) if isinstance(node, ast.ClassDef) else None
                if found != expected:
                    wrong = "does not have its schema's properties"
            if wrong:
                message = f"tool {tool.name!r}: class {class_name} {wrong}"
                hint = "this is a bug in mcpstub; rename the tool or definition to work around it"
                problem = error("models-binding", message, where, hint)
                problems.append(replace(problem, subject=("tool", tool.name, class_name)))
    return problems


def _wire_names(node: Any) -> set[str]:
    """The wire names (aliases, else field names) of a generated class's own fields."""
    import ast  # noqa: PLC0415

    names: set[str] = set()
    for item in node.body:
        if not isinstance(item, ast.AnnAssign) or not isinstance(item.target, ast.Name):
            continue
        if item.target.id == "model_config" or item.target.id.startswith("__"):
            continue  # pydantic's own attributes (`__pydantic_extra__` types the extra keys)
        alias = field_alias(item)
        names.add(item.target.id if alias is None else alias)  # an alias may be "" (a property "")
    return names


def _class_names(tool: Tool) -> Iterator[str]:
    """The class names a tool's schemas must produce."""
    yield tool.input_class
    if tool.output_class is not None:
        yield tool.output_class
    yield from tool.elicitation_classes.values()


def _schemas(tool: Tool) -> Iterator[tuple[str, dict[str, JSON]]]:
    yield tool.input_class, tool.input_schema
    if tool.output_class is not None and tool.output_schema is not None:
        yield tool.output_class, tool.output_schema
    for key, class_name in tool.elicitation_classes.items():
        yield class_name, tool.elicitations[key]


def _fallback(class_name: str, schema: JSON, toolset: Toolset) -> JSON:
    """What a tool's class generated from `schema` falls back to: an open object keeping the names
    of its properties, or for an output that is not an object (`list[Item]`, ...), any value."""
    values = {t.output_class for t in toolset.tools if not is_object_root(t.output_schema, t.output_dialect)}
    return {} if class_name in values else permissive(schema)


def _fallback_warning(
    what: str, why: str, where: Location, subject: tuple[str, ...], unit: dict[str, JSON]
) -> Diagnostic:
    reason = f" ({why})" if why else ""
    objects = any(isinstance(entry, dict) and entry.get("type") == "object" for entry in unit.values())
    accepted = "any object" if objects else "any value"
    return replace(
        warning(
            "models-fallback",
            f"{what}: no typed model could be generated{reason}; it accepts {accepted}",
            where,
            "payloads are still checked against the schema at run time",
        ),
        subject=subject,
    )


def _only(
    units: dict[str, dict[str, JSON]], names: list[str], stub: tuple[str, ...] | list[str] = ()
) -> None:
    """Generate models for some units only, stubbing the named shared defs left out."""
    chosen = {n: units[n] for n in names}
    chosen.update({n: {n: {}} for n in stub if n not in chosen})
    _generate(chosen)


_COMBINATIONS = frozenset(("allOf", "anyOf", "oneOf"))
_CONTAINERS = frozenset(("items", "additionalProperties", "patternProperties"))


def _accepting_nothing(units: dict[str, dict[str, JSON]]) -> dict[str, str]:
    """The units datamodel-code-generator refuses for a schema that accepts nothing, each with why:
    an `allOf` with a `false` member, an `anyOf` or `oneOf` of `false` members only (a member that
    is only a `$ref` to a `false` entry counts as `false`)."""
    entries = {key: entry for unit in units.values() for key, entry in unit.items()}

    def false(member: JSON) -> bool:
        for _ in range(len(entries) + 1):  # (a cycle of references ends)
            if not (isinstance(member, dict) and set(member) == {"$ref"} and isinstance(member["$ref"], str)):
                break
            member = entries.get(member["$ref"].removeprefix("#/$defs/"), True)
        return member is False

    def why(node: JSON, typed: bool = True) -> str:
        """Where the generator reads a schema as a type (`typed`): the root, a property's, and a
        member of allOf, anyOf or oneOf; below `items`, `additionalProperties` and
        `patternProperties` only the properties of an object are (the schema there itself it takes:
        `items: {allOf: [false]}` is a list that must be empty), and elsewhere (`not`, `if`) none."""
        if not isinstance(node, dict):
            return ""
        if typed and isinstance(members := node.get("allOf"), list) and any(false(m) for m in members):
            return "it accepts nothing: an allOf holds false"
        for key, article in (("anyOf", "an"), ("oneOf", "a")) if typed else ():
            if isinstance(members := node.get(key), list) and members and all(false(m) for m in members):
                return f"it accepts nothing: each member of {article} {key} is false"
        below = [
            (sub, key == "properties" or key in _COMBINATIONS)
            for key, _, sub in subschemas(node)
            if key in _CONTAINERS or key == "properties" or (typed and key in _COMBINATIONS)
        ]
        return next((found for sub, is_typed in below if (found := why(sub, is_typed))), "")

    found = {name: next(filter(None, map(why, unit.values())), "") for name, unit in units.items()}
    return {name: reason for name, reason in found.items() if reason}


def _find_failing(names: list[str], attempt: Callable[[list[str]], None]) -> list[str]:
    """The names whose generation fails, by bisection (cheap when few fail)."""
    if not names:
        return []
    try:
        attempt(names)
    except Exception:
        if len(names) == 1:
            return names
        half = len(names) // 2
        return _find_failing(names[:half], attempt) + _find_failing(names[half:], attempt)
    return []


def _generate(
    units: dict[str, dict[str, JSON]], wire: frozenset[str] = frozenset(), *, formatted: bool = True
) -> str:
    """Run datamodel-code-generator once on the combined document (`wire`: property names of
    definitions left out, which field names must still avoid; `formatted`: with its layout pass)."""
    defs: dict[str, JSON] = {}
    for entries in units.values():
        defs.update(entries)
    document = {"$schema": DIALECT_URIS["2020-12"], "$defs": defs}
    # A name chosen for a property that the model generator gives another property as well (it
    # spells some names its own way: `json` is `json_`, `_a` is `field_a`) is refused by it: then
    # chosen again, avoiding it.
    avoided: set[str] = set()
    while True:
        try:
            return _generate_once(document, _field_names(defs, wire, frozenset(avoided)), formatted)
        except Exception as exc:
            clash = _ALIAS_CLASH.fullmatch(str(exc))
            if clash is None or clash[1] in avoided or len(avoided) >= 100:
                raise
            avoided.add(clash[1])


_ALIAS_CLASH = re.compile(r"Alias '(.+)' for field '.*' conflicts with another field\.", re.DOTALL)


def _generate_once(document: dict[str, JSON], aliases: dict[str, str], formatted: bool) -> str:
    """One datamodel-code-generator run of `document`, with those field names."""
    from datamodel_code_generator import LiteralType, generate  # noqa: PLC0415
    from datamodel_code_generator.enums import (  # noqa: PLC0415
        DataModelType,
        InputFileType,
        StrictTypes,
    )
    from datamodel_code_generator.format import Formatter  # noqa: PLC0415

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result: Any = generate(
            document,
            input_file_type=InputFileType.JsonSchema,
            output_model_type=DataModelType.PydanticV2BaseModel,
            preset="standard-py311-20261027",
            use_missing_sentinel=True,
            # Field names for property names Python would change (`ﬁle` is `file` once parsed).
            aliases=aliases or None,
            # Literals, not Enum classes: Enum merges equal members (1 and True), and is slower.
            enum_field_as_literal=LiteralType.All,
            # Strict int and float become exact JSON numbers (`exact_numbers`): 1.0 is an integer.
            strict_types=[StrictTypes.str, StrictTypes.int, StrictTypes.float, StrictTypes.bool],
            # Formats stay plain: typed values would be stricter than the schema or re-serialize
            # differently (SecretStr masks, AnyUrl adds "/", UUID lowercases, datetime rewrites).
            type_mappings=_plain_formats(),
            disable_timestamp=True,
            formatters=[Formatter.BUILTIN] if formatted else [],
            skip_root_model=True,
            collapse_root_models=False,
            # Scalars, enums and arrays are type aliases: handlers use plain values (`plain_aliases`).
            use_type_alias=True,
            # Plain annotations: evaluating 1,000s of string annotations slows imports by a third.
            disable_future_imports=True,
            use_double_quotes=True,
            builtin_format_line_length=LINE_LENGTH,
            parent_scoped_naming=True,
        )
    if not isinstance(result, str):
        raise TypeError(f"unexpected generate() result: {type(result).__name__}")
    return result


def _property_names(node: JSON, found: set[str]) -> None:
    """Collect every property name (and `required` entry) of a schema, at any depth."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            found.update(props)
        required = node.get("required")
        if isinstance(required, list):
            found.update(n for n in required if isinstance(n, str))
        for value in node.values():
            if isinstance(value, dict | list):
                _property_names(value, found)
    elif isinstance(node, list):
        for value in node:
            if isinstance(value, dict | list):  # scalars name no property
                _property_names(value, found)


def _field_names(
    defs: dict[str, JSON], extra: frozenset[str] = frozenset(), avoided: frozenset[str] = frozenset()
) -> dict[str, str]:
    """A distinct field name for each property name that is not one as it stands: not in NFKC form
    (Python reads `\ufb01le` as `file`), no identifier, a keyword, or in pydantic's protected
    namespaces (`model_dump_path` warns on import). A chosen name is no property name anywhere in the
    document nor a pydantic attribute, so two names that normalise alike stay two fields."""
    from datamodel_code_generator.util import camel_to_snake  # noqa: PLC0415

    wire: set[str] = set(extra)
    _property_names(defs, wire)
    # The field names the model generator gives the names it spells itself (`Foo` is `foo`, `Class`
    # is `class_`): a chosen name must be none of them either.
    spellings = Counter(
        "field" + snake if snake.startswith("_") else snake + "_" if _respelled(snake) else snake
        for snake in (camel_to_snake(n) for n in wire if n.isidentifier() and not keyword.iskeyword(n))
    )  # (`_a` is `field_a`, `json` is `json_`)
    # ... and the numbered names it gives a name others spell too (`content_type_1` beside
    # `ContentType` and `content_type`) or a numbered name took (`a_1` beside `A` and `a` numbers
    # one of them `a_2`, and `a_2` then `a_2_1`): a chosen name is none of those names numbered.
    displaced = {s for s, count in spellings.items() if count > 1}
    while grown := {t for t in spellings if t not in displaced and _numbered_after(t, displaced)}:
        displaced |= grown
    taken = wire | set(spellings) | _model_attributes() | avoided
    chosen: dict[str, str] = {}
    for name in sorted(wire):
        normal = unicodedata.normalize("NFKC", name)
        if normal == name and name.isidentifier() and not keyword.iskeyword(name):
            # as the model generator would spell it (`modelDumpPath` is `model_dump_path`)
            normal = camel_to_snake(name)
            if not normal.startswith(_PROTECTED_PREFIXES) and (name.isascii() or not _spelt_twice(name)):
                continue
        base = re.sub(r"_*\W+_*", "_", camel_to_snake(normal)).strip("_") or "field"
        if not base.isidentifier() or base[0].isdigit() or base.startswith(_PROTECTED_PREFIXES):
            base = "field_" + base
        # (where the model generator may number `base` itself, a numbered name ends in `_` too)
        tail = "_" if base in displaced or _numbered_after(base, displaced) else ""
        candidates = itertools.chain([base, base + "_"], (f"{base}_{n}{tail}" for n in itertools.count(1)))
        candidate = next(  # (in snake case: the model generator would respell it otherwise)
            c
            for c in candidates
            if c not in taken
            and not _numbered_after(c, displaced)
            and not keyword.iskeyword(c)
            and camel_to_snake(c) == c
        )
        taken.add(candidate)
        chosen[name] = candidate
    return chosen


def _spelt_twice(name: str) -> bool:
    """Whether the model generator spells `name` once more as it writes the field (`İ` is `i̇`, whose
    dot is no word character, and then `i_`): it numbers names alike as first spelt only, so such
    a name could take another's field (`i_` beside `İ` gave one field for both)."""
    from datamodel_code_generator.reference import FieldNameResolver  # noqa: PLC0415

    spell = FieldNameResolver(snake_case_field=True).get_valid_name
    return spell(spell(name)) != spell(name)


def _numbered_after(name: str, stems: set[str]) -> bool:
    """Whether `name` is one of `stems` numbered (`a_2` or `a_2_1` after `a`)."""
    return any(name.startswith(s + "_") and re.fullmatch(r"(?:_\d+)+", name[len(s) :]) for s in stems)


def _respelled(snake: str) -> bool:
    """Whether the model generator gives a name `_` after it: a keyword, or an attribute of a
    pydantic model (its metaclass's too)."""
    return keyword.iskeyword(snake) or snake in _model_attributes()


# pydantic warns on import about a field whose name starts with one of these.
_PROTECTED_PREFIXES = ("model_validate", "model_dump")


@cache
def _model_attributes() -> frozenset[str]:
    """Names a field must not take: the attributes of pydantic's models and of their class (`mro`,
    `register`), which pydantic warns a field shadows."""
    from pydantic import BaseModel  # noqa: PLC0415

    return frozenset(dir(BaseModel)) | frozenset(dir(type(BaseModel)))


@cache
def _plain_formats() -> list[str]:
    """`type+format=type` for every format datamodel-code-generator would type specially."""
    from datamodel_code_generator.parser.jsonschema import (  # noqa: PLC0415
        json_schema_data_formats,
    )

    return [
        f"{type_}+{fmt}={type_}"
        for type_, formats in json_schema_data_formats.items()
        if type_ in {"string", "integer", "number"}
        for fmt in formats
        if fmt != "default"
    ]
