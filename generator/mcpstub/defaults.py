"""Defaults: a warning for each `default` its own schema rejects, judged as at run time.

`default_mismatches(doc, path, bundled, defaults)` checks each default against the schema holding
it inside `bundled`, the schema made self-contained, so every reference resolves as it will when
served. A schema that refers to nothing is judged once per value in the process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema_rs

from mcpstub.diagnostics import Diagnostic, warning
from mcpstub.document import Document, JsonPath
from mcpstub.engine import memory
from mcpstub.engine.fingerprints import value_bytes
from mcpstub.engine.jsonread import all_finite
from mcpstub.errortext import ECHO_MAX, echo_value, yaml_boolean_hint
from mcpstub.ir import schema_dialect
from mcpstub.keywords import DEFS_KEYWORDS, SUBSCHEMA_MAP, position
from mcpstub.pointers import to_fragment, to_pointer

# The name under which a bundled schema is known while its defaults are checked against it.
_CHECKED_URI = "urn:mcpstub:checked"


def default_mismatches(
    doc: Document, path: JsonPath, bundled: Any, defaults: list[JsonPath], at: JsonPath = ()
) -> Iterator[Diagnostic]:
    """A warning for each `default` (in the schemas at `defaults`, below `path`) that the schema
    holding it rejects: a client or a model may send it as it is, and the call then fails.

    `bundled` is the schema at `path` made self-contained, so every reference resolves as it will
    at run time; or, for a schema of another file a reference reached, the self-contained schema
    it was copied into, at `at` there. A schema that refers to nothing is judged on its own, once
    per value; one that cannot be checked (an `$id` of its own, say) is left as it is: the check is
    a help, never a refusal.
    """
    if not defaults or not isinstance(bundled, dict):
        return
    registries: dict[Any, Any] = {}  # made once a dialect, if a schema refers to others
    for where in defaults:
        relative = (*at, *where[len(path) :])
        node: Any = bundled
        # The dialect the server reads it in: a `$schema` below the root counts where it is written
        # in place (not at `at`, where a `$ref` leads).
        declared = bundled.get("$schema")
        for depth, token in enumerate(relative, 1):
            if isinstance(node, dict):
                node = node.get(token)
            elif isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
                node = node[token]
            else:
                node = None
            if depth > len(at) and isinstance(node, dict) and "$schema" in node and schema_dialect(node):
                if not (depth >= 2 and relative[depth - 2] in DEFS_KEYWORDS) or (
                    depth >= 3 and relative[depth - 3] in SUBSCHEMA_MAP
                ):  # (a definition is reached by a `$ref`, where it is not read)
                    declared = node["$schema"]
        if not isinstance(node, dict) or "default" not in node or not all_finite(node["default"]):
            continue  # (a number JSON cannot hold is said where it is written: not-json)
        reason = _default_rejected(bundled, relative, node, declared, registries)
        if reason is not None:
            # (the default at a file's root is named with the file, as its document names it)
            what = doc.describe((*where, "default")) if where else f"the default of {doc.describe(where)}"
            yield warning(
                "invalid-default",
                f"{what} does not match its own schema: {reason}",
                doc.loc((*where, "default")),
                (_wants_boolean(node) and _plain_text(doc, (*where, "default"), node["default"]))
                or "it is not filled in (a call that leaves the field out leaves it unset for the "
                "handler: pydantic's MISSING), and a client that sends it is refused: make it a value "
                "the schema accepts, or leave it out",
            )


def _plain_text(doc: Document, path: JsonPath, value: Any) -> str | None:
    return yaml_boolean_hint(value) if doc.written_plain(path) else None


def _wants_boolean(node: dict[str, Any]) -> bool:
    declared = node.get("type")
    return declared == "boolean" or (isinstance(declared, list) and "boolean" in declared)


_REFERRING = (b"$ref", b"$dynamicRef", b"$recursiveRef")


def _default_rejected(
    bundled: dict[str, Any],
    relative: JsonPath,
    node: dict[str, Any],
    declared: Any,
    registries: dict[Any, Any],
) -> str | None:
    """Why the schema `node`, at `relative` in `bundled` and read in the dialect `declared` (a
    `$schema`, None: 2020-12), rejects its own default; None if it accepts it, or cannot be checked."""
    dialect = {"$schema": declared} if isinstance(declared, str) else {}
    try:
        key: tuple[Any, bytes] | None = (declared, value_bytes(node))
    except ValueError:
        key = None
    if key is not None and not any(word in key[1] for word in _REFERRING):
        # A schema that refers to nothing, by ($schema, its marshal bytes): one repeated across
        # tools (a page size, say) is judged once.
        alone = {k: v for k, v in node.items() if k != "$schema"} | dialect
        return memory.keyed("default-verdict", key, lambda: rejection(alone, node["default"], None))
    if declared not in registries:
        # A schema a `$ref` leads to is read in its document's dialect: the bundled schema, in the
        # dialect of the one holding the default.
        try:
            registries[declared] = jsonschema_rs.Registry([(_CHECKED_URI, {**bundled, **dialect})])
        except Exception:  # what cannot be registered is not checked
            registries[declared] = None
    if (registry := registries[declared]) is None:
        return None
    return rejection({**dialect, "$ref": _CHECKED_URI + to_fragment(relative)}, node["default"], registry)


def _refused_by_false(refused: str, at: list[str]) -> str:
    """Why a schema `false` (at `at`, a pointer's parts) refuses the value the validator names,
    in words: a keyword written false in its own place, or the schema of a name (a property
    called `additionalProperties` is no keyword)."""
    # (at a schema, the last part is a keyword; in a map of schemas, a name: `properties/properties`)
    keyword = at[-1] if at and position(at[:-1]) == "schema" else None
    if keyword == "additionalProperties":
        return "it holds a property its schema does not declare, where additionalProperties is false"
    if keyword == "propertyNames":
        return "it holds a property, where propertyNames is false"
    return f"{refused} is refused by {to_pointer(at)}, which is false"


def rejection(schema: dict[str, Any], value: Any, registry: Any) -> str | None:
    """The first reason `schema` rejects `value`, shortened; None if it accepts it or cannot say."""
    try:
        validator = jsonschema_rs.validator_for(
            schema, registry=registry, validate_formats=True, offline=True  # (never the network)
        )
        problem = next(iter(validator.iter_errors(value)), None)
    except Exception:  # a schema that cannot be checked so is not
        return None
    if problem is None:
        return None
    message: str = problem.message
    # The validator quotes the value as JSON: said in a few words when long, the reason kept.
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except ValueError:
        shown = ""
    if len(shown) > ECHO_MAX and shown in message:
        short = echo_value(value) if isinstance(value, int) else shown[: ECHO_MAX - 4] + "..." + shown[-1]
        message = message.replace(shown, short, 1)
    refused = message.removeprefix("False schema does not allow ")  # (the validator's words)
    if refused != message:
        message = _refused_by_false(refused, [str(p) for p in problem.schema_path])
    message = message if len(message) <= 200 else message[:97] + "..." + message[-100:]
    # Where inside the value, when not the whole of it (`1 is not of type "string" (at /a)`).
    inside = list(problem.instance_path)
    return f"{message} (at {to_pointer(inside)})" if inside else message
