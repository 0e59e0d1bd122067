"""Drift: how what a server offers differs from what a typed client was generated for.

On connect each tool the server lists is compared with the Tool object frozen in the package
(`compare`, kept as `Drift`); a schema that writes its own definitions out in place is the same.
A question's form is compared by what judges an answer (`same_form`): titles, descriptions,
defaults and the order of names and choices do not.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from .spec import ToolSpec

__all__ = [
    "SHOWN_DIFFERENCES",
    "Drift",
    "DriftError",
    "DriftWarning",
    "compare",
    "differences",
    "judged",
    "pointer",
    "same_form",
]

# Differences shown per tool in the warning (all are in `Drift.changed`).
SHOWN_DIFFERENCES = 3


class DriftWarning(UserWarning):
    """The server's tools differ from those the client was generated for."""


class DriftError(Exception):
    """A strict client refused to call a tool whose advertised form differs from its own, or a
    client called a tool the server did not list on connect and does not have."""


@dataclass(frozen=True)
class Drift:
    """How the server's `tools/list` differs from the tools the client was generated for."""

    # Each tool of the client whose Tool object differs: what differs, one line each.
    changed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Tools of the client the server does not list.
    missing: tuple[str, ...] = ()
    # Tools the server lists that the client does not know (regenerate to call them).
    added: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.changed or self.missing or self.added)

    def affects(self, tool: str) -> bool:
        """True when calling `tool` relies on a form the server no longer advertises."""
        return tool in self.changed or tool in self.missing

    def describe(self) -> str:
        """One line per drifted tool, as the warning shows them."""
        lines = [f"{name}: not listed by the server" for name in self.missing]
        for name, differences in self.changed.items():
            shown = "; ".join(differences[:SHOWN_DIFFERENCES])
            more = len(differences) - SHOWN_DIFFERENCES
            lines.append(f"{name}: {shown}" + (f"; and {more} more" if more > 0 else ""))
        if self.added:
            lines.append(f"not in this client: {', '.join(self.added)}")
        return "\n".join(f"  {line}" for line in lines)


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


_ABSENT = object()


# What judges no answer: words, defaults, and the labels of a legacy titled enum.
_ANNOTATIONS = frozenset({"title", "description", "default", "examples", "$comment", "enumNames"})


def judged(schema: Any, ordered: bool = True) -> Any:
    """A schema without what judges no value (titles, descriptions, defaults), at every level; its
    `required`, `type` and `enum` lists and its titled choices (`oneOf`/`anyOf` of `const`s) in one
    order, unless not `ordered` (as written, to show)."""
    if isinstance(schema, list):
        return [judged(item, ordered) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        key: (
            value
            if key in ("enum", "const")
            else {name: judged(sub, ordered) for name, sub in value.items()}
            if key == "properties" and isinstance(value, dict)
            else judged(value, ordered)
        )
        for key, value in schema.items()
        if key not in _ANNOTATIONS
    }
    for key, value in out.items() if ordered else ():
        choices = key in ("oneOf", "anyOf") and all(isinstance(v, dict) and "const" in v for v in value)
        if isinstance(value, list) and (key in ("required", "type", "enum") or choices):
            out[key] = sorted(value, key=lambda item: json.dumps(item, sort_keys=True))
    return out


def same_form(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two requested schemas are one form to a typed client: they differ at most in titles,
    descriptions and defaults, which judge no answer (`mcpstub diff` tells a change so too)."""
    return _same_json(judged(a), judged(b))


def _same_json(a: Any, b: Any) -> bool:
    """JSON equality: a boolean is no number, 1 and 1.0 are the same number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def pointer(path: tuple[str, ...]) -> str:
    return "".join("/" + part.replace("~", "~0").replace("/", "~1") for part in path)


def differences(expected: Any, listed: Any, path: tuple[str, ...] = ()) -> Iterator[str]:
    """Where `listed` differs from `expected`: `key/pointer: old -> new`, outermost first."""
    if isinstance(expected, dict) and isinstance(listed, dict):
        for key in [*expected, *(k for k in listed if k not in expected)]:
            old, new = expected.get(key, _ABSENT), listed.get(key, _ABSENT)
            if old is _ABSENT or new is _ABSENT or not _same_json(old, new):
                yield from differences(old, new, (*path, str(key)))
        return
    if isinstance(expected, list) and isinstance(listed, list) and len(expected) == len(listed):
        for index, (old, new) in enumerate(zip(expected, listed, strict=True)):
            if not _same_json(old, new):
                yield from differences(old, new, (*path, str(index)))
        return
    head, rest = path[0], pointer(path[1:])
    yield f"{head}{' ' + rest if rest else ''}: {_shown(expected)} -> {_shown(listed)}"


def compare(
    tools: Mapping[str, ToolSpec], listed: Sequence[Mapping[str, Any]], *, modern: bool
) -> Drift:
    """The drift of `listed` (tools/list objects as sent) from the frozen `tools`.

    `modern`: the connection speaks 2026-07-28 (else 2025-11-25 objects are expected).
    """
    by_name = {tool.get("name"): tool for tool in listed}
    changed: dict[str, tuple[str, ...]] = {}
    missing: list[str] = []
    for name, spec in tools.items():
        got = by_name.get(name)
        if got is None:
            missing.append(name)
            continue
        expected = dict(spec.wire if modern else spec.legacy_wire)
        sent = dict(got)
        if not _same_json(expected, sent) and not _same_json(_spelled_alike(expected), _spelled_alike(sent)):
            changed[name] = tuple(differences(expected, sent))
    added = tuple(str(name) for name in by_name if name not in tools)
    return Drift(changed=changed, missing=tuple(missing), added=added)


def _spelled_alike(tool: dict[str, Any]) -> dict[str, Any]:
    """The tool with each schema's references to its own definitions written out in place and the
    definitions dropped: a schema and one that moved parts into `$defs` (`mcpstub import
    --extract-defs`) mean the same. A schema whose definitions refer to themselves stays as it is."""
    out = dict(tool)
    for key in ("inputSchema", "outputSchema"):
        schema = out.get(key)
        if isinstance(schema, dict) and isinstance(schema.get("$defs", schema.get("definitions")), dict):
            try:
                out[key] = _written_out(schema, schema, ())
            except ValueError:  # a cycle, or a reference to no definition
                pass
    return out


def _written_out(node: Any, root: dict[str, Any], through: tuple[str, ...]) -> Any:
    """A schema with each `$ref` to a root definition, standing alone, replaced by that definition.
    ValueError where the meaning could change: a reference beside other keywords, into the schema
    elsewhere, by an `$id` or anchor, or in a cycle, and a keyword not known to hold schemas that
    holds a reference."""
    if not isinstance(node, dict):
        return node  # (a boolean schema)
    if not _RESOURCES.isdisjoint(node):
        raise ValueError("an identifier or a dynamic reference")
    ref = node.get("$ref", _ABSENT)
    if ref is not _ABSENT:
        if not isinstance(ref, str) or len(node) > 1 or ref in through or len(through) > 32:
            raise ValueError(ref)
        parts = unquote(ref[1:]).split("/")[1:] if ref.startswith("#/") else []
        defs = root.get(parts[0]) if len(parts) == 2 and parts[0] in ("$defs", "definitions") else None
        name = parts[-1].replace("~1", "/").replace("~0", "~") if parts else ""
        if not isinstance(defs, dict) or name not in defs:
            raise ValueError(ref)  # (into the schema elsewhere, by a URI, to no definition)
        return _written_out(defs[name], root, (*through, ref))
    out: dict[str, Any] = {}
    for key, value in node.items():
        if node is root and key in ("$defs", "definitions"):
            continue
        if key in _SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: _written_out(sub, root, through) for name, sub in value.items()}
        elif key in _SCHEMA_LISTS and isinstance(value, list):
            out[key] = [_written_out(sub, root, through) for sub in value]
        elif key in _SCHEMA_KEYWORDS:
            out[key] = _written_out(value, root, through)
        elif key not in _DATA_KEYWORDS and '"$ref"' in json.dumps(value):
            raise ValueError(key)  # (a keyword of its own holding schemas, perhaps)
        else:
            out[key] = value
    return out


# Where a schema holds schemas (and, `dependencies`, lists of names), and values that are data.
_SCHEMA_MAPS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
_SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
_SCHEMA_KEYWORDS = frozenset({
    "additionalProperties", "additionalItems", "items", "contains", "not", "if", "then", "else",
    "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema",
})  # fmt: skip
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
_RESOURCES = frozenset(
    {"$id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor"}
)
