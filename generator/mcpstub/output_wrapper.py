"""Output wrapper: the two advertised forms of a tool's output schema.

MCP 2026-07-28 lets `outputSchema` be any JSON Schema and `structuredContent` any JSON value;
2025-11-25 clients require both to be objects. `is_object_root(schema, dialect)` says which a schema is;
`legacy_output_schema(schema, dialect)` returns what 2025-11-25 connections are shown: the schema itself
when its root is an object, else the wrapper `{type: object, properties: {result: S},
required: [result]}`, whose `structuredContent` is `{"result": value}`. The wrapper keeps the
schema's dialect (`$schema`) at its root, hoists `$defs`/`definitions` there and re-points every
`$ref` into the schema (a schema with its own `$id` is nested whole instead; in draft-07 an `$id`
beside `$ref` is ignored, like every sibling of `$ref`, and starts nothing), so it validates
`{"result": v}` exactly when the schema validates `v`. A pure function of the bundled (self-contained) schema.
"""

from __future__ import annotations

from mcpstub.ir import JSON, Dialect
from mcpstub.keywords import DEFS_KEYWORDS, with_subschemas
from mcpstub.pointers import resolve, split_fragment

# The property that carries the value inside the 2025-11-25 wrapper.
RESULT_KEY = "result"


def is_object_root(schema: JSON, dialect: Dialect | None) -> bool:
    """True when the schema's root says `type: object`: its values go out unwrapped everywhere. In
    draft-07 a `type` beside `$ref` is ignored: the root is then an object if what the `$ref`
    names is (through a chain of them)."""
    if not (isinstance(schema, dict) and schema.get("type") == "object"):
        return False
    end = ref_target(schema, dialect == "draft-07")
    return isinstance(end, dict) and end.get("type") == "object"


def ref_target(schema: JSON, draft07: bool) -> JSON | None:
    """What the root's `$ref` names, through a chain of them (the root itself without one): one is
    followed where it stands alone, and in draft-07 whatever stands beside it (ignored there);
    None where one does not resolve within the schema, or comes back."""
    seen: set[str] = set()
    node = schema
    while isinstance(node, dict) and isinstance(ref := node.get("$ref"), str):
        if not draft07 and "type" in node:
            break
        path = split_fragment(ref[1:]) if ref.startswith("#") and ref not in seen else None
        if path is None:
            return None
        seen.add(ref)
        found, node, _ = resolve(schema, path)
        if not found:
            return None
    return node


def legacy_output_schema(schema: dict[str, JSON], dialect: Dialect | None) -> dict[str, JSON]:
    """The output schema as 2025-11-25 connections see it (the schema itself for object roots);
    `dialect` is the schema's own (`Tool.output_dialect`)."""
    if is_object_root(schema, dialect):
        return schema
    draft7 = dialect == "draft-07"
    wrapper: dict[str, JSON] = {"$schema": schema["$schema"]} if "$schema" in schema else {}
    wrapper["type"] = "object"
    if _own_resource(schema, draft7):
        # A schema with a base URI is a resource of its own: nested whole, its refs still resolve.
        wrapper["properties"] = {RESULT_KEY: {k: v for k, v in schema.items() if k != "$schema"}}
        wrapper["required"] = [RESULT_KEY]
        return wrapper
    inner = _rebase({k: v for k, v in schema.items() if k not in ("$schema", *DEFS_KEYWORDS)}, draft7)
    wrapper["properties"] = {RESULT_KEY: inner}
    wrapper["required"] = [RESULT_KEY]
    for key in DEFS_KEYWORDS:
        if isinstance(schema.get(key), dict):
            wrapper[key] = {name: _rebase(sub, draft7) for name, sub in schema[key].items()}
        elif key in schema:
            wrapper[key] = schema[key]
    return wrapper


def _own_resource(schema: dict[str, JSON], draft7: bool) -> bool:
    """True when the schema's `$id` starts a resource, against which its `#...` refs resolve."""
    return "$id" in schema and not (draft7 and "$ref" in schema)


def _rebase(schema: JSON, draft7: bool) -> JSON:
    """A subschema with every `$ref` into the old root re-pointed below `properties/result`."""
    if not isinstance(schema, dict) or _own_resource(schema, draft7):
        return schema  # a nested `$id` starts a resource of its own: its refs stay as they are
    out = with_subschemas(schema, lambda sub: _rebase(sub, draft7))
    if isinstance(out.get("$ref"), str):
        out["$ref"] = _moved(out["$ref"])
    return out


def _moved(ref: str) -> str:
    """Where a ref into the old root points once the schema sits at `#/properties/result`."""
    if ref == "#":
        return f"#/properties/{RESULT_KEY}"
    if not ref.startswith("#/"):
        return ref  # not a pointer into this document (bundling leaves none such)
    tokens = split_fragment(ref[1:])  # `#/%24defs/X` is `$defs` too
    if tokens and tokens[0] in DEFS_KEYWORDS:
        return ref  # hoisted with the definitions
    return f"#/properties/{RESULT_KEY}/{ref[2:]}"
