"""Class names of the generated models: unique across the whole toolset by construction.

datamodel-code-generator names a nested class after its parent and property (`FooInput` + `input` ->
`FooInputInput`) and numbers a taken name, so a tool `foo` with an object property `input` and a tool
`foo_input` can want one name. Every derived class starts with its root's name (a tool's input or
output class, a shared definition), so roots clash only when one's name starts with another's. Such
a root is *exposed*: its nested object schemas become `$defs` entries named here, never starting
with another root's name (`FooInputNestedInput`). A merged `allOf`, which the generator names without
its parent, is named here in every root. Names depend only on the root's schema and the root names
extending it, so a toolset generated in parts names each class as it would in one piece.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from mcpstub.ir import Toolset, to_class_prefix

JSON = Any

# Where the generator makes classes of nested schemas (it models no `not`, `if`, `contains`, ...).
_ONE = frozenset({"additionalProperties", "items"})
_MAP = frozenset({"properties"})
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
# Annotations of a hoisted schema that stay beside its `$ref`: they describe the field.
_AT_REFERENCE = ("title", "description", "default", "examples", "deprecated")


_NOT_ALNUM = re.compile(r"[^0-9a-z]")


@lru_cache(maxsize=65536)
def _norm(name: str) -> str:
    """A name as class names compare: case and separators do not count."""
    return _NOT_ALNUM.sub("", name.casefold()) or name


# What goes between a root's name and the rest of a nested class name that would start with
# another root's name: each family is blocked only by a root whose rest is a prefix of the word.
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_MARKERS = ("", *(f"{w}{k if k > 1 else ''}" for w in ("Nested", "Inner", "Sub", "Via") for k in range(1, 9)))


def _crowd(marker: str, alive: set[str]) -> tuple[bool, int]:
    """How badly a marker is taken: one of `alive` is it, and how many start with it."""
    return marker in alive, sum(r.startswith(marker) for r in alive)


def _free_marker(rests: list[str]) -> str:
    """A marker that none of `rests` (normalised) is a prefix of, built one character at a time."""
    marker, alive = "", set(rests)
    while alive:
        marker += min(_ALPHABET, key=lambda c: _crowd(marker + c, alive))
        alive = {r for r in alive if r.startswith(marker) and r != marker}
    return marker[:1].upper() + marker[1:]


def _segment(key: str, name: str) -> str:
    """What a map entry adds to a nested class name: a property's name, nothing for the others."""
    return to_class_prefix(name) if key == "properties" else ""


# Every name models.py can import (what the model generator may use with models.py's options, and
# what mcpstub's rewrites add). A definition whose class would take one is always generated as
# `<name>Model`, so its name never depends on what else the module needs; validation refuses a
# second definition spelled `<name>Model`.
IMPORTED = frozenset(
    {
        # typing and typing_extensions
        "Annotated", "Any", "ClassVar", "Dict", "FrozenSet", "List", "Literal", "Mapping",
        "Optional", "Sequence", "Set", "SupportsIndex", "Tuple", "TypeAlias", "TypeAliasType",
        "Union",
        # pydantic and annotated_types
        "AliasChoices", "AnyUrl", "AwareDatetime", "BaseModel", "BeforeValidator", "ConfigDict",
        "EmailStr", "EncodedBytes", "Field", "FutureDate", "FutureDatetime", "MISSING",
        "MultipleOf", "NaiveDatetime", "NegativeFloat", "NegativeInt", "NonNegativeFloat",
        "NonNegativeInt", "NonPositiveFloat", "NonPositiveInt", "PastDate", "PastDatetime",
        "PositiveFloat", "PositiveInt", "RootModel", "SecretStr", "SerializeAsAny", "StrictBool",
        "StrictBytes", "StrictFloat", "StrictInt", "StrictStr", "StringConstraints", "TypeAdapter",
        "ValidationInfo", "ValidatorFunctionWrapHandler",
        # Python's constants, which no class can be named
        "False", "None", "True",
    }
)  # fmt: skip


def imported_free(name: str) -> str:
    """The `$defs` key a definition is generated under: `<class name>Model` if models.py imports it."""
    spelled = class_name(name)
    return spelled + "Model" if spelled in IMPORTED else name


def class_name(root: str) -> str:
    """The class name the generator gives a `$defs` key (`my_thing` -> `MyThing`, `_x` -> `FieldX`)."""
    if root[:1].isupper() and root.isalnum():
        return root
    head = "Field" if root[:1] == "_" or root[:1].isdigit() else ""
    return head + "".join(w[:1].upper() + w[1:] for w in re.split(r"[_-]+", root) if w)


@lru_cache(maxsize=65536)
def _root_key(root: str) -> str:
    """A root as class names compare: its class name, normalised."""
    return _norm(class_name(root))


def root_names(toolset: Toolset) -> set[str]:
    """The class names given, not derived: tools' classes and shared definitions."""
    names = set(toolset.shared_defs)
    for tool in toolset.tools:
        names.add(tool.input_class)
        if tool.output_class is not None:
            names.add(tool.output_class)
        names.update(tool.elicitation_classes.values())
    return names


class RootIndex:
    """Root class names, sorted by their normalised form for prefix lookups."""

    def __init__(self, names: Iterable[str]) -> None:
        self._sorted = sorted((_root_key(n), n) for n in set(names))
        self._keys = [k for k, _ in self._sorted]
        self._starting: dict[str, tuple[str, ...]] = {}  # by key: the names starting with it

    def extending(self, part: Iterable[str]) -> frozenset[str]:
        """The names (not in `part`) that start with a name in `part`."""
        own = set(part)
        found: set[str] = set()
        for key in {_root_key(p) for p in own}:
            found.update(self._starting_with(key))
        return frozenset(found - own)

    def _starting_with(self, key: str) -> tuple[str, ...]:
        names = self._starting.get(key)
        if names is None:
            # Every name starting with `key` sorts from `key` on, before `key` + the last character.
            at = bisect.bisect_left(self._keys, key)
            end = at
            while end < len(self._keys) and self._keys[end].startswith(key):
                end += 1
            names = self._starting[key] = tuple(name for _, name in self._sorted[at:end])
        return names


def extending(part: Iterable[str], others: Iterable[str]) -> frozenset[str]:
    """The names among `others` (not in `part`) that start with a name in `part`."""
    return RootIndex(others).extending(part)


def _merges(node: dict[str, JSON]) -> bool:
    """True for an `allOf`, which the generator merges into a class or alias named without its parent."""
    parts = node.get("allOf")
    if not isinstance(parts, list):
        return False
    return any(isinstance(p, dict) for p in parts) or (bool(parts) and all(p is True for p in parts))


_MERGED = 2


def _combined(node: dict[str, JSON]) -> dict[str, JSON]:
    """A merged allOf whose parts declare each property once (the first, as the allOf of them all):
    the generator merges two declarations into a class named after the property alone."""
    parts = node["allOf"]
    owners: dict[str, list[int]] = {}
    for i, part in enumerate(parts):
        if isinstance(part, dict) and isinstance(part.get("properties"), dict):
            for name in part["properties"]:
                owners.setdefault(name, []).append(i)
    shared = {name: where for name, where in owners.items() if len(where) > 1}
    if not shared:
        return node
    new_parts = []
    for i, part in enumerate(parts):
        if not any(i in where for where in shared.values()):
            new_parts.append(part)
            continue
        props = {}
        for name, sub in part["properties"].items():
            where = shared.get(name)
            if where is None:
                props[name] = sub
            elif where[0] == i:
                props[name] = {"allOf": [parts[j]["properties"][name] for j in where]}
        new_parts.append({**part, "properties": props})
    return {**node, "allOf": new_parts}


def _is_object(node: dict[str, JSON]) -> bool:
    return node.get("type") == "object"


def _is_class(node: dict[str, JSON]) -> bool:
    """True for a schema the generator makes a class of."""
    props = node.get("properties")
    return (isinstance(props, dict) and bool(props)) or _merges(node)


class Namer:
    """Names the nested classes of the roots of one toolset (or part of one)."""

    def __init__(self, roots: Iterable[str]) -> None:
        self._keys = sorted({_root_key(r) for r in roots})
        self._found: dict[str, list[str]] = {}

    def _extensions(self, root: str) -> list[str]:
        """The normalised names of the other roots that start with (and are longer than) `root`."""
        key = _root_key(root)
        if key not in self._found:
            at = bisect.bisect_right(self._keys, key)
            end = at
            while end < len(self._keys) and self._keys[end].startswith(key):
                end += 1
            self._found[key] = self._keys[at:end]
        return self._found[key]

    def fresh(self, root: str, base: str, taken: set[str]) -> str:
        """A free name for a class of `root` (`base` if free) starting with no longer root's name: a
        marker goes after `root`'s name (`FooInputNestedInput`), numbers make it unique."""
        extensions = self._extensions(root)
        prefix = class_name(root)
        rest = base[len(prefix) :] if base.startswith(prefix) else base

        def blocked(name: str) -> bool:
            return any(_norm(name).startswith(e) for e in extensions)

        key = _root_key(root)
        for marker in (*_MARKERS, _free_marker([e[len(key) :] for e in extensions])):
            stem = prefix + marker + rest
            if blocked(stem):
                continue
            candidate, n = stem, 1
            while candidate in taken or blocked(candidate):
                n += 1
                candidate = f"{stem}{n}"
            taken.add(candidate)
            return candidate
        # Only when every letter after the root's name starts another root's name: a name the
        # generator may number; the binding check still refuses a tool bound to another's class.
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}{n}"
        taken.add(candidate)
        return candidate

    def scope(self, root: str, entries: dict[str, JSON], taken: set[str]) -> dict[str, JSON]:
        """One root's `$defs` entries with nested classes hoisted under names of ours (every class of
        an exposed root, else merged `allOf`s only), each before the entry it was found in."""
        exposed = int(bool(self._extensions(root)))
        prefix = class_name(root)
        out: dict[str, JSON] = {}
        for key, schema in entries.items():
            found: dict[str, JSON] = {}
            base = key if key != root else prefix
            body = self._walk(schema, root, base, found, taken, exposed, hoist=False)
            out.update(found)
            out[key] = body
        return out

    def _walk(
        self,
        node: JSON,
        root: str,
        base: str,
        found: dict[str, JSON],
        taken: set[str],
        exposed: int,
        hoist: bool = True,
    ) -> JSON:
        """Copy a schema, the classes to name replaced by references to new `found` entries. `exposed`:
        0 names merged allOfs only; 1 every class too; `_MERGED` (below a merged allOf) every object."""
        if not isinstance(node, dict):
            return node
        if hoist and (
            _merges(node) or (exposed and _is_class(node)) or (exposed == _MERGED and _is_object(node))
        ):
            name = self.fresh(root, base, taken)
            body = {k: v for k, v in node.items() if k not in _AT_REFERENCE}
            if _merges(body):
                body = _combined(body)
            inner: dict[str, JSON] = {}
            # Inside a merged allOf the generator names classes without their parents too.
            named = _MERGED if _merges(node) or exposed == _MERGED else exposed
            inner_body = self._walk(body, root, name, inner, taken, named, hoist=False)
            found.update(inner)
            found[name] = inner_body
            ref: dict[str, JSON] = {"$ref": f"#/$defs/{name}"}
            ref.update((k, node[k]) for k in _AT_REFERENCE if k in node)
            return ref
        out: dict[str, JSON] = {}
        for key, value in node.items():
            if key in _ONE and isinstance(value, dict):
                inner_base = base + ("Item" if key == "items" else "")
                out[key] = self._walk(value, root, inner_base, found, taken, exposed)
            elif key in _MAP and isinstance(value, dict):
                out[key] = {
                    name: self._walk(sub, root, base + _segment(key, name), found, taken, exposed)
                    for name, sub in value.items()
                }
            elif key in _LIST and isinstance(value, list):
                # The parts of a merged allOf are merged, not classes of their own.
                part = key != "allOf" or not _merges(node)
                tags = branch_tags(value) if key in ("oneOf", "anyOf") else None
                out[key] = [
                    self._walk(v, root, base, found, taken, exposed, part)
                    if tags is None or not tags[i]
                    else self._branch(v, root, base + tags[i], found, taken, exposed)
                    for i, v in enumerate(value)
                ]
            else:
                out[key] = value
        return out

    def _branch(
        self,
        node: dict[str, JSON],
        root: str,
        stem: str,
        found: dict[str, JSON],
        taken: set[str],
        exposed: int,
    ) -> JSON:
        """A `oneOf`/`anyOf` branch told apart by a constant, as a class named `stem` (or fresh)."""
        name = self.fresh(root, stem, taken)
        inner: dict[str, JSON] = {}
        body = {k: v for k, v in node.items() if k not in _AT_REFERENCE}
        found_body = self._walk(body, root, name, inner, taken, exposed, hoist=False)
        found.update(inner)
        found[name] = found_body
        ref: dict[str, JSON] = {"$ref": f"#/$defs/{name}"}
        ref.update((k, node[k]) for k in _AT_REFERENCE if k in node)
        return ref


def branch_tags(branches: list[JSON]) -> list[str] | None:
    """Each `oneOf`/`anyOf` branch's name part (`File`; "" for a non-object) where a property each fixes
    tells them apart (`kind: {const: file}`); else None (the generator numbers: `Target1`)."""
    objects = [b for b in branches if isinstance(b, dict) and _is_class(b) and not _merges(b)]
    if len(objects) < 2:
        return None
    first = objects[0]["properties"]
    for prop in first if isinstance(first, dict) else ():
        values = [v for b in objects if (v := _fixed(b["properties"].get(prop))) is not None]
        if len(values) != len(objects):
            continue
        tags = [_tag(prop, v) for v in values]
        if len({_norm(t) for t in tags}) == len(tags) and all(tags):
            named = iter(tags)
            return [next(named) if any(b is o for o in objects) else "" for b in branches]
    return None


def _fixed(schema: JSON) -> tuple[object] | None:
    """The one value a property schema allows (`const`, or an `enum` of one), in a 1-tuple."""
    if not isinstance(schema, dict):
        return None
    if "const" in schema:
        value = schema["const"]
    elif isinstance(schema.get("enum"), list) and len(schema["enum"]) == 1:
        value = schema["enum"][0]
    else:
        return None
    return (value,) if isinstance(value, str | int | float | bool) and value is not None else None


def _tag(prop: str, value: tuple[object]) -> str:
    """A constant as a class name part: `file` -> `File`, `b-c` -> `BC`, 2 -> `Version2` (for a
    property `version`: a part must not start with a digit), true -> `ActiveTrue`."""
    raw = value[0]
    text = str(raw).lower() if isinstance(raw, bool) else str(raw)
    words = re.findall(r"[A-Za-z0-9]+", text)
    tag = "".join(w[:1].upper() + w[1:] for w in words)
    if not tag:
        return ""  # nothing of it can be spelled in a class name
    if tag[0].isdigit() or isinstance(raw, bool):
        tag = to_class_prefix(prop) + tag
    return tag if tag.isidentifier() and tag.isascii() else ""
