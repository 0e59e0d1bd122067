"""Whether a schema, or one definition bundled beside others, compiles as the server compiles it.

The server's validator (jsonschema-rs, offline, formats asserted) refuses a few schemas the
meta-schema takes: an `$id` that is no URI reference, say. Such a mistake in a definition many
tools share is said once, where the definition is written, not at each tool: `definition_error`
compiles the definition alone (the definitions beside it empty), and only where that fails and
the whole fails as well is the definition to blame (a reference into another definition's inside
finds nothing while it is empty).
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs

from mcpstub.bundle import iter_refs
from mcpstub.errortext import first_line
from mcpstub.ir import DIALECT_URIS, Dialect
from mcpstub.pointers import percent_decoded, split


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


def _reached(defs: dict[str, Any], defs_key: str, root: Any) -> set[str]:
    """The names of `defs` that `root`'s references reach, through one another (`#/$defs/Name...`)."""
    found: set[str] = set()
    pending = [root]
    while pending:
        for _, ref in iter_refs(pending.pop()):
            tokens = split(percent_decoded(ref[1:]) or "") if ref.startswith("#/") else None
            if tokens and len(tokens) >= 2 and tokens[0] == defs_key and tokens[1] not in found:
                found.add(tokens[1])
                pending.append(defs.get(tokens[1]))
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


def without_broken_error(schema: dict[str, Any], dialect: Dialect, broken: frozenset[str]) -> str | None:
    """Why a tool's bundled `schema` cannot be compiled with its copies of the `broken` shared
    definitions (said where they are written) left empty, or None: its own mistake, if any."""
    defs_key = "definitions" if dialect == "draft-07" else "$defs"
    defs = schema.get(defs_key)
    if not isinstance(defs, dict):
        return compile_error(schema)
    return compile_error({**schema, defs_key: {n: {} if n in broken else v for n, v in defs.items()}})
