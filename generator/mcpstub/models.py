"""Pydantic models for a toolset: the only module that imports datamodel_code_generator.

`render_models` takes a `Toolset` and returns the text of the generated `models.py` (formatted,
without a file header) plus diagnostics. Every tool schema and every shared definition is
combined into one JSON Schema document whose `$defs` are the classes to generate, and
datamodel-code-generator runs once on it, in memory. A schema it cannot handle becomes a
permissive model and a warning, so one odd tool never blocks the rest.
"""

from __future__ import annotations

import itertools
import keyword
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from mcpstub.classnames import IMPORTED, Namer, imported_free, root_names
from mcpstub.classnames import class_name as key_class_name
from mcpstub.diagnostics import Diagnostic, Location, error, warning
from mcpstub.ir import JSON, Tool, Toolset, to_class_prefix
from mcpstub.keywords import KNOWN_2020_12, KNOWN_DRAFT_07
from mcpstub.layout import LINE_LENGTH
from mcpstub.marshalled import marshalled
from mcpstub.model_source import (
    bound_names,
    exact_numbers,
    factory_defaults,
    field_alias,
    json_literals,
    own_field_names,
    parsed,
    plain_aliases,
    typed_containers,
)
from mcpstub.output_wrapper import is_object_root
from mcpstub.pointers import escape, fragment_pointer, resolve, split, split_fragment

# Keywords whose value is one schema, a map of schemas, or a list of schemas.
_SCHEMA_KEYS = frozenset(
    {
        "additionalItems",
        "additionalProperties",
        "contains",
        "contentSchema",
        "else",
        "if",
        "items",
        "not",
        "propertyNames",
        "then",
        "unevaluatedItems",
        "unevaluatedProperties",
    }
)
_MAP_KEYS = frozenset({"properties", "patternProperties", "dependentSchemas", "dependencies"})
_LIST_KEYS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_DEFS_KEYS = ("$defs", "definitions")
_OPEN_KEYS = frozenset({"additionalProperties", "unevaluatedProperties"})
# Keywords that constrain values of one JSON type only.
_TYPED_KEYWORDS = frozenset(
    {
        "minLength", "maxLength", "pattern", "format", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties",
        "maxProperties",
    }
)  # fmt: skip
_OBJECT_KEYWORDS = frozenset(
    {"properties", "required", "additionalProperties", "propertyNames", "dependentRequired",
     "dependentSchemas", "dependencies", "patternProperties"}
)  # fmt: skip
_ARRAY_KEYWORDS = frozenset({"items", "prefixItems", "contains", "minContains", "maxContains"})
_ANNOTATION_KEYWORDS = frozenset({"title", "description", "default", "examples", "deprecated"})
_ANY_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else"})
# Keywords of an object whose outcome can change when one more property is present.
_COUNTS_PROPERTIES = frozenset(
    {"maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "not", "oneOf", "if"}
)
# Keywords datamodel-code-generator silently misreads; a schema using them gets a fallback model.
_UNSUPPORTED_KEYS = frozenset({"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"})
# What the models read of a schema: JSON Schema's keywords. Anything else (vendor keywords, typos)
# no validator reads, and the model generator must not either: it takes some for instructions
# (`customTypePath`, `x-python-type` and `x-python-import` import any name into models.py,
# `x-enum-varnames` renames, `nullable` admits null).
# Of the annotations, which no validator reads either, the models keep `title`, `description` and
# `default`: the generator turns others into behaviour (`readOnly` freezes a field, `deprecated`
# warns on every read, `discriminator` makes a union refuse what its `oneOf` takes) or copies them
# into models.py as text.
_NOT_FOR_MODELS = frozenset(
    {"$defs", "definitions", "$schema", "$id", "$anchor", "$comment", "$vocabulary", "readOnly",
     "writeOnly", "deprecated", "examples", "example", "discriminator", "xml", "externalDocs",
     "contentMediaType", "contentEncoding", "contentSchema"}
)  # fmt: skip
_MODEL_KEYWORDS = (KNOWN_2020_12 | KNOWN_DRAFT_07) - _NOT_FOR_MODELS
# In draft-07 a `$ref` replaces its siblings; these annotations are kept, the rest dropped.
_REF_SIBLINGS_07 = frozenset({"$ref", "description", "title"})
_HEADER = re.compile(r"\A(?:#.*\n)+\n*")
_MODEL_CLASS = re.compile(r"class \w+\(\s*(?:BaseModel|RootModel\[)")
_MISSING_IMPORT = "from pydantic.experimental.missing_sentinel import MISSING\n"
_PYDANTIC_IMPORT = re.compile(r"^from pydantic import (\([^)]*\)|.*)$", re.MULTILINE)
_TYPING_IMPORT = re.compile(r"^from typing import (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class ModelsResult:
    """The text of models.py and what went wrong while producing it."""

    source: str
    diagnostics: list[Diagnostic]
    # Shared definitions generated as stand-ins (`Toolset.stand_ins`): their statements in
    # `source` are not theirs and are to be dropped, with the imports only they use.
    stand_ins: tuple[str, ...] = ()


class _Unsupported(Exception):
    """A schema this module knows datamodel-code-generator cannot model faithfully."""


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
    for name, schema in toolset.shared_defs.items():
        units[name] = namer.scope(name, {name: _rewrite(schema, "", None, "", draft07=False)}, taken)
        if _uses_unsupported(schema):
            units[name] = {name: {}}
            diagnostics.append(_fallback_warning(f"shared definition {name!r}", "", where))
    for tool in toolset.tools:
        for class_name, schema in _schemas(tool):
            if class_name in units:
                message = f"tool {tool.name!r}: class {class_name} is already defined"
                hint = "rename the tool or the shared definition that clashes with it"
                diagnostics.append(error("models-class-clash", message, where, hint))
                continue
            try:
                units[class_name] = _hoist(tool, class_name, schema, toolset.shared_defs, taken, namer)
            except _Unsupported as exc:
                units[class_name] = {class_name: _permissive(schema)}
                diagnostics.append(_fallback_warning(f"tool {tool.name!r}", str(exc), where))
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
        # A group's statements are merged, imports and spacing made anew (`modelcache`): the
        # generator's own layout pass, which the layout below redoes, is not needed there.
        source = _generate_standing_in(units, stand_ins, wire, formatted=not toolset.stand_ins)
    except Exception:
        source = None
    if source is None:
        # Rare path: find the culprits, first among shared defs, then among tool schemas.
        shared = [k for n in toolset.shared_defs if (k := renamed.get(n, n)) in units]
        for name in _find_failing(shared, lambda names: _only(units, names, stub=shared)):
            units[name] = {name: {}}
            diagnostics.append(_fallback_warning(f"shared definition {name!r}", "", where))
        owners = {c: t.name for t in toolset.tools for c in _class_names(t)}
        tools = [n for n in units if n not in toolset.shared_defs]
        for name in _find_failing(tools, lambda names: _only(units, [*shared, *names])):
            units[name] = {name: _permissive(units[name].get(name, {}))}
            diagnostics.append(_fallback_warning(f"tool {owners[name]!r} ({name})", "", where))
        try:
            source = _generate(units, wire)
        except Exception as exc:
            message = f"cannot generate models: {exc}"
            return ModelsResult("", [*diagnostics, error("models-failed", message, where)])
    source = _postprocess(source)
    values = [
        t.output_class
        for t in toolset.tools
        if t.output_class is not None and t.output_schema is not None and not is_object_root(t.output_schema)
    ]
    if values:
        source = _alias_values(source, values)
    objects = [c for t in toolset.tools for c in (t.input_class, *t.elicitation_classes.values())] + [
        t.output_class
        for t in toolset.tools
        if t.output_class is not None and t.output_schema is not None and is_object_root(t.output_schema)
    ]
    source = _open_classes(source, objects)
    defined = bound_names(parsed(source))
    diagnostics += _check_binding(source, units, toolset, where)
    for tool in toolset.tools:
        for class_name in _class_names(tool):
            if class_name not in defined:
                message = f"tool {tool.name!r}: class {class_name} is missing from the models"
                hint = "rename the tool or the shared definition that clashes with it"
                diagnostics.append(error("models-missing-class", message, where, hint))
    return ModelsResult(source, diagnostics, stand_ins)


# Keywords whose values are data, not schemas.
DATA_KEYWORDS = frozenset({"default", "const", "enum", "examples", "example"})


def _renamed(units: dict[str, dict[str, JSON]], renamed: dict[str, str]) -> dict[str, dict[str, JSON]]:
    """The units with the `$defs` keys in `renamed` replaced, and every `$ref` to them."""

    def walk(node: JSON) -> JSON:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {k: v if k in DATA_KEYWORDS else walk(v) for k, v in node.items()}
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
    """The units without the `default` at the root of a definition (a shared one, or a part of a
    tool schema that references point at): a default fills a field only where it is written on
    that property, never one that merely refers to the definition. (The model generator would
    also make the definition's type alias, or each field using it, optional.) A default written
    on a property that was hoisted is kept there by `_rewrite`."""

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
_NOT_PLAIN_CLASS = _ANY_KEYWORDS | {"$ref", "enum", "const", "default", "nullable", "discriminator"}


def _stand_ins(
    units: dict[str, dict[str, JSON]], shared: set[str]
) -> tuple[dict[str, dict[str, JSON]], tuple[str, ...], frozenset[str]]:
    """Replace the shared classes that the tools only name by stand-ins, and drop those unreached.

    A shared definition that is a plain object class, reached only through `$ref`s that render as
    its name (a property, an item, a union member; no default, no `allOf`, no discriminator on the
    way), is generated as an empty class of the same name: what refers to it comes out the
    same, and its own statements (dropped by the caller) come from the generation of the shared
    definitions. What only such a class reaches is not generated at all. The property names of
    what is left out stay in the document's name set, so that field names are chosen as before.
    """
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
    """`_generate(units, wire)` with the stand-ins among `units` imported, not generated.

    A stand-in is an empty class only so that what names it names it; generating one costs as
    much as a real class, and a group of tools names many. Where the class name is the key
    itself, each reference to it is written as an import of that name instead: references come
    out the same, and the import and the config key the generator adds for imported types are
    dropped here (the merge checks that every name so imported is defined). A stand-in whose
    class name the generator could spell otherwise stays an empty class.
    """
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
    """The definitions reached through references from an `allOf`, a default or a discriminator:
    the generator looks into the classes these refer to (merging, checking a default), so those
    must be classes."""
    defs = {name: schema for entries in units.values() for name, schema in entries.items()}

    def targets(node: JSON, within: bool) -> Iterator[str]:
        """Definitions `node` refers to: all of them if `within`, else only those below one of
        `_LOOKS_INTO`."""
        if isinstance(node, list):
            for item in node:
                yield from targets(item, within)
        elif isinstance(node, dict):
            within = within or not _LOOKS_INTO.isdisjoint(node)
            key = _defs_key(node.get("$ref"))
            if within and key is not None:
                yield key
            for keyword_, value in node.items():
                if keyword_ not in DATA_KEYWORDS:
                    yield from targets(value, within)

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
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        target = _defs_key(node.get("$ref"))
        if target in imported:  # the reference, in its place among its siblings, becomes the import
            path = f"{STAND_IN_MODULE}.{target}"
            return dict(("customTypePath", path) if k == "$ref" else (k, v) for k, v in node.items())
        return {k: v if k in DATA_KEYWORDS else walk(v) for k, v in node.items()}

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
    """(shared name, whether the reference renders as the name alone) for every `$ref` to a shared
    definition in a unit's entries."""

    def walk(node: JSON, name_only: bool) -> Iterator[tuple[str, bool]]:
        if not isinstance(node, dict):
            return
        # Below a default or a discriminator, a reference renders from what its class holds.
        name_only = name_only and "default" not in node and "discriminator" not in node
        ref = node.get("$ref")
        if (key := _defs_key(ref)) is not None and key in shared:
            yield key, name_only and _NAME_ONLY_SIBLINGS.issuperset(node)
        for suffix, sub in _children(node):
            yield from walk(sub, name_only and suffix.startswith(_NAME_ONLY_CHILDREN))

    for schema in entries.values():
        # A root that is a reference is an alias of the class: never a stand-in.
        yield from walk(schema, not (isinstance(schema, dict) and "$ref" in schema))


def _check_binding(
    source: str, units: dict[str, dict[str, JSON]], toolset: Toolset, where: Location
) -> list[Diagnostic]:
    """Every tool's classes are the ones generated from its own schemas, not just classes of that name.

    A class generated from an object schema has exactly the schema's property names as its wire
    names; a tool schema that is a reference names the class the reference ends at.
    """
    import ast  # noqa: PLC0415

    nodes: dict[str, ast.stmt] = {}
    for node in parsed(source).body:
        if isinstance(node, ast.ClassDef):
            nodes[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            nodes[node.target.id] = node
    defs = {name: schema for entries in units.values() for name, schema in entries.items()}

    def resolve_source(name: str) -> str:
        seen = set()
        while name not in seen and isinstance(node := nodes.get(name), ast.AnnAssign):
            seen.add(name)
            if not isinstance(node.value, ast.Name):
                break
            name = node.value.id
        return name

    def resolve_units(name: str) -> str:
        seen = set()
        while name not in seen and isinstance(schema := defs.get(name), dict) and set(schema) == {"$ref"}:
            seen.add(name)
            name = str(schema["$ref"]).rsplit("/", 1)[-1]
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
                and _ANY_KEYWORDS.isdisjoint(schema)
            ):
                node = nodes[class_name]
                expected = set(schema["properties"])
                found = _wire_names(node) if isinstance(node, ast.ClassDef) else None
                if found != expected:
                    wrong = "does not have its schema's properties"
            if wrong:
                message = f"tool {tool.name!r}: class {class_name} {wrong}"
                hint = "this is a bug in mcpstub; rename the tool or definition to work around it"
                problems.append(error("models-binding", message, where, hint))
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
    """A tool's (class name, schema) pairs."""
    yield tool.input_class, tool.input_schema
    if tool.output_class is not None and tool.output_schema is not None:
        yield tool.output_class, tool.output_schema
    for key, class_name in tool.elicitation_classes.items():
        yield class_name, tool.elicitations[key]


def _fallback_warning(what: str, why: str, where: Location) -> Diagnostic:
    """The warning for a schema that became a permissive model."""
    reason = f" ({why})" if why else ""
    return warning(
        "models-fallback",
        f"{what}: no typed model could be generated{reason}; it accepts any object",
        where,
        "payloads are still checked against the schema at run time",
    )


def _permissive(schema: JSON) -> JSON:
    """An open object schema keeping the top-level property names, each of any type."""
    if not isinstance(schema, dict):
        return {"type": "object", "additionalProperties": True}
    props = schema.get("properties")
    names = list(props) if isinstance(props, dict) else []
    required = [n for n in schema.get("required", []) if isinstance(n, str)]
    names += [n for n in required if n not in names]
    return {
        "type": "object",
        "properties": {n: {} for n in names},
        "required": required,
        "additionalProperties": True,
    }


def _uses_unsupported(node: JSON) -> bool:
    """True when a schema uses a keyword that would be misread."""
    if isinstance(node, dict):
        if not _UNSUPPORTED_KEYS.isdisjoint(node):
            return True
        return any(
            not _UNSUPPORTED_KEYS.isdisjoint(value) or any(map(_definition_uses_unsupported, value.values()))
            if key in _DEFS_KEYS and isinstance(value, dict)
            else _uses_unsupported(value)
            for key, value in node.items()
        )
    if isinstance(node, list):  # scalars (a wide enum's members) hold no keyword
        return any(_uses_unsupported(v) for v in node if isinstance(v, dict | list))
    return False


# Bundling copies a shared definition into every tool schema that uses it: what is read from a
# definition alone is found once per distinct definition (by its content, as marshal writes it:
# types and order kept) instead of once per copy.
_BY_DEFINITION: dict[tuple[str, bytes], Any] = {}
_BY_DEFINITION_MAX = 50_000  # entries kept before all are dropped


def _by_definition(what: str, node: JSON, make: Callable[[JSON], Any]) -> Any:
    try:
        key = (what, marshalled(node))
    except ValueError:  # not plain data
        return make(node)
    if key not in _BY_DEFINITION:
        if len(_BY_DEFINITION) >= _BY_DEFINITION_MAX:
            _BY_DEFINITION.clear()
        _BY_DEFINITION[key] = make(node)
    return _BY_DEFINITION[key]


def _definition_uses_unsupported(node: JSON) -> bool:
    return bool(_by_definition("unsupported", node, _uses_unsupported))


def _hoist(
    tool: Tool,
    class_name: str,
    schema: dict[str, JSON],
    shared: dict[str, JSON],
    taken: set[str],
    namer: Namer,
) -> dict[str, JSON]:
    """Turn one self-contained tool schema into `$defs` entries of the combined document."""
    if _uses_unsupported(schema):
        raise _Unsupported("uses $dynamicRef or $recursiveRef")
    names: dict[str, str] = {"": class_name}  # JSON pointer in the tool schema -> `$defs` key
    skip: set[str] = set()  # pointers not to emit: shared definitions, an aliased root
    nodes: dict[str, JSON] = {"": schema}  # what each pointer designates
    for pointer in _ref_targets(schema):
        if pointer in names:
            continue
        parts = split(pointer) or ()
        node = nodes[pointer] = _lookup(schema, pointer)
        if len(parts) == 2 and parts[0] in _DEFS_KEYS:
            key = parts[1]
            if key in tool.shared_def_names and ((known := shared.get(key)) is node or known == node):
                names[pointer] = key
                skip.add(pointer)
                continue
        names[pointer] = namer.fresh(class_name, class_name + to_class_prefix("_".join(parts[1:])), taken)
    root = _strip_root(schema)
    if root.get("type") == "object" and "$ref" in root:
        del root["type"]  # beside a root `$ref`, it only repeats what the (object) target says
    if set(root) == {"$ref"} and (target := _pointer(root["$ref"])) not in skip | {""}:
        # A root that only points at a local definition is that definition under the tool's name.
        names[target] = class_name
        skip.add("")
    for pointer in list(names):
        # A target that is only a `$ref` is the class it points at, not a wrapper around it.
        node = nodes[pointer]
        if not (pointer and isinstance(node, dict) and len(node) == 1 and "$ref" in node):
            continue
        seen = {pointer}
        while isinstance(node, dict) and set(node) == {"$ref"}:
            target = _pointer(node["$ref"])
            if target in seen:
                break
            names[pointer] = names[target]
            skip.add(pointer)
            seen.add(target)
            node = nodes[target]
    draft07 = (tool.output_dialect if schema is tool.output_schema else tool.dialect) == "draft-07"
    units = {
        names[pointer]: _rewrite(nodes[pointer], pointer, names, pointer, draft07)
        for pointer in names
        if pointer not in skip
    }
    if "" not in skip and set(root) == {"$ref"}:
        # A root that points at a shared class is that class: the tool's name is an alias of it.
        units[class_name] = {"$ref": f"#/$defs/{names[_pointer(root['$ref'])]}"}
    return namer.scope(class_name, units, taken)


def _strip_root(schema: dict[str, JSON]) -> dict[str, JSON]:
    """The root schema without the keys that only make sense at a document root."""
    skip = {"$schema", "$id", "$comment", "title", "description", *_DEFS_KEYS}
    return {k: v for k, v in schema.items() if k not in skip}


def _pointer(ref: JSON) -> str:
    """The decoded JSON pointer of a same-document `$ref` (`#/a~1b` -> `/a/b`)."""
    pointer = fragment_pointer(ref[1:]) if isinstance(ref, str) and ref.startswith("#") else None
    if pointer is None or split(pointer) is None:
        raise _Unsupported(f"$ref {ref!r} is not a JSON pointer into the schema")
    return pointer


def _lookup(schema: JSON, pointer: str) -> JSON:
    """The node a JSON pointer designates."""
    found, node, _ = resolve(schema, split(pointer) or ())
    if not found:
        raise _Unsupported(f"$ref target #{pointer} does not exist")
    return node


def _children(node: dict[str, JSON]) -> Iterator[tuple[str, JSON]]:
    """(pointer suffix, subschema) for every direct subschema of a schema object."""
    for key, value in node.items():
        esc = escape(key)
        if key in _SCHEMA_KEYS and isinstance(value, dict | bool):
            yield f"/{esc}", value
        elif key in _LIST_KEYS or (key == "items" and isinstance(value, list)):
            if isinstance(value, list):
                yield from ((f"/{esc}/{i}", v) for i, v in enumerate(value))
        elif (key in _MAP_KEYS or key in _DEFS_KEYS) and isinstance(value, dict):
            for name, sub in value.items():
                if isinstance(sub, dict | bool):
                    yield f"/{esc}/{escape(name)}", sub


def _ref_targets(node: JSON) -> Iterator[str]:
    """The pointers of every `$ref` target in a schema, in document order."""
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        target = _pointer(node["$ref"])
        if target.endswith(("/properties", "/$defs", "/definitions")):
            raise _Unsupported(f"$ref target #{target} is not a schema")
        yield target
    for suffix, sub in _children(node):
        if isinstance(sub, dict) and suffix.startswith(_DEFINITION_PREFIXES) and suffix.count("/") == 2:
            yield from _definition_targets(sub)
        else:
            yield from _ref_targets(sub)


_DEFINITION_PREFIXES = tuple(f"/{key}/" for key in _DEFS_KEYS)


def _definition_targets(node: JSON) -> Iterator[str]:
    """`_ref_targets` of a definition (refs are absolute: the same wherever the copy sits): the
    same pointers, then the same refusal at the same point."""
    found, refused = _by_definition("targets", node, _targets_and_refusal)
    yield from found
    if refused is not None:
        raise _Unsupported(refused)


def _targets_and_refusal(node: JSON) -> tuple[tuple[str, ...], str | None]:
    found: list[str] = []
    try:
        for target in _ref_targets(node):
            found.append(target)
    except _Unsupported as exc:
        return tuple(found), str(exc)
    return tuple(found), None


def _rewrite(
    node: JSON, pointer: str, names: dict[str, str] | None, own: str, draft07: bool, typed: bool = False
) -> JSON:
    """Copy a subschema, pointing `$ref`s at `$defs` keys and replacing hoisted parts by refs.

    With `names` None (a shared definition) refs are kept as they are. Objects that do not say
    otherwise get `additionalProperties: true`: JSON Schema allows unknown properties there, and
    a model that drops them would not dump what it was given. `typed` says the node is a branch
    of a combinator whose parent fixes the type. The result is never stricter than the schema:
    what a model cannot express exactly is left to the run-time validator (see `_loosen`).
    """
    if names is not None and pointer != own and pointer in names:
        ref: dict[str, JSON] = {"$ref": f"#/$defs/{names[pointer]}"}
        if isinstance(node, dict) and "default" in node and not (draft07 and "$ref" in node):
            # hoisted, it is a definition, whose own default fills nothing: written here, it does
            if _valid_default(node, draft07):
                ref["default"] = node["default"]
        return ref
    if not isinstance(node, dict):
        return node
    if draft07 and "$ref" in node:
        node = {k: v for k, v in node.items() if k in _REF_SIBLINGS_07}
    subs = dict(_children(node))
    out: dict[str, JSON] = {}
    for key, value in node.items():
        if key not in _MODEL_KEYWORDS:
            continue
        esc = "/" + escape(key)
        if key == "$ref" and names is not None:
            out[key] = f"#/$defs/{names[_pointer(value)]}"
        elif esc in subs:
            out[key] = _rewrite(value, pointer + esc, names, own, draft07)
        elif isinstance(value, dict) and any(s.startswith(esc + "/") for s in subs):
            out[key] = {
                name: _rewrite(sub, f"{pointer}{esc}/{escape(name)}", names, own, draft07)
                for name, sub in value.items()
            }
        elif isinstance(value, list) and any(s.startswith(esc + "/") for s in subs):
            in_typed = key == "allOf" or (key in _LIST_KEYS and key != "prefixItems" and "type" in node)
            out[key] = [
                _rewrite(sub, f"{pointer}{esc}/{i}", names, own, draft07, in_typed)
                for i, sub in enumerate(value)
            ]
        else:
            out[key] = value
    _loosen(out, draft07)
    properties = out.get("properties")
    if isinstance(properties, dict) and not _COUNTS_PROPERTIES.isdisjoint(out):
        # A default filled in would be one more property present, which these keywords may refuse
        # (a valid output with `maxProperties: 1` would fail its check once a default is added).
        out["properties"] = {
            name: {k: v for k, v in sub.items() if k != "default"} if isinstance(sub, dict) else sub
            for name, sub in properties.items()
        }
    if "patternProperties" in out:
        # Pattern-keyed values are left to the run-time validator; a map keyed by pattern would
        # refuse the other keys JSON Schema allows.
        del out["patternProperties"]
        out["additionalProperties"] = True
    kind = out.get("type")
    is_object = kind == "object" or (isinstance(kind, list) and "object" in kind)
    if (is_object or "properties" in out) and _OPEN_KEYS.isdisjoint(out):
        out["additionalProperties"] = True
    _widen(out, typed)
    _null_apart(out)
    return out


def _null_apart(out: dict[str, JSON]) -> None:
    """`type: [array, null]` (or another list with null) around a reference: as `anyOf` of the
    other types and null, in place. The model generator drops the null of such a recursive type
    list (`list`, refusing null), but not of the `anyOf`."""
    kind = out.get("type")
    if not (isinstance(kind, list) and "null" in kind and len(kind) > 1 and "'$ref'" in repr(out)):
        return
    rest = [t for t in kind if t != "null"]
    branch = {k: v for k, v in out.items() if k not in _ANNOTATION_KEYWORDS}
    branch["type"] = rest[0] if len(rest) == 1 else rest
    kept = {k: v for k, v in out.items() if k in _ANNOTATION_KEYWORDS}
    out.clear()
    out.update(kept)
    out["anyOf"] = [branch, {"type": "null"}]


def _loosen(out: dict[str, JSON], draft07: bool) -> None:
    """Drop in place what a pydantic model would enforce more strictly than the schema."""
    if "default" in out and not _valid_default(out, draft07):
        del out["default"]  # a model would fill in, and send, a value the schema refuses
    # JSON Schema patterns are ECMA-262: pydantic's engines read `\s`, `\W`, `\D`, `\b` or `\cJ`
    # otherwise and would refuse strings the schema takes. The validator checks them.
    out.pop("pattern", None)
    if out.pop("unevaluatedProperties", None) is not None and "additionalProperties" not in out:
        out["additionalProperties"] = True  # it depends on what siblings evaluated: a validator's job
    out.pop("unevaluatedItems", None)
    # Decimal multiples are inexact in floats; the validator checks them exactly.
    out.pop("multipleOf", None)
    if draft07 and isinstance(out.get("items"), list):
        out["prefixItems"] = out.pop("items")
        if "additionalItems" in out:
            out["items"] = out.pop("additionalItems")
    out.pop("additionalItems", None)
    prefix = out.get("prefixItems")
    if isinstance(prefix, list) and out.get("items") is not False:
        # A model types every item alike; positions are left to the run-time validator.
        rest = out.pop("items", True)
        del out["prefixItems"]
        branches = [*prefix, rest]
        out["items"] = {"anyOf": branches} if all(isinstance(b, dict) and b for b in branches) else {}
    if "type" not in out:
        for key in _TYPED_KEYWORDS & out.keys():
            del out[key]  # on an untyped value pydantic would apply it to every type


def _widen(out: dict[str, JSON], typed: bool) -> None:
    """Let an untyped schema with object or array keywords accept the other types, as JSON Schema does."""
    if "type" in out:
        return
    parts = out.get("allOf")
    keys = set(out).union(*(b for b in parts if isinstance(b, dict))) if isinstance(parts, list) else set(out)
    has_object = not _OBJECT_KEYWORDS.isdisjoint(keys)
    has_array = not _ARRAY_KEYWORDS.isdisjoint(keys)
    if typed or "$ref" in out or "enum" in out or "const" in out or not (has_object or has_array):
        return
    # Untyped object or array keywords ignore other values; a model would refuse them.
    schema = dict(out)
    branches: list[JSON] = []
    if has_object:
        branch = {k: v for k, v in schema.items() if k in _OBJECT_KEYWORDS | _ANY_KEYWORDS}
        if _OPEN_KEYS.isdisjoint(branch):
            branch["additionalProperties"] = True
        branches.append({"type": "object", **branch})
    if has_array:
        branch = {k: v for k, v in schema.items() if k in _ARRAY_KEYWORDS | _ANY_KEYWORDS}
        branches.append({"type": "array", **branch})
    others = [
        t
        for t in ("object", "array", "string", "integer", "number", "boolean", "null")
        if not (t == "object" and has_object) and not (t == "array" and has_array)
    ]
    out.clear()
    out.update({k: v for k, v in schema.items() if k in _ANNOTATION_KEYWORDS})
    out["anyOf"] = [*branches, {"type": others}]


def _valid_default(schema: dict[str, JSON], draft07: bool) -> bool:
    """True when a schema's `default` is valid against it (unknown when it holds a reference)."""
    rest = {k: v for k, v in schema.items() if k != "default"}
    if "$ref" in repr(rest):
        return True
    import jsonschema_rs  # noqa: PLC0415 - only for schemas with a default

    cls = jsonschema_rs.Draft7Validator if draft07 else jsonschema_rs.Draft202012Validator
    try:
        return bool(cls(rest).is_valid(schema["default"]))
    except Exception:
        return True


def _only(
    units: dict[str, dict[str, JSON]], names: list[str], stub: tuple[str, ...] | list[str] = ()
) -> None:
    """Generate models for some units only, stubbing the named shared defs left out."""
    chosen = {n: units[n] for n in names}
    chosen.update({n: {n: {}} for n in stub if n not in chosen})
    _generate(chosen)


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
    from datamodel_code_generator import LiteralType, generate  # noqa: PLC0415
    from datamodel_code_generator.enums import (  # noqa: PLC0415
        DataModelType,
        InputFileType,
        StrictTypes,
    )
    from datamodel_code_generator.format import Formatter  # noqa: PLC0415

    defs: dict[str, JSON] = {}
    for entries in units.values():
        defs.update(entries)
    document = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    aliases = _field_names(defs, wire)
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


def _field_names(defs: dict[str, JSON], extra: frozenset[str] = frozenset()) -> dict[str, str]:
    """A distinct field name for each property name that is not one as it stands.

    Python parses identifiers in NFKC form (the ligature `\ufb01le` is `file`), so such a
    name, like one that is no identifier, a keyword or in pydantic's protected namespaces
    (`model_dump_path` would warn on import), gets a field name of its own with the wire name as
    its alias. A chosen name is no property name anywhere in the document nor a pydantic
    attribute: two names that normalise alike stay two fields, and no wire name means two fields.
    """
    from datamodel_code_generator.util import camel_to_snake  # noqa: PLC0415

    wire: set[str] = set(extra)
    _property_names(defs, wire)
    taken = wire | _model_attributes()
    chosen: dict[str, str] = {}
    for name in sorted(wire):
        normal = unicodedata.normalize("NFKC", name)
        if normal == name and name.isidentifier() and not keyword.iskeyword(name):
            # as the model generator would spell it (`modelDumpPath` is `model_dump_path`)
            normal = camel_to_snake(name)
            if not normal.startswith(_PROTECTED_PREFIXES):
                continue
        base = re.sub(r"\W", "_", normal).strip("_") or "field"
        if not base.isidentifier() or base[0].isdigit() or base.startswith(_PROTECTED_PREFIXES):
            base = "field_" + base
        candidates = itertools.chain([base, base + "_"], (f"{base}_{n}" for n in itertools.count(1)))
        candidate = next(c for c in candidates if c not in taken and not keyword.iskeyword(c))
        taken.add(candidate)
        chosen[name] = candidate
    return chosen


# pydantic warns on import about a field whose name starts with one of these.
_PROTECTED_PREFIXES = ("model_validate", "model_dump")


@cache
def _model_attributes() -> frozenset[str]:
    """Names a field must not take: pydantic's own attributes."""
    from pydantic import BaseModel  # noqa: PLC0415

    return frozenset(dir(BaseModel))


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


def _postprocess(source: str) -> str:
    """Drop the generator's header, defer schema building to first use (fast imports), lay out
    the text as black would."""
    source = _HEADER.sub("", source)
    if _MISSING_IMPORT in source:  # pydantic 2.14 warns on import from the experimental module
        source = _PYDANTIC_IMPORT.sub(_with_missing, source.replace(_MISSING_IMPORT, ""), count=1)
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not _MODEL_CLASS.match(line):
            continue
        while not out[-1].endswith(":"):  # a class header wrapped over several lines
            out.append(lines[i])
            i += 1
        body = lines[i]
        if body == "    model_config = ConfigDict(":
            out += [body, "        defer_build=True,"]
            i += 1
        elif body.startswith("    model_config = ConfigDict("):
            out.append(body.replace("ConfigDict(", "ConfigDict(defer_build=True, ", 1))
            i += 1
        else:
            out += ["    model_config = ConfigDict(", "        defer_build=True,", "    )"]
    from mcpstub.format import format_piece, ruff_layout  # noqa: PLC0415 - format imports render

    source = typed_containers(plain_aliases("\n".join(out)))
    source = own_field_names(json_literals(factory_defaults(exact_numbers(source))))
    return format_piece(ruff_layout(source))


def _with_missing(match: re.Match[str]) -> str:
    """The `from pydantic import` statement with MISSING added, laid out as black would."""
    names = sorted({*(n.strip() for n in match[1].strip("()").split(",") if n.strip()), "MISSING"})
    line = f"from pydantic import {', '.join(names)}"
    if len(line) <= LINE_LENGTH:
        return line
    return "from pydantic import (\n" + "".join(f"    {n},\n" for n in names) + ")"


def _alias_values(source: str, names: Sequence[str]) -> str:
    """Turn the root models of non-object outputs into type aliases, so handlers return plain values.

    `class XOutput(RootModel[list[Item]])` becomes `XOutput: TypeAlias = list[Item]`; a root that
    refers to itself, or one that is not a root model (a fallback), becomes `Any`. The output
    schema, checked on every call, stays the judge of the value.
    """
    import ast  # noqa: PLC0415

    tree = ast.parse(source)
    lines = source.split("\n")
    wanted = set(names)
    for node in reversed(tree.body):
        if not isinstance(node, ast.ClassDef) or node.name not in wanted:
            continue
        annotation = "Any"
        root = next(
            (
                item.annotation
                for item in node.body
                if isinstance(item, ast.AnnAssign)
                and isinstance(item.target, ast.Name)
                and item.target.id == "root"
            ),
            None,
        )
        is_root_model = any(
            isinstance(base, ast.Subscript) and ast.unparse(base.value) == "RootModel" for base in node.bases
        )
        if root is not None and is_root_model:
            text = ast.unparse(root)
            if not re.search(rf"\b{re.escape(node.name)}\b", text):
                annotation = text
        end = node.end_lineno or node.lineno
        lines[node.lineno - 1 : end] = [f"{node.name}: TypeAlias = {annotation}"]
    source = "\n".join(lines)
    needed = ["TypeAlias", *(["Any"] if re.search(r"\bAny\b", source) else [])]
    match = _TYPING_IMPORT.search(source)
    if match is not None:
        names_in = {n.strip() for n in match[1].strip("()").split(",") if n.strip()}
        line = f"from typing import {', '.join(sorted(names_in | set(needed)))}"
        source = source[: match.start()] + line + source[match.end() :]
    else:
        source = f"from typing import {', '.join(sorted(needed))}\n\n{source.lstrip(chr(10))}"
    if not re.search(r"\bRootModel\[", source):
        source = re.sub(r"\bRootModel,\s*|,\s*RootModel\b", "", source, count=1)
    from mcpstub.format import format_piece  # noqa: PLC0415 - format imports render

    return format_piece(source)


_OPEN_CLASS = """class {name}(BaseModel):
    model_config = ConfigDict(
        defer_build=True,
        extra="allow",
        validate_by_name=True,
    )"""


def _open_classes(source: str, names: Sequence[str]) -> str:
    """An object-rooted tool model that came out as a type alias of a plain type (an object with
    only combinators, `oneOf` of `required` lists) becomes an open model class again: the server
    validates arguments and outputs through model classes, and the schema stays the judge.
    An alias of another class (a root `$ref` to a shared object) is kept."""
    import ast  # noqa: PLC0415

    tree = parsed(source)
    defined = bound_names(tree)
    wanted = set(names)
    seen: set[str] = set()
    reopened: list[ast.AnnAssign] = []  # each wanted alias's statement, however it is laid out
    for node in tree.body:
        if not (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.target.id in wanted
            and node.target.id not in seen
            and isinstance(node.annotation, ast.Name)
            and node.annotation.id == "TypeAlias"
        ):
            continue
        name = node.target.id
        seen.add(name)
        value = node.value
        if not (isinstance(value, ast.Name) and value.id in defined and value.id != name):
            reopened.append(node)
    if not reopened:
        return source
    starts = [0, *(m.end() for m in re.finditer("\n", source))]
    edits = [
        ((starts[node.lineno - 1], starts[end] - 1 if end < len(starts) else len(source)), node.target.id)
        for node in reopened
        if isinstance(node.target, ast.Name)
        for end in [node.end_lineno or node.lineno]
    ]
    pieces, position = [], 0
    for (start, end), name in edits:
        pieces += [source[position:start], _OPEN_CLASS.format(name=name)]
        position = end
    source = "".join(pieces) + source[position:]
    from mcpstub.format import format_piece  # noqa: PLC0415 - format imports render
    from mcpstub.model_source import add_imports  # noqa: PLC0415

    source = add_imports(source, "pydantic", ["BaseModel", "ConfigDict"])
    typing = re.search(r"^from typing import (\([^)]*\)|.*)\n", source, re.MULTILINE)
    if typing is not None:  # drop what only the replaced aliases used
        rest = source[: typing.start()] + source[typing.end() :]
        names = [n.strip() for n in typing[1].strip("()").split(",") if n.strip()]
        kept = [n for n in names if re.search(rf"\b{re.escape(n)}\b", rest)]
        line = f"from typing import {', '.join(kept)}\n" if kept else ""
        source = source[: typing.start()] + line + source[typing.end() :]
    return format_piece(source)
