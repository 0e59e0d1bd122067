"""The models of a toolset, assembled from independently generated groups and reused across runs.

`start_models(toolset, cache)` returns a `PendingModels` whose `result()` is what
`models.render_models(toolset)` would give, built another way: the shared definitions are generated
once on their own, the tools in groups (a tool closes its group when a hash of its name and its
weight say so, so an edit moves at most one boundary), each group by `render_models` on a toolset
of its tools and the shared definitions they use; a shared class the tools only name is imported
there (or a stand-in), and what only it reaches is left out, so that each shared class is
generated in full once. The group sources are
merged statement by statement: identical definitions collapse, a name defined twice with different
bodies makes the whole toolset generate in one call instead. A group's output depends only on its
own input, so it is stored on disk under the hash of that input and of the generator, and the
missing groups are generated in a forked child (which forks itself once warm, one copy per spare
core) while this process renders the other files: with the cache, without it, or split across
processes, the bytes are the same.
"""

from __future__ import annotations

import ast
import gc
import hashlib
import json
import marshal
import os
import struct
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpstub.beside import Feed, Standby, Worker
from mcpstub.cachefiles import MODELS_FOLDER, read_entry, write_entry
from mcpstub.classnames import RootIndex, root_names
from mcpstub.diagnostics import Diagnostic, Location, Severity
from mcpstub.fastpath import generator_fingerprint
from mcpstub.gcpause import gc_running
from mcpstub.ir import Tool, Toolset, to_class_prefix
from mcpstub.memo import MODELS_DIGEST, derived, tool_plain
from mcpstub.model_merge import Clash, Part, merge_parts, split_source
from mcpstub.models import DATA_KEYWORDS, ModelsResult, render_models

if TYPE_CHECKING:
    from mcpstub.load import Document

# A tool closes its group one time in GROUP_SPREAD at most (groups of about this many tools),
# a light one less often: one time in GROUP_WEIGHT / its weight (`_weight`, about its count of
# subschemas), so that a group of light tools is longer and each generation, which costs a good
# part of its time whatever it holds, does more. 0 turns the weights off.
GROUP_SPREAD = 3
GROUP_WEIGHT = 110
# No group is longer than this, or weighs more than GROUP_MAX_WEIGHT, whatever the hashes say
# (an edit regenerates its tool's group: the bounds bound its cost).
GROUP_MAX = 24
GROUP_MAX_WEIGHT = 150
# Below this many tools of missing groups a fork costs more than it saves.
FORK_MIN_TOOLS = 12
# The child forks at most this many copies of itself to share the units (one per spare core).
_MAX_FORKS = 7
# Missing models are generated in a forked child (where fork exists); False: all in this process.
FORK = hasattr(os, "fork")
# Groups generate the shared classes their tools only name as stand-ins (see models._stand_ins).
STAND_INS = True
_MAGIC = b"mcpstub-models-cache 5"


def _generator_key() -> str:
    """What, besides a group's input, decides its models: mcpstub's code and its environment."""
    return generator_fingerprint()


def default_cache_dir() -> Path:
    """The user cache folder of mcpstub (`$XDG_CACHE_HOME/mcpstub`, `~/.cache/mcpstub`, ...)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "mcpstub" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "mcpstub"
    base = os.environ.get("XDG_CACHE_HOME") or ""
    return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "mcpstub"


# Entries read or written in this process, by key, once `remember()` is called (a `--watch`
# session): entries are named by the hash of their input, so a remembered one is never stale.
_REMEMBERED: dict[str, _Generated] | None = None
_REMEMBER_MAX = 4096


def remember() -> None:
    """Keep the entries this process reads or writes in memory too (for `--watch`)."""
    global _REMEMBERED  # noqa: PLW0603 - one switch for the process
    if _REMEMBERED is None:
        _REMEMBERED = {}


# A warm child that generates the few groups a `--watch` save changes while this process renders
# the other files (`keep_worker()`); forking per save would cost more than it saves.
_WORKER: Worker[list[Toolset], list[_Generated]] | None = None
# How many times a worker that ended (killed, or failed) is replaced; then this process generates.
_WORKER_RESTARTS = [3]


def keep_worker() -> None:
    """Fork a warm child now that generates the models of small changes from then on (for
    `--watch`, after `warm_up()`): a save's changed group is generated beside this process's
    rendering instead of after it. Called again (before each save's run), it reaps a worker that
    ended and forks another, a few times at most."""
    global _WORKER  # noqa: PLW0603 - one worker for the process
    if not FORK or (_WORKER is not None and _WORKER.poll()):
        return
    if _WORKER is not None:
        if _WORKER_RESTARTS[0] <= 0:
            return
        _WORKER_RESTARTS[0] -= 1
    _WORKER = Worker(_render_all)


def _remember(key: str, generated: _Generated) -> None:
    if _REMEMBERED is None:
        return
    if len(_REMEMBERED) >= _REMEMBER_MAX:
        _REMEMBERED.clear()
    _REMEMBERED[key] = generated


class ModelCache:
    """Group models on disk, one file per input hash; unreadable or altered entries are misses.

    Entries are written to a temporary file and renamed into place, so concurrent runs only ever
    see whole files; two runs writing one entry write the same bytes. Deleting the folder at any
    time costs a cold run, nothing else.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder / MODELS_FOLDER

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> _Generated | None:
        """The stored result for `key`, or None when absent, unreadable or corrupted."""
        if _REMEMBERED is not None and key in _REMEMBERED:
            return _REMEMBERED[key]
        found = self._read(key)
        if found is not None:
            _remember(key, found)
        return found

    def _read(self, key: str) -> _Generated | None:
        body = read_entry(self._path(key), _MAGIC)
        if body is None:
            return None
        try:
            entry = json.loads(body)
            if entry["key"] != key:
                return None
            result = ModelsResult(entry["source"], [_diagnostic(d) for d in entry["diagnostics"]])
            parts = [(kind, tuple(names), text) for kind, names, text in entry["parts"]]
            return _Generated(result, parts)
        except (ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, generated: _Generated) -> None:
        """Store a result; a cache that cannot be written is silently skipped."""
        _remember(key, generated)
        result = generated.result
        entry = {
            "key": key,
            "source": result.source,
            "diagnostics": [_plain(d) for d in result.diagnostics],
            "parts": generated.parts,
        }
        write_entry(self._path(key), _MAGIC, json.dumps(entry, ensure_ascii=False).encode("utf-8"))


def _plain(d: Diagnostic) -> dict[str, Any]:
    loc = d.location
    return {
        "severity": d.severity.value,
        "code": d.code,
        "message": d.message,
        "location": [loc.file, loc.line, loc.col],
        "hint": d.hint,
    }


def _diagnostic(data: dict[str, Any]) -> Diagnostic:
    file, line, col = data["location"]
    return Diagnostic(
        Severity(data["severity"]), data["code"], data["message"], Location(file, line, col), data["hint"]
    )


@dataclass(frozen=True)
class _Generated:
    """One unit's models, and the same source split into top-level statements for merging."""

    result: ModelsResult
    parts: list[Part]


@dataclass(frozen=True)
class _Unit:
    """A toolset to generate on its own, and the hash of everything its models depend on."""

    key: str
    toolset: Toolset


def _json_default(value: object) -> object:
    if isinstance(value, frozenset | set):
        return sorted(value)
    if isinstance(value, tuple):
        return list(value)
    return repr(value)


def _marshal(value: object) -> bytes:
    """marshal (version 2: no back-references) keeps types and order; a value it cannot write is
    written as JSON, as exact for what a toolset holds."""
    plain = tool_plain(value) if isinstance(value, Tool) else value
    try:
        return marshal.dumps(plain, 2)  # type: ignore[arg-type]
    except ValueError:
        return json.dumps(plain, default=_json_default, allow_nan=True).encode("utf-8", "surrogatepass")


def _digest(toolset: Toolset, tools: Sequence[Tool], definitions: Mapping[str, bytes]) -> str:
    """The hash of a unit's input: every field `render_models` could read, in order (`tools`
    are the ones the unit's tools were made from; `definitions` the hash of each shared one)."""
    digest = hashlib.sha256(_generator_key().encode())
    roots = tuple(sorted(toolset.reserved_roots))
    names = tuple(toolset.shared_defs)
    digest.update(b"\0" + _marshal((toolset.source_name, names, roots, toolset.stand_ins)))
    for name in names:
        digest.update(b"\0" + definitions[name])
    for tool in tools:
        digest.update(b"\0" + _tool_digest(tool).encode())
    return digest.hexdigest()


def _tool_digest(tool: Tool) -> str:
    """The hash of what a tool gives its unit (kept with the checked tool by the render memo)."""
    return derived(tool, MODELS_DIGEST, lambda t: hashlib.sha256(_marshal(_schema_only(t))).hexdigest())


@lru_cache(maxsize=65536)
def _name_fraction(name: str) -> float:
    """A number in [0, 1) drawn from a hash of a tool name: the same for the same name."""
    return int.from_bytes(hashlib.sha256(name.encode("utf-8", "surrogatepass")).digest()[:4]) / 2**32


def _closes_group(tool: Tool) -> bool:
    """Whether a tool ends its group: decided by its name's hash and its own weight only, so that
    an edit moves at most the boundary at the tool edited."""
    drawn = _name_fraction(tool.name)
    return drawn * GROUP_SPREAD < 1 and (GROUP_WEIGHT <= 0 or drawn * GROUP_WEIGHT < _weight(tool))


# What a listed value in a schema (of `enum`, `examples`) weighs, against a subschema.
_VALUE_WEIGHT = 1 / 16


def _weigh(node: object) -> float:
    """About what generating a schema's models costs: its subschemas, a little per listed value."""
    if isinstance(node, dict):
        total = 1.0
        for key, value in node.items():
            if key in DATA_KEYWORDS:
                total += _VALUE_WEIGHT * (len(value) if isinstance(value, list) else 1)
            else:
                total += _weigh(value)
        return total
    if isinstance(node, list):
        return sum(_weigh(item) for item in node)
    return 0.0


def _unit_weight(toolset: Toolset) -> float:
    """About what generating a unit's models costs: its tools' weights, or, for the unit of the
    shared definitions alone, theirs."""
    if not toolset.tools:
        return sum(_weigh(d) for d in toolset.shared_defs.values())
    return sum(_weight(t) for t in toolset.tools)


def _weight(tool: Tool) -> float:
    """About what generating a tool's models costs: its subschemas, and a little per listed value.
    The shared definitions bundled into its schemas do not count: a group generates them apart."""

    def own(schema: dict[str, Any] | None, shared: frozenset[str]) -> float:
        if schema is None:
            return 0.0
        total = _weigh({k: v for k, v in schema.items() if k not in {"$defs", "definitions"}})
        for key in ("$defs", "definitions"):
            defs = schema.get(key)
            if isinstance(defs, dict):
                total += sum(_weigh(v) for name, v in defs.items() if name not in shared)
        return total

    def make(t: Tool) -> float:
        shared = frozenset(t.shared_def_names)
        return own(t.input_schema, shared) + own(t.output_schema, shared)

    return derived(tool, "group-weight", make)


class _Grouper:
    """Cuts tools, given one at a time in order, into the groups `split_groups` makes."""

    def __init__(self) -> None:
        self._current: list[Tool] = []
        self._weight = 0.0

    def add(self, tool: Tool) -> tuple[Tool, ...] | None:
        """The group `tool` closes, if it closes one."""
        self._current.append(tool)
        self._weight += _weight(tool) if GROUP_WEIGHT > 0 else 0.0
        if _closes_group(tool) or len(self._current) >= GROUP_MAX or self._weight >= GROUP_MAX_WEIGHT:
            return self.rest()
        return None

    def rest(self) -> tuple[Tool, ...] | None:
        """The group of the tools given since the last one closed, if any."""
        group, self._current, self._weight = tuple(self._current), [], 0.0
        return group or None


def split_groups(tools: Sequence[Tool]) -> list[tuple[Tool, ...]]:
    """Consecutive groups of tools, with boundaries set by the tools' names (content-defined)."""
    grouper = _Grouper()
    groups = [group for tool in tools if (group := grouper.add(tool)) is not None]
    last = grouper.rest()
    return [*groups, last] if last is not None else groups


class _Planner:
    """Makes the units of a toolset: the shared definitions alone, then each group of tools with
    the shared definitions it uses. `roots` are the root class names of the whole toolset."""

    def __init__(self, toolset: Toolset, roots: set[str]) -> None:
        # What models cannot depend on is blanked, so that an edit of it (a description, an
        # example) reuses every group.
        self.base = replace(
            toolset,
            server_name="",
            server_version=None,
            instructions=None,
            server_info={},
            tools=(),
            source_hash="",
            sources=(),
        )
        # Each part knows the root class names of the rest that extend its own, so that it names
        # its nested classes as the whole toolset would (see classnames).
        self.roots = RootIndex(roots | toolset.reserved_roots)
        # Each shared definition is hashed once, not once per group that uses it.
        self._definitions = {n: hashlib.sha256(_marshal(s)).digest() for n, s in toolset.shared_defs.items()}
        self._targets: dict[str, set[str]] = {}  # the shared definitions each refers to

    def _closed(self, names: set[str]) -> set[str]:
        """`names` and the shared definitions they refer to, directly or not (a definition lifted
        from another file is named by the shared ones reaching it, not by the tools)."""
        todo, closed = list(names), set()
        while todo:
            name = todo.pop()
            if name in closed or name not in self.base.shared_defs:
                continue
            closed.add(name)
            if name not in self._targets:
                self._targets[name] = set(_shared_refs(self.base.shared_defs[name]))
            todo.extend(self._targets[name])
        return closed

    def first(self) -> _Unit:
        """The shared definitions' unit."""
        first = replace(self.base, reserved_roots=self.roots.extending(root_names(self.base)))
        return _Unit(_digest(first, (), self._definitions), first)

    def group(self, group: tuple[Tool, ...]) -> _Unit:
        """A group's unit."""
        used = self._closed(set().union(*(t.shared_def_names for t in group)))
        shared = {n: s for n, s in self.base.shared_defs.items() if n in used}
        tools = tuple(_schema_only(t) for t in group)
        unit = replace(self.base, tools=tools, shared_defs=shared, stand_ins=STAND_INS)
        unit = replace(unit, reserved_roots=self.roots.extending(root_names(unit)))
        return _Unit(_digest(unit, group, self._definitions), unit)


def _shared_refs(node: object) -> Iterable[str]:
    """The names of the shared definitions `#/$defs/<name>` references anywhere in `node` name."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/") and "/" not in ref[8:]:
            yield ref[8:].replace("~1", "/").replace("~0", "~")
        for value in node.values():
            yield from _shared_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _shared_refs(value)


def _units(toolset: Toolset) -> list[_Unit]:
    """The shared definitions alone, then each group of tools with the shared definitions it uses."""
    planner = _Planner(toolset, root_names(toolset))
    return [planner.first(), *(planner.group(g) for g in split_groups(toolset.tools))]


def _schema_only(tool: Tool) -> Tool:
    """A tool as its models see it: names and schemas, without what only the other files show."""
    return derived(tool, "schema-only", lambda t: replace(t, advertised={}, examples=(), timeout=None))


def _render_all(units: list[Toolset]) -> list[_Generated]:
    out = []
    with gc_running():  # the model generator leaves cycles behind
        for unit in units:
            result = render_models(unit)
            parts = split_source(result.source)
            if result.stand_ins:
                parts = _without(parts, set(result.stand_ins))
            out.append(_Generated(result, parts))
    return out


def _without(parts: list[Part], names: set[str]) -> list[Part]:
    """The statements that do not define the named classes, with the imports they use.

    What the dropped statements used comes from the generation that defines them for real. Only
    names the dropped statements use can have become unused, so only those are looked for.
    """
    kept: list[Part] = []
    dropped: set[str] = set()
    for part in parts:
        kind, defined, text = part
        if kind in {"from", "import"} or names.isdisjoint(defined):
            kept.append(part)
        else:
            dropped.update(n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name))
    used: set[str] = set()
    for kind, _, text in kept:
        wanted = dropped - used
        if not wanted:
            break
        if kind not in {"from", "import"} and any(w in text for w in wanted):
            used.update(n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name) and n.id in wanted)
    unused = dropped - used
    out: list[Part] = []
    for kind, imported, text in kept:
        bound = tuple(n for n in imported if kind != "from" or n.rpartition(" as ")[2] not in unused)
        if kind != "from" or bound:
            out.append((kind, bound, text))
    return out


class _Claims:
    """Items 0..n-1 of a list, claimed one at a time: by a forked child from the front, by this
    process from the back, so neither waits for a share the other has not started.

    The lock is a POSIX record lock on a temporary file: held per process and released when its
    holder dies, so a child killed while claiming (by the OOM killer, say) cannot hang this one.
    """

    def __init__(self) -> None:
        import mmap  # noqa: PLC0415

        self._ends = mmap.mmap(-1, 8)  # shared with children forked after this
        self._file = tempfile.TemporaryFile()  # held as long as the claims are

    @property
    def _lock(self) -> _RecordLock:
        return _RecordLock(self._file.fileno())

    def reset(self, count: int) -> None:
        with self._lock:
            struct.pack_into("ii", self._ends, 0, 0, count)

    def front(self) -> int | None:
        with self._lock:
            first, end = struct.unpack_from("ii", self._ends)
            if first >= end:
                return None
            struct.pack_into("ii", self._ends, 0, first + 1, end)
            return int(first)

    def back(self) -> int | None:
        with self._lock:
            first, end = struct.unpack_from("ii", self._ends)
            if first >= end:
                return None
            struct.pack_into("ii", self._ends, 0, first, end - 1)
            return int(end) - 1

    def left(self) -> int:
        with self._lock:
            first, end = struct.unpack_from("ii", self._ends)
            return int(end - first)


class _RecordLock:
    """`with` holds an exclusive record lock on the file `fd` (POSIX: per process, not inherited)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def __enter__(self) -> None:
        import fcntl  # noqa: PLC0415 - claims exist only where fork does

        fcntl.lockf(self._fd, fcntl.LOCK_EX)

    def __exit__(self, *_: object) -> None:
        import fcntl  # noqa: PLC0415

        fcntl.lockf(self._fd, fcntl.LOCK_UN)


def _claim_front(claims: _Claims, units: list[Toolset]) -> dict[int, _Generated]:
    """Generate units from the front of the list until none is left unclaimed."""
    out: dict[int, _Generated] = {}
    while (index := claims.front()) is not None:
        out[index] = _render_all([units[index]])[0]
    return out


def _render_front(claims: _Claims, units: list[Toolset]) -> dict[int, _Generated]:
    """In the child, once the generator is imported: generate units from the front of the list,
    with a fork of itself per spare core claiming from the same list (forked warm, they pay no
    imports). A fork that fails leaves its claimed units to the parent, which generates them."""
    return _beside_forks(partial(_claim_front, claims, units), claims.left() - 1)


def _beside_forks(take: Callable[[], dict[int, _Generated]], wanted: int) -> dict[int, _Generated]:
    """`take()` here and in a fork of this process per spare core (`wanted` at most), all
    taking from the same units: what they generated, by index. A fork that fails leaves what it
    took to the parent, which generates it."""
    spare = min(_cores() - 1, wanted, _MAX_FORKS) if FORK else 0
    forks: list[Standby[None, dict[int, _Generated]]] = [
        Standby(lambda _: take(), _nothing) for _ in range(max(0, spare))
    ]
    for fork in forks:
        fork.give(None)
    out = take()
    for fork in forks:
        out.update(fork.result())
    return out


def _render_fed(lock: int, next_item: Callable[[], tuple[int, Toolset] | None]) -> dict[int, _Generated]:
    """In the standby child, once the generator is imported: generate the units fed to it as
    they come, with a fork of itself per spare core reading from the same feed (a unit is read
    whole under `lock`, a file all of them hold). A fork that fails leaves the units it read to
    the parent, which generates them."""
    return _beside_forks(partial(_take_fed, lock, next_item), _MAX_FORKS)


def _take_fed(lock: int, next_item: Callable[[], tuple[int, Toolset] | None]) -> dict[int, _Generated]:
    """Generate units read from the feed until it ends."""
    out: dict[int, _Generated] = {}
    while True:
        with _RecordLock(lock):
            item = next_item()
        if item is None:
            return out
        index, unit = item
        out[index] = _render_all([unit])[0]


def _nothing() -> None:
    """A fork's preparation: none, it starts warm."""


@cache
def _cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class ModelHelper:
    """A forked child that generates models beside this process, sharing one list of units."""

    def __init__(self, prepare: Callable[[], object]) -> None:
        self.claims = _Claims()
        self.child: Standby[list[Toolset], dict[int, _Generated]] = Standby(
            partial(_render_front, self.claims), prepare
        )

    def close(self) -> None:
        """Stop the child (a no-op once its result is in)."""
        self.child.close()


class ModelFeed:
    """A forked child that imports the model generator at once, then generates the units fed
    to it: those of each group of tools as soon as the check has passed them (`follow`), the
    rest once the check is done (`PendingModels`)."""

    def __init__(self) -> None:
        self._lock = tempfile.TemporaryFile()  # held as long as the feed is
        self.feed: Feed[tuple[int, Toolset], dict[int, _Generated]] = Feed(
            partial(_render_fed, self._lock.fileno()), _warm_child
        )
        self.stream: _Stream | None = None

    def follow(self, doc: Document, store: ModelCache | None) -> Callable[[Tool], None] | None:
        """What the check of the loaded toolset `doc` calls with each tool it passes, in order;
        None when it cannot be followed."""
        roots = _predicted_roots(doc.data)
        if roots is None or not self.feed.alive:
            return None
        shared = dict(doc.data.get("$defs") or {})
        early = Toolset("", None, None, shared, (), source_name=Path(doc.file).name)
        try:
            self.stream = _Stream(self.feed, early, roots, store)
        except Exception:  # what was fed is unknown: the models are made after the check, here
            self.stream = None
            self.feed.close()
            return None
        return self.stream.add

    def close(self) -> None:
        """Stop the child (a no-op once its result is in)."""
        self.feed.close()
        self._lock.close()


def _predicted_roots(data: Any) -> set[str] | None:
    """The root class names a checked toolset of the document `data` has (`root_names`), as far
    as its tools' names tell; None when they do not (the check will say why)."""
    if not isinstance(data, dict):
        return None
    tools, shared = data.get("tools"), data.get("$defs") or {}
    if not isinstance(tools, list) or not isinstance(shared, dict):
        return None
    if not all(isinstance(name, str) for name in shared):
        return None
    roots = set(shared)
    for raw in tools:
        if not isinstance(raw, dict) or not isinstance(name := raw.get("name"), str):
            return None
        prefix = to_class_prefix(name)
        roots.add(prefix + "Input")
        if raw.get("outputSchema") is not None:
            roots.add(prefix + "Output")
    return roots


class _Stream:
    """The units of a toolset made as its check passes its tools: each group's as soon as it is
    whole, sent to the feed unless the store has it (or it was sent already)."""

    def __init__(self, feed: Feed[tuple[int, Toolset], dict[int, _Generated]], early: Toolset,
                 roots: set[str], store: ModelCache | None) -> None:  # fmt: skip
        self._feed, self._store, self._early, self._roots = feed, store, early, roots
        self._planner = _Planner(early, roots)
        self._grouper = _Grouper()
        self.tools: list[Tool] = []
        self.units: list[_Unit] = []
        self.found: dict[str, _Generated] = {}
        self.missing: list[_Unit] = []
        self._sent: set[str] = set()
        self.broken = False  # something could not be made: nothing made is used
        self._make(self._planner.first())

    def add(self, tool: Tool) -> None:
        """The check passed `tool` (the next of the toolset's)."""
        self.tools.append(tool)
        if self.broken:
            return
        try:
            group = self._grouper.add(tool)
            if group is not None:
                self._make(self._planner.group(group))
        except Exception:  # whatever this could not make, the models are made after the check
            self.broken = True

    def _make(self, unit: _Unit) -> None:
        self.units.append(unit)
        hit = self._store.get(unit.key) if self._store is not None else None
        if hit is not None:
            self.found[unit.key] = hit
        elif unit.key not in self._sent:
            self._sent.add(unit.key)
            self._feed.put((len(self.missing), unit.toolset), _unit_weight(unit.toolset))
            self.missing.append(unit)

    def matches(self, toolset: Toolset) -> bool:
        """Whether the units made so far are those of `toolset` (the checked toolset): the same
        tools in order, the same shared definitions, root class names and file name."""
        early = self._early
        return (
            not self.broken
            and len(self.tools) == len(toolset.tools)
            and all(a is b for a, b in zip(self.tools, toolset.tools, strict=True))
            and list(early.shared_defs) == list(toolset.shared_defs)
            and all(early.shared_defs[n] is s for n, s in toolset.shared_defs.items())
            and early.source_name == toolset.source_name
            and not toolset.reserved_roots
            and not toolset.stand_ins
            and self._roots == root_names(toolset)
        )

    def finish(self) -> bool:
        """The check is done: make the last group's unit; False if it could not be made."""
        try:
            group = self._grouper.rest()
            if group is not None:
                self._make(self._planner.group(group))
        except Exception:  # as in `add`
            self.broken = True
        return not self.broken


class PendingModels:
    """Models being generated; `result()` waits for them. `close()` abandons them."""

    def __init__(
        self, toolset: Toolset, store: ModelCache | None, helper: ModelHelper | ModelFeed | None = None
    ) -> None:
        self._toolset, self._store = toolset, store
        # Whether `result()` assembled the models from parsed statements (see there).
        self.merged = False
        self._found: dict[str, _Generated] = {}
        missing: list[_Unit] = []
        feed = helper if isinstance(helper, ModelFeed) else None
        stream = feed.stream if feed is not None else None
        if feed is not None and stream is not None and not (stream.matches(toolset) and stream.finish()):
            feed.close()  # its units were made from another toolset than this: not used
            helper = feed = stream = None
        if stream is not None:  # the units of every group are made (and sent) already
            self._units, self._found, missing = stream.units, stream.found, stream.missing
        else:
            self._units = _units(toolset)
            for unit in self._units:
                hit = store.get(unit.key) if store is not None else None
                if hit is not None:
                    self._found[unit.key] = hit
                elif unit.key not in {m.key for m in missing}:
                    missing.append(unit)
            if feed is not None:
                for index, unit in enumerate(missing):
                    feed.feed.put((index, unit.toolset), _unit_weight(unit.toolset))
        if feed is not None:
            feed.feed.end()
        self._missing = missing
        weight = sum(max(1, len(u.toolset.tools)) for u in missing)
        # A child of its own pays only for two units or more: with one, this process (which has
        # the generator imported, or no standby would be missing) waits for it anyway.
        if len(missing) > 1 and helper is None and FORK and weight >= FORK_MIN_TOOLS:
            helper = ModelHelper(lambda: None)
        if helper is not None and not missing:
            helper.close()
            helper = None
        self._helper = helper
        # A small change (no helper of its own) goes to the warm worker, if there is one.
        worker = _WORKER if helper is None and missing and _WORKER is not None else None
        self._ticket = worker.submit([u.toolset for u in missing]) if worker is not None else None
        if isinstance(helper, ModelHelper):
            # The child (warm, or warming up) starts at the front now, with forks of itself once
            # warm; this process joins from the back if it has the generator imported.
            helper.claims.reset(len(missing))
            helper.child.give([u.toolset for u in missing])

    def close(self) -> None:
        """Stop the child, if any."""
        if self._helper is not None:
            self._helper.close()
            self._helper = None

    def _take_own(self) -> dict[int, _Generated]:
        """Units this process generates while the child works from the other end."""
        own: dict[int, _Generated] = {}
        helper = self._helper
        if isinstance(helper, ModelFeed):
            return own  # its child and forks use every core
        if helper is None:
            answer = _WORKER.answer(self._ticket) if _WORKER is not None else None
            if answer is None:  # no worker, or it failed: generate here
                answer = _render_all([u.toolset for u in self._missing])
            return dict(enumerate(answer))
        # This process joins only if it has the model generator imported already: the child and
        # its forks use every core once the child has imported it, so importing it here too
        # would only take a core from them.
        while "datamodel_code_generator" in sys.modules:
            index = helper.claims.back()
            if index is None:
                break
            own[index] = _render_all([self._missing[index].toolset])[0]
        return own

    def result(self) -> ModelsResult:
        """The models of the whole toolset, as one `render_models` call would name and order them."""
        done = dict(self._found)
        generated = self._take_own()
        if isinstance(self._helper, ModelFeed):
            generated.update(self._helper.feed.result() or {})
            self._helper.close()
        elif self._helper is not None:
            generated.update(self._helper.child.result())
        self._helper = None
        # Units a failed child claimed but never sent are generated here.
        for index, unit in enumerate(self._missing):
            if index not in generated:
                generated[index] = _render_all([unit.toolset])[0]
        fresh = [(unit, generated[index]) for index, unit in enumerate(self._missing)]
        for unit, result in fresh:
            done[unit.key] = result
            if self._store is not None:
                self._store.put(unit.key, result)
        results = [done[u.key] for u in self._units]
        try:
            source = merge_parts(r.parts for r in results)
        except Clash:
            self.merged = False
            with gc_running():
                return render_models(self._toolset)
        # Every part is a whole top-level statement parsed out of a generated module, and the
        # imports are written from parsed names: the merged module compiles by construction.
        self.merged = True
        diagnostics = list(dict.fromkeys(d for r in results for d in r.result.diagnostics))
        return ModelsResult(source, diagnostics)


def warm_up() -> None:
    """Import what the model generator imports on its first call, so forked children start warm."""
    render_models(Toolset("warm", None, None, {"Warm": {"type": "object", "properties": {"a": {}}}}, ()))


def _warm_child() -> None:
    """A model child's preparation: `warm_up()`, then what it holds is left out of the cycle
    collector's passes, which would walk it again and again (and, in a fork, copy it page by page)."""
    warm_up()
    gc.freeze()


def start_models(
    toolset: Toolset, store: ModelCache | None, helper: ModelHelper | ModelFeed | None = None
) -> PendingModels:
    """Begin generating a toolset's models (reusing `store`'s entries); collect with `result()`.

    `helper` (from `standby_models`), if given, shares the work or is closed.
    """
    return PendingModels(toolset, store, helper)


def standby_models() -> ModelFeed | None:
    """A child that imports the model generator now, while the toolset is read and checked, and
    generates each group's models as soon as the check has passed its tools (`ModelFeed.follow`).

    None where it would not pay: without fork, or once this process has the generator imported
    (a `--watch` session after its first run).
    """
    if not FORK or "datamodel_code_generator" in sys.modules:
        return None
    return ModelFeed()
