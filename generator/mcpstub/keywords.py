"""Keyword lint: one schema as written -> warnings for keywords its dialect does not know.

`lint_schema` walks the schema tree once, visiting only schema positions (not the names under
`properties`/`$defs`, not `const`/`enum`/`default`/`examples` values, not the values of unknown
keywords). A keyword unknown to the dialect is a located warning with a hint: a close keyword
("did you mean"), a property indented one level too shallow, or the YAML flow-map trap (a comma
in `{description: a, b}` ends the text and makes `b` a key); one that misspells a constraint,
with a value the constraint takes (`requried: [a]`), is an error, as is a `type` that names no
JSON type. Keywords starting with `x-` and configured vendor keywords are allowed. The same walk
collects every regular expression, so the caller checks them without walking again.
The `SUBSCHEMA_*` tables say where a schema holds subschemas, for every walk of a schema tree.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcpstub.bounds import BOUNDS, range_problems
from mcpstub.diagnostics import Diagnostic, error, warning
from mcpstub.document import editor_lines
from mcpstub.errortext import echo_value, yaml_boolean_hint
from mcpstub.ir import DIALECT_URIS, schema_dialect
from mcpstub.spelling import folded, one_slip, swapped
from mcpstub.toolrules import ENTRY_KEYS, tool_key_hint

if TYPE_CHECKING:
    from mcpstub.document import Document, JsonPath

# Where a schema holds subschemas (2020-12 and draft-07): keywords whose value is one schema, a
# list of schemas, or a map of name -> schema.
SUBSCHEMA_ONE = frozenset(
    {
        "additionalProperties", "additionalItems", "items", "contains", "not", "if", "then", "else",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema",
    }
)  # fmt: skip
SUBSCHEMA_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
SUBSCHEMA_MAP = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
DEFS_KEYWORDS = ("$defs", "definitions")  # where a schema keeps its definitions (2020-12, draft-07)


def subschemas(node: dict[str, Any]) -> Iterator[tuple[str, str | int | None, Any]]:
    """(keyword, property name or index or None, subschema) for each subschema directly in a schema
    object: what is under a keyword that holds schemas, never data (`default`, `enum`) or a property
    named like a keyword."""
    for key, value in node.items():
        if key in SUBSCHEMA_ONE and isinstance(value, dict | bool):
            yield key, None, value
        elif key in SUBSCHEMA_LIST and isinstance(value, list):
            yield from ((key, i, sub) for i, sub in enumerate(value) if isinstance(sub, dict | bool))
        elif key in SUBSCHEMA_MAP and isinstance(value, dict):
            yield from ((key, name, sub) for name, sub in value.items() if isinstance(sub, dict | bool))


def with_subschemas(node: dict[str, Any], change: Callable[[Any], Any]) -> dict[str, Any]:
    """A copy of a schema object with `change` applied to each subschema directly in it."""
    out = dict(node)
    for key, at, sub in subschemas(node):
        if at is None:
            out[key] = change(sub)
        else:
            if out[key] is node[key]:
                out[key] = node[key].copy()
            out[key][at] = change(sub)
    return out


# The lint also reads a list written as `additionalItems`.
_LINTED_LIST = SUBSCHEMA_LIST | {"additionalItems"}

_CORE_2020 = {"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary",
              "$comment", "$defs"}  # fmt: skip
_APPLICATOR_2020 = {"prefixItems", "items", "contains", "additionalProperties", "properties",
                    "patternProperties", "dependentSchemas", "propertyNames", "if", "then", "else",
                    "allOf", "anyOf", "oneOf", "not"}  # fmt: skip
_UNEVALUATED = {"unevaluatedItems", "unevaluatedProperties"}
_VALIDATION_2020 = {"type", "const", "enum", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
                    "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
                    "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
                    "required", "dependentRequired"}  # fmt: skip
_META_DATA = {"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"}
_FORMAT = {"format"}
_CONTENT = {"contentEncoding", "contentMediaType", "contentSchema"}
# Still named by the 2020-12 meta-schema, for schemas written for older drafts.
_LEGACY_2020 = {"definitions", "dependencies", "$recursiveAnchor", "$recursiveRef"}
# The OpenAPI 3.1 base vocabulary: annotations that real schemas carry and validators ignore.
_OPENAPI = {"discriminator", "xml", "externalDocs", "example"}

KNOWN_2020_12 = frozenset(
    _CORE_2020 | _APPLICATOR_2020 | _UNEVALUATED | _VALIDATION_2020 | _META_DATA | _FORMAT | _CONTENT
    | _LEGACY_2020 | _OPENAPI
)  # fmt: skip
KNOWN_DRAFT_07 = frozenset(
    {
        "$schema", "$id", "$ref", "$comment", "title", "description", "default", "readOnly",
        "writeOnly", "examples", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
        "exclusiveMinimum", "maxLength", "minLength", "pattern", "additionalItems", "items",
        "maxItems", "minItems", "uniqueItems", "contains", "maxProperties", "minProperties",
        "required", "additionalProperties", "definitions", "properties", "patternProperties",
        "dependencies", "propertyNames", "const", "enum", "type", "format", "contentMediaType",
        "contentEncoding", "if", "then", "else", "allOf", "anyOf", "oneOf", "not",
        "$defs",  # not draft-07, but `#/$defs/...` refs resolve by pointer all the same
    }
    | _OPENAPI
)  # fmt: skip

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")
_TYPE_ALIASES = {
    "int": "integer", "long": "integer", "float": "number", "double": "number", "decimal": "number",
    "str": "string", "text": "string", "bool": "boolean", "dict": "object", "map": "object",
    "list": "array", "tuple": "array", "none": "null", "nil": "null",
}  # fmt: skip
# Keywords that describe a schema: a mapping holding one of them is probably a schema itself.
_SCHEMA_MARKERS = frozenset({"type", "$ref", "properties", "items", "enum", "const", "anyOf", "oneOf",
                             "allOf", "format", "description"})  # fmt: skip
# Keywords that take null silently: a flow-map comma that leaves one of them without a value
# changes the schema instead of failing its meta-schema check.
_NULL_ALLOWED = frozenset({"default", "const"})
_HINT_UNKNOWN = (
    "no validator reads it, and it is advertised as written; "
    "name vendor keywords with an `x-` prefix or list them in vendor_keywords"
)


@dataclass
class Lint:
    """What one walk found: diagnostics, the regular expressions, and where `type` is wrong."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    patterns: list[str] = field(default_factory=list)
    bad_types: set[JsonPath] = field(default_factory=set)
    defaults: list[JsonPath] = field(default_factory=list)  # the schemas that hold a `default`


# Names other schema languages (or habit) use for a keyword, folded as `folded` folds them.
_KEYWORD_ALIASES = {
    "regex": "pattern", "regexp": "pattern", "min": "minimum", "max": "maximum", "desc": "description",
    "unique": "uniqueItems", "minlen": "minLength", "maxlen": "maxLength", "props": "properties",
    "values": "enum", "choices": "enum",
    "minsize": "minItems", "maxsize": "maxItems", "example": "examples",
}  # fmt: skip
# Keywords of one dialect that the other does not have, and what to write there instead.
_OTHER_DIALECT = {
    "additionalItems": "in 2020-12, `items` is what follows `prefixItems`",
    "dependencies": "in 2020-12, `dependentRequired` or `dependentSchemas`",
}


def closest(key: str, known: Iterable[str]) -> str | None:
    """The name of `known` that `key` most likely misspells (case, separators, a known alias, a
    close spelling), or None."""
    lowered = {k.lower(): k for k in known}
    if key.lower() in lowered:
        return lowered[key.lower()]
    by_folded = {folded(k): k for k in lowered.values()}
    if folded(key) in by_folded:
        return by_folded[folded(key)]
    alias = _KEYWORD_ALIASES.get(folded(key))
    if alias in lowered.values():
        return alias
    turned = [k for k in sorted(lowered.values()) if swapped(key.lower(), k.lower())]
    if len(turned) == 1:  # two letters typed the wrong way round (`qyt`), however short the name
        return turned[0]
    close = difflib.get_close_matches(key, sorted(lowered.values()), n=1, cutoff=0.75)
    return close[0] if close else None


def comma_hint(doc: Document, path: JsonPath, node: dict[str, Any]) -> str | None:
    """The YAML flow-map trap, when the key at `path` (in `node`, the mapping's data) is written
    without a value right after unquoted text in a `{...}` mapping: `{description: a, b}` is
    `{description: a, b: null}`. The hint quotes the text as it was written. Never for a block
    mapping, a quoted text, a quoted or `?` key or a key written with a `:`, where no comma cut
    anything."""
    key = path[-1] if path else None
    if not isinstance(key, str) or node.get(key, "") is not None:
        return None
    cut = doc.comma_cut(path)
    if cut is None or not isinstance(node.get(cut[0]), str):
        return None
    before, written = cut
    text = written.replace("\\", "\\\\").replace('"', '\\"')
    return f'it has no value: a comma ends a value inside {{...}}; quote the text: {before}: "{text}"'


def comment_hint(doc: Document, path: JsonPath) -> str | None:
    """The YAML comment trap, when the key at `path` has no value because what follows it starts
    with `#` (`$ref: #/$defs/X`): the hint quotes it."""
    if doc.is_json:
        return None
    key = doc.key_loc(path)
    lines = editor_lines(doc.text)
    line = lines[key.line - 1] if 0 < key.line <= len(lines) else ""
    found = re.match(r"(?:\"[^\"]*\"|'[^']*'|[^:#]*?)\s*:\s+(#.*)$", line[key.col - 1 :])
    if found is None:
        return None
    value = re.split(r"\s#", found[1], maxsplit=1)[0].rstrip()  # (a comment after it stays one)
    quoted = json.dumps(value, ensure_ascii=False)
    return f"'#' after a space starts a comment in YAML, so this has no value: quote it, {path[-1]}: {quoted}"


# The formats each dialect defines: a `type` written as one means a string of that format.
FORMATS_DRAFT_07 = frozenset(
    {"date", "date-time", "time", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
     "uri", "uri-reference", "iri", "iri-reference", "uri-template", "json-pointer",
     "relative-json-pointer", "regex"}
)  # fmt: skip
FORMATS_2020_12 = FORMATS_DRAFT_07 | {"duration", "uuid"}
# Names people write for a format, as the format is spelled.
_FORMAT_ALIASES = {"datetime": "date-time", "date_time": "date-time", "timestamp": "date-time", "url": "uri"}


def format_as_type(value: str, formats: Collection[str]) -> str | None:
    """The format of `formats` a `type: <value>` means (`date`, `datetime`), if it means one."""
    name = value.lower()
    name = _FORMAT_ALIASES.get(name, name)
    return name if name in formats else None


def missing_colon(doc: Document, path: JsonPath, node: dict[str, Any], known: frozenset[str]) -> str | None:
    """`minimum 1`, `type integer` or `format date-time` written as a key with no value (its `:`
    left out): the keyword and its value as they should be written. None for any other key, and
    for text a comma cut from the prose before it (`{description: Reads it, then writes}`), which
    `comma_hint` explains."""
    key = path[-1] if path else None
    if not isinstance(key, str) or node.get(key, "") is not None:
        return None
    word, _, rest = key.partition(" ")
    if word not in known or not rest.strip():
        return None
    cut = doc.comma_cut(path)
    if cut is not None and (cut[0] in _PROSE or " " in str(node.get(cut[0], "")).strip()):
        return None
    return f"{word}: {rest.strip()}"


# Keywords whose value is prose: a comma in it cuts the text, it does not separate a keyword.
_PROSE = frozenset({"description", "title", "$comment"})


def _looks_like_schema(value: Any, known: frozenset[str]) -> bool:
    return isinstance(value, dict) and any(k in _SCHEMA_MARKERS for k in value)


def _dialect_name(known: frozenset[str]) -> str:
    return "draft-07" if known is KNOWN_DRAFT_07 else "2020-12"


def invalid_value_hint(doc: Document, at: JsonPath, schema: Any, path: JsonPath, value: Any) -> str | None:
    """A hint for a keyword whose value the meta-schema refuses (`path` is inside `schema`, which
    is at `at` in `doc`): a value lost to a flow-map comma, or a form of an older draft."""
    if not path or not isinstance(path[-1], str):
        return None
    parent = schema
    for part in path[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return None
    key = path[-1]
    if not isinstance(parent, dict):
        return None
    if value is None:
        return (
            comment_hint(doc, (*at, *path))
            or comma_hint(doc, (*at, *path), parent)
            or _nothing_under(doc, (*at, *path), keyword=position(path[:-1]) == "schema")
        )
    if isinstance(value, (str, int, float, list)) and position(path[:-1]) == "map":
        if key in KNOWN_2020_12 | KNOWN_DRAFT_07:
            return (
                f"here {key!r} names a property, not a keyword: if it belongs to the property above"
                " it, indent it under that property"
            )
        if isinstance(value, str) and (named := type_meant(value, JSON_TYPES)) is not None:
            written = f'{json.dumps(key)}: {{"type": "{named}"}}'
            if not doc.is_json:  # (YAML: `#x` and `null` quoted, or they read as a comment and as nothing)
                name = key if re.fullmatch(r"[A-Za-z_][\w-]*", key) else json.dumps(key)
                written = f"{name}: {{type: {json.dumps(named) if named == 'null' else named}}}"
            return f"a property's schema is an object: write `{written}`"
    if isinstance(value, list) and value and position(path) == "map" and all(map(_one_entry, value)):
        instead = "an object, {...}, not a list" if doc.is_json else "the names without `- ` before them"
        return f"{key} maps each name to its schema: write {instead}"
    lists = {"required", "enum", "examples", "prefixItems", "allOf", "anyOf", "oneOf"}
    boolean = isinstance(value, bool) or (yaml_boolean_hint(value) and doc.written_plain((*at, *path)))
    if key == "required" and boolean:  # (`yes` too: YAML 1.1 reads it as true)
        return "`required: true` on a property is draft-03: list the name in its object's `required`"
    if key in lists and isinstance(value, str | int | float) and not isinstance(value, bool):
        item = json.dumps(value, ensure_ascii=False)  # quoted as JSON: YAML reads it alike
        if doc.is_json:
            return f'{key} takes a list: write "{key}": [{item}]'
        return f"{key} takes a list: write {key}: [{item}]"
    if key in {"exclusiveMinimum", "exclusiveMaximum"} and boolean:  # (`yes` too)
        bound = "minimum" if key == "exclusiveMinimum" else "maximum"
        return f"a boolean {key} is draft-04: write the excluded bound itself, `{key}: N`, without `{bound}`"
    return None


def _one_entry(item: Any) -> bool:
    return isinstance(item, dict) and len(item) == 1


# What a keyword written with nothing after it takes, where that is no schema.
_NULL_TAKES = {
    "required": "list the names it requires: `required: [name]`",
    "enum": "list its values: `enum: [a, b]`",
    "type": "name the type: `type: string`",
    "examples": "list the examples: `examples: [a]`",
    "dependentRequired": "map each name to the names it requires: `dependentRequired: {a: [b]}`",
    "pattern": "write the pattern after it, quoted: `pattern: '^[a-z]+$'`",
    "format": "name the format: `format: date-time`",
    "$ref": "write the reference after it, quoted: `$ref: '#/$defs/Name'`",
    **{key: f"list its schemas: `{key}: [{{type: string}}, {{type: integer}}]`"
       for key in ("allOf", "anyOf", "oneOf", "prefixItems")},
    **{key: "write the number after it: `" + key + ": 1`"
       for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
                   "maxLength", "minItems", "maxItems", "minContains", "maxContains", "minProperties",
                   "maxProperties")},
    **dict.fromkeys(("uniqueItems", "readOnly", "writeOnly", "deprecated"), "write true or false after it"),
    **dict.fromkeys(("title", "description", "$comment"), "write its text after it, or leave it out"),
}  # fmt: skip


def position(path: Sequence[str | int]) -> str:
    """What the node at `path` below a schema is: "schema", "map" (names -> schemas: `properties`,
    `$defs`, ...), "list" (of schemas: `allOf`, ...) or "value" (a keyword's data, or inside it)."""
    kind = "schema"
    for part in path:
        if kind == "items" and str(part).isdigit():  # (draft-07 `items` as a list of schemas)
            kind = "schema"
            continue
        if kind in ("map", "list"):
            kind = "schema"
        elif kind in ("schema", "items"):
            kind = (
                "items" if part == "items"
                else "map" if part in SUBSCHEMA_MAP
                else "list" if part in SUBSCHEMA_LIST
                else "schema" if part in SUBSCHEMA_ONE
                else "value"
            )  # fmt: skip
        else:
            return "value"
    return "schema" if kind == "items" else kind


def _nothing_under(doc: Document, path: JsonPath, keyword: bool = False) -> str:
    """The hint for a key written with nothing after it (`a:`): the lines below it, where they
    stand at its own indentation and start with a keyword, were meant to be under it; a
    `keyword` (not a property's name) whose value is no schema is told what it takes."""
    if keyword and path[-1] not in SUBSCHEMA_ONE | SUBSCHEMA_MAP:  # (a keyword that takes no schema)
        return _NULL_TAKES.get(str(path[-1]), "write its value after it, or leave the keyword out")
    if keyword and path[-1] in SUBSCHEMA_MAP:  # (what follows it is its siblings, as a rule)
        return f"write its entries under it, indented 2 more spaces, or `{path[-1]}: {{}}` for none"
    if doc.is_json:
        return 'write its schema instead of null ({"type": "string"}, say), or {} for any value'
    key = doc.key_loc(path)
    lines = editor_lines(doc.text)
    below = next(
        (line for line in lines[key.line :] if line.strip() and not line.lstrip().startswith("#")), ""
    )
    word = below.lstrip(" ").split(":", 1)[0].strip("\"'")
    if len(below) - len(below.lstrip(" ")) == key.col - 1 and word in KNOWN_2020_12 | KNOWN_DRAFT_07:
        return (
            f"nothing is indented under {str(path[-1])!r}: indent the lines below it 2 more spaces"
            " to make them its schema"
        )
    return "write its schema after it (`{type: string}`, say), or {} for any value"


_TOOL_SCHEMAS = ("inputSchema", "outputSchema")


def _unknown_hint(
    doc: Document, path: JsonPath, node: dict[str, Any], value: Any, known: frozenset[str], by_ref: bool
) -> str:
    key = str(path[-1])
    if value is None and (comma := comma_hint(doc, path, node)):
        return comma
    other = KNOWN_2020_12 if known is KNOWN_DRAFT_07 else KNOWN_DRAFT_07
    if key in other and key not in known:
        this, that = _dialect_name(known), _dialect_name(other)
        said = "the schema's $schema says draft-07" if this == "draft-07" else "no $schema names draft-07"
        if by_ref:  # (read in the dialect of the schema it is copied into)
            said = "a schema reaching it by $ref says draft-07" if this == "draft-07" else (
                "no schema reaching it by $ref names draft-07"
            )
        instead = _OTHER_DIALECT.get(key)
        return f"{key!r} is a {that} keyword, and this schema is {this} ({said})" + (
            f"; {instead}" if instead else ""
        )
    if len(path) == 4 and path[0] == "tools" and path[2] in _TOOL_SCHEMAS and key in ENTRY_KEYS:
        return tool_key_hint(doc, path[:3], key)  # (indented one level too deep)
    close = closest(key, known)
    if _looks_like_schema(value, known) and (close is None or close not in SUBSCHEMA_ONE):
        if "properties" in node:
            return "it looks like a property indented one level too shallow: move it under `properties`"
        return "it looks like a property: properties go under `properties:`"
    if close is not None:
        return f"did you mean {close!r}?"
    if key == "nullable":
        return "`nullable` is OpenAPI 3.0; in JSON Schema write `type: [T, 'null']`"
    if folded(key) in {"optional", "nullable", "isrequired"}:
        return "a property is optional unless its name is listed in its object's `required`"
    return _HINT_UNKNOWN


def type_meant(value: str, types: Iterable[str]) -> str | None:
    """The type of `types` a misspelled or otherwise named one means (`interger`, `int`, `String`)."""
    alias = _TYPE_ALIASES.get(value.lower())
    return alias if alias in set(types) else closest(value, types)


def _type_hint(value: str, draft07: bool) -> str:
    if (format_name := format_as_type(value, FORMATS_DRAFT_07 if draft07 else FORMATS_2020_12)) is not None:
        return f"{format_name!r} is a format of strings: write type: string, format: {format_name}"
    close = type_meant(value, JSON_TYPES)
    if close is not None:
        return f"did you mean {close!r}?"
    return f"JSON Schema types: {', '.join(JSON_TYPES)}"


# Keywords whose schemas apply to the very value their parent applies to: their `properties` and
# `required` are the parent's too. (`not` is left out: what it requires is what must be absent.)
_IN_PLACE = frozenset({"allOf", "anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies"})
# Beside these, a schema may have properties its `properties` do not name.
_MORE_PROPERTIES = frozenset({"$ref", "$dynamicRef", "$recursiveRef", "patternProperties"})
_DEFINITIONS = frozenset({"$defs", "definitions"})


def unsupported_dialect(doc: Document, path: JsonPath, schema: dict[str, Any]) -> Diagnostic:
    """A `$schema` naming no dialect mcpstub knows (nor is the meta-schema it names fetched)."""
    return error(
        "unsupported-dialect",
        f"{doc.describe(path)} declares an unsupported $schema {echo_value(schema['$schema'])}",
        doc.loc((*path, "$schema")),
        "use JSON Schema 2020-12 (the default) or draft-07",
    )


def unread_dialect(doc: Document, where: JsonPath, own: str, dialect: str) -> Diagnostic:
    """The `$schema` of a schema a `$ref` reaches, which a validator does not read there: the
    schema reaching it decides the dialect."""
    return warning(
        "unread-schema-dialect",
        f"{doc.describe(where)} says it is {own} by its $schema, but it is read as {dialect}:"
        " a schema reaching it by $ref is, and a validator reads no $schema where a $ref leads",
        doc.loc((*where, "$schema")),
        f"write it as {dialect}, or refer to it from a {own} schema",
    )


def lint_schema(
    doc: Document,
    path: JsonPath,
    schema: Any,
    draft07: bool,
    vendor: frozenset[str] = frozenset(),
    by_ref: bool = False,
) -> Lint:
    """Lint the schema at `path` of `doc` in one walk (draft07: the dialect is draft-07; by_ref: a
    schema another file reaches by `$ref`, in that one's dialect). A `$schema` below the root is
    read where it is written, as the server's validator reads it: that schema and those in it are
    of its dialect (what a `$ref` reaches is read in the dialect of the schema reaching it)."""
    found = Lint()
    # (where, schema, the schema whose value it applies to (None: under `not`), is a definition,
    # is draft-07)
    # (a whole file a `$ref` reaches is shared as a definition: its root's default fills no field;
    # a schema inside it may be a property where the file is reached whole, and is not said of)
    root_is_definition = (by_ref and not path) or (len(path) >= 2 and path[-2] in _DEFINITIONS)
    stack: list[tuple[JsonPath, Any, Any, bool, bool]] = [(path, schema, schema, root_is_definition, draft07)]
    families: dict[int, tuple[frozenset[str], bool] | None] = {}
    resources: dict[JsonPath, tuple[JsonPath, str]] = {}  # see `_check_resource`
    said: set[JsonPath] = set()  # each `$id` a `$ref` below it was said of
    while stack:
        where, node, family, is_definition, draft07 = stack.pop()
        if not isinstance(node, dict):
            continue
        if "$schema" in node and where != path and isinstance(node["$schema"], str):
            declared, reading = schema_dialect(node), "draft-07" if draft07 else "2020-12"
            if declared is None:
                found.diagnostics.append(unsupported_dialect(doc, where, node))
            elif is_definition:  # (reached by a `$ref`, where it is not read)
                if declared != reading:
                    found.diagnostics.append(unread_dialect(doc, where, declared, reading))
            else:
                draft07 = declared == "draft-07"
        known = KNOWN_DRAFT_07 if draft07 else KNOWN_2020_12
        if resources or "$id" in node:
            _check_resource(doc, path, where, node, draft07, resources, said, found)
        if not BOUNDS.isdisjoint(node) and not (draft07 and _under_ref(schema, where[len(path) :])):
            found.diagnostics.extend(range_problems(doc, where, node, draft07))
        if draft07 and "$ref" in node and (ignored := [k for k in node if k in _CONSTRAINTS and k != "$ref"]):
            if where == path and path[-1:] in _TOOL_ROOTS and node.get("type") == "object":
                ignored.remove("type")  # (what MCP asks of a root, as mcpstub advertises it)
            if ignored:
                found.diagnostics.append(_beside_ref(doc, where, ignored))
        for key, value in node.items():
            if key in known:
                if key == "default" and not (value is None and doc.holds_nothing((*where, key))):
                    found.defaults.append(where)  # (one written without a value is said below)
                    if is_definition:
                        found.diagnostics.append(_definition_default(doc, where, value))
                if key in SUBSCHEMA_ONE and isinstance(value, dict):
                    inner = None if key == "not" else family if key in _IN_PLACE else value
                    stack.append(((*where, key), value, inner, False, draft07))
                elif key in _LINTED_LIST and isinstance(value, list):
                    in_place = key in _IN_PLACE
                    stack.extend(
                        ((*where, key, i), item, family if in_place else item, False, draft07)
                        for i, item in enumerate(value)
                    )
                elif key in SUBSCHEMA_MAP and isinstance(value, dict):
                    if key == "patternProperties":
                        found.patterns.extend(k for k in value if isinstance(k, str))
                    in_place, defines = key in _IN_PLACE, key in _DEFINITIONS
                    stack.extend(
                        ((*where, key, name), item, family if in_place else item, defines, draft07)
                        for name, item in value.items()
                    )
                elif key == "pattern" and isinstance(value, str):
                    found.patterns.append(value)
                elif key == "enum" and value == []:
                    found.diagnostics.append(
                        warning(
                            "accepts-nothing",
                            f"{doc.describe(where)} accepts no value: its enum is empty",
                            doc.loc((*where, key)),
                            "list the values it takes; a property no client may send is `false`",
                        )
                    )
                elif key == "type":
                    _check_type(doc, (*where, key), value, found, draft07)
                elif key == "format" and isinstance(value, str) and _of_strings(node.get("type", "string")):
                    _check_format(doc, (*where, key), value, found, draft07)
                elif key == "required" and isinstance(value, list) and family is not None:
                    if id(family) not in families:
                        families[id(family)] = _property_names(family)
                    _check_required(doc, where, value, families[id(family)], found, _closed(node, draft07))
                    own = node.get("properties")
                    own = own if isinstance(own, dict) else {}
                    for i, name in enumerate(value):
                        if isinstance(name, str) and own.get(name) is False:
                            found.diagnostics.append(
                                warning(
                                    "accepts-nothing",
                                    f"{doc.describe(where)} accepts no value: it requires {name!r},"
                                    " whose schema is false",
                                    doc.loc((*where, "required", i)),
                                    f"take {name!r} out of `required`, or give it a schema",
                                )
                            )
                elif value is None and key in _NULL_ALLOWED and doc.holds_nothing((*where, key)):
                    # `{description: a, default}`, not `default: null`
                    found.diagnostics.append(
                        warning(
                            "missing-value",
                            f"{key!r} in {doc.describe(where)} has no value, so it is null",
                            doc.key_loc((*where, key)),
                            comma_hint(doc, (*where, key), node) or f"write `{key}: VALUE`, or leave it out",
                        )
                    )
            elif (colon := missing_colon(doc, (*where, key), node, known)) is not None:
                found.diagnostics.append(
                    error(
                        "missing-colon",
                        f"{key!r} in {doc.describe(where)} is a keyword and its value without ': '"
                        " between them: YAML reads it as one key with no value",
                        doc.key_loc((*where, key)),
                        f"write {colon}",
                    )
                )
            elif key not in vendor and _tool_key_lost(doc, (*where, key)):  # (indented one level too deep)
                found.diagnostics.append(
                    error(
                        "tool-key-in-schema",
                        f"{key!r} in {doc.describe(where)} is a key of the tool written inside its"
                        f" {where[2]}: the tool has no {key}, and the schema ignores it",
                        doc.key_loc((*where, key)),
                        tool_key_hint(doc, where, key),
                    )
                )
            elif not (key.startswith("x-") or key in vendor) and (
                meant := _misspelled(key, value, node, known)
            ):
                found.diagnostics.append(
                    error(
                        "misspelled-keyword",
                        f"{key!r} in {doc.describe(where)} is not a {_dialect_name(known)} keyword: the"
                        f" {meant!r} it misspells is not applied, so the schema checks less than it says",
                        doc.key_loc((*where, key)),
                        f"write {meant!r}; a keyword of your own starts with 'x-' (or is listed in"
                        " vendor_keywords)",
                    )
                )
            elif not (key.startswith("x-") or key in vendor):
                found.diagnostics.append(
                    warning(
                        "unknown-keyword",
                        f"unknown {_dialect_name(known)} keyword {key!r} in {doc.describe(where)}",
                        doc.key_loc((*where, key)),
                        _unknown_hint(doc, (*where, key), node, value, known, by_ref),
                    )
                )
    return found


def _tool_key_lost(doc: Document, path: JsonPath) -> bool:
    """Whether `path` is a key of the tool (`outputSchema`, `annotations`) written at the root of
    one of its schemas, where the tool itself has none: indented one level too deep."""
    if not (len(path) == 4 and path[0] == "tools" and path[2] in _TOOL_SCHEMAS and path[3] in ENTRY_KEYS):
        return False
    tool = doc.data["tools"][path[1]] if isinstance(doc.data, dict) else None
    return isinstance(tool, dict) and path[3] not in tool


def _under_ref(schema: Any, rel: JsonPath) -> bool:
    """Whether a `$ref` stands beside the node at `rel` of `schema`, or beside a keyword above it
    (draft-07 ignores them); a definition is not beside the `$ref` that reaches it."""
    node = schema
    for key in rel:
        if isinstance(node, dict) and "$ref" in node and key not in _DEFINITIONS:
            return True
        node = node[key]
    return isinstance(node, dict) and "$ref" in node


# Keywords that say what an instance may be: one misspelled drops a check (an annotation does not).
_CONSTRAINTS = frozenset(
    {"type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
     "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
     "dependencies", "items", "prefixItems", "additionalItems", "contains", "minContains",
     "maxContains", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern",
     "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "allOf",
     "anyOf", "oneOf", "not", "if", "then", "else", "$ref", "unevaluatedProperties",
     "unevaluatedItems"}
)  # fmt: skip


_TOOL_ROOTS = (("inputSchema",), ("outputSchema",))


def _check_resource(
    doc: Document,
    root: JsonPath,
    where: JsonPath,
    node: dict[str, Any],
    draft07: bool,
    resources: dict[JsonPath, tuple[JsonPath, str]],
    said: set[JsonPath],
    found: Lint,
) -> None:
    """A `$ref` below an `$id` that starts a resource of its own (anywhere but at a tool's schema)
    is resolved there by a validator, from the tool's schema by mcpstub: the two would disagree,
    so it is refused, once for each such `$id`. `resources`: each schema walked below one, and
    that `$id`'s place and value."""
    # (a schema's parent is walked before it, one or two steps up: `not`, `items`, `properties/a`)
    at = resources.get(where[:-1]) or resources.get(where[:-2])
    written = node.get("$id")
    if at is None and isinstance(written, str) and written[:1] not in ("", "#"):  # ("": the same base)
        if (where != root or root[-1:] not in _TOOL_ROOTS) and not (draft07 and "$ref" in node):
            at = (where, written)  # (draft-07: `$ref` ignores its siblings, `$id` among them)
    if at is None:
        return
    resources[where] = at
    ref = node.get("$ref")
    if isinstance(ref, str) and at[0] not in said:
        said.add(at[0])
        found.diagnostics.append(
            error(
                "ref-in-resource",
                f"the $ref {ref!r} at {doc.describe(where)} is below the $id {at[1]!r}: a"
                " validator resolves it in the schema that $id names, mcpstub from the tool's",
                doc.loc((*at[0], "$id")),
                "remove this $id (references into its schema name their place: "
                f"#/{'definitions' if draft07 else '$defs'}/NAME)",
            )
        )


def _beside_ref(doc: Document, where: JsonPath, ignored: list[str]) -> Diagnostic:
    """Keywords beside a draft-07 `$ref`: validators apply the `$ref` alone."""
    said = ", ".join(repr(k) for k in ignored)
    return warning(
        "ignored-beside-ref",
        f"{said} beside $ref in {doc.describe(where)} {'is' if len(ignored) == 1 else 'are'} ignored:"
        " in draft-07 a $ref replaces every keyword beside it, so the schema checks less than it says",
        doc.key_loc((*where, ignored[0])),
        "write `allOf: [{$ref: ...}, {...}]` to apply both, or use JSON Schema 2020-12, where both apply",
    )


def _misspelled(key: str, value: Any, node: dict[str, Any], known: frozenset[str]) -> str | None:
    """The constraint `key` misspells (`requried`, `MaxLength`, `propertes`), when `value` is one
    it takes and `node` does not hold it already: spelled so, the constraint is not applied. A
    misspelling is the keyword in other case or punctuation, two letters swapped, its plural or
    singular, its last letter left out, or, in a keyword of five letters or more, one letter left
    out, added or changed; not another word that is close (`count`, `formula`, `when`, `typeof`),
    which a schema may hold as its own annotation."""
    other = KNOWN_2020_12 if known is KNOWN_DRAFT_07 else KNOWN_DRAFT_07
    meant = closest(key, known)
    if meant is None or meant not in _CONSTRAINTS or key in other or meant in node:
        return None
    if meant in ("then", "else") and "if" not in node:  # (spelled right, it would check nothing either)
        return None
    if folded(key) != folded(meant) and not one_slip(key, meant):
        return None
    import jsonschema_rs  # noqa: PLC0415 - only for a keyword no dialect knows

    dialect = {"$schema": DIALECT_URIS["draft-07"]} if known is KNOWN_DRAFT_07 else {}
    return meant if jsonschema_rs.meta.is_valid({**dialect, meant: value}) else None


def _definition_default(doc: Document, where: JsonPath, value: Any) -> Diagnostic:
    """The warning for a `default` at the root of a definition: it fills no field."""
    written = json.dumps(value, ensure_ascii=False)
    if len(written) > 40:
        written = "..."
    # (a whole file a `$ref` reaches is shared as a definition all the same)
    what = f"definition {str(where[-1])!r}" if where else doc.describe(where)
    return warning(
        "definition-default",
        f"the default of {what} fills no field: a default applies only where "
        "it is written on a property, not to the properties that refer to it",
        doc.loc((*where, "default")),
        f"write it beside the reference on each property that should have it: "
        f"`{{$ref: ..., default: {written}}}` (it is advertised as written here all the same)",
    )


def _property_names(family: dict[str, Any]) -> tuple[frozenset[str], bool] | None:
    """The property names of a schema and of the schemas that apply in place with it (allOf,
    anyOf, oneOf, if/then/else, dependentSchemas), and whether any of them has `properties`;
    None when some of them may allow more (a `$ref`, `patternProperties`)."""
    names: set[str] = set()
    has_properties = False
    pending: list[Any] = [family]
    while pending:
        node = pending.pop()
        if not isinstance(node, dict):
            continue
        if not _MORE_PROPERTIES.isdisjoint(node):
            return None
        properties = node.get("properties")
        if isinstance(properties, dict):
            has_properties = True
            names.update(k for k in properties if isinstance(k, str))
        for key in _IN_PLACE & node.keys():
            value = node[key]
            if isinstance(value, list):
                pending.extend(value)
            elif isinstance(value, dict):
                pending.extend(value.values() if key in ("dependentSchemas", "dependencies") else (value,))
    return frozenset(names), has_properties


def _closed(node: dict[str, Any], draft07: bool) -> str | None:
    """The keyword, written false, by which a schema that takes objects alone refuses every name its
    `properties` do not have (`additionalProperties`; `unevaluatedProperties` where nothing beside it
    may evaluate one), or None."""
    if node.get("type") != "object":
        return None  # (a value of another type passes whatever the object keywords say)
    if node.get("additionalProperties") is False:
        return "additionalProperties"
    evaluating = {*_IN_PLACE, "$ref", "additionalProperties", "patternProperties"}
    if not draft07 and node.get("unevaluatedProperties") is False and evaluating.isdisjoint(node):
        return "unevaluatedProperties"
    return None


def _check_required(
    doc: Document,
    where: JsonPath,
    required: list[Any],
    family: tuple[frozenset[str], bool] | None,
    found: Lint,
    closed: str | None = None,
) -> None:
    """A warning for each name in `required` that no property of its object has (`closed`: the
    keyword that then refuses every value, written false beside it)."""
    if family is None or not family[1]:
        return  # nothing to compare with, or more properties than `properties` names
    names = family[0]
    for i, name in enumerate(required):
        if not isinstance(name, str) or name in names:
            continue
        close = closest(name, names)
        refused = f": {closed} is false, so it accepts no value" if closed else ""
        found.diagnostics.append(
            warning(
                "required-not-a-property",
                f"{doc.describe(where)}.required names {name!r}, which is not one of its properties{refused}",
                doc.loc((*where, "required", i)),
                f"did you mean {close!r}?"
                if close is not None
                else "add it under `properties`, or take it out of `required`",
            )
        )


def _check_type(doc: Document, where: JsonPath, value: Any, found: Lint, draft07: bool) -> None:
    items = [(where, value)] if isinstance(value, str) else []
    if isinstance(value, list):
        items = [((*where, i), v) for i, v in enumerate(value) if isinstance(v, str)]
    for at, name in items:
        if name not in JSON_TYPES:
            found.bad_types.add(where)
            found.diagnostics.append(
                error(
                    "unknown-type",
                    f"{doc.describe(where)}: {name!r} is not a JSON Schema type",
                    doc.loc(at),
                    _type_hint(name, draft07),
                )
            )


def _of_strings(types: Any) -> bool:
    """Whether a `type` takes strings (the formats the dialects define are of strings; an integer's
    `timestamp` is a format of its own)."""
    return types == "string" or (isinstance(types, list) and "string" in types)


def _check_format(doc: Document, where: JsonPath, value: str, found: Lint, draft07: bool) -> None:
    """A format close to one the dialect defines (`dat`, `datetime`): a misspelling nothing checks.
    Any other name is a format of its own (`int64`, `byte`; `uuid4`, as pydantic writes one), left
    to whoever reads it."""
    formats = FORMATS_DRAFT_07 if draft07 else FORMATS_2020_12
    if value in formats or value.rstrip("0123456789") in formats:
        return
    close = difflib.get_close_matches(value, formats, 1, 0.75)
    meant = format_as_type(value, formats) or (close[0] if close else None)
    if meant is not None:
        dialect = "draft-07" if draft07 else "JSON Schema 2020-12"
        said = f"{doc.describe(where[:-1])}: format {value!r} is not one {dialect} defines: nothing checks it"
        hint = f"did you mean {meant!r}?"
        found.diagnostics.append(warning("unknown-format", said, doc.loc(where), hint))
