"""Options: what a command works on, from its flags and `[tool.mcpstub]` in the nearest pyproject.toml.

Flags win over the file. `resolve` finds the toolset and the output folder, `check_out` refuses an
output folder that cannot be a package, `cache_dir` says where model results are kept, and
`diff_options` reads `[tool.mcpstub.diff]`. A mistake in any of them is a `UsageError` (exit 2).
"""

from __future__ import annotations

import argparse
import json
import keyword
import os
import re
import sys
import tomllib
import unicodedata
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from mcpstub.containment import broken_link
from mcpstub.policy import Policy
from mcpstub.tomlplace import toml_place

if TYPE_CHECKING:
    from mcpstub.diff.model import DiffOptions

# Top-level modules a generated package imports, directly or through its dependencies (mcp,
# pydantic, jsonschema-rs and theirs; pytest and hypothesis for the contract tests; mcpstub): a
# package of that name would shadow them. The standard library's names come from
# `sys.stdlib_module_names`. tests/unit/test_cli.py checks this list against the installed set.
RUNTIME_MODULES = frozenset(
    {
        "annotated_types", "anyio", "attr", "attrs", "click", "dotenv", "exceptiongroup", "h11",
        "httpcore", "httpcore2", "httpx", "httpx2", "httpx_sse", "hypothesis", "hypothesis_jsonschema",
        "idna", "jsonschema", "jsonschema_rs", "jsonschema_specifications", "jwt", "mcp", "mcp_types",
        "mcpstub", "mcpstub_runtime", "multipart", "opentelemetry", "pydantic", "pydantic_core",
        "pydantic_settings", "pytest", "python_multipart", "pywintypes", "referencing", "rpds", "sniffio",
        "sse_starlette", "starlette", "truststore", "typing_extensions", "typing_inspection", "uvicorn",
        "win32",
    }
)  # fmt: skip


class UsageError(Exception):
    """A problem with how mcpstub was called (exit 2)."""


class ToolsetMissing(UsageError):
    """The toolset file named (or the default) is not there; `path` is where it was looked for."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def project_config(start: Path) -> tuple[dict[str, Any], Path, int]:
    """`[tool.mcpstub]` from the nearest pyproject.toml, the folder it is in, and how many warnings
    it said on the way (a broken link named pyproject.toml)."""
    warned = 0
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if why := broken_link(candidate):  # (its options are not read: said, not lost unseen)
            said = f"{shown_path(candidate)}: {why}; its options are not read"
            print(f"mcpstub: warning: {said}", file=sys.stderr)
            warned += 1
        if candidate.is_file():
            text, raw = "", b""
            try:
                raw = candidate.read_bytes()
                text = raw.decode("utf-8")
                data = tomllib.loads(text)
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                from mcpstub.yamlread import _decode, _LoadFailed  # noqa: PLC0415 - only for the message

                try:  # (bytes that are no UTF-8 text are said as a toolset's are: UTF-16, a byte)
                    _decode(shown_path(candidate), raw)
                except _LoadFailed as failed:
                    where = failed.diagnostic.location
                    message = f"{failed.diagnostic.message}\n  hint: {failed.diagnostic.hint}"
                    raise UsageError(f"{where.file}:{where.line}:{where.col}: {message}") from None
                if text.startswith("\ufeff"):  # (which a toolset may start with, and TOML readers refuse)
                    said = "invalid TOML: it starts with a byte order mark (U+FEFF), which TOML refuses"
                    hint = "save the file as UTF-8 without a byte order mark"
                    raise UsageError(f"{shown_path(candidate)}:1:1: {said}\n  hint: {hint}") from None
                raise _invalid_toml(candidate, text, str(exc)) from None
            except ValueError:  # (tomllib's own: an integer Python will not read, past 4,300 digits)
                at = re.search(r"[0-9][0-9_]{4300,}", text)
                line = text.count("\n", 0, at.start()) + 1 if at else 1
                column = at.start() - text.rfind("\n", 0, at.start()) if at else 1
                said = f"an integer of more than 4,300 digits (at line {line}, column {column})"
                raise _invalid_toml(candidate, text, said) from None
            except RecursionError:
                raise _invalid_toml(candidate, text, "it nests too deeply to be read") from None
            tool = data.get("tool", {})
            section = tool.get("mcpstub", {}) if isinstance(tool, dict) else None
            _misnamed_table(candidate, data)
            if not isinstance(section, dict):
                table = ("tool", "mcpstub") if isinstance(tool, dict) else ("tool",)
                raise config_error(candidate, (), f"[{'.'.join(table)}] must be a table", table=table)
            known = {"toolset", "out", "emit_tests", "client_only", "diff", "cache_dir", *_POLICY_KEYS}
            problems: list[UsageError] = []  # every one at once, as a toolset's are
            unknown = [key for key in section if key not in known]  # (said at the first written)
            if unknown:
                from mcpstub.errortext import unknown_keys  # noqa: PLC0415 - only for the message

                said = unknown_keys(unknown, sorted(known))
                problems.append(
                    config_error(candidate, (unknown[0],), f"unknown key(s) in [tool.mcpstub]: {said}", True)
                )
            for key, kind, what in _TYPES:
                if key in section and not isinstance(section[key], kind):
                    problems.append(config_error(candidate, (key,), f"[tool.mcpstub] {key} must be {what}"))
            vendor = section.get("vendor_keywords", [])
            listed = isinstance(vendor, list)
            wrong = [i for i, v in enumerate(vendor) if not isinstance(v, str)] if listed else []
            if wrong or not listed:  # at the item, where the list is one
                what = "[tool.mcpstub] vendor_keywords must be a list of strings"
                problems.append(config_error(candidate, ("vendor_keywords", *wrong[:1]), what))
            if problems:  # (with those of [tool.mcpstub.diff], which a run reads too, in line order)
                problems.extend(_diff_table_problems(candidate, section))
                raise UsageError("\n".join(sorted(map(str, problems), key=_place)))
            return section, folder, warned
    return {}, start, warned


_TOOL = ("tool", "mcpstub")
_POLICY_KEYS = ("vendor_keywords", "ref_root")
# What each plain key of [tool.mcpstub] holds (`emit_tests = "false"` would be true in Python).
_TYPES = (
    ("toolset", str, "a string (a path)"),
    ("out", str, "a string (a path)"),
    ("cache_dir", str, "a string (a path)"),
    ("ref_root", str, "a string (a folder)"),
    ("emit_tests", bool, "true or false"),
    ("client_only", bool, "true or false"),
)


def _misnamed_table(file: Path, data: dict[str, Any]) -> None:
    """Refuse a table whose name is a slip of `[tool.mcpstub]` (`[tools.mcpstub]`, `[tool.mcpstb]`,
    `[tool.MCPStub]`, `[mcpstub]`): its settings would be left unread without a word."""
    import difflib  # noqa: PLC0415 - only for the message

    def slips(names: Any, meant: str) -> list[str]:
        names = [str(n) for n in names if str(n) != meant]
        return [n for n in names if n.lower() == meant] + difflib.get_close_matches(meant, names, 1, 0.85)

    tool = data.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    found: list[tuple[str, ...]] = [("mcpstub",)] if isinstance(data.get("mcpstub"), dict) else []
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    found += [(k, "mcpstub") for k in slips(tables, "tool") if "mcpstub" in tables[k]]
    if "mcpstub" not in tool:
        found += [("tool", k) for k in slips(tool, "mcpstub")]
    if found:
        place = toml_place(file.read_text("utf-8"), found[0])
        said = f"[{'.'.join(found[0])}] is not read: did you mean [tool.mcpstub]?"
        raise UsageError(f"{shown_path(file)}:{place[0]}:{place[1]}: {said}")


def _invalid_toml(file: Path, text: str, said: str) -> UsageError:
    """tomllib's complaint, at its line and column as every other mistake is said."""
    placed = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", said)
    if placed is not None:
        hint = ""
        if placed[1] == "Invalid value":  # (a text left unquoted, a YAML boolean)
            lines = text.split("\n")  # (TOML's lines: not at U+2028 or NEL, as str.splitlines has them)
            line = lines[int(placed[2]) - 1] if int(placed[2]) <= len(lines) else ""
            before, rest = line[: int(placed[3]) - 1], line[int(placed[3]) - 1 :]
            # (a key's whole value to the end of its line; one in a list or a table to the next `,`)
            inside = "[" in before or "{" in before or not before.rstrip().endswith("=")  # (a list's line)
            word = re.match(r"[^,\]}#]*" if inside else r"[^#]*", rest)
            written = word[0].strip() if word else ""
            if written.lower() in ("yes", "no", "on", "off", "true", "false"):
                hint = f": TOML's booleans are true and false, not {written}"
            elif written and written[0] not in "\"'[{":
                hint = f": a text is quoted in TOML: {json.dumps(written, ensure_ascii=False)}"
        return UsageError(f"{shown_path(file)}:{placed[2]}:{placed[3]}: invalid TOML: {placed[1]}{hint}")
    if said.endswith(" (at end of document)"):
        lines, said = text.split("\n"), said.removesuffix(" (at end of document)")
        return UsageError(f"{shown_path(file)}:{len(lines)}:{len(lines[-1]) + 1}: invalid TOML: {said}")
    return UsageError(f"{shown_path(file)}: invalid TOML: {said}")


def config_error(
    file: Path,
    keys: tuple[str | int, ...],
    message: str,
    at_key: bool = False,
    table: tuple[str, ...] = _TOOL,
) -> UsageError:
    """`message` about `[tool.mcpstub]` (`table`; `keys` within it) at the line and column of `file`
    where its value is written (`at_key`: its key; else the nearest table or key holding it)."""
    try:
        line, column = toml_place(file.read_text("utf-8"), (*table, *keys), value_at=not at_key)
    except (OSError, UnicodeDecodeError):
        line, column = 1, 1
    return UsageError(f"{shown_path(file)}:{line}:{column}: {message}")


def option_files() -> list[Path]:
    """The pyproject.toml whose options a run takes (`project_config`: the nearest from the current folder
    up), and those nearer, which would be taken if they were created."""
    files = []
    for folder in (start := Path.cwd(), *start.parents):
        files.append(folder / "pyproject.toml")
        if files[-1].is_file():
            break
    return files


def project_policy(config: dict[str, Any], root: Path) -> Policy:
    """The check's settings from `[tool.mcpstub]`: vendor keywords and the ref root."""
    vendor = config.get("vendor_keywords", [])
    ref_root = config.get("ref_root")
    return Policy(frozenset(vendor), (root / ref_root).resolve() if ref_root is not None else None)


def shown_path(path: Path) -> str:
    """A path as the user would write it: relative to the working folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except (ValueError, OSError):  # (another drive; the working folder deleted)
        return str(path)
    return _without_detours(path) if relative.startswith("..") else relative


def _without_detours(path: Path) -> str:
    """`path` with `sub/..` taken out where that names the same file (not past a symbolic link)."""
    plain = os.path.normpath(path)
    return plain if os.path.realpath(plain) == os.path.realpath(path) else str(path)


def resolve(args: argparse.Namespace, need_out: bool) -> tuple[Path, Path | None, dict[str, Any]]:
    """The toolset, the output folder (when `need_out`) and `[tool.mcpstub]` with its `policy` and
    the folder of the pyproject.toml it is in (`root`: where its paths start, where it is said), and
    how many warnings finding it said (`warned`)."""
    config, root, warned = project_config(Path.cwd())
    config = {**config, "policy": project_policy(config, root), "root": root, "warned": warned}
    toolset = Path(args.toolset) if args.toolset else None
    if toolset is None and "toolset" in config:
        toolset = root / str(config["toolset"])
        here, below = Path("tools.yaml"), root.resolve() != Path.cwd().resolve()
        if below and not getattr(args, "noted", False) and here.is_file() and not same_file(here, toolset):
            # (a second project started in a folder below the first; said once a command, though
            # `--watch` resolves the toolset again on every save)
            args.noted = True
            print(
                f"mcpstub: note: the toolset is {shown_path(toolset)}, named in "
                f"{shown_path(root / 'pyproject.toml')}, not the tools.yaml in this folder: name that "
                "one to use it",
                file=sys.stderr,
            )
    if toolset is None:  # this folder's tools.yaml, else the project's (run from a folder below)
        toolset = Path("tools.yaml")
        if not os.path.lexists(toolset) and (owner := configured_toolset(config, root)) is not None:
            toolset = owner
    out: Path | None = None
    if need_out:
        if getattr(args, "out", None):
            out = Path(args.out)
        elif "out" in config:
            out = root / str(config["out"])
        else:
            raise UsageError("no output folder: pass --out DIR or set `out` in [tool.mcpstub]")
    try:
        found = toolset.is_file()
    except OSError as exc:  # (a name longer than the system allows)
        raise UsageError(f"toolset file cannot be read: {shown_path(toolset)}: {exc.strerror}") from None
    if not found and toolset.is_dir():
        inside = shown_path(toolset / "tools.yaml")
        raise UsageError(f"{shown_path(toolset)} is a folder: name the toolset file in it ({inside})")
    if not found:
        from mcpstub.errortext import close_file  # noqa: PLC0415 - only for the message

        said = f"toolset file not found: {shown_path(toolset)}"
        if why := broken_link(toolset):
            said += f" ({why})"
        elif not (args.toolset or "toolset" in config):
            said += (
                " (the default: name a toolset file, or set `toolset` in [tool.mcpstub];"
                " `mcpstub init` writes one)"
            )
        elif not args.toolset:  # from [tool.mcpstub]: said where it is written
            said = str(config_error(root / "pyproject.toml", ("toolset",), said))
        configured = not args.toolset and "toolset" in config  # as written there, from its folder
        written = str(config["toolset"]) if configured else str(toolset)
        close = close_file(root if configured else Path(), written)
        raise ToolsetMissing(f"{said}\n  hint: {close}" if close else said, toolset)
    if out is not None and not getattr(args, "out", None):
        owner = configured_toolset(config, root)
        if owner is not None and not same_file(owner, toolset):
            raise UsageError(
                f"{shown_path(toolset)} is not the toolset of {shown_path(root / 'pyproject.toml')} "
                f"({shown_path(owner)}), whose out ({shown_path(out)}) this run would write\n"
                "  hint: give this toolset's package a folder of its own: --out DIR"
            )
    return toolset, out, config


def configured_toolset(config: dict[str, Any], root: Path) -> Path | None:
    """The toolset a `[tool.mcpstub]` is for, whose package its `out` is: its `toolset` (there or
    not yet), else a tools.yaml beside its pyproject.toml; None when it names none and there is
    no such file (any toolset may use `out`)."""
    if "toolset" in config:
        return root / str(config["toolset"])
    owner = root / "tools.yaml"
    return owner if is_file(owner) else None


def is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # (a name longer than the system allows)
        return False


def same_file(a: Path, b: Path) -> bool:
    """Whether `a` and `b` are one file (False where either is not there)."""
    try:
        return a.samefile(b)
    except OSError:
        return False


def check_out(out: Path, configured: tuple[Path, str] | None = None) -> None:
    """Refuse an output folder that cannot be a package of its own: the name is its import name.
    `configured`: the pyproject.toml whose `out` names it, and the value written (said there)."""
    name = Path(os.path.abspath(out)).name  # `--out .` names the current folder
    suggestion = re.sub(r"\W+", "_", unicodedata.normalize("NFKC", name)).strip("_").lower() or "my_tools"
    if not suggestion.isidentifier() or keyword.iskeyword(suggestion):
        suggestion = f"{suggestion}_tools" if suggestion.isidentifier() else "my_tools"

    def refused(problem: str, advice: str = "", instead: str = "") -> UsageError:
        if configured is None and not advice:
            return UsageError(f"--out {shown_path(out)}: {problem}")
        if configured is None:
            return UsageError(f"{problem}\n  hint: {advice}, e.g. --out {shown_path(out.parent / instead)}")
        meant = PurePosixPath(configured[1].replace(os.sep, "/")).parent / instead
        hint = f"\n  hint: {advice}, e.g. out = {json.dumps(str(meant))}" if advice else ""
        return config_error(configured[0], ("out",), f"out = {json.dumps(configured[1])}: {problem}{hint}")

    if not name.isidentifier() or keyword.iskeyword(name) or unicodedata.normalize("NFKC", name) != name:
        raise refused(
            f"output folder name {name!r} is not a valid Python package name (it is the import name)",
            "use letters, digits and underscores",
            suggestion,
        )
    subpackage = (Path(os.path.abspath(out)).parent / "__init__.py").is_file()  # (imported as acme.mcp)
    if (name in sys.stdlib_module_names or name in RUNTIME_MODULES) and not subpackage:
        what = "the standard library's" if name in sys.stdlib_module_names else "a dependency's"
        raise refused(
            f"output folder name {name!r} would shadow {what} module {name!r} when imported",
            "pick a name of your own",
            name + "_tools",
        )
    for folder in (out, *out.parents):
        if folder.exists() or folder.is_symlink():
            if not folder.is_dir():
                raise refused(f"{shown_path(folder)} exists and is not a folder")
            break


def cache_dir(args: argparse.Namespace, config: dict[str, Any], out: Path) -> Path | None:
    """Where model generation results are kept: MCPSTUB_CACHE_DIR, `cache_dir`, or the user cache;
    never in the package written to `out`."""
    if args.no_cache:
        return None
    folder, said = cache_folder(config)
    try:
        inside, package = folder.resolve(), out.resolve()
    except (OSError, RuntimeError):  # a loop of symbolic links: no folder, so a cache never used
        return folder
    if inside == package or package in inside.parents:
        raise UsageError(
            f"the cache folder {shown_path(folder)} ({said}) is inside the output folder {shown_path(out)}\n"
            "  hint: keep the cache out of the package (it is not generated code): point it elsewhere,"
            " or pass --no-cache"
        )
    return folder


def cache_folder(config: dict[str, Any]) -> tuple[Path, str]:
    """mcpstub's cache folder (MCPSTUB_CACHE_DIR, `cache_dir` in [tool.mcpstub], or the user cache
    folder), and which of them it is."""
    if os.environ.get("MCPSTUB_CACHE_DIR"):
        return Path(os.environ["MCPSTUB_CACHE_DIR"]), "MCPSTUB_CACHE_DIR"
    if "cache_dir" in config:
        return config["root"] / str(config["cache_dir"]), "cache_dir in [tool.mcpstub]"
    from mcpstub.engine.store import default_cache_dir  # noqa: PLC0415

    return default_cache_dir(), "the user cache folder"


def diff_options(config: dict[str, Any], root: Path) -> tuple[DiffOptions, str | None]:
    """`[tool.mcpstub.diff]` of the pyproject.toml in `root` (`config`: its [tool.mcpstub]), the
    search keeping hypothesis's files in mcpstub's cache folder."""
    from dataclasses import replace  # noqa: PLC0415

    from mcpstub.diff.command import ConfigProblem, options_from_config  # noqa: PLC0415

    try:
        options, fail_on = options_from_config(config.get("diff"))
        kept = cache_folder({"root": root, **config})[0] / "hypothesis"
        return replace(options, search_cache=kept), fail_on
    except ConfigProblem:  # (every one at once, as [tool.mcpstub]'s are)
        said = _diff_table_problems(root / "pyproject.toml", config)
        raise UsageError("\n".join(sorted(map(str, said), key=_place))) from None


def _diff_table_problems(file: Path, config: dict[str, Any]) -> list[UsageError]:
    """The mistakes in `[tool.mcpstub.diff]` (of `config`, the [tool.mcpstub] of `file`), each
    where it is written."""
    from mcpstub.diff.command import ConfigProblem, options_from_config  # noqa: PLC0415

    try:
        options_from_config(config.get("diff"))
    except ConfigProblem as exc:
        return [config_error(file, ("diff", *keys), said, at_key) for keys, said, at_key in exc.problems]
    return []


def _place(said: str) -> tuple[int, int]:
    """The line and column a `file:line:col: ...` message names, to say several in file order."""
    placed = re.search(r":(\d+):(\d+): ", said)
    return (int(placed[1]), int(placed[2])) if placed else (0, 0)
