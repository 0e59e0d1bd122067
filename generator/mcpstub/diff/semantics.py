"""What the generated server's validators check, learned from those validators themselves.

`server_validator` calls the generated runtime's own `dispatch.validator` (jsonschema-rs, the
schema's dialect, formats asserted, offline), and `diff` asks it, not a list kept here, which
keywords validate, which formats it asserts, whether content keywords are checked: each answer
comes from probing with a value the keyword must refuse, so a jsonschema-rs upgrade changes the rules.

`Context` is one side's root schema with its dialect and validators for its nodes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Literal

import jsonschema_rs

from mcpstub.ir import DIALECT_URIS, schema_dialect
from mcpstub.pointers import percent_decoded, resolve, split

JSON = Any
# What a URI reference may hold (RFC 3986): a `$ref` with anything else (a space, say) is one no
# validator resolves as written (`Context.unfollowed`).
_URI_REFERENCE = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
# Keywords whose references the rules do not follow (`Context.unfollowed`).
_UNFOLLOWED = ("$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef")

# Each keyword with a schema using it and an instance that schema refuses when the keyword is in
# force (every other keyword of the probe is one all dialects apply).
_PROBES: dict[str, tuple[JSON, JSON]] = {
    "$ref": ({"$ref": "#/definitions/x", "definitions": {"x": False}}, 1),
    "type": ({"type": "string"}, 1),
    "enum": ({"enum": [1]}, 2),
    "const": ({"const": 1}, 2),
    "properties": ({"properties": {"a": False}}, {"a": 1}),
    "required": ({"required": ["a"]}, {}),
    "additionalProperties": ({"additionalProperties": False}, {"a": 1}),
    "patternProperties": ({"patternProperties": {"a": False}}, {"a": 1}),
    "minimum": ({"minimum": 2}, 1),
    "maximum": ({"maximum": 0}, 1),
    "exclusiveMinimum": ({"exclusiveMinimum": 1}, 1),
    "exclusiveMaximum": ({"exclusiveMaximum": 1}, 1),
    "multipleOf": ({"multipleOf": 2}, 1),
    "minLength": ({"minLength": 2}, "a"),
    "maxLength": ({"maxLength": 0}, "a"),
    "pattern": ({"pattern": "^b"}, "a"),
    "format": ({"format": "date"}, "a"),
    "minItems": ({"minItems": 1}, []),
    "maxItems": ({"maxItems": 0}, [1]),
    "uniqueItems": ({"uniqueItems": True}, [1, 1]),
    "minProperties": ({"minProperties": 1}, {}),
    "maxProperties": ({"maxProperties": 0}, {"a": 1}),
    "allOf": ({"allOf": [False]}, 1),
    "anyOf": ({"anyOf": [False]}, 1),
    "oneOf": ({"oneOf": [True, True]}, 1),
    "not": ({"not": True}, 1),
    "if": ({"if": True, "then": False}, 1),
    "then": ({"if": True, "then": False}, 1),
    "else": ({"if": False, "else": False}, 1),
    "items": ({"items": False}, [1]),
    "contains": ({"contains": False}, [1]),
    "propertyNames": ({"propertyNames": False}, {"a": 1}),
    "dependencies": ({"dependencies": {"a": ["b"]}}, {"a": 1}),
    "additionalItems": ({"items": [True], "additionalItems": False}, [1, 2]),
    "prefixItems": ({"prefixItems": [False]}, [1]),
    "dependentRequired": ({"dependentRequired": {"a": ["b"]}}, {"a": 1}),
    "dependentSchemas": ({"dependentSchemas": {"a": False}}, {"a": 1}),
    "unevaluatedProperties": ({"unevaluatedProperties": False}, {"a": 1}),
    "unevaluatedItems": ({"unevaluatedItems": False}, [1]),
    "minContains": ({"contains": True, "minContains": 2}, [1]),
    "maxContains": ({"contains": True, "maxContains": 0}, [1]),
    "$dynamicRef": ({"$dynamicRef": "#/$defs/x", "$defs": {"x": False}}, 1),
    "contentEncoding": ({"contentEncoding": "base64"}, "!"),
    "contentMediaType": ({"contentMediaType": "application/json"}, "{"),
}
# Keywords inert without their lead keyword in the same node.
_LEADS = (("if", {"then", "else"}), ("contains", {"minContains", "maxContains"}))
# Strings at least one of which every format a validator asserts refuses (probed per format).
FORMAT_PROBES = ("", "x", " ", "(", "\\", "::", "1", "a b", "%", "{", "~2", "-", "0" * 40)
# Values the content keywords are probed with, and strings their checks refuse.
CONTENT_PROBES = ("!", "{", "=", "eyJ", "not json")


def server_validator(schema: JSON, dialect: str | None = None) -> Any:
    """The validator the generated server builds for `schema` as a tool's input (`dispatch.validator`)."""
    from mcpstub_runtime.dispatch import validator  # noqa: PLC0415 - the server's own code
    from mcpstub_runtime.results import ContentResult  # noqa: PLC0415
    from mcpstub_runtime.spec import ToolSpec  # noqa: PLC0415

    chosen: Literal["2020-12", "draft-07"] = (
        "draft-07" if (dialect or schema_dialect(schema)) == "draft-07" else "2020-12"
    )
    spec = ToolSpec(
        name="", package="", identifier="", input_class="", output_class=None,
        result_type=ContentResult, input_schema=schema, output_schema=None,
        legacy_output_schema=None, dialect=chosen, output_dialect=None, wire={}, digests={},
    )  # fmt: skip
    return validator(spec, "input", schema)


def _refuses(dialect: str, schema: JSON, instances: tuple[JSON, ...]) -> bool:
    try:
        check = server_validator(schema, dialect).is_valid
    except Exception:  # a value the validator does not take: the keyword asserts nothing we know
        return True
    return any(not check(i) for i in instances)


@lru_cache(maxsize=8)
def active_keywords(dialect: str) -> frozenset[str]:
    """The keywords the dialect's server validator applies."""
    return frozenset(k for k, (s, bad) in _PROBES.items() if _refuses(dialect, s, (bad,)))


@lru_cache(maxsize=1024)
def _asserts_format(dialect: str, name: str) -> bool:
    return _refuses(dialect, {"format": name}, FORMAT_PROBES)


@lru_cache(maxsize=1024)
def _asserts_content(dialect: str, canon: str) -> bool:
    return _refuses(dialect, json.loads(canon), CONTENT_PROBES)


def asserts_format(dialect: str, name: JSON) -> bool:
    """True when the dialect's server validator checks strings against this `format`."""
    return isinstance(name, str) and _asserts_format(dialect, name)


def content_check(dialect: str, node: JSON) -> dict[str, JSON]:
    """The content keywords of a node that its dialect's server validator checks ({} if none)."""
    if not isinstance(node, dict):
        return {}
    found = {k: node[k] for k in ("contentEncoding", "contentMediaType") if k in node}
    if not found or not _asserts_content(dialect, json.dumps(found, sort_keys=True)):
        return {}
    return found


@dataclass
class Context:
    """One side's root schema, its dialect, and validators for its nodes (built on demand)."""

    root: JSON

    @cached_property
    def dialect(self) -> str:
        """2020-12 or draft-07, as the server reads the schema."""
        return schema_dialect(self.root) or "2020-12"

    @cached_property
    def active(self) -> frozenset[str]:
        """The keywords that validate in this dialect."""
        return active_keywords(self.dialect)

    def asserts_format(self, name: JSON) -> bool:
        """True when this side's validator checks this format."""
        return asserts_format(self.dialect, name)

    def content(self, node: JSON) -> dict[str, JSON]:
        """The content keywords of `node` this side's validator checks."""
        return content_check(self.dialect, node)

    @cached_property
    def evaluates(self) -> bool:
        """Whether some node's `unevaluatedProperties`/`unevaluatedItems` may count what was
        evaluated: a negation's subschemas evaluate nothing, so `not: {not: X}` is X only without
        them (a key of that name anywhere counts: a property's name only makes this cautious)."""
        if not {"unevaluatedProperties", "unevaluatedItems"} & self.active:
            return False
        stack: list[JSON] = [self.root]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if "unevaluatedProperties" in node or "unevaluatedItems" in node:
                    return True
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        return False

    @cached_property
    def unfollowed(self) -> str | None:
        """What the rules do not follow in this schema, named (None: nothing). The rules resolve a
        `$ref` as a JSON pointer into the root, read in the root's dialect; a nested `$schema` or
        `$id`, an anchor, a dynamic or recursive reference, or a `$ref` that is not such a pointer
        gives a validator another meaning, so such a schema is left to the counterexample search.
        Every object of the document is looked at, wherever it sits (a `$ref` may point anywhere)."""
        stack: list[tuple[JSON, bool, tuple[str | int, ...]]] = [(self.root, True, ())]
        while stack:
            node, top, path = stack.pop()
            if isinstance(node, list):
                stack.extend((item, False, (*path, i)) for i, item in enumerate(node))
                continue
            if not isinstance(node, dict):
                continue
            # (these keywords' values are strings, `$recursiveAnchor`'s a boolean; a schema under
            # such a name, a mapping or true/false, is a property's)
            said = {
                key for key, value in node.items()
                if isinstance(value, str) or (key == "$recursiveAnchor" and isinstance(value, bool))
            }  # fmt: skip
            named = [key for key in _UNFOLLOWED if key in said]
            if not top and "$id" in said:
                named.append("$id")
            if not top and "$schema" in said and schema_dialect(node) != self.dialect:
                named.append("$schema")
            ref = node.get("$ref") if "$ref" in said else None
            if ref is not None and not self._followed(ref) and not self._unread(ref, path):
                named.append(f"$ref {ref!r}")
            if named:
                return f"{named[0]} (a nested one)" if named[0] in ("$id", "$schema") else named[0]
            stack.extend((value, False, (*path, key)) for key, value in node.items())
        return None

    def _unread(self, ref: str, path: tuple[str | int, ...]) -> bool:
        """Whether `ref`, at `path` in the root, is one no validator reads (`x-extra: {$ref: ...}`):
        the server's compiles the schema only where every reference it reads resolves, so where it
        still compiles with that one pointing nowhere, it is data."""
        if self.follow(ref)[0] or self.root_validator is None:
            return False
        try:
            server_validator(_pointing_nowhere(self.root, path), self.dialect)
        except Exception:
            return False
        return True

    def _followed(self, ref: JSON) -> bool:
        """Whether the rules resolve `ref` as a validator does: a JSON pointer into the root."""
        if not (isinstance(ref, str) and ref.startswith("#") and _URI_REFERENCE.fullmatch(ref)):
            return False
        return self.follow(ref)[0]

    @cached_property
    def root_validator(self) -> Callable[[JSON], bool] | None:
        """The server's validator for the whole schema; None when it cannot be built."""
        try:
            return server_validator(self.root, self.dialect).is_valid  # type: ignore[no-any-return]
        except Exception:
            return None

    @cached_property
    def _validators(self) -> Any:
        # In the dialect the server's validator takes (`server_validator`), whatever `$schema` says
        # (a listing's draft-06 is judged as 2020-12, as the root is).
        dialect = DIALECT_URIS["draft-07" if self.dialect == "draft-07" else "2020-12"]
        root = {**self.root, "$schema": dialect} if isinstance(self.root, dict) else self.root
        try:
            return jsonschema_rs.validator_map_for(root, validate_formats=True, offline=True)
        except Exception:  # a schema the validator cannot compile: nothing is decided by values
            return None

    def lookup(self, ptr: str) -> tuple[bool, JSON]:
        """The node at a JSON pointer into the root (`/properties/a%b`: a pointer is not a URI)."""
        parts = split(ptr)
        if parts is None:
            return False, None
        found, value, _ = resolve(self.root, parts)
        return found, value

    def follow(self, ref: str) -> tuple[bool, JSON, str]:
        """(found, node, its JSON pointer) for a `$ref` into the root (`#/$defs/a%25`: a URI)."""
        ptr = percent_decoded(ref.partition("#")[2])
        if ptr is None:
            return False, None, ""
        found, node = self.lookup(ptr)
        return found, node, ptr

    def validator(self, node: JSON, ptr: str) -> Callable[[JSON], bool] | None:
        """A validity test for `node` (the node at `ptr`, or one built from parts); None if none."""
        if node is True or (isinstance(node, dict) and not self.keywords(node)):
            return lambda _: True
        if node is False:
            return lambda _: False
        if not isinstance(node, dict):
            return None
        found, real = self.lookup(ptr)
        if found and real is node and self._validators is not None:
            v = self._validators.get("#" + ptr)
            if v is not None:
                return v.is_valid  # type: ignore[no-any-return]
        try:
            return server_validator(standalone(self.root, node), self.dialect).is_valid  # type: ignore[no-any-return]
        except Exception:  # refs that only resolve in place
            return None

    def keywords(self, node: dict[str, Any]) -> set[str]:
        """The node's keywords that validate (`then` without `if`, say, does not)."""
        found = {k for k in node if k in self.active}
        for lead, followers in _LEADS:
            if lead not in found:
                found -= followers
        return found

    def resolve(self, node: JSON, ptr: str) -> tuple[JSON, str]:
        """Follow bare `$ref`s (draft-07 ignores a ref's siblings; 2020-12 keeps them as a conjunct,
        but for siblings the target holds alike: `{type: object, $ref: X}` is X) and double
        negations (where nothing counts what was evaluated). A cycle of bare refs, which a live
        source may hold, constrains nothing (as the validator judges it)."""
        seen = set()
        for _ in range(64):
            negated = isinstance(node, dict) and not self.evaluates and self.keywords(node) == {"not"}
            inner = node.get("not") if negated else None
            if isinstance(inner, dict) and self.keywords(inner) == {"not"}:  # `not: {not: X}` is X
                node, ptr = inner["not"], f"{ptr}/not/not"
                continue
            if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
                return node, ptr
            found, target, target_ptr = self.follow(node["$ref"])
            beside = self.keywords(node) - {"$ref"} if self.dialect != "draft-07" else set()
            # (a conjunct of its own; one a target that refers on no further holds too adds nothing,
            # where its keywords mean alone what they mean there: `type`, not `additionalProperties`)
            alike = found and isinstance(target, dict) and "$ref" not in target and beside <= _ALONE
            if beside and not (alike and all(_same(node, target, k) for k in beside)):
                return node, ptr
            if not found or target_ptr in seen:
                return {}, ptr  # (not found: cannot happen after bundling; unconstrained)
            seen.add(target_ptr)
            node, ptr = target, target_ptr
        return node, ptr


# Keywords whose meaning takes nothing from the keywords beside them.
_ALONE = frozenset(
    {"type", "enum", "const", "format", "minLength", "maxLength", "pattern", "minimum", "maximum",
     "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems",
     "minProperties", "maxProperties", "required"}
)  # fmt: skip


def _pointing_nowhere(node: JSON, path: tuple[str | int, ...]) -> JSON:
    """A copy of `node` whose `$ref` at `path` points at nothing there is."""
    if not path:
        return {**node, "$ref": "#/$mcpstub-nowhere"}
    copied = list(node) if isinstance(node, list) else dict(node)
    copied[path[0]] = _pointing_nowhere(node[path[0]], path[1:])  # type: ignore[index]
    return copied


def _same(node: dict[str, Any], target: dict[str, Any], key: str) -> bool:
    return key in target and json.dumps(node[key], sort_keys=True) == json.dumps(target[key], sort_keys=True)


_REFS = ("$ref", "$dynamicRef", "$recursiveRef")


def standalone(root: JSON, node: JSON) -> JSON:
    """A node as a schema of its own: the root's definitions and dialect come along. ValueError
    where it or a definition refers into the root elsewhere (`#`, `#/properties/a`): taken apart
    from the root, that would point into the node itself."""
    if not isinstance(node, dict) or not isinstance(root, dict):
        return node
    result = dict(node)
    for key in ("$defs", "definitions", "$schema"):
        if key in root and key not in result:
            result[key] = root[key]
        elif key in root and key != "$schema" and result[key] is not root[key]:
            raise ValueError(f"the node's own {key} would hide the root's")
    stack: list[JSON] = [result]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if (
                    key in _REFS
                    and isinstance(value, str)
                    and value.startswith("#")
                    and not value.startswith(("#/$defs/", "#/definitions/"))
                ):
                    raise ValueError(f"{value!r} refers into the root, not to a definition")
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return result
