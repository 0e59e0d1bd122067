"""Counterexample search: settle what the rules cannot decide by generating instances.

`Searcher` draws instances of A with hypothesis-jsonschema (bounded, derandomized: the same schemas
give the same answer) and keeps one that A accepts and B refuses, as jsonschema-rs judges in each
schema's dialect, the way the generated server does. It must be refused at the undecided node, so
the finding is placed right. First the values both schemas name there are tried (consts, enum
values, bounds and neighbours, strings at each length limit): a `not`, `if` or `anyOf` rewrite
usually turns on one of them, which random drawing seldom meets.
"""

from __future__ import annotations

import base64
import itertools
import json
import math
import os
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache, partial
from pathlib import Path
from typing import Any

from mcpstub.diff.facts import IPath, Reason, num
from mcpstub.diff.semantics import CONTENT_PROBES, FORMAT_PROBES, Context, standalone
from mcpstub.engine.store import default_cache_dir
from mcpstub.errortext import first_line
from mcpstub.ir import schema_dialect
from mcpstub.keywords import SUBSCHEMA_MAP

JSON = Any
MISSING_HINT = (
    "the counterexample search needs hypothesis and hypothesis-jsonschema, mcpstub's diff extra: "
    "pip install -c constraints.txt '.[diff]' in the mcpstub checkout"
)


class _OutOfTime(Exception):
    pass


@dataclass(frozen=True)
class Outcome:
    """What a search found: `found` with the instance, or why there is none."""

    found: bool
    instance: JSON = None
    note: str = ""


def search_available() -> bool:
    """True when hypothesis and hypothesis-jsonschema can be imported."""
    try:
        import hypothesis_jsonschema  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


def _keep_in(folder: Path | None) -> None:
    """What hypothesis keeps (its unicode tables, read as hypothesis-jsonschema is imported) goes to
    `folder` (None: the user cache folder's), not into a `.hypothesis` folder where `diff` runs,
    unless HYPOTHESIS_STORAGE_DIRECTORY says where."""
    try:
        from hypothesis.configuration import set_hypothesis_home_dir  # noqa: PLC0415
    except ImportError:
        return
    if not os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        set_hypothesis_home_dir(folder or default_cache_dir() / "hypothesis")


def _at(instance: JSON, path: IPath) -> Iterator[JSON]:
    """The parts of an instance an instance path (with `*` and `**` wildcards) reaches."""
    if not path:
        yield instance
        return
    head, rest = path[0], path[1:]
    if head == "*" and isinstance(instance, list):
        for item in instance:
            yield from _at(item, rest)
    elif head == "**" and isinstance(instance, dict):
        for value in instance.values():
            yield from _at(value, rest)
    elif isinstance(head, int) and isinstance(instance, list) and head < len(instance):
        yield from _at(instance[head], rest)
    elif isinstance(head, str) and isinstance(instance, dict) and head in instance:
        yield from _at(instance[head], rest)


class Searcher:
    """Searches for instances of A that B refuses."""

    def __init__(
        self, a_root: JSON, b_root: JSON, max_examples: int, seconds: float, cache: Path | None = None
    ) -> None:
        _keep_in(cache)  # (before hypothesis-jsonschema is first imported)
        self.a, self.b = Context(a_root), Context(b_root)
        self.max_examples, self.seconds = max_examples, seconds
        self._base: list[JSON] | None = None  # see `_bases`

    @cached_property
    def _roots(self) -> tuple[Callable[[JSON], bool], Callable[[JSON], bool]] | None:
        in_a, in_b = self.a.root_validator, self.b.root_validator
        return None if in_a is None or in_b is None else (in_a, in_b)

    @cached_property
    def _strategy(self) -> Any:
        from hypothesis_jsonschema import from_schema  # noqa: PLC0415

        return from_schema(drawable(self.a.root))

    @cached_property
    def _least_bases(self) -> list[JSON]:
        """The least instances A takes, found without drawing (so the same schemas give the same
        ones whatever the time left): A's guess and B's, of plain strings, then of formatted ones."""
        found: list[JSON] = []
        if self._roots is None:
            return found
        in_a = self._roots[0]
        for ctx in (self.a, self.b):
            for plain in (True, False):
                guess = _least(ctx, ctx.root, plain=plain)
                if guess not in found and _takes(in_a, guess):
                    found.append(guess)
        return found

    def _bases(self, deadline: float, draw: bool = True, few: bool = False) -> Iterator[JSON]:
        """Instances of A to plant generated parts into, in turn: the least ones (`few`: the first
        only); then, where drawing is allowed and the caller asks for more, one small one drawn
        once within the deadline; `None` (parts planted into nothing) without either."""
        roots = self._roots
        least = self._least_bases
        if few and least:  # (the first one B takes too, where there is one)
            least = [next((b for b in least if roots is not None and _takes(roots[1], b)), least[0])]
        yield from least
        if self._base is None and draw and roots is not None and search_available():
            try:
                found = _run_find(self._strategy, roots[0], 50, deadline, shrink=False)
            except _OutOfTime:
                found = _OutOfTime  # not kept: a later search with time left may draw it
            except Exception:  # hypothesis-jsonschema refuses A (a recursive $ref, say)
                found = _NOTHING
            if found is not _OutOfTime:
                self._base = [] if found is _NOTHING else [found]
        drawn = [base for base in self._base or [] if base not in self._least_bases]
        yield from drawn
        if not least and not drawn:
            yield None

    def _preferred_bases(self, deadline: float, draw: bool) -> Iterator[JSON]:
        """`_bases`, the least ones B takes too first: what is planted into one of them, B refuses
        for that part, not for the rest (drawing waits until none of them serves)."""
        in_b = self._roots[1] if self._roots is not None else None
        if in_b is not None:
            yield from (base for base in self._bases(deadline, draw=False) if _takes(in_b, base))
        yield from self._bases(deadline, draw)

    def _planted_search(
        self, reason: Reason, a_node: JSON, accept: Callable[[JSON], bool], deadline: float
    ) -> Any:
        if "**" in reason.ipath or not isinstance(a_node, dict | bool):
            return _NOTHING
        from hypothesis_jsonschema import from_schema  # noqa: PLC0415

        try:
            for base in self._bases(deadline, few=True) if reason.ipath else [None]:
                plant = from_schema(drawable(standalone(self.a.root, a_node))).map(
                    partial(_planted, base, reason.ipath)
                )
                found = _run_find(plant, accept, self.max_examples, deadline)
                if found is not _NOTHING:
                    return found
        except _OutOfTime:
            raise
        except Exception:  # a node whose refs only resolve in place: search from the root instead
            return _NOTHING
        return _NOTHING

    def whole(self, reason: Reason, draw: bool = True) -> Outcome:
        """A reason's witness as a whole instance of A that B refuses, planted into an instance of
        A (`_bases`; drawn only where `draw` allows and no least one serves), one B takes first."""
        roots = self._roots
        if roots is None or "**" in reason.ipath:
            return Outcome(False)
        if not reason.ipath:  # the witness is the whole instance (a oneOf branch's may be refused)
            found = roots[0](reason.witness) and not roots[1](reason.witness)
            return Outcome(found, reason.witness if found else None)
        for base in self._preferred_bases(time.process_time() + self.seconds, draw):
            instance = _planted(base, reason.ipath, reason.witness)
            if roots[0](instance) and not roots[1](instance):
                return Outcome(True, instance)
        return Outcome(False)

    def find(self, reason: Reason, draw: bool = True) -> Outcome:
        """An instance of A, refused by B at the reason's node; `draw=False` tries named values only."""
        roots = self._roots
        if roots is None:
            return Outcome(False, note="a schema could not be compiled for the search")
        in_a, in_b = roots
        a_node = self.a.lookup(reason.a_ptr)[1]
        node_a = self.a.validator(a_node, reason.a_ptr)
        node_b = self.b.validator(self.b.lookup(reason.b_ptr)[1], reason.b_ptr)

        def refused_here(instance: JSON) -> bool:
            if node_a is None or node_b is None:
                return True
            return any(node_a(part) and not node_b(part) for part in _at(instance, reason.ipath))

        def counterexample(instance: JSON) -> bool:
            return in_a(instance) and not in_b(instance) and refused_here(instance)

        deadline = time.process_time() + self.seconds
        named = self._named_values(reason, a_node, counterexample, deadline, draw)
        if named is not _NOTHING:
            return Outcome(True, named)
        if not draw:
            return Outcome(False, note="no counterexample among the values the schemas name")
        if not search_available():
            return Outcome(False, note=MISSING_HINT)
        try:
            # Then the node alone, planted into a small instance of A: far cheaper to draw.
            planted = self._planted_search(reason, a_node, counterexample, deadline)
            if planted is not _NOTHING:
                return Outcome(True, planted)
            # Then whole instances (slower to draw): contexts the planted search does not reach
            # (where the node is the root, the planted search already drew whole instances).
            found = (
                _run_find(self._strategy, counterexample, max(self.max_examples // 3, 1), deadline)
                if reason.ipath or a_node is not self.a.root
                else _NOTHING
            )
        except _OutOfTime:
            return Outcome(False, note=f"no counterexample within {_seconds(self.seconds)} s of CPU time")
        except Exception as exc:  # hypothesis-jsonschema refuses some schemas outright
            text = first_line(exc)
            return Outcome(False, note=f"instances could not be generated: {text[:120]}")
        if found is _NOTHING:
            return Outcome(False, note=f"no counterexample in {self.max_examples} instances")
        return Outcome(True, found)

    def _named_values(
        self, reason: Reason, a_node: JSON, accept: Callable[[JSON], bool], deadline: float, draw: bool
    ) -> Any:
        """The first value named in either schema at the node that is a counterexample in place
        (planted into an instance of A, drawn only when `draw` allows)."""
        if "**" in reason.ipath:
            return _NOTHING
        b_node = self.b.lookup(reason.b_ptr)[1]
        values = _named((self.a, a_node), (self.b, b_node))
        if not values:
            return _NOTHING
        for base in self._preferred_bases(deadline, draw) if reason.ipath else [None]:
            for value in values:  # (a few dozen values: tried even where the time is gone)
                instance = _planted(base, reason.ipath, value) if reason.ipath else value
                if _takes(accept, instance):
                    return instance
        return _NOTHING


# Keywords whose values are data, never schemas.
_DATA = frozenset({"const", "enum", "default", "examples"})


def drawable(root: JSON) -> JSON:
    """A fresh copy of `root` (hypothesis-jsonschema resolves references in it in place) in the
    keywords hypothesis-jsonschema draws by, which are draft-07's: in a 2020-12 schema,
    `prefixItems` and the `items` after them become `items` and `additionalItems` (an
    `additionalItems` of its own applies to no array items there, so it goes), and
    `dependentRequired`/`dependentSchemas` join `dependencies`; a `$ref` out of the schema is left
    out. Only what is drawn changes: every instance is still judged by the schemas' own validators."""
    modern = schema_dialect(root) == "2020-12"

    def walk(node: JSON, schema: bool) -> JSON:
        if isinstance(node, list):
            return [walk(item, schema) for item in node]
        if not isinstance(node, dict):
            return node
        if not schema:
            return {key: walk(value, False) for key, value in node.items()}
        out = {
            key: walk(value, False)
            if key in _DATA
            else {k: walk(v, True) for k, v in value.items()}
            if key in SUBSCHEMA_MAP and isinstance(value, dict)
            else walk(value, True)
            for key, value in node.items()
        }
        ref = out.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            # Not into this schema: hypothesis-jsonschema would take it from jsonschema's own
            # store (a meta-schema, say) and resolve references inside it in place, changing
            # jsonschema's copy for the whole process. Drawn as anything; still judged.
            del out["$ref"]
        return _draft07_spelling(out) if modern else out

    drawn = walk(root, True)
    if modern and isinstance(drawn, dict):
        drawn.pop("$schema", None)  # (it would have the 2020-12 meta-schema judge draft-07's spelling)
    return drawn


def _draft07_spelling(node: dict[str, JSON]) -> dict[str, JSON]:
    """One 2020-12 schema node in draft-07's array and dependency keywords (see `drawable`)."""
    node.pop("additionalItems", None)
    if isinstance(node.get("prefixItems"), list):
        prefix = node.pop("prefixItems")
        if "items" in node:
            node["additionalItems"] = node["items"]
        node["items"] = prefix
    parts = [node.get(key) for key in ("dependencies", "dependentRequired", "dependentSchemas")]
    named = [name for part in parts if isinstance(part, dict) for name in part]
    if all(isinstance(part, dict | None) for part in parts) and len(named) == len(set(named)) and named:
        node["dependencies"] = {name: then for part in parts if part for name, then in part.items()}
        node.pop("dependentRequired", None)
        node.pop("dependentSchemas", None)
    return node


_NOTHING = object()
_MAX_NAMED = 400  # values tried before any drawing, at most
_NUMBER_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_LENGTHS = ("minLength", "maxLength")
_COUNTS = ("minItems", "maxItems")


def _literal_values(node: JSON, found: list[JSON], depth: int = 0) -> None:
    """Values a schema names (const, enum, default, examples, bounds and their neighbours)."""
    if depth > 12 or len(found) > _MAX_NAMED or not isinstance(node, dict):
        return
    if "const" in node:
        found.append(node["const"])
    for key in ("enum", "examples"):
        if isinstance(node.get(key), list):
            found.extend(node[key][:50])
    if "default" in node:
        found.append(node["default"])
    if "format" in node:  # strings some format check refuses, and one the format takes
        found.extend(FORMAT_PROBES)
        if isinstance(node["format"], str) and node["format"] in _FORMATTED:
            found.append(_FORMATTED[node["format"]])
    if "contentEncoding" in node or "contentMediaType" in node:  # refused, then accepted, by content checks
        found.extend((*CONTENT_PROBES, "0", "null", "MA==", "bnVsbA=="))  # (JSON, and JSON in base64)
    for key in _NUMBER_BOUNDS:
        value = node.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < 1e15:
            found.extend([value, value - 1, value + 1, value / 2, value * 2, value + 0.5, value - 0.5])
        elif isinstance(value, int | float) and not isinstance(value, bool) and abs(value) < math.inf:
            # Integers beside a big bound: past 2**53 the server rounds one to compare with a float.
            found.extend(int(value) + step for step in (-3, -2, -1, 0, 1, 2, 3))
    for key in _LENGTHS:
        value = node.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 1000:
            found.extend("a" * n for n in (value - 1, value, value + 1) if n >= 0)
    for key in _COUNTS:
        value = node.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100:
            found.extend([None] * n for n in (value - 1, value, value + 1) if n >= 0)
    for key, value in node.items():
        if key in ("const", "enum", "examples", "default"):
            continue
        if isinstance(value, dict):
            _literal_values(value, found, depth + 1)
        elif isinstance(value, list):
            for item in value:
                _literal_values(item, found, depth + 1)


def _property_values(nodes: list[JSON]) -> dict[str, list[JSON]]:
    """Per property name (of the nodes and their if/then/else/not/anyOf parts), the named values."""
    per_name: dict[str, list[JSON]] = {}

    def walk(node: JSON, depth: int) -> None:
        if depth > 4 or not isinstance(node, dict):
            return
        if isinstance(node.get("properties"), dict):
            for name, sub in node["properties"].items():
                values: list[JSON] = []
                _literal_values(sub, values)  # (a property whose schema names none: a few plain ones)
                per_name.setdefault(name, []).extend(values or [None, 0, ""])
        # A name each pattern matches, with values of each type and those its schema names.
        patterned = node.get("patternProperties")
        for pattern, sub in patterned.items() if isinstance(patterned, dict) else ():
            name = _matching_name(pattern)
            if name is not None:
                values = [None, False, 0, "", [], {}]
                _literal_values(sub, values)
                per_name.setdefault(name, []).extend(values)
        for key in ("if", "then", "else", "not"):
            walk(node.get(key), depth + 1)
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                for part in node[key]:
                    walk(part, depth + 1)

    for node in nodes:
        walk(node, 0)
    return {name: _unique(values)[:12] for name, values in per_name.items() if values}


@lru_cache(maxsize=256)
def _matching_name(pattern: str) -> str | None:
    """A short name the pattern matches (as Python reads it; the server judges what is tried)."""
    try:
        compiled = re.compile(pattern)
    except re.error:
        return None
    from hypothesis import strategies as st  # noqa: PLC0415

    found = _run_find(st.from_regex(compiled), lambda text: True, 20, time.process_time() + 0.2)
    return found if isinstance(found, str) else None


def _unique(values: list[JSON]) -> list[JSON]:
    seen: set[str] = set()
    result = []
    for value in values:
        try:
            key = json.dumps(value, sort_keys=True) + type(value).__name__
        except (TypeError, ValueError):
            continue
        if key not in seen:
            seen.add(key)
            result.append(value)
    return result


def _named(a: tuple[Context, JSON], b: tuple[Context, JSON]) -> list[JSON]:
    """Candidate instances for the node: the values both schemas name, and objects made of them."""
    (a_ctx, a_node), (_, b_node) = a, b
    # One of each type, and the least instance of A's node (a string of its content, say).
    values: list[JSON] = [None, False, 0, 0.5, "", [], {}, _least(a_ctx, a_node)]
    for node in (a_node, b_node):
        _literal_values(node, values)
    values.extend([value] for value in _unique(values)[:_MAX_NAMED // 4])  # (what `contains` counts)
    per_name = _property_values([a_node, b_node])
    if per_name:
        names = sorted(per_name)
        values.extend({name: value} for name in names for value in per_name[name])
        combos = itertools.islice(itertools.product(*(per_name[n] for n in names)), _MAX_NAMED)
        values.extend(dict(zip(names, combo, strict=True)) for combo in combos)
    # Objects that have some of the names the schemas ask for (required, dependentRequired,
    # dependencies) and lack others: which names appear is what those keywords judge.
    asked = sorted(_asked_names(a_node) | _asked_names(b_node))[:12]
    if asked:
        sample = {n: (per_name.get(n) or [_least_named(n, a, b)])[0] for n in asked}
        values.append(sample)
        values.extend({n: v for n, v in sample.items() if n != left_out} for left_out in asked)
        values.extend({n: sample[n]} for n in asked)
    return _unique(values)[: 2 * _MAX_NAMED]


def _least_named(name: str, *sides: tuple[Context, JSON]) -> JSON:
    """The least instance of property `name` as the first side declaring it says (None without)."""
    for ctx, node in sides:
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and isinstance(props.get(name), dict):
            return _least(ctx, props[name])
    return None


def _asked_names(node: JSON) -> set[str]:
    """Property names a node's required, dependentRequired or dependencies keywords mention."""
    found: set[str] = set()
    if not isinstance(node, dict):
        return found
    if isinstance(node.get("required"), list):
        found.update(n for n in node["required"] if isinstance(n, str))
    for key in ("dependentRequired", "dependencies", "dependentSchemas"):
        if isinstance(node.get(key), dict):
            for name, value in node[key].items():
                found.add(name)
                if isinstance(value, list):
                    found.update(n for n in value if isinstance(n, str))
                else:
                    found |= _asked_names(value)
    return found


def _seconds(spent: float) -> str:
    """Seconds as a reader takes them in: 4.87, 0.05, 120 (not 4.871524 or 1.2e+02)."""
    return "less than 0.01" if spent < 0.01 else f"{spent:.3g}" if spent < 100 else f"{spent:.0f}"


SHRINK_SECONDS = 1.0  # CPU seconds a found counterexample is made smaller for, at most


def _run_find(
    strategy: Any, accept: Callable[[JSON], bool], examples: int, deadline: float, shrink: bool = True
) -> Any:
    """The (briefly shrunk) first instance `accept` takes, or `_NOTHING`; `_OutOfTime` past the deadline."""
    from hypothesis import HealthCheck, Phase, Verbosity, find, settings, strategies  # noqa: PLC0415
    from hypothesis.errors import NoSuchExample  # noqa: PLC0415

    best: list[JSON] = []
    stop = [deadline]

    def condition(instance: JSON) -> bool:
        if time.process_time() > stop[0]:
            raise _OutOfTime
        if accept(instance):
            if not best:
                stop[0] = min(deadline, time.process_time() + SHRINK_SECONDS)
            best.append(instance)
            return True
        return False

    def in_time(value: object) -> object:  # (before each draw: one the strategy filters away in
        if time.process_time() > stop[0]:  # full never reaches `condition`)
            raise _OutOfTime
        return value

    timed = strategies.none().map(in_time).flatmap(lambda _: strategy)
    bounded = settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        phases=(Phase.generate, Phase.shrink) if shrink else (Phase.generate,),
    )
    try:
        return find(timed, condition, settings=bounded)
    except _OutOfTime:
        if best:
            return best[-1]
        raise
    except NoSuchExample:
        return _NOTHING
    except Exception:
        if best:
            return best[-1]
        raise


_LEAST: dict[str, JSON] = {"string": "", "integer": 0, "number": 0, "boolean": False, "null": None}


# A value each common format takes, for the least instance of a string of that format.
_FORMATTED = {
    "date": "2000-01-01", "date-time": "2000-01-01T00:00:00Z", "time": "00:00:00Z",
    "email": "a@example.com", "idn-email": "a@example.com", "hostname": "example.com",
    "idn-hostname": "example.com", "ipv4": "127.0.0.1", "ipv6": "::1", "uri": "https://example.com",
    "uri-reference": "a", "iri": "https://example.com", "iri-reference": "a",
    "uuid": "00000000-0000-0000-0000-000000000000",
    "duration": "P1D", "json-pointer": "", "relative-json-pointer": "0", "regex": "a", "uri-template": "a",
}  # fmt: skip


def _takes(valid: Callable[[JSON], bool], instance: JSON) -> bool:
    try:
        return valid(instance)
    except Exception:  # (a value a validator cannot take)
        return False


def _least(ctx: Context, node: JSON, depth: int = 0, plain: bool = False) -> JSON:
    """A guess at the least instance of a schema (the caller checks it): its `const`, the first of
    its `enum`, the least value of its first type within its bounds, an object of its required
    properties; `plain`: strings of no format or content (a dialect that checks neither takes
    them, and they are short)."""
    node, _ = ctx.resolve(node, "")
    if not isinstance(node, dict) or depth > 32:
        return None
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    kind = node.get("type")
    kind = kind[0] if isinstance(kind, list) and kind else kind
    branches = next((node[k] for k in ("anyOf", "oneOf") if isinstance(node.get(k), list) and node[k]), None)
    if kind is None and branches is not None:  # (of no type of its own: one of its first branch)
        return _least(ctx, branches[0], depth + 1, plain)
    if kind == "array":
        return _least_array(ctx, node, depth, plain)
    if kind == "string":
        return "a" * _min_length(node) if plain else _least_string(node)
    if kind in ("integer", "number"):
        return _least_number(node, kind)
    conjuncts: list[JSON] = node["allOf"] if isinstance(node.get("allOf"), list) else []
    parts = [part for part in [node, *(ctx.resolve(p, "")[0] for p in conjuncts)] if isinstance(part, dict)]
    if kind != "object" and not any({"properties", "required"} & set(part) for part in parts):
        return _LEAST.get(kind) if isinstance(kind, str) else None
    properties: dict[str, JSON] = {}
    required: list[str] = []
    for part in parts:  # (the node and its allOf parts: properties said in either)
        if isinstance(part.get("properties"), dict):
            properties = {**part["properties"], **properties}
        if isinstance(part.get("required"), list):
            required += [name for name in part["required"] if isinstance(name, str) and name not in required]
    least = {name: _least(ctx, properties.get(name, {}), depth + 1, plain) for name in required}
    wanted = max((p["minProperties"] for p in parts if isinstance(p.get("minProperties"), int)), default=0)
    if len(least) < wanted <= 100:  # (the optional properties first, then others where they may be)
        others = node.get("additionalProperties", {})
        names = [*properties, *(() if others is False else (f"p{n}" for n in range(wanted)))]
        for name in [name for name in names if name not in least][: wanted - len(least)]:
            least[name] = _least(ctx, properties.get(name, others), depth + 1, plain)
    return least


def _least_array(ctx: Context, node: dict[str, JSON], depth: int, plain: bool) -> list[JSON]:
    """The least items `minItems` asks for, each of its own schema (`prefixItems`, or draft-07's
    list of `items`, then the rest), distinct where `uniqueItems` asks."""
    low = node.get("minItems")
    count = low if isinstance(low, int) and 0 < low <= 100 else 0
    items, more = node.get("items"), node.get("additionalItems")
    prefix = node.get("prefixItems") if isinstance(node.get("prefixItems"), list) else items
    prefix = prefix if isinstance(prefix, list) else []
    rest = items if isinstance(items, dict) else {}
    if isinstance(items, list) and isinstance(more, dict):  # (draft-07's items after a list of them)
        rest = more
    found: list[JSON] = []
    for index in range(count):
        schema = prefix[index] if index < len(prefix) else rest
        value = _least(ctx, schema, depth + 1, plain)
        if node.get("uniqueItems") is True:
            value = next(v for v in _variants(ctx, schema, value) if v not in found)
        found.append(value)
    return found


def _variants(ctx: Context, schema: JSON, value: JSON) -> Iterator[JSON]:
    """`value`, then others like it (a number a step on, a string of another last character):
    distinct items for `uniqueItems`, guessed."""
    yield value
    resolved = ctx.resolve(schema, "")[0]
    step: Any = resolved.get("multipleOf") if isinstance(resolved, dict) else None
    step = step if num(step) and step >= 1 and float(step).is_integer() else 1
    for n in itertools.count(1):
        if isinstance(value, int | float) and not isinstance(value, bool):
            yield value + n * step
        elif isinstance(value, str):
            yield value[:-1] + _ALPHABET[n % len(_ALPHABET)] * (1 + n // len(_ALPHABET))
        else:
            yield [value] * n


_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def _least_number(node: dict[str, JSON], kind: str) -> JSON:
    """The least number the node's lower bound allows (one step past an exclusive one), else the
    greatest its upper bound below 0 allows, else 0: a multiple of a whole `multipleOf`."""
    step: Any = node.get("multipleOf")
    step = step if num(step) and step >= 1 and float(step).is_integer() else None
    step = step or (1 if kind == "integer" else None)
    bounds: list[tuple[Any, bool]] = [
        (node.get(key), key.startswith("exclusive")) for key in ("minimum", "exclusiveMinimum")
    ]
    lows = [(v, x) for v, x in bounds if num(v) and abs(v) < 1e15]
    if lows:
        value, exclusive = max(lows)  # (at one value, the exclusive bound is the stricter)
        if step is None:
            return value + 1 if exclusive else value
        least = math.ceil(value / step) * step
        return least + step if exclusive and least == value else least
    bounds = [(node.get(key), key.startswith("exclusive")) for key in ("maximum", "exclusiveMaximum")]
    highs = [(v, x) for v, x in bounds if num(v) and abs(v) < 1e15 and (v < 0 or (v == 0 and x))]
    if highs:
        value, exclusive = min(highs, key=lambda bound: (bound[0], not bound[1]))
        if step is None:
            return value - 1 if exclusive else value
        most = math.floor(value / step) * step
        return most - step if exclusive and most == value else most
    return 0


def _min_length(node: dict[str, JSON]) -> int:
    low = node.get("minLength")
    return low if isinstance(low, int) and 0 < low <= 1000 else 0


def _least_string(node: dict[str, JSON]) -> str:
    """A short string of the node's format, or its content (draft-07 checks base64 and JSON), at
    least minLength long (JSON padded with spaces, base64 by encoding more)."""
    low = _min_length(node)
    fmt = node.get("format")
    json_text = node.get("contentMediaType") == "application/json"
    # (0: the least JSON text)
    text = "0" if json_text else _FORMATTED.get(fmt, "") if isinstance(fmt, str) else ""
    pad = " " if json_text else "" if text else "a"  # (a formatted value is not padded)
    if node.get("contentEncoding") == "base64":
        while len(base64.b64encode(text.encode())) < low and pad:
            text += pad
        return base64.b64encode(text.encode()).decode()
    return text + pad * (low - len(text))


def _planted(base: JSON, path: IPath, part: JSON) -> JSON:
    """A copy of `base` with `part` at `path` (a `*` is the first item)."""
    if not path:
        return part
    head, rest = path[0], path[1:]
    if head == "*":
        head = 0
    if isinstance(head, int):
        items = list(base) if isinstance(base, list) else []
        while len(items) <= head:
            items.append(None)
        items[head] = _planted(items[head], rest, part)
        return items
    record = dict(base) if isinstance(base, dict) else {}
    record[head] = _planted(record.get(head), rest, part)
    return record
