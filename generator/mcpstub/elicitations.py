"""Elicitations: a tool's `elicitations` entry -> its requested schemas, checked, plus diagnostics.

A tool may declare what it asks its user (`elicitation/create`, form mode): a map from a key (the
name the request is known by on the wire) to a requested schema. MCP restricts those to a flat
object of primitive properties: a string (formats email, uri, date, date-time), a number or
integer, a boolean, a single-select enum (`enum`, titled `oneOf` of `const`s, or the legacy
`enumNames`) or a multi-select array of enum values (`items.enum` or titled `items.anyOf`), each
with an optional default. Every departure is a located error; each schema becomes a model named
after the tool and the key (`deploy`'s `confirm` -> `DeployConfirm`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Generator, Iterator
from typing import Any

from mcpstub.defaults import rejection
from mcpstub.diagnostics import Diagnostic, error, warning
from mcpstub.errortext import describe_path as _where
from mcpstub.errortext import yaml_boolean_hint
from mcpstub.ir import CLASS_SUFFIXES, elicitation_class, schema_dialect, to_class_prefix
from mcpstub.keywords import (
    FORMATS_2020_12,
    KNOWN_2020_12,
    closest,
    comment_hint,
    format_as_type,
    missing_colon,
    type_meant,
    unsupported_dialect,
)
from mcpstub.load import Document, JsonPath

# A check that yields its diagnostics and returns the choices it found (None: none, or wrong).
_Choices = Generator[Diagnostic, None, list[str] | None]
CODE = "elicitation-schema"
FORMATS = ("email", "uri", "date", "date-time")
_ROOT_KEYS = ("$schema", "type", "properties", "required")
_COMMON = ("type", "title", "description", "default")
_KEYS = {
    "string": (*_COMMON, "minLength", "maxLength", "format"),
    "enum": (*_COMMON, "enum", "enumNames"),
    "oneOf": (*_COMMON, "oneOf"),
    "number": (*_COMMON, "minimum", "maximum"),
    "integer": (*_COMMON, "minimum", "maximum"),
    "boolean": _COMMON,
    "array": (*_COMMON, "items", "minItems", "maxItems"),
}
_SHAPES = (
    "a string (minLength, maxLength, format), a number or integer (minimum, maximum), a boolean, "
    "a string enum (`enum`, or `oneOf` of {const, title}), or an array of enum values "
    "(`items: {type: string, enum: [...]}` or `items: {anyOf: [{const, title}]}`)"
)


# The keys the runtime asks under when the handler names none: `ctx.sample`, `ctx.list_roots`,
# `ctx.elicit_url`. A form under one of them would be that question's key too, and a call asking
# both would fail (one key is one question).
DEFAULT_KEYS = {"sampling": "ctx.sample()", "roots": "ctx.list_roots()", "url": "ctx.elicit_url()"}


def check_elicitations(
    doc: Document, path: JsonPath, tool: str, raw: Any
) -> tuple[dict[str, dict[str, Any]], list[Diagnostic]]:
    """The requested schemas of tool `tool` at `path` (its `elicitations`), as written, and what
    is wrong with them; the format check has reported a value that is no mapping of mappings."""
    if not isinstance(raw, dict):
        return {}, []
    found: list[Diagnostic] = []
    schemas: dict[str, dict[str, Any]] = {}
    prefix = to_class_prefix(tool)
    taken = {
        prefix + suffix: f"the tool's {suffix.lower()} class" for suffix in CLASS_SUFFIXES
    }
    for key, schema in raw.items():
        if not isinstance(key, str) or not isinstance(schema, dict):
            continue
        if key in DEFAULT_KEYS:
            found.append(
                error(
                    "name-collision",
                    f"elicitation {key!r} of tool {tool!r} takes the key {DEFAULT_KEYS[key]} asks under "
                    "by default: a handler asking both would fail",
                    doc.key_loc((*path, key)),
                    "rename the key (e.g. 'confirm')",
                )
            )
            continue
        name = elicitation_class(tool, key)
        if name in taken:
            found.append(
                error(
                    "name-collision",
                    f"elicitation {key!r} of tool {tool!r} needs the class name {name!r}, already taken by "
                    + taken[name],
                    doc.key_loc((*path, key)),
                    "rename the key",
                )
            )
            continue
        taken[name] = f"elicitation {key!r}"
        problems = list(_requested(doc, (*path, key), schema))
        found += problems
        if not problems:
            same = next((k for k, other in schemas.items() if _json_key(other) == _json_key(schema)), None)
            if same is not None:
                found.append(
                    warning(
                        "same-form",
                        f"elicitations {same!r} and {key!r} of tool {tool!r} request the same schema: a "
                        "client cannot tell which is asked (the typed client's on_elicit is given "
                        f"{elicitation_class(tool, same)} for both)",
                        doc.key_loc((*path, key)),
                        "ask one of them, or let a property's title or description say what each asks",
                    )
                )
            schemas[key] = schema
    return schemas, found


def _json_key(value: Any) -> str:
    """`value` as canonical JSON text: equal exactly for equal JSON values."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _requested(doc: Document, path: JsonPath, schema: dict[str, Any]) -> Iterator[Diagnostic]:
    meant = {word: closest(word, _ROOT_KEYS) for word in schema if word not in _ROOT_KEYS}
    for word, close in meant.items():
        value = schema[word]
        yield error(
            CODE,
            f"{_where(path)}: {word!r} is not allowed in a requested schema",
            doc.key_loc((*path, word)),
            "a property indented one level too shallow: indent it under `properties`"
            if isinstance(value, dict) and not _PROPERTY_WORDS.isdisjoint(value)
            else f"did you mean {close!r}?"
            if close is not None
            else "MCP allows only type: object, properties, required (and $schema) at its root",
        )
    misspelled = {  # (not a property left at the root)
        close for word, close in meant.items() if _PROPERTY_WORDS.isdisjoint(_mapping(schema[word]))
    }  # (a key missing where its misspelling is: said there, once)
    if schema.get("type") != "object" and not ("type" not in schema and "type" in misspelled):
        at = (*path, "type") if "type" in schema else path
        yield error(
            CODE,
            f"{_where(path)} must have `type: object` at its root",
            doc.loc(at) if "type" in schema else doc.key_loc(at),
            "a requested schema is a flat object of primitive properties",
        )
    if "$schema" in schema and not isinstance(schema["$schema"], str):
        yield error(CODE, f"{_where(path)}: $schema must be a string", doc.loc((*path, "$schema")))
    elif schema_dialect(schema) is None:
        yield unsupported_dialect(doc, path, schema)  # (sent to the client as written)
    properties = schema.get("properties")
    if not isinstance(properties, dict) and not ("properties" not in schema and "properties" in misspelled):
        at = (*path, "properties")
        yield error(
            CODE,
            f"{_where(path)} must have `properties` (a mapping)",
            doc.loc(at) if "properties" in schema else doc.key_loc(path),
            "list what the user is asked for, e.g. properties: {confirm: {type: boolean}}",
        )
    if not isinstance(properties, dict):
        properties = {}
    for name, prop in properties.items():
        yield from _property(doc, (*path, "properties", name), prop)
    required = schema.get("required")
    if "required" in schema:
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            yield error(
                CODE,
                f"{_where(path)}: required must be a list of property names"
                + (" (it has no value)" if required is None else ""),
                doc.loc((*path, "required")),
                "list the names the user must give: `required: [name]`, or leave it out",
            )
        else:
            for i, name in enumerate(required):
                if name not in properties:
                    close = closest(name, properties)
                    yield error(
                        CODE,
                        f"{_where(path)}: required names {name!r}, which is not among its properties",
                        doc.loc((*path, "required", i)),
                        f"did you mean {close!r}?" if close is not None else None,
                    )
                elif name in required[:i]:
                    yield error(
                        CODE, f"{_where(path)}: {name!r} is required twice", doc.loc((*path, "required", i))
                    )


_PRIMITIVES = ("string", "number", "integer", "boolean", "array")
# Keywords only a property's schema holds: a mapping of them at a form's root is a property.
_PROPERTY_WORDS = frozenset({"type", "enum", "oneOf", "anyOf", "format", "items", "minLength", "minimum"})


def _mapping(value: Any) -> Any:
    return value if isinstance(value, dict) else {}


def _property(doc: Document, path: JsonPath, prop: Any) -> Iterator[Diagnostic]:
    where = _where(path)
    if not isinstance(prop, dict):
        yield error(CODE, f"{where} must be a schema mapping", doc.loc(path), f"each property is {_SHAPES}")
        return
    for word in prop:
        if (colon := missing_colon(doc, (*path, word), prop, KNOWN_2020_12)) is not None:
            said = f"{where}: {word!r} is a keyword and its value without ': ' between them"
            yield error("missing-colon", said, doc.key_loc((*path, word)), f"write {colon}")
            return
    kind = prop.get("type")
    shape = (
        "oneOf"
        if kind == "string" and "oneOf" in prop
        else "enum"
        if kind == "string" and "enum" in prop
        else kind
    )
    if not isinstance(shape, str) or shape not in _KEYS:
        at = (*path, "type")
        said = f"type {kind!r} is not a primitive MCP elicitation allows" if "type" in prop else "has no type"
        nested = kind in ("object", "null") or (isinstance(kind, list))
        hint = f"each property is {_SHAPES}"
        if "type" not in prop and (close := closest("type", prop)) is not None and close != "type":
            hint = f"write type, not {close!r}"
        elif "type" not in prop and ("enum" in prop or "oneOf" in prop):
            hint = "a single-select enum is a string: write type: string beside it"
        elif "type" not in prop and "items" in prop:
            hint = "a multi-select enum is an array: write type: array beside items"
        elif isinstance(kind, str) and (meant := type_meant(kind, _PRIMITIVES)) is not None:
            hint = f"did you mean {meant!r}?"
        elif nested:
            hint = "a requested schema is flat: no nested objects, no null, one type per property"
        elif isinstance(kind, str) and (named := format_as_type(kind, FORMATS_2020_12)) is not None:
            hint = f"{named!r} is a format of strings: write type: string, format: {named}"
            if named not in FORMATS:
                allowed = ", ".join(FORMATS)
                hint = f"{named!r} is a format of strings, and MCP elicitation allows only {allowed}"
        place = doc.loc(at) if "type" in prop else doc.key_loc(path)
        yield error(CODE, f"{where}{':' if 'type' in prop else ''} {said}", place, hint)
        return
    for word in prop:
        if word not in _KEYS[shape]:
            article = "an" if shape in ("integer", "array", "enum") else "a"
            hint = f"{article} {shape} property takes {', '.join(_KEYS[shape])}"
            if (close := closest(word, _KEYS[shape])) is not None:
                hint = f"did you mean {close!r}? ({hint})"
            if word in ("enum", "oneOf", "anyOf") and kind == "array" and "items" not in prop:
                form = "{type: string, enum: [...]}" if word == "enum" else "{anyOf: [{const, title}, ...]}"
                hint = f"a multi-select's choices go under items: items: {form}"
            elif word in ("enum", "oneOf") and kind != "string":
                hint = "a single-select enum has type: string; a multi-select one is an array of enum values"
            yield error(
                CODE,
                f"{where}: {word!r} is not allowed here in a requested schema",
                doc.key_loc((*path, word)),
                hint,
            )
    for word in ("title", "description"):
        if word in prop and not isinstance(prop[word], str):
            empty = prop[word] is None
            told = comment_hint(doc, (*path, word)) or "write its text after it, or leave it out"
            said = f"{where}: {word} must be a string" + (" (it has no value)" if empty else "")
            yield error(CODE, said, doc.loc((*path, word)), told if empty else None)
    values: list[str] | None = None
    if shape == "string":
        yield from _bounds(doc, path, prop, "minLength", "maxLength")
        if "format" in prop and prop["format"] not in FORMATS:
            yield error(
                CODE,
                f"{where}: format has no value"
                if prop["format"] is None
                else f"{where}: format {prop['format']!r} is not one MCP elicitation allows",
                doc.loc((*path, "format")),
                f"use one of {', '.join(FORMATS)}, or leave format out",
            )
    elif shape in ("number", "integer"):
        yield from _bounds(doc, path, prop, "minimum", "maximum")
    elif shape == "enum":
        values = yield from _enum(doc, (*path, "enum"), prop["enum"])
        names = prop.get("enumNames")
        if "enumNames" in prop and not (
            isinstance(names, list)
            and all(isinstance(n, str) for n in names)
            and len(names) == len(values or ())
        ):
            yield error(
                CODE,
                f"{where}: enumNames must be a list of strings, one per enum value",
                doc.loc((*path, "enumNames")),
                "or give titled choices as oneOf: [{const: value, title: label}, ...]",
            )
    elif shape == "oneOf":
        values = yield from _titled(doc, (*path, "oneOf"), prop["oneOf"])
    elif shape == "array":
        values = yield from _items(doc, path, prop)
        yield from _bounds(doc, path, prop, "minItems", "maxItems")
    if "default" in prop:
        yield from _default(doc, path, prop)


def _bounds(doc: Document, path: JsonPath, prop: dict[str, Any], low: str, high: str) -> Iterator[Diagnostic]:
    counts = low in ("minLength", "minItems")
    bounds: list[float] = []
    for word in (low, high):
        if word not in prop:
            continue
        value = prop[word]
        number = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        if not number or (counts and (not float(value).is_integer() or value < 0)):
            wanted = "a whole number, 0 or more" if counts else "a number"
            yield error(CODE, f"{_where(path)}: {word} must be {wanted}", doc.loc((*path, word)))
            return
        bounds.append(value)
    if len(bounds) == 2 and bounds[0] > bounds[1]:
        yield error(
            CODE,
            f"{_where(path)}: {low} {prop[low]!r} is above {high} {prop[high]!r}: no answer could match",
            doc.loc((*path, low)),
        )


def _enum(doc: Document, path: JsonPath, values: Any) -> _Choices:
    if not isinstance(values, list) or not values or not all(isinstance(v, str) for v in values):
        yield error(CODE, f"{_where(path)} must be a non-empty list of strings", doc.loc(path))
        return None
    for i, value in enumerate(values):
        if value in values[:i]:
            yield error(CODE, f"{_where(path)}: {value!r} is listed twice", doc.loc((*path, i)))
    return list(values)


def _titled(doc: Document, path: JsonPath, options: Any) -> _Choices:
    if not isinstance(options, list) or not options:
        yield error(
            CODE, f"{_where(path)} must be a non-empty list of {{const, title}} choices", doc.loc(path)
        )
        return None
    values: list[str] = []
    for i, option in enumerate(options):
        good = (
            isinstance(option, dict)
            and set(option) == {"const", "title"}
            and isinstance(option["const"], str)
            and isinstance(option["title"], str)
        )
        if not good:
            yield error(
                CODE,
                f"{_where((*path, i))} must be exactly {{const: <string>, title: <string>}}",
                doc.loc((*path, i)),
                "each choice is a value and the label shown for it",
            )
            return None
        if option["const"] in values:
            yield error(
                CODE,
                f"{_where((*path, i))}: {option['const']!r} is listed twice",
                doc.loc((*path, i, "const")),
            )
        values.append(option["const"])
    return values


def _items(doc: Document, path: JsonPath, prop: dict[str, Any]) -> _Choices:
    items = prop.get("items")
    at = (*path, "items")
    hint = "a multi-select is items: {type: string, enum: [...]} or items: {anyOf: [{const, title}, ...]}"
    others = [key for key in prop if key not in _KEYS["array"]]
    misplaced = [key for key in others if key in ("enum", "oneOf", "anyOf") or closest(key, ["items"])]
    if "items" not in prop and misplaced:
        return None  # (`itmes`, or choices beside items: said once, there)
    if not isinstance(items, dict):
        yield error(
            CODE,
            f"{_where(path)}: an array property must have `items` listing the choices",
            doc.loc(at) if "items" in prop else doc.key_loc(path),
            hint,
        )
        return None
    if set(items) == {"type", "enum"} and items["type"] == "string":
        return (yield from _enum(doc, (*at, "enum"), items["enum"]))
    if set(items) == {"anyOf"}:
        return (yield from _titled(doc, (*at, "anyOf"), items["anyOf"]))
    yield error(CODE, f"{_where(at)} is not a list of enum choices MCP elicitation allows", doc.loc(at), hint)
    return None


def _default(doc: Document, path: JsonPath, prop: dict[str, Any]) -> Iterator[Diagnostic]:
    """An error for a default its property refuses, judged as the server judges an answer (formats
    asserted): a default is offered to the user as it is, and an answer keeping it must pass."""
    at = (*path, "default")
    value = prop["default"]
    if isinstance(value, float) and not math.isfinite(value):
        return  # (no JSON value: said where the file is read)
    reason = rejection(prop, value, None)
    if reason is not None:
        yield error(
            CODE,
            f"{_where(at)} does not match its own property: {reason}",
            doc.loc(at),
            (prop.get("type") == "boolean" and doc.written_plain(at) and yaml_boolean_hint(prop["default"]))
            or (value is None and comment_hint(doc, at))
            or "a default is offered to the user as it is: make it a value the property accepts",
        )


