"""The command line of a generated package: `python -m PACKAGE` (stdio) or `--http HOST:PORT`.

`main(package)` parses the options, then serves the package's `create_server()` over stdio or
its `create_app()` under uvicorn (which runs the worker processes, handles SIGTERM and Ctrl-C and
waits out the grace period); the HTTP settings reach each worker through one environment
variable, read by `app_from_environment`, the factory uvicorn imports.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import ipaddress
import json
import logging
import math
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from starlette.applications import Starlette

from ._text import unread_message
from .interactive import REQUEST_STATE_KEYS_VARIABLE, request_state_keys, request_state_security

__all__ = ["app_from_environment", "main"]

# How `--http` settings reach the app in each worker process.
_SETTINGS_VARIABLE = "MCPSTUB_SERVE_SETTINGS"
# More worker processes than this is a typo, not a deployment: each is a whole server.
_MAX_WORKERS = 64

if hasattr(signal, "pthread_sigmask"):
    # A worker starts with Ctrl-C ignored and held (`_ctrl_c_ignored`): what is held is let go
    # here, ignored, and once serving the worker takes Ctrl-C as a single server does.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


async def _serve_stdio(server: Server[Any]) -> None:
    async with stdio_server() as (read_stream, write_stream):
        # A line the SDK cannot read reaches the session as an exception, which it only logs at
        # debug level: the request's client, or the call awaiting the client's answer, would wait
        # forever. It is answered here (in a task of its own: reading goes on while the client
        # is not reading its answers, as for requests the SDK reads).
        relay_writer, relayed = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def relay() -> None:
            async with relay_writer, read_stream:
                async for item in read_stream:
                    if not isinstance(item, Exception):
                        await relay_writer.send(item)
                    elif (unread := unread_message(item)) is not None:
                        to_client, error = unread
                        if to_client:
                            group.start_soon(write_stream.send, SessionMessage(error))
                        else:  # (the client's answer to the server's question: that request fails)
                            await relay_writer.send(SessionMessage(error))

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            await server.run(relayed, write_stream, server.create_initialization_options())


def _logging() -> None:
    """Logs go to stderr at INFO, in the one process and in each worker alike: on stdio, stdout
    carries the protocol. The SDK's own INFO lines (each session made and ended, with its ID, which
    is a client's key to it) are not this server's."""
    logging.basicConfig(level=logging.INFO, stream=sys.stderr)
    logging.getLogger("mcp").setLevel(logging.WARNING)
    server_log = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _CutShort) for f in server_log.filters):
        server_log.addFilter(_CutShort())


class _CutShort(logging.Filter):
    """A request still running when the grace period ends is cancelled, and uvicorn logs that as an
    "Exception in ASGI application" with a traceback: it is said in a line instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, asyncio.CancelledError) and "graceful shutdown" in str(error):
            record.msg, record.args, record.exc_info, record.levelno = _CUT_SHORT, (), None, logging.WARNING
            record.levelname, record.exc_text = "WARNING", None
        return True


_CUT_SHORT = "a request still running when the grace period (--grace) ended was cut short"


def app_from_environment() -> Starlette:
    """The HTTP app as the command line configured it (the factory each worker calls)."""
    from .http import StaticTokenVerifier

    _logging()  # (a worker is a new interpreter: it has not configured logging)

    settings = json.loads(os.environ[_SETTINGS_VARIABLE])
    verifier = None
    if settings["token_variable"] is not None:
        verifier = StaticTokenVerifier(os.environ[settings["token_variable"]])
    app: Starlette = importlib.import_module(settings["package"]).create_app(
        stateless=settings["stateless"],
        host=settings["host"],
        allowed_hosts=settings["allowed_hosts"],
        allowed_origins=settings["allowed_origins"],
        token_verifier=verifier,
        max_request_body_size=settings["max_body"],
    )
    return app


def _address(text: str) -> tuple[str, int] | str:
    """`HOST:PORT` (`[::1]:8000` for IPv6) -> (host, port); what is wrong if it is not one."""
    wrong = f"--http takes HOST:PORT (e.g. 127.0.0.1:8000, or [::1]:8000 for IPv6), not {text!r}"
    host, colon, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
        try:  # brackets hold an IPv6 address, and only brackets do
            ipaddress.IPv6Address(host)
        except ValueError:
            return wrong
    elif any(c in host for c in ":[]"):
        return wrong
    if not (colon and host and port.isascii() and port.isdigit()):
        return wrong
    if len(port) > 5:  # (int() refuses more than 4,300 digits)
        return f"--http takes HOST:PORT with a port of 0 to 65535 in at most 5 digits, not {text!r}"
    if int(port) > 65535:
        return f"--http takes HOST:PORT with a port of 0 to 65535, not {text!r}"
    return host, int(port)


# Longer numbers are no count, size or time anyone means (and int() refuses 4,301 digits).
_MAX_DIGITS = 18


def _whole_number(text: str) -> int:
    """A number written in digits 0-9 (int() would also take `٣`, `+3`, ` 3`, `3_000`)."""
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"takes a number in digits 0-9, not {text[:40]!r}")
    if len(text) > _MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"takes a number of at most {_MAX_DIGITS} digits")
    return int(text)


def _seconds(text: str) -> float:
    """Seconds in digits 0-9 with an optional decimal point: `30`, `2.5`."""
    digits = text.replace(".", "", 1)
    if not (digits.isascii() and digits.isdigit()):
        raise argparse.ArgumentTypeError(
            f"takes seconds in digits 0-9 (e.g. 30 or 2.5), not {text[:40]!r}"
        )
    return float(text)


# How long an idle HTTP connection stays open. A client or proxy sends its next request on a
# connection it keeps idle for up to its own limit (httpx, the SDK's client: 5 s; aiohttp 15 s;
# nginx's upstream keepalive 60 s; an AWS load balancer 60 s): a server that closes first (uvicorn's
# default is 5 s) can close one just as a request arrives on it, and that request fails
# ("Server disconnected without sending a response").
KEEP_ALIVE_SECONDS = 75.0

# Options that only mean something with --http, by flag name and attribute.
_HTTP_ONLY = {
    "stateless": "stateless",
    "allowed-host": "allowed_host",
    "allowed-origin": "allowed_origin",
    "auth-token-env": "auth_token_env",
    "workers": "workers",
    "max-body-bytes": "max_body_bytes",
    "grace": "grace",
    "keep-alive": "keep_alive",
}


def _parser(package: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m {package}",
        description=f"Serve the tools: `python -m {package}` (stdio) or "
        f"`python -m {package} --http HOST:PORT`.",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="import every handler and check it takes (args, ctx), then exit: 0 when all do",
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio",
    )
    parser.add_argument(
        "--stateless",
        action="store_true",
        help="no session state: any worker or replica answers any request",
    )
    parser.add_argument(
        "--workers",
        type=_whole_number,
        default=1,
        metavar="N",
        help="worker processes (needs --stateless)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        metavar="HOST",
        help="a Host header value clients use (repeat; required beyond the loopback; '*': any)",
    )
    parser.add_argument(
        "--allowed-origin",
        action="append",
        metavar="ORIGIN",
        help="an Origin browsers may send, e.g. https://app.example.com (repeat)",
    )
    parser.add_argument(
        "--auth-token-env",
        metavar="VAR",
        help="require 'Authorization: Bearer <token>' with the token in environment variable VAR",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=_whole_number,
        default=4 * 1024 * 1024,
        metavar="N",
        help="refuse request bodies larger than this (default 4 MiB)",
    )
    parser.add_argument(
        "--grace",
        type=_seconds,
        default=30.0,
        metavar="SECONDS",
        help="on SIGTERM, let in-flight calls finish for this long (default 30)",
    )
    parser.add_argument(
        "--keep-alive",
        type=_seconds,
        default=KEEP_ALIVE_SECONDS,
        metavar="SECONDS",
        help=f"keep an idle connection open this long (default {KEEP_ALIVE_SECONDS:g}): longer than "
        "clients and proxies keep theirs",
    )
    return parser


@contextlib.contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    # What starts within begins with Ctrl-C ignored and held; one that reaches this process
    # meanwhile is held too, and handled here once the start is done.
    held = hasattr(signal, "pthread_sigmask")
    if held:
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()  # its first start lets Ctrl-C go: not within, then
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        if held:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _exit_cleanly(signum: int, frame: object) -> None:
    # Over HTTP, before uvicorn serves, or once it has stopped gracefully: nothing is left to
    # finish, and leaving at once means a stop cannot land half-way through setting up the event
    # loop. Over stdio, a stop asked for by the one user of the server.
    sys.stderr.flush()
    os._exit(0)


def _serve_http(package: str, parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    # A stop asked for (SIGTERM, or Ctrl-C) is a clean exit from here on: before uvicorn listens
    # for signals, and when it re-raises one after stopping gracefully.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    signal.signal(signal.SIGINT, _exit_cleanly)
    import socket

    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from .http import is_loopback

    address = _address(args.http)
    if isinstance(address, str):
        parser.error(address)
    host, port = address
    if args.workers < 1:
        parser.error("--workers takes a positive number")
    if args.workers > _MAX_WORKERS:
        parser.error(f"--workers takes at most {_MAX_WORKERS} (one process each)")
    if args.max_body_bytes < 1:
        parser.error("--max-body-bytes takes a positive number of bytes")
    if not (0 <= args.grace < math.inf):
        parser.error("--grace takes a number of seconds, 0 or more")
    if not (0 < args.keep_alive < math.inf):
        parser.error("--keep-alive takes a number of seconds above 0")
    if "" in (args.allowed_host or ()) or "" in (args.allowed_origin or ()):
        parser.error("--allowed-host and --allowed-origin take a non-empty value")
    if args.workers > 1 and not args.stateless:
        parser.error("--workers above 1 needs --stateless: a session's requests may reach any worker")
    if args.allowed_host is None and not is_loopback(host):
        parser.error(
            f"--http {args.http} listens beyond this machine: name the Host values clients "
            "use with --allowed-host (e.g. --allowed-host mcp.example.com), "
            "or --allowed-host '*' to accept any"
        )
    if args.auth_token_env is not None and not os.environ.get(args.auth_token_env):
        parser.error(f"--auth-token-env {args.auth_token_env}: that variable is not set or empty")
    if args.workers > 1 and not request_state_keys():
        parser.error(
            f"--workers {args.workers} would each seal the request state of 2026-07-28 calls that "
            "ask their user with a key of its own, and refuse the retries another worker "
            f"answered: set {REQUEST_STATE_KEYS_VARIABLE} to one shared secret of 32 bytes or "
            "more, e.g. python -c 'import secrets; print(secrets.token_hex(32))'"
        )
    os.environ[_SETTINGS_VARIABLE] = json.dumps(
        {
            "package": package,
            "stateless": args.stateless,
            "host": host,
            "allowed_hosts": args.allowed_host,
            "allowed_origins": args.allowed_origin,
            "token_variable": args.auth_token_env,
            "max_body": args.max_body_bytes,
        }
    )
    try:
        app_from_environment()  # a configuration error stops here, before any worker starts
    except ValueError as exc:
        parser.error(str(exc))
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.create_server((host, port), family=family)
    except OSError as exc:
        sys.exit(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    port = listener.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    mode = " (stateless)" if args.stateless else ""
    workers = f", {args.workers} workers" if args.workers > 1 else ""
    url = f"http://{shown}:{port}/mcp"
    print(f"serving MCP over streamable HTTP at {url}{mode}{workers}", file=sys.stderr, flush=True)
    config = uvicorn.Config(
        f"{__name__}:app_from_environment",
        factory=True,
        workers=args.workers,
        log_level="warning",
        timeout_graceful_shutdown=args.grace,
        timeout_keep_alive=args.keep_alive,
    )
    if args.workers > 1:

        class Supervisor(Multiprocess):
            # A terminal's Ctrl-C reaches every process of its group. A worker starts with it
            # ignored (a signal ignored at start stays ignored across the new interpreter), so one
            # still importing cannot die mid-import with a traceback: this process stops it, and
            # once serving it takes Ctrl-C itself, as a single server does.
            def init_processes(self) -> None:
                with _ctrl_c_ignored():
                    super().init_processes()

            def keep_subprocess_alive(self) -> None:
                with _ctrl_c_ignored():
                    super().keep_subprocess_alive()

        Supervisor(config, sockets=[listener]).run()
    else:
        uvicorn.Server(config).run(sockets=[listener])


def _check(package: str) -> int:
    """Import each tool's handler and models as its first call would, and say what fails: a
    server that starts does not import them (start-up stays fast), so this is where a handler
    that cannot load shows before a client calls it. The exit code: 0 when every one loads."""
    from .dispatch import load_failure, load_handler, shown_file

    module = importlib.import_module(package)
    tools, folder = module.TOOLS, os.path.dirname(module.__file__ or package)
    failed: list[str] = []
    try:
        importlib.import_module(f"{package}.models")
    except (Exception, SystemExit) as exc:
        models = shown_file(os.path.join(folder, "models.py"))
        print(f"{models}: {load_failure(exc, package)}", file=sys.stderr)
        print("the models do not load: no handler can be called", file=sys.stderr)
        return 1
    for name, spec in tools.items():
        where = shown_file(os.path.join(folder, "handlers", f"{spec.identifier}.py"))
        try:
            with _told_if_slow(f"{where}: tool {name!r}"):
                load_handler(spec)
                spec.input_model, spec.output_type, spec.forms  # noqa: B018 - the models import
        except BaseException as exc:  # what the first call would have logged (all but Ctrl-C)
            if isinstance(exc, KeyboardInterrupt):
                raise
            failed.append(f"{where}: tool {name!r}: {load_failure(exc, package)}")
    for line in failed:
        print(line, file=sys.stderr)
    count = f"{len(tools)} tool" + ("" if len(tools) == 1 else "s")
    if failed:
        print(f"{len(failed)} of {count}: the handler does not load", file=sys.stderr)
        return 1
    print(f"{count}: every handler loads and takes (args, ctx)")  # (what fails goes to stderr)
    return 0


# `--check` says which handler it is still importing after this many seconds, then after twice as
# many, and so on: a handler whose import waits on the network names itself (nothing is cut off).
SLOW_IMPORT_SECONDS = 10.0


@contextlib.contextmanager
def _told_if_slow(what: str) -> Iterator[None]:
    import threading

    done = threading.Event()

    def watch() -> None:
        waited, wait = 0.0, SLOW_IMPORT_SECONDS
        while not done.wait(wait):
            waited += wait
            print(f"{what}: still importing after {waited:g} s (Ctrl-C stops)", file=sys.stderr, flush=True)
            wait = waited

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def main(package: str, argv: list[str] | None = None) -> None:
    """Parse the command line and serve `package` (its create_server/create_app) until stopped."""
    parser = _parser(package)
    args = parser.parse_args(argv)
    try:  # a sealing key the SDK refuses is a usage error on every transport, and for --check
        request_state_security()
    except ValueError as exc:
        parser.error(str(exc))
    if args.check:
        serving = {"http": "http", **_HTTP_ONLY}
        given = [f"--{k}" for k, v in serving.items() if getattr(args, v) != parser.get_default(v)]
        if given:
            parser.error(f"--check serves nothing: {' and '.join(given)} cannot go with it")
        try:
            code = _check(package)
        except KeyboardInterrupt:  # Ctrl-C while a handler imports: stopped, said in a line
            print("--check stopped (Ctrl-C)", file=sys.stderr)
            code = 130
        sys.exit(code)
    if args.http is None:
        given = [
            f"--{name}"
            for name, value in _HTTP_ONLY.items()
            if getattr(args, value) != parser.get_default(value)
        ]
        if given:
            said = ", ".join(given[:-1]) + f" and {given[-1]} only apply"
            if len(given) == 1:
                said = f"{given[0]} only applies"
            parser.error(f"{said} with --http HOST:PORT")
    _logging()
    if args.http is None:
        # Ctrl-C ends the process at once: the SDK reads standard input in a thread that only
        # its end (Ctrl-D) would free, so a cancelled server would wait for it.
        signal.signal(signal.SIGINT, _exit_cleanly)
        if sys.stdin is not None and sys.stdin.isatty():
            print(
                f"serving MCP over stdio: {package} is meant to be started by an MCP client, which "
                "talks to it on standard input and output (--http HOST:PORT serves HTTP); Ctrl-C stops it",
                file=sys.stderr,
                flush=True,
            )
        anyio.run(_serve_stdio, importlib.import_module(package).create_server())
    else:
        _serve_http(package, parser, args)
