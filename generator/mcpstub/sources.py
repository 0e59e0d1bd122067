"""Sources: what `mcpstub diff` compares, from wherever it is, as a diff `Side`.

A source is a toolset file, a git revision of one (`REV:path`), a `surface.json`, a saved `tools/list`
answer, or a live server (a stdio command or a loopback `http(s)://` URL). A revision's YAML and JSON
files are materialised in a temporary folder, so the toolset's references resolve inside the same
revision. Every failure is a `SourceError`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from mcpstub.diagnostics import Diagnostic, Location, SourceError
from mcpstub.diff.model import Side
from mcpstub.diff.source import load_side
from mcpstub.document import Document, JsonPath
from mcpstub.keywords import closest
from mcpstub.load import load_document
from mcpstub.pointers import resolve, split
from mcpstub.policy import Policy

# The generation whose Tool objects a surface or a live server is compared by: schemas as written.
PROTOCOL = "2026-07-28"
GIT_TIMEOUT_SECONDS = 60


def _where(doc: Document, path: JsonPath) -> Location:
    return doc.key_loc(path) if path and isinstance(path[-1], str) else doc.loc(path)


def _pointer_path(data: Any, pointer: str, start: JsonPath) -> JsonPath:
    """A JSON pointer inside `data` as a document path, as far as the data goes."""
    return (*start, *resolve(data, split(pointer) or ())[2])


def _listing_kind(data: Any) -> str | None:
    """`surface`, `listing` (a saved tools/list answer) or None (a toolset, or something else)."""
    if isinstance(data, dict) and isinstance(data.get("protocols"), dict) and "serverInfo" in data:
        return "surface"
    if isinstance(data, list):
        return "listing"
    # (a toolset that lacks only `mcpstub: 1` is a toolset, and told so)
    toolset = isinstance(data, dict) and any(key in data for key in ("mcpstub", "server", "$defs"))
    if isinstance(data, dict) and not toolset and ("tools" in data or "jsonrpc" in data):
        return "listing"
    return None


def _tools_by_name(tools: Any, shown: str) -> dict[str, dict[str, Any]]:
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise SourceError(f"{shown}: no list of tool objects")
    result: dict[str, dict[str, Any]] = {}
    for tool in tools:
        name = tool.get("name")
        if not isinstance(name, str):
            raise SourceError(f"{shown}: a tool without a name")
        if name in result:
            raise SourceError(f"{shown}: tool {name!r} is listed twice")
        result[name] = tool
    return result


def surface_tools(text: str) -> dict[str, dict[str, Any]]:
    """The tools of a surface snapshot's text by name (ValueError when it is not one)."""
    import json  # noqa: PLC0415

    data = json.loads(text)
    if _listing_kind(data) != "surface":
        raise ValueError("not a surface snapshot")
    try:
        return _tools_by_name(data["protocols"][PROTOCOL]["tools"], "surface")
    except (KeyError, TypeError, SourceError) as exc:
        raise ValueError(str(exc)) from None


def side_from_surface(doc: Document, diagnostics: list[Diagnostic]) -> Side:
    """A loaded surface snapshot (or saved tools/list answer): its 2026-07-28 Tool objects, located."""
    shown = doc.file
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        raise SourceError(errors[0].format())
    data = doc.data
    version: str | None = None
    name: object = None
    base: JsonPath
    if _listing_kind(data) == "surface":
        base = ("protocols", PROTOCOL, "tools")
        info = data.get("serverInfo")
        version = info.get("version") if isinstance(info, dict) else None
        version = version if isinstance(version, str) and version else None
        name = info.get("name") if isinstance(info, dict) else None
        tools_data = (
            data["protocols"].get(PROTOCOL, {}).get("tools")
            if isinstance(data["protocols"].get(PROTOCOL), dict)
            else None
        )
    else:
        base = ()
        tools_data = data
        if isinstance(tools_data, dict) and "jsonrpc" in tools_data:
            base, tools_data = ("result",), tools_data.get("result")
        if isinstance(tools_data, dict) and "tools" in tools_data:
            base, tools_data = (*base, "tools"), tools_data["tools"]
    tools = _tools_by_name(tools_data, shown)
    index = {name: i for i, name in enumerate(tools)}

    snapshot = isinstance(data, dict) and "protocols" in data
    asked = _requested_schemas(data)

    def locate(tool: str, pointer: str) -> Location | None:
        parts = split(pointer) or ()
        if tool == "" and snapshot and parts[:1] == ("server",) and len(parts) == 2:
            return _where(doc, ("serverInfo", parts[1]))  # (server.name and .version, as recorded)
        if tool == "" or tool not in index:
            return None
        if snapshot and parts[:1] == ("elicitations",) and len(parts) > 1 and parts[1] in asked.get(tool, {}):
            # (a form is recorded apart from the Tool objects: under elicitations, by tool and key)
            form: JsonPath = ("elicitations", tool, parts[1], "requestedSchema")
            return _where(doc, (*form, *resolve(asked[tool][parts[1]], parts[2:])[2]))
        start: JsonPath = (*base, index[tool])
        return _where(doc, _pointer_path(tools[tool], pointer, start))

    named = name if isinstance(name, str) and name else None
    shows = {"shows_asking": snapshot, "shows_server": snapshot}
    return Side(version, tools, locate, asked, server_name=named, **shows)


def _requested_schemas(data: Any) -> dict[str, dict[str, Any]]:
    """The requested schemas a surface snapshot records, by tool and key (none in a listing)."""
    recorded = data.get("elicitations") if isinstance(data, dict) and "protocols" in data else None
    if not isinstance(recorded, dict):
        return {}
    return {
        tool: {
            key: entry["requestedSchema"]
            for key, entry in keys.items()
            if isinstance(entry, dict) and isinstance(entry.get("requestedSchema"), dict)
        }
        for tool, keys in recorded.items()
        if isinstance(keys, dict)
    }


def side_from_live(
    *,
    command: str | None = None,
    url: str | None = None,
    headers: dict[str, str] | None = None,
    timeout: float | None = None,
) -> Side:
    """A running server's tools as a 2026-07-28 client receives them (no file to locate in), within
    `timeout` seconds (None: the default of `server_listing.read_live`)."""
    from mcpstub.server_listing import LiveError, read_live  # noqa: PLC0415

    try:
        listing = read_live(command=command, url=url, headers=headers, timeout=timeout)
    except LiveError as exc:
        raise SourceError(str(exc)) from None
    version, name = listing.server_info.get("version"), listing.server_info.get("name")
    tools = _tools_by_name(listing.tools, listing.source)
    return Side(
        version if isinstance(version, str) and version else None,
        tools,
        shows_asking=False,
        server_name=name if isinstance(name, str) and name else None,
    )


class NotAtRevision(SourceError):
    """The revision exists, the file does not exist in it."""


def _git(args: list[str], cwd: Path, *, binary: bool = False) -> Any:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT_SECONDS, check=False
        )
    except FileNotFoundError:
        raise SourceError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise SourceError(f"git {' '.join(args)} did not finish in {GIT_TIMEOUT_SECONDS} s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceError(f"git {args[0]}: {message[-1] if message else 'failed'}")
    return done.stdout if binary else done.stdout.decode("utf-8", "replace").strip()


def _materialise(rev: str, names: list[str], root: Path, cwd: Path) -> None:
    """Write each file of the revision under `root` (one `git cat-file --batch` for all)."""
    request = "".join(f"{rev}:{name}\n" for name in names).encode("utf-8", "surrogateescape")
    try:
        done = subprocess.run(
            ["git", "cat-file", "--batch"], cwd=cwd, input=request, capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS, check=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError) as exc:
        raise SourceError(f"git cat-file: {exc}") from None
    data, at = done.stdout, 0
    for name in names:
        end = data.index(b"\n", at)
        header = data[at:end].split(b" ")
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            continue  # missing, or not a file
        size = int(header[2])
        target = root / name
        if root.resolve() not in target.resolve().parents:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data[at : at + size])
        at += size + 1


def _no_commit(rev: str, cwd: Path) -> str:
    """Why `rev` names no commit, said after it: the branch, tag or HEAD it likely misspells
    (`HAED~1` for `HEAD~1`), or that the clone is shallow."""
    import difflib  # noqa: PLC0415 - only for the message

    base = re.split(r"[~^@]", rev, maxsplit=1)[0]
    try:
        refs = _git(["for-each-ref", "--format=%(refname:short)"], cwd).splitlines()
    except SourceError:
        refs = []
    names = sorted({"HEAD", *refs})  # (in one order: the same hint every run)
    close = [n for n in names if n.lower() == base.lower()] or difflib.get_close_matches(base, names, 1, 0.6)
    if base and close and close[0] != base:
        return f"\n  hint: did you mean {close[0] + rev[len(base):]}?"
    return _shallow(cwd)


def _shallow(cwd: Path) -> str:
    """A hint where the repository is a shallow clone (a CI checkout's), which lacks older commits."""
    try:
        shallow = _git(["rev-parse", "--is-shallow-repository"], cwd) == "true"
    except SourceError:
        return ""
    if not shallow:
        return ""
    return (
        "\n  hint: this clone is shallow: fetch the history first (git fetch --unshallow, or"
        " fetch-depth: 0 in GitHub's actions/checkout)"
    )


def is_revision(spec: str, cwd: Path | None = None) -> bool:
    """True when `spec` reads as `REV:path` with REV a commit of the repository here (of the path,
    where it is absolute)."""
    rev, sep, path = spec.partition(":")
    if not sep or not rev or not path or "://" in spec:
        return False
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], _git_folder(path, cwd or Path.cwd()))
    except SourceError:
        return False
    return True


def _no_repository(path: str) -> str:
    """That no repository holds `REV:path`'s folder: the path's, where it is absolute (not named
    again: the spec is shown, with any password in it hidden)."""
    return "its folder is in no git repository" if os.path.isabs(path) else "no git repository here"


def _folder_gone(spec: str, path: str) -> str | None:
    """Why `REV:path` names nothing where `path` is absolute and its folder is not there."""
    if os.path.isabs(path) and not os.path.isdir(os.path.dirname(path)):
        return f"{spec}: no such file, and its folder is no folder on this machine"
    return None


def _git_folder(path: str, cwd: Path) -> Path:
    """Where git reads `REV:path`: the folder of an absolute path (its repository), else `cwd`."""
    folder = os.path.dirname(path)
    return Path(folder).resolve() if os.path.isabs(path) and os.path.isdir(folder) else cwd.resolve()


def side_from_git(spec: str, policy: Policy | None = None, cwd: Path | None = None) -> Side:
    """`REV:path` (git's meaning: from the repository root, or from here with `./`; an absolute path
    is the repository's file at that place on disk)."""
    rev, _, path = spec.partition(":")
    if not rev or rev.startswith("-"):  # git would read it as an option
        raise SourceError(f"{spec}: not a git revision (REV:path; REV cannot start with '-')")
    absolute = os.path.isabs(path)
    if (gone := _folder_gone(spec, path)) is not None:  # (read from no other folder)
        raise SourceError(gone)
    here = _git_folder(path, cwd or Path.cwd())
    try:
        top = Path(_git(["rev-parse", "--show-toplevel"], here)).resolve()
    except SourceError:
        raise SourceError(f"{spec}: {_no_repository(path)} to read {rev!r} from") from None
    if path.startswith(("./", "../")):
        relative = os.path.normpath(os.path.join(os.path.relpath(here, top), path))
    elif absolute:  # (a path on disk: the file of the repository there, if it is one,
        # its folder's links followed as on disk, its own name read as the revision holds it)
        name = os.path.basename(path)
        on_disk = Path(path).resolve() if name in ("", ".", "..") else here / name
        relative = os.path.relpath(on_disk, top)
    else:
        relative = os.path.normpath(path)
    if relative.startswith("..") or os.path.isabs(relative):
        raise SourceError(f"{spec}: the path leaves the repository")
    relative = Path(relative).as_posix()
    try:
        _git(["cat-file", "-e", f"{rev}:{relative}"], here)
    except SourceError:
        try:
            _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], here)  # REV itself is wrong
        except SourceError:
            said = f"{spec}: {rev!r} is no commit of this repository{_no_commit(rev, here)}"
            raise SourceError(said) from None
        said = f"{spec}: {relative} does not exist at {rev}"
        own = None if absolute else _folder_file(rev, path, here, top)
        if own is not None:  # (git reads REV:path from the root)
            mine = shlex.quote(f"{rev}:./{path}")
            said += f"\n  hint: this folder's is {mine} ({own}); a path after REV: starts at the root"
        elif near := _near_file(rev, relative, path, here, top):
            said += f"\n  hint: did you mean {shlex.quote(f'{rev}:{top / near if absolute else near}')}?"
        raise NotAtRevision(said) from None
    wanted = [n for n in _files_at(rev, here) if n == relative or n.endswith(_TOOLSET_SUFFIXES)]
    with tempfile.TemporaryDirectory(prefix="mcpstub-rev-") as tmp:
        root = Path(tmp)
        _materialise(rev, wanted, root, here)
        target = root / relative
        if not target.is_file():
            under = [n for n in wanted if n.startswith(f"{relative}/")]
            under = [n for n in under if "/" not in n[len(relative) + 1 :]] or under  # (its own first)
            meant = closest("tools.yaml", [n.rpartition("/")[2] for n in under]) if under else None
            shown = next((f" (a folder): did you mean {shlex.quote(f'{rev}:{top / n if absolute else n}')}?"
                          for n in under if meant is not None and n.endswith(f"/{meant}")), "")  # fmt: skip
            raise SourceError(f"{spec}: not a file in that revision{shown}")
        listing = _listing(target, spec)
        if listing is not None:
            return listing
        policy = policy or Policy()
        if policy.ref_root is not None:
            ref_root = Path(policy.ref_root).resolve()
            inside = ref_root == top or top in ref_root.parents
            policy = replace(policy, ref_root=root / ref_root.relative_to(top) if inside else None)
        try:
            side = load_side(str(target), shown=spec, policy=policy)
        except SourceError as exc:  # (its errors said: a revision is not to be fixed)
            said = f"{spec} is not a valid toolset as this mcpstub reads it"
            instead = "compare its package's surface.json, or another revision"
            if not policy.past:
                said, instead = f"{spec} is not a valid toolset", "a revision is mended by a commit"
            raise SourceError(f"{said}; {instead}", diagnostics=exc.diagnostics) from None

    def located(tool: str, pointer: str) -> Location | None:
        """Where it is written, a file the toolset refers to named in the revision too."""
        where = side.locate(tool, pointer)
        if where is None or where.file.startswith(f"{rev}:"):
            return where
        return replace(where, file=f"{rev}:{where.file}")

    return replace(side, locate=located)


def _listing(path: Path, shown: str) -> Side | None:
    """The side of a surface snapshot or saved tools/list answer; None for anything else (a toolset).
    Read as every toolset is (`load_document`); a `.json` file that cannot be read is refused here."""
    doc, diagnostics = load_document(path, shown)
    if _listing_kind(doc.data) is not None:
        return side_from_surface(doc, diagnostics)
    failed = next((d for d in diagnostics if d.is_error), None)
    if doc.data is None and failed is not None and path.suffix.lower() == ".json":
        where, why = failed.location, failed.message.removeprefix("invalid YAML: ")
        raise SourceError(
            f"{where.file}:{where.line}:{where.col}: not JSON ({why}), so neither a toolset, "
            "a surface snapshot nor a saved tools/list answer"
        )
    return None


def load_source(
    spec: str,
    policy: Policy | None = None,
    headers: dict[str, str] | None = None,
    timeout: float | None = None,
    other: str | None = None,
) -> Side:
    """Any source, told apart by its form: URL, file (snapshot, listing or toolset), or REV:path.
    `other`: the source it is compared with (a bare revision is told to name that file in it)."""
    from mcpstub.server_listing import is_url  # noqa: PLC0415

    if is_url(spec):  # any scheme: check_url refuses what is not http(s) on the loopback
        return side_from_live(url=spec, headers=headers, timeout=timeout)
    path = Path(spec)
    if path.is_file():
        listing = _listing(path, spec)
        return listing if listing is not None else load_side(spec, policy=policy)
    if is_revision(spec):
        return side_from_git(spec, policy)
    raise SourceError(_not_found(spec, other))


def root_relative_note(spec: str) -> str | None:
    """A note for `REV:path` run below the repository's root, where `path` (from the root, as git
    reads it) is not the file of that name here that the revision holds too (`REV:./path`)."""
    rev, _, path = spec.partition(":")
    if path.startswith(("./", "../", "/")) or not is_revision(spec):
        return None
    try:
        here = Path.cwd().resolve()
        top = Path(_git(["rev-parse", "--show-toplevel"], here)).resolve()
        _git(["cat-file", "-e", f"{rev}:{path}"], here)  # (else reading it says so, with the hint)
    except (SourceError, OSError):
        return None
    own = _folder_file(rev, path, here, top)
    if own is None:
        return None
    return (
        f"note: {spec} is {path} at the repository's root, as git reads it; "
        f"this folder's is {rev}:./{path} ({own})"
    )


def _files_at(rev: str, here: Path) -> list[str]:
    """The path of every file at `rev`, from the repository's root."""
    listed = _git(["ls-tree", "-r", "-z", "--full-tree", "--name-only", rev], here, binary=True)
    return [n for n in listed.decode("utf-8", "surrogateescape").split("\0") if n]


def _near_file(rev: str, relative: str, path: str, here: Path, top: Path) -> str | None:
    """The toolset file (YAML or JSON) at `rev` that `path` (`relative` from the root) likely means,
    as REV:path names it: one it misspells from the root, or from this folder (`./`), or the one file
    of its name in another folder."""
    try:
        files = [n for n in _files_at(rev, here) if n.endswith(_TOOLSET_SUFFIXES)]
    except SourceError:
        return None
    folder = here.relative_to(top).as_posix() if here != top and top in here.parents else None
    ours = [n.removeprefix(f"{folder}/") for n in files if folder and n.startswith(f"{folder}/")]
    if "/" not in path and (mine := closest(path, ours)) is not None:  # (a name alone: this folder's)
        return f"./{mine}"
    if (near := closest(relative, files)) is not None:
        return near
    name = relative.rpartition("/")[2]
    named = [n for n in files if n.rpartition("/")[2] == name]
    named = named or [n for n in files if closest(name, [n.rpartition("/")[2]]) is not None]
    return named[0] if len(named) == 1 else None


_TOOLSET_SUFFIXES = (".yaml", ".yml", ".json")


def _folder_file(rev: str, path: str, here: Path, top: Path) -> str | None:
    """`path` from the folder `here` below the repository's root `top`, where `rev` holds it."""
    try:
        if here == top or path.startswith(("./", "../", "/")):
            return None
        own = (here.relative_to(top) / path).as_posix()
        _git(["cat-file", "-e", f"{rev}:{own}"], here)
    except (SourceError, ValueError, OSError):
        return None
    return own


def _in_revision(other: str | None) -> str:
    """How to name in a revision the file `other` (the source compared with) is here, as git reads
    it from this folder: `./tools.yaml` where it is no file of this repository."""
    if other and is_revision(other):
        return other.partition(":")[2]  # (`diff HEAD v1:api.yaml`: the same path)
    with contextlib.suppress(OSError, SourceError, ValueError):  # (a name too long; no repository)
        if other and Path(other).is_file():
            top = Path(_git(["rev-parse", "--show-toplevel"], Path.cwd())).resolve()
            Path(other).resolve().relative_to(top)  # (ValueError: outside the repository)
            name = os.path.relpath(Path(other).resolve(), Path.cwd().resolve())
            name = Path(name).as_posix()
            return name if name.startswith("../") else f"./{name}"
    return "./tools.yaml"


def _not_found(spec: str, other: str | None = None) -> str:
    """Why `spec` names no source: no such file, and as `REV:path` no repository or revision."""
    if Path(spec).is_dir():
        return f"{spec}: a folder, not a toolset file (name the toolset in it: {Path(spec, 'tools.yaml')})"
    rev, sep, path = spec.partition(":")
    if not sep and spec and not spec.startswith("-") and is_revision(f"{spec}:."):
        named = _in_revision(other)
        return f"{spec}: a git revision, not a file: name the toolset in it, e.g. {spec}:{named}"
    if not sep or not rev or not path or (len(rev) == 1 and path[0] in "\\/"):  # (`C:\\x`: a path)
        return f"{spec}: no such file (nor a git revision REV:path or an http(s) URL)"
    if re.match(r"[0-9]+(?:/|$)", path):  # `localhost:8000/mcp`
        return f"{spec}: no such file; a server's URL starts with http:// or https://"
    if (gone := _folder_gone(spec, path)) is not None:
        return gone
    folder = _git_folder(path, Path.cwd())
    try:
        _git(["rev-parse", "--show-toplevel"], folder)
    except SourceError:
        return f"{spec}: no such file, and {_no_repository(path)} to read {rev!r} from"
    return f"{spec}: no such file, and {rev!r} is no commit of this repository{_no_commit(rev, folder)}"

