"""Shared definitions made self-contained: what they reach in other files becomes shared too.

The toolset's `$defs` may refer into other files (`common.yaml#/$defs/City`). The checked toolset
must not: its models are made from its values alone, never from files read again (from whatever
folder the process runs in) behind the cache's back. `self_contained(raw, bundled, taken)` takes the
definitions as written and their bundled forms (`bundle.Bundler.bundle_schema`) and returns the
shared definitions with every definition reached in another file lifted beside them, under its own
name where that is free (a class name no definition or tool root holds), and references pointed at
`#/$defs/<name>`. Equal definitions reached from several places are lifted once.
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Iterable, Mapping
from typing import Any

from mcpstub.bundle import iter_refs
from mcpstub.classnames import class_name

# A name the toolset format accepts for a shared definition (without a dot: a class of its own).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_DEFS_KEYS = ("$defs", "definitions")

# A bundled shared definition: its self-contained form, the shared names it took, its dialect.
Bundled = tuple[dict[str, Any], frozenset[str], str]


def self_contained(
    raw: Mapping[str, Any], bundled: Mapping[str, Bundled], taken: Iterable[str | None]
) -> dict[str, Any]:
    """The shared definitions with what they reach in other files lifted beside them; `taken`
    holds the class names no lifted definition may take (the tools' root classes)."""
    out = dict(raw)
    used = {class_name(n) for n in raw} | {n for n in taken if n is not None}
    lifted: dict[tuple[str, bytes], str] = {}
    for name, schema in raw.items():
        entry = bundled.get(name)
        if entry is None or not isinstance(schema, dict) or not _without_defs(schema):
            continue
        form, shared, dialect = entry
        key = "definitions" if dialect == "draft-07" else "$defs"
        nested = form.get(key)
        if not isinstance(nested, dict) or set(nested) <= shared or not _plain_refs(form, key, nested):
            continue
        names: dict[str, str] = {}
        for entry_name, value in nested.items():
            if entry_name in shared:
                names[entry_name] = entry_name
                continue
            ident = (entry_name, marshal.dumps(value, 2))
            if ident not in lifted:
                lifted[ident] = _fresh(entry_name, used)
            names[entry_name] = lifted[ident]
        out[name] = _pointed({k: v for k, v in form.items() if k != key}, key, names)
        for entry_name, value in nested.items():
            if entry_name not in shared and names[entry_name] not in out:
                out[names[entry_name]] = _pointed(value, key, names)
    return out


def _without_defs(schema: dict[str, Any]) -> bool:
    """A definition with no `$defs` of its own (one that has them is kept as written)."""
    return all(k not in schema for k in _DEFS_KEYS)


def _plain_refs(form: dict[str, Any], key: str, nested: dict[str, Any]) -> bool:
    """Whether every reference of the bundled form names one of its entries, whole."""
    schemas = [form, *nested.values()]
    return all(_entry(ref, key) in nested for schema in schemas for _, ref in iter_refs(schema))


def _entry(ref: str, key: str) -> str | None:
    prefix = f"#/{key}/"
    if not ref.startswith(prefix) or "/" in ref[len(prefix) :]:
        return None
    return ref[len(prefix) :].replace("~1", "/").replace("~0", "~")


def _pointed(schema: Any, key: str, names: dict[str, str]) -> Any:
    """A copy of `schema` whose references point at the shared definitions' names."""
    copy = marshal.loads(marshal.dumps(schema, 2))
    for path, ref in list(iter_refs(copy)):
        target = names[_entry(ref, key) or ""]
        node = copy
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = "#/$defs/" + target.replace("~", "~0").replace("/", "~1")
    return copy


def _fresh(name: str, used: set[str]) -> str:
    """`name`, or a name like it, whose class name is not in `used` (then added to it)."""
    base = name if _NAME.fullmatch(name) else "Definition"
    candidate, number = base, 1
    while class_name(candidate) in used:
        number += 1
        candidate = f"{base}{number}"
    used.add(class_name(candidate))
    return candidate
