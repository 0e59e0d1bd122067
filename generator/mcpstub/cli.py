"""The `mcpstub` command line: generate, validate, init.

Takes argv, returns an exit code: 0 success, 1 invalid toolset or stale output, 2 usage error.
Defaults come from `[tool.mcpstub]` in the nearest `pyproject.toml`; flags win over the file.
A user mistake is reported as diagnostics, never as a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import os
import re
import shlex
import signal
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from mcpstub import __version__
from mcpstub.diagnostics import Diagnostic, Location, SourceError, has_errors
from mcpstub.handlerfiles import (
    lost_models,
    renamed_handlers,
    say_handlers,
    say_lost_models,
    say_unfit_handlers,
)
from mcpstub.layout import CONTRACT_TESTS, SERVER_FILES, STAMP_FILE, STOPPING_SIGNALS, UNSAFE_IN_COMMENT
from mcpstub.options import (
    ToolsetMissing,
    UsageError,
    cache_dir,
    check_out,
    configured_toolset,
    diff_options,
    option_files,
    project_config,
    project_policy,
    resolve,
    same_file,
    shown_path,
)
from mcpstub.resources import resource_path

if TYPE_CHECKING:
    from mcpstub.engine.ahead import Ahead
    from mcpstub.engine.model_groups import ModelFeed
    from mcpstub.write import Plan

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
EXIT_OUTPUT_LOST = 120  # what an interpreter exits with when it cannot flush its output

# True once `run()` runs the command: the process ends with it (`leave()`).
_LEAVING = [False]


def _counted(number: int, noun: str) -> str:
    """`1 tool`, `2 tools`."""
    return f"{number} {noun}{'s' * (number != 1)}"


def _report(diagnostics: list[Diagnostic], *, counted: bool = True) -> None:
    """The diagnostics, then (`counted`) how many errors and warnings they are."""
    for d in diagnostics:
        print(d.format(), file=sys.stderr)
    if counted:
        _count(diagnostics)


def _count(diagnostics: list[Diagnostic], said: Counter[str] | None = None) -> None:
    """How many errors and warnings were said: `diagnostics`, and those `said` beside them (of
    `--check-breaking`, and of the package's own files: a handler orphaned, a file in the way)."""
    said = said or Counter()
    failed = sum(d.is_error for d in diagnostics)
    errors, warnings = failed + said["error"], len(diagnostics) - failed + said["warning"]
    if errors or warnings:
        print(f"{_counted(errors, 'error')}, {_counted(warnings, 'warning')}", file=sys.stderr)


def cmd_validate(args: argparse.Namespace) -> int:
    """Check a toolset and print a summary."""
    from mcpstub.pipeline import check_toolset  # noqa: PLC0415

    path, _, config = resolve(args, need_out=False)
    diff_options(config, config["root"])  # what `diff` and --check-breaking read is checked too
    checked = check_toolset(path, shown_path(path), config["policy"])
    _report(checked.diagnostics, counted=False)
    _count(checked.diagnostics, Counter(warning=config["warned"]))  # (the project's warnings too)
    if not checked.ok or checked.toolset is None:
        return EXIT_INVALID
    if args.fail_on == "warning" and (checked.diagnostics or config["warned"]):
        print(f"{shown_path(path)}: not ok: warnings fail the check (--fail-on warning)", file=sys.stderr)
        return EXIT_INVALID
    toolset = checked.toolset
    structured = sum(t.output_schema is not None for t in toolset.tools)
    # The definitions the toolset writes, and those of other files its references reach.
    written = checked.document.data.get("$defs") if checked.document is not None else None
    shared = len(toolset.shared_defs)
    elsewhere = shared - (len(written) if isinstance(written, dict) else 0)
    print(
        f"{shown_path(path)}: ok: server {toolset.server_name!r}, {_counted(len(toolset.tools), 'tool')} "
        f"({structured} with an output schema), {_counted(shared, 'shared definition')}"
        + (f" ({elsewhere} from other files)" if elsewhere else "")
    )
    for tool in toolset.tools:
        kind = "structured" if tool.output_schema is not None else "content"
        print(f"  {tool.name:<32} {kind:<10} {tool.input_class}")
    return EXIT_OK


def _from_repository_root(out: Path) -> str:
    """`out` as a path from the root of the git repository holding it (else from here), posix."""
    absolute = Path(os.path.abspath(out))
    for folder in absolute.parents:
        if (folder / ".git").exists():
            return absolute.relative_to(folder).as_posix()
    return Path(os.path.relpath(absolute)).as_posix()


def _package_kind(args: argparse.Namespace, config: dict[str, Any]) -> tuple[bool, bool]:
    """Whether to write the contract tests, and a client-only package: a flag wins over its key,
    and `--client-only` over `emit_tests` too (a client for another server, in a project)."""
    client_only = bool(config.get("client_only", False) if args.client_only is None else args.client_only)
    emit_tests = config.get("emit_tests", False) and not args.client_only
    return bool(emit_tests if args.emit_tests is None else args.emit_tests), client_only


def _fix_command(args: argparse.Namespace) -> str:
    """The `mcpstub generate` line that brings the output up to date, as the user called it."""
    words = ["mcpstub", "generate"]
    if args.toolset:
        words.append(args.toolset)
    if args.out:
        words += ["--out", args.out]
    for flag, given in (("--emit-tests", args.emit_tests), ("--client-only", args.client_only)):
        if given is not None:
            words.append(flag if given else f"--no-{flag[2:]}")
    return shlex.join(words)


def cmd_generate(args: argparse.Namespace) -> int:
    """Generate the package, or check that it is up to date; with --watch, on every change."""
    if not args.watch:
        return _generate(args)
    if args.check or args.diff:
        raise UsageError("--watch writes the package; it cannot be combined with --check or --diff")
    from mcpstub.watch import watch  # noqa: PLC0415

    path, _, config = resolve(args, need_out=True)
    if not args.toolset and "toolset" not in config and path != Path("tools.yaml"):
        args.toolset = str(path)  # the project's, from a folder below: the session's, whatever is made here
    args.force = True  # the watcher saw a change: skip the unchanged-toolset shortcut
    watched: dict[str, list[Path]] = {"files": [path]}

    from mcpstub.engine.model_groups import session_feed  # noqa: PLC0415
    from mcpstub.engine.session import Session, running  # noqa: PLC0415

    # What the runs keep between saves: models of unchanged groups, the last read, each tool's
    # text in surface.json, what was written, and warm model workers.
    session = Session()

    def run() -> None:
        try:
            with running(session), _collector_paused():
                _generate(args, watched, session_feed(session))
        except UsageError as exc:
            _say_usage(str(exc))
            if isinstance(exc, ToolsetMissing):  # (the options name a toolset not made yet)
                watched["files"] = [exc.path, *option_files()]
        except Exception as exc:  # a bug must not end the session: report it and wait for the next save
            print(f"mcpstub: internal error: {exc!r}", file=sys.stderr)
        sys.stdout.flush()

    try:
        return watch(run, lambda: watched["files"], shown=shown_path)
    finally:
        # The session is ending: a second Ctrl-C does not cut the cache entries it writes short.
        for name in STOPPING_SIGNALS:
            with contextlib.suppress(AttributeError, ValueError):  # (no such signal; not the main thread)
                signal.signal(getattr(signal, name), signal.SIG_IGN)
        session.close()


@contextmanager
def _collector_paused(*, to_the_exit: bool = False) -> Iterator[None]:
    """Pause Python's cycle collector for a command, or for one run of a `--watch` session.

    Reading, checking, rendering and writing build millions of objects that hold no cycles, which
    the collector would walk again and again (a fifth of a one-tool edit at 500 tools). Under
    `run()` the process ends with the command, and the collector stays off: its first pass once on
    would walk all of them (a quarter of a second at 500 tools) just before the exit
    (`to_the_exit`). What model generation leaves behind in this process is collected once it is
    back on (a session's wait).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled and not to_the_exit:
            gc.enable()


class Stopped(KeyboardInterrupt):
    """A signal that ends a process (SIGTERM, SIGHUP) stopped the run: it cleans up as after Ctrl-C."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def _raise_stopped(number: int, _frame: object) -> None:
    raise Stopped(number)


@contextmanager
def _stoppable() -> Iterator[None]:
    """SIGTERM and SIGHUP (unless ignored, as under nohup) stop a run as Ctrl-C does, so that what
    it staged beside the package is removed."""
    before: dict[int, Any] = {}
    try:
        for name in STOPPING_SIGNALS:
            number = getattr(signal, name, None)
            if name != "SIGINT" and number is not None and signal.getsignal(number) is not signal.SIG_IGN:
                before[number] = signal.signal(number, _raise_stopped)
    except ValueError:  # not the main thread: the signals keep their handlers
        pass
    try:
        yield
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)


def _generate(
    args: argparse.Namespace, watched: dict[str, list[Path]] | None = None, feed: ModelFeed | None = None
) -> int:
    from mcpstub.engine.stamp import is_current, replayed_warning  # noqa: PLC0415

    path, out, config = resolve(args, need_out=True)
    assert out is not None
    # errors and warnings said beside the toolset's (the count ends them)
    said: Counter[str] = Counter(warning=config["warned"])
    configured = None if args.out else (config["root"] / "pyproject.toml", str(config["out"]))
    check_out(out, configured)
    if args.check_breaking:
        from mcpstub.diff.breaking import check_breaking  # noqa: PLC0415

        options, _ = diff_options(config, config["root"])
        if cache_dir(args, config, out) is None:  # (refused inside the package before the search writes)
            options = replace(options, search_cache=None)  # (--no-cache: a folder for this run only)
        try:
            stop, warned = check_breaking(
                args.check_breaking, path, shown_path(path), config, options, allow=args.allow_breaking
            )
        except SourceError as exc:
            raise UsageError(f"--check-breaking: {exc}") from None
        said["warning"] += warned
        if stop is not None:
            return stop
    elif "diff" in config:  # a mistake in [tool.mcpstub.diff] is said now, not at the first diff
        diff_options(config, config["root"])
    emit_tests, client_only = _package_kind(args, config)
    if emit_tests and client_only:
        raise UsageError(
            "the contract tests (--emit-tests, emit_tests) call the package's own server, and a "
            "client-only package (--client-only, client_only) has none: choose one (--no-emit-tests"
            " and --no-client-only turn a key off for one run)"
        )
    if not (args.check or args.diff or args.force or args.no_cache):  # (a cold run reuses nothing)
        policy = config["policy"].fingerprint(path.resolve().parent)
        current = is_current(path, out, emit_tests=emit_tests, policy=policy, client_only=client_only)
        if current is not None:
            said["warning"] += say_lost_models(out, current.lost_models, current=True)
            said["warning"] += say_unfit_handlers(out, current.stubs)
            said["warning"] += say_handlers(out, client_only, current.orphans, current.renamed, current.stubs)
            replayed = [replayed_warning(shown_path(path), entry) for entry in current.warnings]
            _report(replayed, counted=False)
            print(f"{shown_path(out)}: up to date (toolset unchanged since the last run)")
            _count(replayed, said)
            return EXIT_OK
    from mcpstub.engine.model_groups import standby_models  # noqa: PLC0415

    # The workers that import the model generator start before this process imports what it
    # needs to read, check and render (a tenth of a second): their imports end that much sooner.
    standby = feed if feed is not None else standby_models()
    from mcpstub.engine.run import generating  # noqa: PLC0415
    from mcpstub.write import Staging  # noqa: PLC0415

    # The run stays open until the package is written: then it keeps what the next run reuses.
    staging = None if args.check or args.diff else Staging(out)
    with _stoppable(), generating(cache_dir(args, config, out), path, standby, staging):
        return _generate_in_run(args, path, out, config, (emit_tests, client_only), watched, said)


def _generate_in_run(
    args: argparse.Namespace,
    path: Path,
    out: Path,
    config: dict[str, Any],
    kind: tuple[bool, bool],
    watched: dict[str, list[Path]] | None,
    said: Counter[str],
) -> int:
    """`kind`: whether the package has the contract tests, and whether it is client-only."""
    from mcpstub.engine.stamp import Recorded, recorded, recorded_warning, stamp_text  # noqa: PLC0415
    from mcpstub.format import GeneratedCodeError  # noqa: PLC0415
    from mcpstub.pipeline import generate  # noqa: PLC0415
    from mcpstub.write import locked  # noqa: PLC0415

    emit_tests, client_only = kind
    try:
        generated = generate(
            path, shown_path(path), emit_tests=emit_tests, client_only=client_only, policy=config["policy"]
        )
    except GeneratedCodeError as exc:
        print(f"mcpstub: internal error: {exc}", file=sys.stderr)
        print("  this is a bug in mcpstub, not in your toolset; please report it", file=sys.stderr)
        return EXIT_INVALID
    _report(generated.diagnostics, counted=False)
    if watched is not None:
        # What this run read or looked for, a missing file included (a reference made before its
        # file), and the project's options: a save of any of them runs again.
        watched["files"] = [*(generated.sources or (path,)), *option_files()]
    if has_errors(generated.diagnostics) or generated.toolset is None:
        _count(generated.diagnostics, said)
        return EXIT_INVALID
    toolset = generated.toolset
    modules = {str(t.identifier) for t in toolset.tools}
    last = Recorded() if client_only else recorded(out)
    lost = {} if client_only else lost_models(out, generated.ours["models.py"], toolset.tools, last)
    said["warning"] += say_lost_models(out, lost)
    renamed = {} if client_only else renamed_handlers(out, generated.ours, toolset.tools, last)
    if not client_only:
        said["warning"] += say_unfit_handlers(out, (f"handlers/{t.identifier}.py" for t in toolset.tools))
    stamp = stamp_text(
        toolset.source_hash,
        toolset.sources,
        generated.ours,
        generated.yours,
        generated.ahead.of if generated.ahead is not None else None,
        generated.stubs,
        [recorded_warning(shown_path(path), d) for d in generated.diagnostics],
        lost,
        renamed,
    )
    ours = {**generated.ours, STAMP_FILE: stamp}
    with locked(out, writing=not (args.check or args.diff)):
        done = _write_package(
            args, out, ours, generated.yours, modules, generated.ahead, generated.stubs, renamed, client_only,
            said,
        )
    if done == EXIT_OK and not (args.check or args.diff or client_only) and "server.py" not in last.files:
        if last.files:  # (the last stamp's package had no server)
            print(f"{shown_path(out)}: serves again: its server files are written (it was client-only)")
    _count(generated.diagnostics, said)
    return done


_EDITED_HINT = "every run writes the generated files again: code of yours belongs in handlers/"


def _write_package(
    args: argparse.Namespace,
    out: Path,
    ours: dict[str, str],
    yours: dict[str, str],
    modules: set[str],
    ahead: Ahead | None = None,
    stubs: dict[str, tuple[str, str]] | None = None,
    renamed: dict[str, str] | None = None,
    client_only: bool = False,
    said: Counter[str] | None = None,
) -> int:
    """Plan and apply (or, with --check/--diff, report) the files of one generation (`ahead`:
    the files' bytes, hashes and staged copies made while the models were generated); `said`
    counts the errors and warnings of the package's files said here."""
    from mcpstub.engine.stamp import edited_by_hand  # noqa: PLC0415
    from mcpstub.write import apply, plan  # noqa: PLC0415

    staging = ahead.staging if ahead is not None else None
    p = plan(out, ours, yours, modules, optional=(CONTRACT_TESTS, *SERVER_FILES), staging=staging)
    said = Counter() if said is None else said
    said["warning"] += say_handlers(out, client_only, p.orphans, renamed or {}, stubs or {})
    said["error"] += len(p.foreign)
    if p.foreign:
        for rel in p.foreign:
            what = (
                "a file or a link where mcpstub writes a folder"
                if rel.endswith("/")
                else "a folder, a FIFO, a device or a broken link where mcpstub writes a file"
                if not (out / rel).is_file()
                else "not generated by mcpstub (no generated header)"
            )
            print(f"{shown_path(out / rel)}: error: {what}; refusing to overwrite it", file=sys.stderr)
            print("  hint: move it away or delete it, then run again", file=sys.stderr)
        return EXIT_INVALID
    stale = [rel for rel in p.stale if rel in p.existing]
    edited = edited_by_hand(out, stale, lost=not (args.check or args.diff))  # (a check loses nothing)
    if args.diff:
        sys.stdout.write(p.diff(_from_repository_root(out)))
    if args.check or args.diff:
        if p.stale or p.created_yours or p.leftovers:
            for rel in sorted([*p.stale, *p.created_yours]):
                state = "obsolete" if rel in p.removals else "missing" if rel not in p.existing else "stale"
                state += " (edited since it was generated)" * (rel in edited)
                why = _why_removed(rel, p, client_only)
                print(f"{shown_path(out / rel)}: {state}" + (f" ({why})" if why else ""), file=sys.stderr)
            for rel in p.leftovers:
                print(f"{shown_path(out / rel)}: left by an interrupted run", file=sys.stderr)
            print(f"to update it, run: {_fix_command(args)}", file=sys.stderr)
            return EXIT_INVALID
        print(f"{shown_path(out)}: up to date")
        return EXIT_OK
    for rel in edited:
        done = "removes it" if rel in p.removals else "writes it again"
        print(f"{shown_path(out / rel)}: warning: edited since it was generated; this run {done}, and the"
              f" edit is gone\n  hint: {_EDITED_HINT}", file=sys.stderr)  # fmt: skip
    said["warning"] += len(edited)
    try:
        apply(p, ahead.encoded, staging) if ahead is not None else apply(p)
    except OSError as exc:  # a full disk names no file: the package's folder is said (main() says it)
        if exc.filename is None:
            exc.filename = str(out)
        raise
    for rel in p.removals:
        why = _why_removed(rel, p, client_only)
        print(f"{shown_path(out / rel)}: removed (no longer generated" + (f": {why})" if why else ")"))
    print(_write_report(out, p, len(ours) - 1, modules))
    return EXIT_OK


def _why_removed(rel: str, p: Plan, client_only: bool = False) -> str:
    """Why a generated file goes, where the reason is a setting: the contract tests are written
    only with --emit-tests, the server's files only without --client-only."""
    if rel in p.removals and rel == CONTRACT_TESTS:
        return "written only with --emit-tests or emit_tests = true in [tool.mcpstub], unless --no-emit-tests"
    if rel in p.removals and rel in SERVER_FILES and client_only:
        return "a client-only package (--client-only, or client_only = true in [tool.mcpstub]) has no server"
    return ""


def _write_report(out: Path, p: Plan, generated: int, modules: set[str]) -> str:
    """What a run wrote, counted exactly: generated files written and unchanged (of `generated`,
    the stamp left out), and handler stubs created (one per tool module; the package's
    `handlers/__init__.py` is none, and, with `py.typed`, said when made again)."""
    written = len([rel for rel in p.stale if rel not in p.removals])
    made = [rel for rel in p.created_yours if rel.startswith("handlers/") and Path(rel).stem in modules]
    stubs, others = len(made), [rel for rel in p.created_yours if rel not in made]
    # Where the package was there before (a generated file unchanged), one of its own files gone.
    again = f"; {' and '.join(others)} created again" if others and written < generated else ""
    stamp = ""
    if not (p.stale or p.created_yours) and STAMP_FILE in p.changes:  # (a comment edited, say)
        stamp = f" ({STAMP_FILE} updated: it records the toolset read)"
    return (
        f"{shown_path(out)}: {_counted(written, 'generated file')} written, "
        f"{generated - written} unchanged, {_counted(stubs, 'handler stub')} created{again}{stamp}"
    )


def _say_usage(said: str) -> None:
    """A usage error on stderr: each problem on a line of its own, its hint lines indented under it."""
    for line in said.splitlines():
        print(line if line[:1].isspace() else f"mcpstub: error: {line}", file=sys.stderr)


def cmd_init(args: argparse.Namespace) -> int:
    """Write a commented starter toolset."""
    target = Path(args.path)
    if target.is_dir() or args.path.endswith(("/", os.sep)):  # `init newdir/` names a folder
        target = target / "tools.yaml"
    if re.search(UNSAFE_IN_COMMENT, target.name):  # (generate refuses it: every header names it)
        raise UsageError(
            f"{shown_path(target)!r}: the toolset file name contains a control or bidirectional"
            " formatting character, or is not UTF-8: name it otherwise"
        )
    if target.suffix.lower() == ".json":  # (read as JSON, which has no comments)
        named = shown_path(target.with_suffix(".yaml"))
        raise UsageError(f"init writes a commented YAML toolset: name it {named} (a .json file is JSON)")
    if target.exists():
        raise UsageError(f"{shown_path(target)} already exists; not overwriting it")
    if not target.parent.is_dir():
        if target.parent.exists():
            raise UsageError(f"{shown_path(target.parent)} is not a folder")
        raise UsageError(f"folder {shown_path(target.parent)} does not exist")
    text = resource_path("schemas", "examples/starter.yaml").read_text("utf-8")
    # (its comment says the command from the toolset's folder, by the name it is given)
    text = text.replace(" generate tools.yaml ", f" generate {shlex.quote(target.name)} ", 1)
    # Point editors at the format's schema as installed with this mcpstub.
    schema = _schema_uri(target)
    first, _, rest = text.partition("\n")
    if first.startswith("# yaml-language-server: $schema="):
        text = f"# yaml-language-server: $schema={schema}\n{rest}"
    with target.open("x", encoding="utf-8") as handle:
        handle.write(text)
    try:  # a project that names its package's folder for this toolset: generate writes there
        config, root, _ = project_config(Path.cwd())
        owner = configured_toolset(config, root)
        configured = "out" in config and (owner is None or same_file(owner, target))
    except UsageError:
        configured = False
    package = shlex.quote(shown_path(target.parent / "src" / "my_tools"))  # (beside the toolset)
    then = f"mcpstub generate {shlex.quote(shown_path(target))}{'' if configured else f' --out {package}'}"
    print(f"wrote {shown_path(target)}; next: {then}")
    return EXIT_OK


def _schema_uri(toolset: Path) -> str:
    """The format's schema as installed with this mcpstub, for the editor line of `toolset`: a
    path from the toolset's folder where the schema is inside its project (a virtual environment
    there), which holds in every checkout set up the same way; else this machine's file URI."""
    schema = resource_path("schemas", "toolset.schema.json").resolve()
    folder = toolset.resolve().parent
    project = next(
        (f for f in (folder, *folder.parents) if (f / "pyproject.toml").is_file() or (f / ".git").exists()),
        folder,
    )
    if schema.is_relative_to(project):
        return Path(os.path.relpath(schema, folder)).as_posix()
    return schema.as_uri()


def cmd_import(args: argparse.Namespace) -> int:
    """Write a toolset that advertises what a server (or a saved tools/list answer) advertises."""
    from mcpstub import importer  # noqa: PLC0415
    from mcpstub.server_listing import LiveError, is_url, read_live, request_headers  # noqa: PLC0415

    given = [s for s in (args.source, args.server_command) if s is not None]
    if len(given) != 1:
        raise UsageError("give one source: --server-command CMD, an http(s)://... URL, or a JSON file")
    target = Path(args.output)
    if target.is_dir():
        raise UsageError(f"{shown_path(target)} is a folder: name the toolset file to write")
    if target.exists() and not args.force:
        raise UsageError(f"{shown_path(target)} already exists; pass --force to replace it")
    if not target.parent.is_dir():
        raise UsageError(f"folder {shown_path(target.parent)} does not exist")
    try:
        if args.server_command is not None or is_url(args.source):
            url = None if args.server_command else args.source
            headers = request_headers(args.header, args.token_env)
            listing = read_live(command=args.server_command, url=url, headers=headers, timeout=args.timeout)
            source = importer.source_from_listing(listing)
        else:
            path = Path(args.source)
            if path.is_dir():
                raise UsageError(f"{shown_path(path)} is a folder: name a saved tools/list answer in it")
            if not path.is_file():
                raise UsageError(f"source file not found: {shown_path(path)}")
            source = importer.read_listing_file(path, shown_path(path))
    except LiveError as exc:
        raise UsageError(str(exc)) from None
    except SourceError as exc:
        _report([importer.refuse(str(exc), exc.location or Location(str(args.source), 1, 1))])
        return EXIT_INVALID
    from mcpstub.yamltext import DumpError  # noqa: PLC0415

    try:
        text = importer.toolset_text(
            source,
            extract_defs=args.extract_defs,
            schema_uri=_schema_uri(target),
            as_json=target.suffix.lower() == ".json",
        )
    except DumpError as exc:  # (a file source was refused at the place already)
        said = f"{source.name} cannot be written as a toolset: {exc}"
        _report([importer.refuse(said, Location(source.name, 1, 1))])
        return EXIT_INVALID
    from mcpstub.write import replace_file  # noqa: PLC0415

    replace_file(target, text)
    diagnostics = [
        *source.notes,
        *importer.check_import(target, shown_path(target), source, extract_defs=args.extract_defs),
    ]
    _report(diagnostics)
    count = len(source.tools)
    if has_errors(diagnostics):
        print(
            f"wrote {shown_path(target)} ({_counted(count, 'tool')} from {source.name}); it does not "
            "validate yet: change what the errors above name, or the server",
            file=sys.stderr,
        )
        return EXIT_INVALID
    print(f"wrote {shown_path(target)}: {_counted(count, 'tool')} from {source.name}")
    if not source.shows_asking:  # (a strict client of such a toolset answers no question)
        print(
            "mcpstub: note: a tools/list answer does not say what tools ask their user: no"
            " `elicitations` are written; an mcpstub server's surface.json says it (import that)",
            file=sys.stderr,
        )
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    """Report what changed between two versions of a toolset, and whether it breaks clients."""
    from mcpstub.diff.command import run  # noqa: PLC0415
    from mcpstub.diff.source import load_side  # noqa: PLC0415

    config, root, _ = project_config(Path.cwd())
    policy = project_policy(config, root)
    options, fail_on = diff_options(config, root)
    if args.no_version_check:
        options = replace(options, check_version=False)
    fail = args.fail_on or fail_on
    from mcpstub.diff.model import Side  # noqa: PLC0415
    from mcpstub.sources import load_source, side_from_live  # noqa: PLC0415

    # A server command stands in for OLD (--server-command) or NEW (--new-server-command).
    commands = {f"--server-command {c}": c for c in (args.server_command, args.new_server_command) if c}
    given = [s for s in (args.old, args.new) if s is not None]
    sides: list[str | None] = []
    for command in (args.server_command, args.new_server_command):
        sides.append(f"--server-command {command}" if command else (given.pop(0) if given else None))
    old, new = sides
    if old is None or new is None or given:
        raise UsageError("give OLD and NEW: files, REV:path, URLs, or --server-command/--new-server-command")

    from mcpstub.server_listing import LiveError, request_headers  # noqa: PLC0415

    try:
        headers = request_headers(args.header, args.token_env)
    except LiveError as exc:
        raise UsageError(str(exc)) from None

    def load(spec: str, past: bool) -> Side:
        command = commands.get(spec)
        if command:
            return side_from_live(command=command, timeout=args.timeout)
        judged = replace(policy, past=past)  # (OLD, a past release, is read as it was)
        return load_source(spec, judged, headers, args.timeout, other=new if past else old)

    del load_side
    from mcpstub.sources import root_relative_note  # noqa: PLC0415

    for note in filter(None, map(root_relative_note, (old, new))):
        print(note, file=sys.stderr)
    return run(old, new, fmt=args.format, fail_on=fail, options=options, load=load)


def _live_flags(parser: argparse.ArgumentParser) -> None:
    """--header and --token-env, what an http(s) source is read with, and --timeout."""
    parser.add_argument(
        "--timeout", type=_seconds, metavar="SECONDS",
        help="give a server this long to start and list its tools (default: 60)",
    )  # fmt: skip
    parser.add_argument(
        "--header", action="append", default=[], metavar="'NAME: VALUE'",
        help="send this HTTP header to an http(s) source (repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--token-env", metavar="VAR",
        help="send 'Authorization: Bearer <the value of environment variable VAR>' to an http(s) source",
    )  # fmt: skip


def _revision(text: str) -> str:
    """A git revision (argparse's type for --check-breaking): the toolset's path is added to it."""
    if not text.strip() or ":" in text:
        alone = f" (--check-breaking {text.partition(':')[0]})" if text.partition(":")[0].strip() else ""
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a git revision: give the revision alone{alone}, a commit, branch or tag; "
            "the toolset's path is added to it"
        )
    return text


def _seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse's type for --timeout)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (0 < value < math.inf):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        raise UsageError(message)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """A command's flag it does not know is said with the one it is close to (`--output`)."""
        namespace, extras = super().parse_known_args(args, namespace)
        if self._subparsers is None:  # (the top parser says what its commands left over)
            import difflib  # noqa: PLC0415 - only for the message

            flags = [f[2:] for action in self._actions for f in action.option_strings if f[:2] == "--"]
            for extra in (extra for extra in extras if extra[:2] == "--"):
                name = extra.partition("=")[0][2:]  # (compared without the dashes every flag has)
                if name not in flags and (close := difflib.get_close_matches(name, flags, 1)):
                    self.error(f"unrecognized argument {extra} (did you mean --{close[0]}?)")
        return namespace, extras


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `mcpstub`."""
    parser = _Parser(prog="mcpstub", description="Generate typed MCP servers from a YAML toolset.")
    parser.add_argument("--version", action="version", version=f"mcpstub {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    gen = sub.add_parser("generate", help="generate the server package")
    gen.add_argument(
        "toolset", nargs="?", help="toolset file (default: [tool.mcpstub] toolset, or tools.yaml)"
    )
    gen.add_argument("--out", help="output package folder (default: [tool.mcpstub] out)")
    gen.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if output is missing or stale"
    )
    gen.add_argument("--diff", action="store_true", help="write nothing; print what would change")
    gen.add_argument("--force", action="store_true", help="regenerate even if the toolset is unchanged")
    gen.add_argument(
        "--check-breaking",
        metavar="REV",
        type=_revision,
        help="first diff against the toolset at git revision REV; breaking changes without a major "
        "version bump write nothing",
    )
    gen.add_argument(
        "--allow-breaking", action="store_true", help="with --check-breaking: report, but write anyway"
    )
    gen.add_argument(
        "--watch", action="store_true", help="generate again on every save of the toolset or its files"
    )
    gen.add_argument(
        "--no-cache", action="store_true", help="generate all models afresh; neither read nor write the cache"
    )
    gen.add_argument(
        "--emit-tests",
        action=argparse.BooleanOptionalAction,
        help="also write test_contract.py: pytest contract tests (or set emit_tests = true)",
    )
    gen.add_argument(
        "--client-only",
        action=argparse.BooleanOptionalAction,
        help="write the typed client alone (models, tools, client.py): no server, no handlers "
        "(or set client_only = true)",
    )
    gen.set_defaults(func=cmd_generate)
    val = sub.add_parser("validate", help="check a toolset")
    val.add_argument(
        "toolset", nargs="?", help="toolset file (default: [tool.mcpstub] toolset, or tools.yaml)"
    )
    val.add_argument(
        "--fail-on",
        choices=("error", "warning"),
        default="error",
        help="exit 1 on errors only (default), or on warnings too (a misspelled keyword, say)",
    )
    val.set_defaults(func=cmd_validate)
    dif = sub.add_parser("diff", help="report changes between two toolsets and which break clients")
    dif.add_argument(
        "old", nargs="?", help="toolset file, REV:path, surface.json, saved tools/list JSON or http(s) URL"
    )
    dif.add_argument("new", nargs="?", help="the same kinds as OLD")
    dif.add_argument("--server-command", metavar="CMD", help="OLD is this stdio server (e.g. python -m pkg)")
    dif.add_argument("--new-server-command", metavar="CMD", help="NEW is this stdio server")
    dif.add_argument("--format", choices=("text", "json", "github", "junit"), default="text")
    dif.add_argument(
        "--fail-on",
        choices=("breaking", "warning", "info"),
        help="exit 1 when a finding at or above this severity is found (default: breaking)",
    )
    dif.add_argument(
        "--no-version-check",
        action="store_true",
        help="do not require a major server.version bump for breaking changes",
    )
    _live_flags(dif)
    dif.set_defaults(func=cmd_diff)
    imp = sub.add_parser("import", help="write a toolset from a server's tools/list answer")
    imp.add_argument("source", nargs="?", help="an http(s)://.../mcp URL on the loopback, or a JSON file")
    imp.add_argument("--server-command", metavar="CMD", help='a stdio server to start, e.g. "python -m pkg"')
    imp.add_argument("-o", "--output", default="tools.yaml", help="toolset to write (default: tools.yaml)")
    imp.add_argument(
        "--extract-defs", action="store_true", help="move repeated identical subschemas into shared $defs"
    )
    imp.add_argument("--force", action="store_true", help="replace the output file if it exists")
    _live_flags(imp)
    imp.set_defaults(func=cmd_import)
    ini = sub.add_parser("init", help="write a starter toolset")
    ini.add_argument("path", nargs="?", default="tools.yaml", help="file or folder (default: tools.yaml)")
    ini.set_defaults(func=cmd_init)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "watch", False):  # each run of the session pauses it on its own
            code: int = args.func(args)
        else:
            with _collector_paused(to_the_exit=_LEAVING[0]):
                code = args.func(args)
        return code
    except UsageError as exc:
        from mcpstub.server_listing import shown_url  # noqa: PLC0415

        _say_usage(shown_url(str(exc)))  # a URL's password stays unsaid
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # 128 + the signal's number, as a shell reports it
        return 128 + (exc.number if isinstance(exc, Stopped) else signal.SIGINT)
    except BrokenPipeError:  # output piped into a command that stopped reading (`| head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OutputLost as exc:  # (under `run()`)
        print(f"mcpstub: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # what is left goes nowhere
        return EXIT_OUTPUT_LOST
    except OSError as exc:  # a path the system refuses where none was expected (a name too long)
        if exc.filename is None:
            raise
        print(f"mcpstub: error: {shown_path(Path(exc.filename))}: {exc.strerror}", file=sys.stderr)
        return EXIT_INVALID
    except RuntimeError as exc:  # Python 3.11's `Path.resolve` on a loop of symbolic links
        looped = str(exc).removeprefix("Symlink loop from ")
        if looped == str(exc):
            raise
        import ast  # noqa: PLC0415 - only for this message

        shown = shown_path(Path(ast.literal_eval(looped)))
        print(f"mcpstub: error: {shown}: a symbolic link that leads back to itself", file=sys.stderr)
        return EXIT_INVALID


class OutputLost(OSError):
    """Standard output could not be written (a full disk, say)."""


class _Output:
    """A standard stream under `run()`: an error writing standard output is told apart from any
    other OSError; one writing standard error (`said=False`) has nowhere to be told."""

    def __init__(self, stream: Any, *, said: bool = True) -> None:
        self._stream, self._said = stream, said

    def write(self, text: str) -> int:
        try:
            self._stream.write(text)
        except OSError as exc:
            self._failed(exc)
        return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        if self._said and not isinstance(exc, BrokenPipeError):
            raise OutputLost(exc.errno, exc.strerror) from exc
        self._reader_gone()

    def _reader_gone(self) -> None:
        """The reader stopped reading (`| head`): the rest goes nowhere and the command goes on,
        so its exit code still says the verdict (a stale package fails under `set -o pipefail`)."""
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        self._stream = open(os.devnull, "w")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def run() -> NoReturn:
    """The `mcpstub` command: `main()`, then `leave()` with its code."""
    _LEAVING[0] = True
    # Started without a standard output or error (`>&-`, `2>&-`): what would be written there goes
    # nowhere (`print` would write what is meant for a missing standard error into standard output).
    sys.stdout = _Output(sys.stdout if sys.stdout is not None else open(os.devnull, "w"))
    sys.stderr = _Output(sys.stderr if sys.stderr is not None else open(os.devnull, "w"), said=False)
    leave(main())


def leave(code: int) -> NoReturn:
    """Exit at once with `code`, the output streams flushed.

    A run over a large toolset leaves millions of objects behind, and an interpreter's orderly
    exit frees them one by one (a third of a second at 500 tools). Nothing needs it: every file
    is written and closed by then, a forked helper ends when its pipe closes, and the rest are
    daemon threads.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:  # None: started with that stream closed
                stream.flush()
        except BrokenPipeError:  # a reader that stopped reading (`| head`), as main() treats it
            pass
        except OSError as exc:  # output lost (a full disk): said, and the exit code an exit gives
            code = EXIT_OUTPUT_LOST
            if stream is sys.stdout and sys.stderr is not None:
                try:
                    print(f"mcpstub: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
                except (OSError, ValueError):
                    pass
    os._exit(code)
