"""Live: what a running MCP server advertises, read through the official client.

`read_live` starts a server command over stdio (or connects to a streamable HTTP URL on the loopback)
and returns its tools exactly as they came over the wire: the raw JSON, not the SDK's models, which
drop keys they do not know. Every failure is a `LiveError` with one line to show the user.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
import shlex
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from typing import IO, Any
from urllib.parse import unquote, urlsplit

from mcpstub.errortext import first_line
from mcpstub.surface import DIGEST_META_KEY

# An HTTP header name (RFC 9110 token).
_TOKEN_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
# How long connecting and listing may take, and how many pages a listing may have.
TIMEOUT_SECONDS = 60.0  # (the --timeout default `cli` shows)
MAX_PAGES = 1000
# The SDK's loggers: what they report (with tracebacks) is kept and told in one line instead.
SDK_LOGGERS = ("mcp", "client")


class LiveError(Exception):
    """No server reached, or no tool listing in its answer; the message shows no URL's credentials."""

    def __init__(self, message: str) -> None:
        super().__init__(shown_url(message))


@dataclass(frozen=True)
class Listing:
    """A server's advertised surface as one client connection saw it."""

    server_info: dict[str, Any]
    instructions: str | None
    protocol: str
    tools: list[dict[str, Any]]
    digests: dict[str, str] = field(default_factory=dict)
    source: str = ""


def is_url(spec: str) -> bool:
    """True when a source is written as a URL (`scheme://...`, any scheme, any case)."""
    return _SCHEME.match(spec) is not None


def check_url(url: str) -> None:
    """Only http(s) URLs on the loopback are allowed: the check never reaches out."""
    match = _URL.match(url)
    if match is not None and _late_userinfo_end(match[2]) is not None:
        # Read as written, the host is the user name: say what went wrong, not what followed.
        raise LiveError(
            f"{shown_url(url)}: the user name or password holds an unencoded '/', '?' or '#', which"
            " ends the host early; percent-encode each of them (%2F, %3F, %23)"
        )
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:  # `http://[::1`, say
        raise LiveError(f"{shown_url(url)}: not a valid URL ({exc})") from None
    if parts.scheme not in {"http", "https"} or not host:
        raise LiveError(f"{shown_url(url)}: not an http(s) URL")
    _, colon, port = parts.netloc.rpartition("@")[2].rpartition(":")
    number = port.isascii() and port.isdigit() and len(port) <= 5 and 0 < int(port) <= 65535
    if colon and port and "]" not in port and not number:
        # HTTP clients read other digits (`٣٠٠٠`) or signs as a port: only 1-65535 in 0-9 is one.
        raise LiveError(f"{shown_url(url)}: the port must be a number from 1 to 65535, in digits 0-9")
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise LiveError(
                f"{shown_url(url)}: only servers on the loopback (127.0.0.1, ::1, localhost) are read"
            )


def shown_url(text: str) -> str:
    """Text as messages and written files show it: every URL in it without a user name or password.

    User information ends at the authority's last `@` (`http://u:p@ss@h/x` -> `http://h/x`). An
    unencoded `/`, `?` or `#` in a password ends the authority early (`http://u:pa/ss@127.0.0.1/mcp`
    reads as host `u`): then a later `@` and host end it when the URL as read names no loopback
    server and the text before the `@` holds a `:` or the host after it is the loopback. An `@` in
    the path or query of a URL naming a server stays (`http://h/x?mail=a@b`)."""
    return _URL.sub(lambda m: m[1] + _without_userinfo(m[2]), text)


def _without_userinfo(rest: str) -> str:
    cut = _late_userinfo_end(rest)
    if cut is not None:
        return rest[cut:]
    authority = _AUTHORITY_END.split(rest, maxsplit=1)[0]
    return rest[authority.rfind("@") + 1 :]


def _late_userinfo_end(rest: str) -> int | None:
    """Where the user information of a URL's `rest` (after `scheme://`) ends when an unencoded
    `/`, `?` or `#` in it ended the authority early; None when it did not."""
    authority = _AUTHORITY_END.split(rest, maxsplit=1)[0]
    if len(authority) == len(rest) or _names_loopback(authority.rpartition("@")[2]):
        return None
    found: int | None = None
    for at in (m.start() for m in re.finditer("@", rest)):
        host = _HOST_AFTER.match(rest, at + 1)
        if at < len(authority) or host is None:
            continue
        if _is_loopback(host[1].strip("[]")):
            found = at  # the last `@` before a loopback host
        elif ":" in rest[:at] and (found is None or not _is_loopback(_host_at(rest, found))):
            found = at
    return None if found is None else found + 1


def _host_at(rest: str, at: int) -> str:
    host = _HOST_AFTER.match(rest, at + 1)
    return "" if host is None else host[1].strip("[]")


def _names_loopback(authority: str) -> bool:
    """True when an authority (no user information) is a loopback host with a valid port or none."""
    host, colon, port = authority.rpartition(":") if not authority.endswith("]") else (authority, "", "")
    if not colon or "]" in port:
        host, port = authority, ""
    if port and not (port.isascii() and port.isdigit() and len(port) <= 5 and 0 < int(port) <= 65535):
        return False
    return _is_loopback(host.strip("[]"))


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _scrubbed(text: str, url: str) -> str:
    """A message about `url` with no trace of its password, wherever the client put it."""
    text = shown_url(text)
    match = _URL.match(url)
    cut = None if match is None else _late_userinfo_end(match[2])
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if match is not None and cut is not None:  # a password holding `/`, `?` or `#` is all of it
        password = match[2][: cut - 1].partition(":")[2]
    for secret in {password, unquote(password)} if password else ():
        text = text.replace(secret, "***")
    return text


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
# A scheme and its slashes, then the rest of the URL (up to white space).
# (`http:user:pw@host`, the slashes left out, read as a file name: its password hidden too)
_URL = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*:/+|(?i:https?):)(\S*)")
_AUTHORITY_END = re.compile(r"[/?#]")
# A host (a name, an IPv4 address, an [IPv6] one) with an optional port, then the URL's end.
_HOST_AFTER = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]*)?(?=[/?#'\"\s),;\]]|$)")


def command_args(command: str) -> list[str]:
    """A `--server-command` string split as a POSIX shell would (no shell runs it)."""
    try:
        args = shlex.split(command)
    except ValueError as exc:
        raise LiveError(f"server command {command!r}: {exc}") from None
    if not args:
        raise LiveError("the server command is empty")
    return args


async def _listing(target: Any, source: str, mode: str) -> Listing:
    from mcp import Client, types  # noqa: PLC0415 - the SDK only when a server is read
    from pydantic import TypeAdapter  # noqa: PLC0415

    from mcpstub_runtime.client import listing_page  # noqa: PLC0415

    raw_result = TypeAdapter(dict[str, Any])
    tools: list[dict[str, Any]] = []
    digests: dict[str, str] = {}
    async with Client(target, mode=mode) as client:
        info = client.server_info
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
            request = types.ListToolsRequest(params=params)
            # (a listing the SDK refuses, `inputSchema: {}`, is read as it is: the toolset written
            # from it is validated, each problem said at its place there)
            page = await listing_page(client.session, request, raw_result)
            listed = page.get("tools")
            if not isinstance(listed, list) or not all(isinstance(t, dict) for t in listed):
                raise LiveError(f"{source}: tools/list did not answer a list of tool objects")
            tools.extend(listed)
            meta = page.get("_meta")
            reported = meta.get(DIGEST_META_KEY) if isinstance(meta, dict) else None
            if isinstance(reported, dict):
                digests.update({k: v for k, v in reported.items() if isinstance(v, str)})
            cursor = page.get("nextCursor")
            if not isinstance(cursor, str):
                break
        else:
            raise LiveError(f"{source}: tools/list has more than {MAX_PAGES} pages")
        return Listing(
            server_info=info.model_dump(by_alias=True, mode="json", exclude_none=True) if info else {},
            instructions=client.instructions,
            protocol=client.protocol_version,
            tools=tools,
            digests=digests,
            source=source,
        )


async def _handshake_info(target: Any) -> tuple[dict[str, Any], str | None]:
    from mcp import Client  # noqa: PLC0415

    try:
        async with Client(target, mode="legacy") as client:
            info, instructions = client.server_info, client.instructions
    except Exception:  # a server that speaks only 2026-07-28 stays anonymous
        return {}, None
    return (info.model_dump(by_alias=True, mode="json", exclude_none=True) if info else {}), instructions


def request_headers(headers: Sequence[str] = (), token_env: str | None = None) -> dict[str, str]:
    """HTTP headers from `Name: value` texts and a bearer token read from an environment variable
    (the token itself is never shown: a problem names the variable)."""
    found: dict[str, str] = {}
    for text in headers:
        name, sep, value = text.partition(":")
        name, value = name.strip(" \t"), value.strip(" \t")
        if not sep or not _TOKEN_NAME.fullmatch(name) or any(c in value for c in "\r\n\0"):
            raise LiveError(f"--header {name[:40]!r}...: write it as 'Name: value', on one line")
        found[name] = value
    if token_env is not None:
        token = os.environ.get(token_env, "").strip()
        if not token:
            raise LiveError(f"--token-env {token_env}: that environment variable is not set or empty")
        found["Authorization"] = f"Bearer {token}"
    return found


def read_live(
    *,
    command: str | None = None,
    url: str | None = None,
    server: Any = None,
    mode: str = "auto",
    cwd: str | None = None,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> Listing:
    """Connect (stdio command, loopback URL with `headers`, or an in-process `Server`); list its tools
    within `timeout` seconds (None: `TIMEOUT_SECONDS`), the server's start included."""
    timeout = timeout or TIMEOUT_SECONDS
    import tempfile  # noqa: PLC0415

    import anyio  # noqa: PLC0415

    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        connect: Callable[[], Any]
        if command is not None:
            from mcp import StdioServerParameters  # noqa: PLC0415
            from mcp.client.stdio import stdio_client  # noqa: PLC0415

            args = command_args(command)
            params = StdioServerParameters(command=args[0], args=args[1:], env=dict(os.environ), cwd=cwd)
            source = shown_url(f"server command {command!r}")  # no URL in it shows its password

            def connect() -> Any:  # the server's stderr is kept, to name why it stopped
                return stdio_client(params, errlog=errlog)

        elif url is not None:
            check_url(url)
            source = shown_url(url)
            refused: list[int] = []  # HTTP 401 / 403 answers, to say so plainly

            def connect() -> Any:
                return _loopback_transport(url, dict(headers or {}), refused, timeout)

        elif server is not None:
            source = "in-process server"

            def connect() -> Any:
                return server

        else:
            raise LiveError("no server to read")

        async def run() -> Listing:
            with anyio.fail_after(timeout):
                listing = await _listing(connect(), source, mode)
                if not listing.server_info and mode != "legacy":
                    # 2026-07-28 servers may leave serverInfo out; the handshake always carries it.
                    info, instructions = await _handshake_info(connect())
                    listing = replace(
                        listing, server_info=info, instructions=listing.instructions or instructions
                    )
                return listing

        with _sdk_logs_kept() as logged:
            try:
                return anyio.run(run)
            except LiveError:
                raise
            except TimeoutError:
                message = f"{source}: no tool listing within {timeout:g} s (--timeout){_why(errlog, logged)}"
                raise LiveError(_scrubbed(message, url) if url is not None else message) from None
            except Exception as exc:  # the SDK raises many kinds; the user needs one line, not a traceback
                if url is not None and refused:
                    raise LiveError(_refusal(source, refused[0], bool(headers))) from None
                message = f"{source}: {_describe(exc)}{_why(errlog, logged)}"
                raise LiveError(_scrubbed(message, url) if url is not None else message) from None


def _why(errlog: IO[str], logged: list[str]) -> str:
    """What the server wrote last on stderr, and what the client logged of its answers."""
    errlog.seek(0)
    said = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    why = f"; the server said: {said[-1][:300]}" if said else ""
    if any(m.startswith("Failed to parse JSONRPC") for m in logged):
        why += "; it wrote what is not JSON-RPC to stdout (a stdio server logs to stderr)"
    elif logged and logged[0]:
        why += f"; the client said: {logged[0][:300]}"
    return why


def _refusal(source: str, status: int, sent: bool) -> str:
    what = "401 Unauthorized" if status == 401 else "403 Forbidden"
    if sent:
        return f"{source}: the server refused the credentials given (HTTP {what})"
    return (
        f"{source}: the server requires authentication (HTTP {what}); pass a token with "
        "--token-env VAR (a bearer token read from that environment variable) or --header 'Name: value'"
    )


@asynccontextmanager
async def _loopback_transport(
    url: str, headers: dict[str, str], refused: list[int], timeout: float
) -> AsyncIterator[Any]:
    """Streamable HTTP straight to the URL: proxy settings of the environment are not used (a
    proxy would carry the request away from the loopback the URL names)."""
    import httpx2  # noqa: PLC0415 - the SDK's HTTP client, only when a URL is read
    from mcp.client.streamable_http import streamable_http_client  # noqa: PLC0415

    async def note(response: Any) -> None:
        if response.status_code in (401, 403):
            refused.append(response.status_code)

    limits = httpx2.Timeout(30.0, read=timeout)
    hooks = {"response": [note]}
    async with (
        httpx2.AsyncClient(trust_env=False, timeout=limits, headers=headers, event_hooks=hooks) as http,
        # A listing of any size, as over stdio (the SDK refuses an SSE event past 1 MiB).
        streamable_http_client(url, http_client=http, max_sse_event_size=None) as streams,
    ):
        yield streams


class _Kept(logging.Handler):
    """Keeps the messages of log records (warnings and worse), without their tracebacks."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage().strip())


@contextmanager
def _sdk_logs_kept() -> Iterator[list[str]]:
    """While reading, the SDK's log records go to a list, not to stderr as tracebacks."""
    kept = _Kept()
    loggers = [logging.getLogger(name) for name in SDK_LOGGERS]
    saved = [logger.propagate for logger in loggers]
    for logger in loggers:
        logger.addHandler(kept)
        logger.propagate = False
    try:
        yield kept.messages
    finally:
        for logger, propagate in zip(loggers, saved, strict=True):
            logger.removeHandler(kept)
            logger.propagate = propagate


def _describe(exc: BaseException) -> str:
    """One line for an exception, looking inside exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = first_line(exc, "")
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
