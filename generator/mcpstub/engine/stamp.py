"""Fast path: tell, without parsing the toolset, that a generated package is already current.

Every run writes a stamp (`layout.STAMP_FILE`): a hash of the generator and of every source file, a
hash of each "ours" file as written, and of the stub each "yours" file was created as. When all
still match and every handler is there, generation is skipped; anything else (an edited or deleted
file, an interrupted run) takes the full run, which repairs it. Only the stamp carries the hash, so
a change rewrites only the files it changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import subprocess
import sys
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import mcpstub
from mcpstub import __version__
from mcpstub.diagnostics import Diagnostic, Location, Severity
from mcpstub.engine.store import read_regular
from mcpstub.layout import (
    CLIENT_ONLY_FILES,
    CONTRACT_TESTS,
    OURS_FILES,
    RETIRED_FILES,
    SERVER_FILES,
    STAGED_NAME,
    STAMP_FILE,
    STAMP_PREFIX,
    SURFACE_FILE,
    WRITING_MARKER,
)
from mcpstub.resources import resource_dir


def installed(module: str) -> str:
    """A hash of `module`'s entry file (an upgrade or an edit in place changes it), or "absent": not
    where it is installed nor when, so identical installs on two machines agree. Found without
    importing it, in milliseconds (package metadata takes a third of a second on a busy machine)."""
    from importlib.util import find_spec  # noqa: PLC0415

    try:
        spec = find_spec(module)
        if spec is None or spec.origin is None:
            return "absent"
        with open(spec.origin, "rb") as entry:
            return hashlib.sha256(entry.read()).hexdigest()[:16]
    except (ImportError, ValueError, OSError):
        return "absent"


@cache
def environment_key() -> str:
    """What besides mcpstub's code shapes the output and the checks: the interpreter (its Unicode data
    measures widths without black), mcpstub's distribution and every one it requires, transitively,
    by the name and version its metadata folder carries (the model generator and all it runs on:
    inflect names array items, isort orders imports), and the entry files of the libraries mcpstub
    calls (a library changed in place, as an editable install is). A cache shared by several
    environments keeps them apart; an install, upgrade or removal of any of these makes every entry
    a miss, and one of an unrelated package changes nothing (a committed stamp stays as it is).
    Nothing in it says where the environment is, so a stamp is the same on every machine with the
    same installs."""
    modules = ("black", "datamodel_code_generator", "pydantic", "jsonschema_rs", "jsonschema")
    libraries = [f"{name} {installed(name)}" for name in modules]
    python = f"{sys.implementation.name} {sys.version_info[:3]} unicode {unicodedata.unidata_version}"
    return "\n".join([python, *required_distributions(), *libraries])


def required_distributions(root: str = "mcpstub") -> list[str]:
    """The metadata folders of `root`'s distribution and of each it requires, transitively (extras
    aside; an environment marker is not judged, so a requirement is followed wherever installed),
    each as Python imports it (the first on the import path). Where `root` has no metadata (its
    source run in place), every distribution installed."""
    found = installed_distributions()
    if root not in found:
        return sorted(_described(folder) for folder in found.values())
    todo, seen = [root], set()
    while todo:
        name = todo.pop()
        if name not in seen and name in found:
            seen.add(name)
            todo += _requirements(found[name])
    return sorted(_described(found[name]) for name in seen)


def installed_distributions() -> dict[str, Path]:
    """The metadata folder (`name-version.dist-info`) of each distribution on the import path, by
    normalized name, the first found where several are; the current folder's are left out (`python
    -m` imports from there first): that is the project's, and a key must not change with the folder
    a run starts in."""
    found: dict[str, Path] = {}
    try:
        here = os.getcwd()
    except OSError:
        here = ""
    for entry in sys.path:
        if not entry or os.path.abspath(entry) == here:
            continue
        try:
            with os.scandir(entry) as entries:
                folders = sorted(e.name for e in entries if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:  # a zip file, a folder gone
            continue
        for folder in folders:
            found.setdefault(_normal(folder.rsplit(".", 1)[0].split("-", 1)[0]), Path(entry, folder))
    return found


_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)[^;]*(;.*)?")


def _described(folder: Path) -> str:
    """A metadata folder's name, and for an egg's (`x.egg-info` names no version when an editable
    install made it) the version its PKG-INFO says."""
    if folder.suffix != ".egg-info":
        return folder.name
    try:
        with open(folder / "PKG-INFO", encoding="utf-8", errors="replace") as info:
            version = next((line[8:].strip() for line in info if line.startswith("Version:")), "")
    except OSError:
        version = ""
    return f"{folder.name} {version}".rstrip()


def _requirements(folder: Path) -> list[str]:
    """The normalized names a distribution requires, but for its extras: `Requires-Dist` of a wheel's
    METADATA, or the lines of an egg's requires.txt outside its extras' sections."""
    lines: list[str] = []
    try:
        if folder.suffix == ".dist-info":
            with open(folder / "METADATA", encoding="utf-8", errors="replace") as metadata:
                for line in metadata:
                    if not line.strip():
                        break  # the end of the headers
                    if line.startswith("Requires-Dist:"):
                        lines.append(line[len("Requires-Dist:") :])
        else:  # a section `[extra]` or `[extra:marker]` is an extra's; `[:marker]` is everyone's
            section = ""
            for line in (folder / "requires.txt").read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("["):
                    section = line.strip("[] ")
                elif not section.partition(":")[0]:
                    lines.append(line)
    except OSError:  # no metadata file: nothing known to be required
        return []
    names = []
    for line in lines:
        match = _REQUIREMENT.match(line)
        if match and "extra" not in (match[2] or ""):
            names.append(_normal(match[1]))
    return names


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def generator_fingerprint() -> str:
    """Hash of mcpstub's version, code (every subpackage), templates and `environment_key`: all that
    decides the output besides the toolset and options. Every cache key and the stamp include it."""
    digest = hashlib.sha256(f"{__version__}\0{environment_key()}".encode())
    for root, path in generator_files():
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def generator_files() -> list[tuple[Path, Path]]:
    """(folder, file) for every module of the `mcpstub` package and every template."""
    package, templates = Path(mcpstub.__file__).resolve().parent, resource_dir("templates")
    return [
        (root, path)
        for root, pattern in ((package, "*.py"), (templates, "*.jinja"))
        for path in sorted(root.rglob(pattern))
    ]


def source_hash(
    toolset: Path,
    routes: Sequence[str],
    policy: str = "",
    read: Mapping[str, tuple[Path, bytes]] | None = None,
) -> str:
    """Hash of the generator, the policy (`Policy.fingerprint`) and every source: the toolset, and
    each file its references reached by `routes` (`Bundler.routes`), each with the file the route
    leads to (symlinks followed) and its bytes. `read`: (file led to, bytes) by route ("" for the
    toolset) as a run read them; a save since then must not pass for what was read."""
    digest = hashlib.sha256(f"mcpstub {generator_fingerprint()}\n".encode())
    if policy:
        digest.update(f"policy\n{len(policy)}\n{policy}".encode())
    base = toolset.parent.resolve()
    for route in ("", *routes):
        if read is not None and route in read:
            led, data = read[route]
        else:
            path = toolset.parent / route if route else toolset
            if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device is never read to its end
                raise OSError(f"{path}: not a regular file")
            led, data = path.resolve(), path.read_bytes()
        named = os.fsencode(route or toolset.name) + b"\0" + os.fsencode(os.path.relpath(led, base))
        digest.update(named + f"\n{len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()[:32]


def file_hash(data: bytes) -> str:
    """The hash of a generated file's bytes, as the stamp records it."""
    return hashlib.sha256(data).hexdigest()


def recorded_hashes(out: Path) -> dict[str, str]:
    """The hash of each file as the stamp in `out` records it (none without a stamp this
    version of mcpstub reads)."""
    data = _read_stamp(out)
    return dict(data["files"]) if data is not None else {}


def recorded_warning(toolset: str, d: Diagnostic) -> dict[str, Any]:
    """A warning as the stamp keeps it: its file from the folder of the toolset (as shown, `toolset`)."""
    file = os.path.relpath(d.location.file, os.path.dirname(toolset) or ".")
    where = {"file": Path(file).as_posix(), "line": d.location.line, "col": d.location.col}
    return {**where, "code": d.code, "message": d.message, "hint": d.hint}


def replayed_warning(toolset: str, entry: dict[str, Any]) -> Diagnostic:
    """A warning the stamp keeps, its file shown as this run shows the toolset's (`toolset`)."""
    file = os.path.normpath(os.path.join(os.path.dirname(toolset), entry["file"]))
    where = Location(file, entry["line"], entry["col"])
    return Diagnostic(Severity.WARNING, entry["code"], entry["message"], where, entry["hint"])


def hashes_as(data: bytes, digest: str) -> bool:
    """Whether a file's bytes are those whose hash is `digest`, in any line endings (a checkout's)."""
    return digest in (file_hash(data), file_hash(data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")))


def edited_by_hand(out: Path, rels: Iterable[str], *, lost: bool = False) -> list[str]:
    """Those of the generated files `rels` whose bytes are not what the stamp in `out` records: a
    hand's (or a tool's) edit, which the run that writes them again would lose without a word. Line
    endings do not count, as they do not for the run (a CRLF checkout, git's autocrlf); with `lost`
    (those a write would lose), nor does a file git holds as committed (`_uncommitted`)."""
    hashes = recorded_hashes(out)
    edited = []
    for rel in rels:
        try:
            if rel in hashes and not hashes_as((out / rel).read_bytes(), hashes[rel]):
                edited.append(rel)
        except OSError:  # (gone, or unreadable: the write says so)
            continue
    return _uncommitted(out, edited) if edited and lost else edited


def _uncommitted(out: Path, rels: list[str]) -> list[str]:
    """Those of `rels` whose content git does not hold as committed: a checkout's files (another
    branch's generation, where the stamp is not committed) lose nothing when written again. All of
    them outside a repository, or where git cannot tell."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=out, capture_output=True, timeout=30, check=True)
        return done.stdout.decode("utf-8", "surrogateescape")

    try:  # (paths from the repository's root; listed: changed, untracked or ignored)
        prefix = git("rev-parse", "--show-prefix").strip()
        listed = git("status", "--porcelain", "-z", "--ignored=matching", "-uall", "--", *rels)
    except (OSError, subprocess.SubprocessError):
        return rels
    changed = {entry[3:] for entry in listed.split("\0") if entry}
    return [rel for rel in rels if f"{prefix}{rel}" in changed]


def stamp_text(
    source: str,
    sources: tuple[str, ...],
    ours: dict[str, str],
    yours: dict[str, str],
    hashed: Callable[[str, str], str] | None = None,
    stubs: Mapping[str, tuple[str, str]] | None = None,
    warnings: Sequence[Mapping[str, Any]] = (),
    lost_models: Mapping[str, list[list[str]]] | None = None,
    renamed: Mapping[str, str] | None = None,
) -> str:
    """The stamp a run writes (`source`: the source hash; `hashed(rel, text)`: a file's hash, as
    computed already; `stubs`: each handler's stub hash and form, as rendered; `warnings`: the
    run's warnings, which a run that finds the package current says again, as it does of each
    handler in `lost_models` (`handlerfiles.lost_models`) that is still the same, and of each
    orphaned handler in `renamed` (`handlerfiles.renamed_handlers`) the move that keeps its code)."""

    def digest(rel: str, text: str) -> str:
        return hashed(rel, text) if hashed is not None else file_hash(text.encode("utf-8"))

    stamp: dict[str, Any] = {
        "generator": f"mcpstub {__version__}",
        "source_hash": source,
        "sources": list(sources),
        "files": {rel: digest(rel, text) for rel, text in sorted(ours.items())},
        "handlers": {
            rel: list((stubs or {}).get(rel) or (file_hash(text.encode("utf-8")), ""))
            for rel, text in sorted(yours.items())
        },
    }
    if warnings:  # (made of the sources the source hash covers: current while it matches)
        stamp["warnings"] = list(warnings)
    if lost_models:
        stamp["lost_models"] = dict(sorted(lost_models.items()))
    if renamed:
        stamp["renamed"] = dict(sorted(renamed.items()))
    text = json.dumps(stamp, indent=2, ensure_ascii=False) + "\n"
    assert text.startswith(STAMP_PREFIX)
    return text


@dataclass(frozen=True)
class Current:
    """A package the fast path found current: the handler modules that have no tool, and the hash
    and form of the stub written for each handler."""

    orphans: list[str]
    stubs: dict[str, tuple[str, str]]
    warnings: list[dict[str, Any]]
    lost_models: dict[str, list[list[str]]]
    renamed: dict[str, str]


def _read_stamp(out: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(read_regular(out / STAMP_FILE).decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    files, handlers, sources = data.get("files"), data.get("handlers"), data.get("sources")
    if not (
        data.get("generator") == f"mcpstub {__version__}"
        and isinstance(data.get("source_hash"), str)
        and isinstance(files, dict)
        and all(isinstance(v, str) for v in files.values())
        and isinstance(handlers, dict)
        and all(_stub_entry(h) for h in handlers.values())
        and isinstance(sources, list)
        and all(isinstance(s, str) for s in sources)
    ):
        return None
    return data


def _stub_entry(entry: object) -> bool:
    """A handler's entry: its stub's hash and form."""
    return isinstance(entry, list) and len(entry) == 2 and all(isinstance(x, str) for x in entry)


def _holds_staged(folder: Path) -> bool:
    """Whether `folder` holds a staged file or backup (a folder of that name is not one)."""
    try:
        with os.scandir(folder) as entries:
            staged = (e for e in entries if e.name[:1] == "." and re.fullmatch(STAGED_NAME, e.name))
            return any(not e.is_dir(follow_symlinks=False) for e in staged)
    except OSError:
        return False


def is_current(
    toolset: Path, out: Path, *, emit_tests: bool = False, policy: str = "", client_only: bool = False
) -> Current | None:
    """`Current` when a run would change nothing in `out`; None when a full run is needed."""
    stamp = _read_stamp(out)
    if stamp is None or (out / WRITING_MARKER).exists():
        return None  # no stamp, or a run was interrupted
    if _holds_staged(out) or _holds_staged(out / "handlers"):
        return None  # a run left files behind (killed as it removed its backups): the full run removes them
    generated = CLIENT_ONLY_FILES if client_only else OURS_FILES
    expected = {*generated, SURFACE_FILE, *((CONTRACT_TESTS,) if emit_tests else ())}
    files: dict[str, str] = stamp["files"]
    if set(files) != expected:
        return None
    if not emit_tests and (out / CONTRACT_TESTS).exists():
        return None
    if any((out / rel).exists() for rel in (*RETIRED_FILES, *(SERVER_FILES if client_only else ()))):
        return None  # a file an earlier version wrote: the full run removes it (if generated)
    try:
        if source_hash(toolset, stamp["sources"], policy) != stamp["source_hash"]:
            return None
        for rel, digest in files.items():
            if file_hash(read_regular(out / rel)) != digest:
                return None  # edited or deleted: the full run restores it
    except (OSError, RuntimeError, ValueError):  # (a symlink loop; another drive)
        return None
    handlers: dict[str, list[str]] = stamp["handlers"]
    if not all((out / rel).is_file() for rel in handlers):
        return None  # a deleted stub: the full run writes it again
    modules = (f"handlers/{p.name}" for p in (out / "handlers").glob("*.py") if not p.stem.startswith("_"))
    stubs = {rel: (digest, form) for rel, (digest, form) in handlers.items()}
    said, lost, renamed = stamp.get("warnings", []), stamp.get("lost_models", {}), stamp.get("renamed", {})
    if not (
        isinstance(said, list)
        and all(_recorded_warning(w) for w in said)
        and _lost_entries(lost)
        and _renamed_entries(renamed)
    ):
        return None  # (a stamp edited by hand: the full run finds them again)
    return Current(sorted(rel for rel in modules if rel not in handlers), stubs, said, lost, renamed)


@dataclass(frozen=True)
class Recorded:
    """What the last stamp in a package recorded of its handlers (nothing where it is no stamp)."""

    renamed: Mapping[str, str] = field(default_factory=dict)  # orphaned handler -> its tool's new name
    lost: Mapping[str, list[list[str]]] = field(default_factory=dict)  # see `handlerfiles.lost_models`
    files: frozenset[str] = frozenset()  # the generated files ("server.py" is not in a client-only one)


def recorded(out: Path) -> Recorded:
    """What the stamp in `out` records of its handlers; an entry edited out of shape is left out."""
    stamp = _read_stamp(out)
    if stamp is None:
        return Recorded()
    renamed, lost = stamp.get("renamed", {}), stamp.get("lost_models", {})
    return Recorded(
        renamed if _renamed_entries(renamed) else {},
        lost if _lost_entries(lost) else {},
        frozenset(files) if isinstance(files := stamp.get("files"), dict) else frozenset(),
    )


def _renamed_entries(renamed: object) -> bool:
    return isinstance(renamed, dict) and all(
        isinstance(old, str) and old.isidentifier() and isinstance(new, str) for old, new in renamed.items()
    )


def _lost_entries(lost: object) -> bool:
    return isinstance(lost, dict) and all(
        isinstance(rel, str)
        and re.fullmatch(r"handlers/[A-Za-z_]\w*\.py", rel) is not None  # (a handler, nothing else)
        and isinstance(entry, list)
        and len(entry) in (2, 3)  # (the lost names, its tool's classes, and the classes new then)
        and all(isinstance(names, list) and all(isinstance(n, str) for n in names) for names in entry)
        for rel, entry in lost.items()
    )


def _recorded_warning(entry: object) -> bool:
    return (
        isinstance(entry, dict)
        and all(isinstance(entry.get(key), str) for key in ("file", "code", "message"))
        and all(type(entry.get(key)) is int and entry[key] > 0 for key in ("line", "col"))
        and isinstance(entry.get("hint"), str | None)
    )
