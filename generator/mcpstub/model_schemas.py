"""The schema as datamodel-code-generator is given it: each tool schema hoisted into `$defs` entries."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from mcpstub.classnames import Namer
from mcpstub.engine import memory
from mcpstub.engine.fingerprints import value_bytes
from mcpstub.ir import JSON, Tool, to_class_prefix
from mcpstub.keywords import DEFS_KEYWORDS, KNOWN_2020_12, KNOWN_DRAFT_07, position, subschemas
from mcpstub.pointers import escape, percent_decoded, resolve, split

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
# Keywords whose numbers a model compares with an instance's, or with a length.
_COMPARED_NUMBERS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "const", "enum", "minLength", "maxLength",
     "minItems", "maxItems", "minProperties", "maxProperties"}
)  # fmt: skip
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_ANNOTATION_KEYWORDS = frozenset({"title", "description", "default", "examples", "deprecated"})
ANY_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "not", "if", "then", "else"})
# Keywords of an object whose outcome can change when one more property is present.
_COUNTS_PROPERTIES = frozenset(
    {"maxProperties", "dependentRequired", "dependentSchemas", "dependencies", "not", "oneOf", "if"}
)
# Keywords datamodel-code-generator silently misreads; a schema using them gets a fallback model.
_UNSUPPORTED_KEYS = frozenset({"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"})
# What the models read of a schema: JSON Schema's keywords. What no validator reads the generator
# must not either: it takes some for instructions (`customTypePath`, `x-python-import` import any name
# into models.py, `x-enum-varnames` renames, `nullable` admits null). Of the annotations, the models
# keep `title`, `description` and `default`: the generator turns others into behaviour (`readOnly`
# freezes a field, `deprecated` warns on every read, `discriminator` refuses what `oneOf` takes).
_NOT_FOR_MODELS = frozenset(
    {"$defs", "definitions", "$schema", "$id", "$anchor", "$comment", "$vocabulary", "readOnly",
     "writeOnly", "deprecated", "examples", "example", "discriminator", "xml", "externalDocs",
     "contentMediaType", "contentEncoding", "contentSchema"}
)  # fmt: skip
_MODEL_KEYWORDS = (KNOWN_2020_12 | KNOWN_DRAFT_07) - _NOT_FOR_MODELS
# In draft-07 a `$ref` replaces its siblings; these annotations are kept, the rest dropped.
_REF_SIBLINGS_07 = frozenset({"$ref", "description", "title"})


class Unsupported(Exception):
    """A schema this module knows datamodel-code-generator cannot model faithfully."""


def permissive(schema: JSON) -> JSON:
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


def uses_unsupported(node: JSON) -> bool:
    """True when a schema uses a keyword that would be misread."""
    if not isinstance(node, dict):
        return False
    return not _UNSUPPORTED_KEYS.isdisjoint(node) or any(
        _definition_uses_unsupported(sub) if key in DEFS_KEYWORDS else uses_unsupported(sub)
        for key, _, sub in subschemas(node)
    )


def _by_definition(what: str, node: JSON, make: Callable[[JSON], Any]) -> Any:
    """`make(node)` for a definition, once per distinct one: bundling copies a shared definition
    into every tool schema that uses it (its content as marshal writes it: types and order kept)."""
    try:
        key = value_bytes(node)
    except ValueError:  # not plain data
        return make(node)
    return memory.keyed(what, key, make, node)


def _definition_uses_unsupported(node: JSON) -> bool:
    return bool(_by_definition("unsupported", node, uses_unsupported))


def hoist(
    tool: Tool,
    class_name: str,
    schema: dict[str, JSON],
    shared: dict[str, JSON],
    taken: set[str],
    namer: Namer,
) -> dict[str, JSON]:
    """Turn one self-contained tool schema into `$defs` entries of the combined document."""
    if uses_unsupported(schema):
        raise Unsupported("uses $dynamicRef or $recursiveRef")
    names: dict[str, str] = {"": class_name}  # JSON pointer in the tool schema -> `$defs` key
    skip: set[str] = set()  # pointers not to emit: shared definitions, an aliased root
    nodes: dict[str, JSON] = {"": schema}  # what each pointer designates
    for pointer in _ref_targets(schema):
        if pointer in names:
            continue
        parts = split(pointer) or ()
        node = nodes[pointer] = _lookup(schema, pointer)
        if len(parts) == 2 and parts[0] in DEFS_KEYWORDS:
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
        # A root that only points at a local definition is that definition under the tool's name
        # (the one a chain of bare `$ref`s ends at: each link is an alias of it, below).
        seen = {target}
        while isinstance(node := nodes.get(target), dict) and set(node) == {"$ref"}:
            if (target := _pointer(node["$ref"])) in seen:
                break
            seen.add(target)
        if target not in skip | {""}:
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
    # The classes whose schema says its one type: an `allOf` holding a reference to one is of it.
    kinds = {
        names[p]: kind
        for p in names
        if isinstance(node := nodes.get(p), dict) and isinstance(kind := node.get("type"), str)
    }
    units = {
        names[pointer]: rewrite(nodes[pointer], pointer, names, pointer, draft07, kinds=kinds)
        for pointer in names
        if pointer not in skip
    }
    if "" not in skip and set(root) == {"$ref"}:
        # A root that points at a shared class is that class: the tool's name is an alias of it.
        units[class_name] = {"$ref": f"#/$defs/{names[_pointer(root['$ref'])]}"}
    return namer.scope(class_name, units, taken)


def _strip_root(schema: dict[str, JSON]) -> dict[str, JSON]:
    """The root schema without the keys that only make sense at a document root."""
    skip = {"$schema", "$id", "$comment", "title", "description", *DEFS_KEYWORDS}
    return {k: v for k, v in schema.items() if k not in skip}


def _pointer(ref: JSON) -> str:
    """The decoded JSON pointer of a same-document `$ref` (`#/a~1b` -> `/a/b`)."""
    pointer = percent_decoded(ref[1:]) if isinstance(ref, str) and ref.startswith("#") else None
    if pointer is None or split(pointer) is None:
        raise Unsupported(f"$ref {ref!r} is not a JSON pointer into the schema")
    return pointer


def _lookup(schema: JSON, pointer: str) -> JSON:
    found, node, _ = resolve(schema, split(pointer) or ())
    if not found:
        raise Unsupported(f"$ref target #{pointer} does not exist")
    return node


def children(node: dict[str, JSON]) -> Iterator[tuple[str, JSON]]:
    """(pointer suffix, subschema) for every direct subschema of a schema object."""
    for key, at, sub in subschemas(node):
        yield f"/{escape(key)}" if at is None else f"/{escape(key)}/{escape(at)}", sub


def _ref_targets(node: JSON) -> Iterator[str]:
    """The pointers of every `$ref` target in a schema, in document order."""
    if not isinstance(node, dict):
        return
    if "$ref" in node:
        target = _pointer(node["$ref"])
        if _names_a_map(split(target) or ()):
            raise Unsupported(f"$ref target #{target} is not a schema")
        yield target
    for suffix, sub in children(node):
        if isinstance(sub, dict) and suffix.startswith(_DEFINITION_PREFIXES) and suffix.count("/") == 2:
            yield from _definition_targets(sub)
        else:
            yield from _ref_targets(sub)


_DEFINITION_PREFIXES = tuple(f"/{key}/" for key in DEFS_KEYWORDS)


def _names_a_map(tokens: Sequence[str]) -> bool:
    """Whether a pointer ends at the keyword of a map of schemas (`#/properties`), not at a
    schema (`#/$defs/properties`, a definition of that name)."""
    return bool(tokens) and tokens[-1] in ("properties", *DEFS_KEYWORDS) and position(tokens) == "map"


def _definition_targets(node: JSON) -> Iterator[str]:
    """`_ref_targets` of a definition (refs are absolute: the same wherever the copy sits): the
    same pointers, then the same refusal at the same point."""
    found, refused = _by_definition("targets", node, _targets_and_refusal)
    yield from found
    if refused is not None:
        raise Unsupported(refused)


def _targets_and_refusal(node: JSON) -> tuple[tuple[str, ...], str | None]:
    found: list[str] = []
    try:
        for target in _ref_targets(node):
            found.append(target)
    except Unsupported as exc:
        return tuple(found), str(exc)
    return tuple(found), None


def rewrite(
    node: JSON,
    pointer: str,
    names: dict[str, str] | None,
    own: str,
    draft07: bool,
    typed: bool = False,
    kinds: Mapping[str, str] | None = None,
) -> JSON:
    """Copy a subschema, `$ref`s pointed at `$defs` keys (kept as they are with `names` None) and
    hoisted parts replaced by refs. Objects get `additionalProperties: true` unless they say
    otherwise: a model that drops unknown properties would not dump what it was given. The result
    is never stricter than the schema; the rest is left to the run-time validator (`_loosen`)."""
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
    subs = dict(children(node))
    out: dict[str, JSON] = {}
    for key, value in node.items():
        if key not in _MODEL_KEYWORDS:
            continue
        esc = "/" + escape(key)
        if key == "$ref" and names is not None:
            out[key] = f"#/$defs/{names[_pointer(value)]}"
        elif esc in subs:
            out[key] = rewrite(value, pointer + esc, names, own, draft07, kinds=kinds)
        elif isinstance(value, dict) and any(s.startswith(esc + "/") for s in subs):
            out[key] = {
                name: rewrite(sub, f"{pointer}{esc}/{escape(name)}", names, own, draft07, kinds=kinds)
                for name, sub in value.items()
            }
        elif isinstance(value, list) and any(s.startswith(esc + "/") for s in subs):
            in_typed = key == "allOf" or (key in ("anyOf", "oneOf") and "type" in node)
            out[key] = [
                rewrite(sub, f"{pointer}{esc}/{i}", names, own, draft07, in_typed, kinds)
                for i, sub in enumerate(value)
            ]
        else:
            out[key] = value
    _loosen(out, draft07)
    if "type" not in out and (kind := _all_of_kind(out, kinds or {})) is not None:
        out["type"] = kind  # what every instance is already (the model then is of that type alone)
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


def _all_of_kind(out: dict[str, JSON], kinds: Mapping[str, str]) -> str | None:
    """The one type a branch of `out`'s `allOf` requires (its `type`, or that of the class it
    refers to): every instance of `out` is of it."""
    parts = out.get("allOf")
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("type"), str):
            return str(part["type"])
        ref = part.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in kinds:
            return kinds[ref[8:]]
    return None


def _null_apart(out: dict[str, JSON]) -> None:
    """`type: [array, null]` around a reference, as `anyOf` of the types, in place: the model
    generator drops the null of such a recursive type list, but not of the `anyOf`."""
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
    for key in _COMPARED_NUMBERS & out.keys():
        if _past_doubles(out[key]):
            # Past 2**53 the validator compares a float instance as a double and an integer one
            # exactly; a model compares both exactly and would refuse what the schema takes (a
            # length past 2**63 it cannot even be built with).
            del out[key]
    kinds = out.get("type")
    numbers = isinstance(kinds, list) and not {"integer", "number"}.isdisjoint(kinds)
    if numbers and len(set(kinds) - {"null"}) > 1:  # type: ignore[arg-type]
        # Bounded, a number beside another type is a strict `conint`/`confloat` in a union: it
        # would refuse 5.0 for an integer, or make 1 a float.
        for key in _BOUNDS & out.keys():
            del out[key]
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


def _past_doubles(value: JSON) -> bool:
    """Whether a number in `value` is beyond the integers a double holds exactly (2**53)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return abs(value) >= 2**53
    if isinstance(value, list):
        return any(_past_doubles(item) for item in value)
    if isinstance(value, dict):
        return any(_past_doubles(item) for item in value.values())
    return False


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
        branch = {k: v for k, v in schema.items() if k in _OBJECT_KEYWORDS | ANY_KEYWORDS}
        if _OPEN_KEYS.isdisjoint(branch):
            branch["additionalProperties"] = True
        branches.append({"type": "object", **branch})
    if has_array:
        branch = {k: v for k, v in schema.items() if k in _ARRAY_KEYWORDS | ANY_KEYWORDS}
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
        return bool(cls(rest, offline=True).is_valid(schema["default"]))  # (never the network)
    except Exception:
        return True
