"""Whether a schema compiles as the server compiles it, and where the fault is when it does not.

The server's validator (jsonschema-rs, offline, formats asserted) refuses a few schemas the
meta-schema takes: an `$id` that is no URI reference, a `$dynamicRef` to no anchor. Only a tool
schema that does not compile is looked into (`blame`): a shared definition copied into it is to
blame where it fails on its own (`definition_error`: alone, and beside the definitions it
reaches), for a mistake of its own (not an anchor or pointer the schema holds elsewhere), and
makes the difference in that schema; the caller says it once, where it is written, and the tool
only for a mistake of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import jsonschema_rs

from mcpstub.bundle import definition_pointer, iter_refs
from mcpstub.errortext import first_line
from mcpstub.ir import DIALECT_URIS, Dialect, definitions_key
from mcpstub.pointers import percent_decoded, resolve, split


def validator(schema: dict[str, Any]) -> Any:
    """The server's validator of `schema`; raises when it cannot be compiled."""
    return jsonschema_rs.validator_for(schema, validate_formats=True, offline=True)


def compile_error(schema: dict[str, Any]) -> str | None:
    """Why `schema` cannot be compiled, or None."""
    try:
        validator(schema)
    except Exception as exc:  # jsonschema-rs reports any schema it cannot compile this way
        return first_line(exc)
    return None


def _definition_refs(schema: Any, defs_key: str) -> Iterator[tuple[str, ...]]:
    """Each reference of `schema` into one of its definitions, as the tokens after `defs_key`
    (`#/$defs/Name/properties/x` -> `('Name', 'properties', 'x')`)."""
    for _, ref in iter_refs(schema):
        tokens = split(percent_decoded(ref[1:]) or "") if ref.startswith("#/") else None
        if tokens and len(tokens) >= 2 and tokens[0] == defs_key:
            yield tokens[1:]


def _reached(defs: dict[str, Any], defs_key: str, root: Any) -> set[str]:
    """The names of `defs` that `root`'s references reach, through one another (`#/$defs/Name...`)."""
    found: set[str] = set()
    pending = [root]
    while pending:
        for name, *_ in _definition_refs(pending.pop(), defs_key):
            if name not in found:
                found.add(name)
                pending.append(defs.get(name))
    return found


def definition_error(root: dict[str, Any], defs_key: str, others: set[str], dialect: Dialect) -> str | None:
    """Why the definition `root` cannot be compiled in `dialect`, or None; its `defs_key` holds
    the copies `others` of other definitions: left empty, the definition alone is to blame where
    it fails; it is blamed where it also fails beside the copies it reaches, not the others."""
    defs = root.get(defs_key)
    defs = defs if isinstance(defs, dict) else {}
    head = {**root, "$schema": DIALECT_URIS[dialect]}
    said = compile_error({**head, defs_key: {n: {} if n in others else v for n, v in defs.items()}})
    if said is None:
        return None
    reached = _reached(defs, defs_key, {k: v for k, v in root.items() if k != defs_key})
    kept = {n: {} if n in others and n not in reached else v for n, v in defs.items()}
    return None if compile_error({**head, defs_key: kept}) is None else said


def _points_inside(value: Any, defs_key: str, others: set[str]) -> bool:
    """Whether `value` refers into the inside of one of the definitions `others`."""
    return any(len(tokens) > 1 and tokens[0] in others for tokens in _definition_refs(value, defs_key))


_UNRESOLVED = re.compile(r"(Anchor|Pointer) '(.*)' does not exist")


def _holds(schema: Any, reason: str) -> bool:
    """Whether the anchor or pointer a reason says does not exist is in `schema` (so the reason
    came of emptying a part of it, not of a mistake)."""
    found = _UNRESOLVED.match(reason)
    if found is None:
        return False
    if found[1] == "Pointer":
        tokens = split(found[2])
        return tokens is not None and resolve(schema, tokens)[0]
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            if found[2] in (node.get("$anchor"), node.get("$dynamicAnchor")):
                return True
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


def blame(
    schema: dict[str, Any], dialect: Dialect, copies: set[str], broken: set[str]
) -> tuple[dict[str, str], str | None]:
    """For a tool's bundled `schema` that does not compile, with `copies` of shared definitions in
    it that may be blamed (`broken`: those whose mistake is said where they are written): the
    copies to blame, each with why it does not compile, and why the schema does not compile with
    all of those left empty (None: it then compiles; its failure is theirs).

    A copy is to blame where it does not compile alone (`definition_error`) for a mistake of its
    own, not for an anchor or pointer the schema holds elsewhere, and, in the schema, it alone
    makes a difference (the others to blame left empty); not one that points into another's
    inside (its fault may be the other's). A reason that came of emptying is not the schema's
    own: its first one is kept, said only where no copy to blame gives it."""
    defs_key = definitions_key(dialect)
    defs = schema.get(defs_key)
    defs = defs if isinstance(defs, dict) else {}

    def emptied(names: set[str]) -> str | None:
        return compile_error({**schema, defs_key: {n: {} if n in names else v for n, v in defs.items()}})

    alone: dict[str, str] = {}
    for name in sorted(copies - broken):
        if name in defs and not _points_inside(defs[name], defs_key, set(defs)):
            root = {"$ref": definition_pointer(defs_key, name), defs_key: defs}
            reason = definition_error(root, defs_key, set(defs) - {name}, dialect)
            if reason is not None and not _holds(schema, reason):
                alone[name] = reason
    suspects = set(alone) | (broken & set(defs))
    if not suspects:
        return {}, compile_error(schema)
    own = emptied(suspects)
    blamed = {n: why for n, why in alone.items() if emptied(suspects - {n}) not in (None, own)}
    if own is not None and _holds(schema, own):  # (what emptying took: the schema's first reason)
        first = compile_error(schema)
        own = None if first in blamed.values() else first
    return blamed, own
