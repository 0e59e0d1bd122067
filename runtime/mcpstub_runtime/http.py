"""create_app(): the ASGI application that serves a server's tools over streamable HTTP.

Run it under any ASGI server (uvicorn, hypercorn, gunicorn with uvicorn workers) or mount it in a
larger Starlette/FastAPI app. Stateless mode is the horizontal-scaling path: any replica answers
any request. The Host check is always on unless switched off explicitly, on `/mcp` and on
`/healthz` alike; `/healthz` needs no session and no token.
"""

from __future__ import annotations

import hmac
import inspect
import ipaddress
import logging
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.types import jsonrpc_message_adapter
from pydantic import ValidationError
from pydantic_core import from_json
from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._text import unread_message
from .dispatch import served_tools

__all__ = ["MAX_REQUEST_BODY_SIZE", "StaticTokenVerifier", "create_app", "is_loopback"]

logger = logging.getLogger(__name__)

# Request bodies above this many bytes are refused (413) unless create_app is told otherwise.
MAX_REQUEST_BODY_SIZE = 4 * 1024 * 1024


def is_loopback(host: str) -> bool:
    """True for an address that only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class StaticTokenVerifier:
    """A TokenVerifier that accepts one shared bearer token (compared in constant time)."""

    def __init__(self, token: str, *, client_id: str = "static-token") -> None:
        if not token:
            raise ValueError("the bearer token is empty")
        if not all("!" <= c <= "~" for c in token):
            # A header carries no more: a space, newline or non-ASCII letter could never match.
            raise ValueError(
                "the bearer token has a character a client cannot send in an Authorization "
                "header (whitespace, a line break or non-ASCII): use printable ASCII only"
            )
        self._token = token.encode()
        self._client_id = client_id

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access, or None when it is not the configured one."""
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return AccessToken(token=token, client_id=self._client_id, scopes=[])


def _security(
    host: str,
    allowed_hosts: Sequence[str] | None,
    allowed_origins: Sequence[str] | None,
) -> tuple[TransportSecuritySettings, list[str] | None]:
    """The SDK's Host and Origin checks, and the origins to check apart (None: no such check)."""
    if allowed_hosts is None:
        if not is_loopback(host):
            raise ValueError(
                f"serving on {host!r} reaches beyond this machine: pass allowed_hosts "
                "(the Host header values clients use, e.g. ['mcp.example.com']), "
                "or allowed_hosts=['*'] to accept any Host"
            )
        allowed_hosts = ["127.0.0.1", "localhost", "[::1]"]
        allowed_origins = allowed_origins or [
            "http://127.0.0.1",
            "http://localhost",
            "http://[::1]",
        ]
    origins: list[str] = []
    for allowed in allowed_origins or ():  # a bare origin also allows it with any port
        origins += [allowed] if allowed.endswith(":*") else [allowed, f"{allowed}:*"]
    if "*" in allowed_hosts:
        # The SDK checks Host and Origin together or not at all: given origins are checked apart.
        off = TransportSecuritySettings(enable_dns_rebinding_protection=False)
        return off, origins if allowed_origins else None
    hosts: list[str] = []
    for allowed in allowed_hosts:  # a bare host also allows it with any port
        hosts += [allowed] if allowed.endswith(":*") else [allowed, f"{allowed}:*"]
    settings = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=origins,
    )
    return settings, None


class _OriginCheck:
    """403 for a request whose Origin is not allowed (when any Host is)."""

    def __init__(self, app: ASGIApp, allowed: Sequence[str]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin = Headers(scope=scope).get("origin") if scope["type"] == "http" else None
        if origin and not any(
            origin == allowed or (allowed.endswith(":*") and origin.startswith(allowed[:-1]))
            for allowed in self.allowed
        ):
            response = PlainTextResponse("Invalid Origin header", status_code=403)
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


# What a request gets when the app's lifespan (which starts the SDK's session manager) never ran.
NOT_STARTED = (
    "the MCP app's lifespan is not running: serve it with lifespan events on, and when it is "
    "mounted in another app, give that app its lifespan: Starlette(routes=[Mount('/tools', "
    "app=mcp_app)], lifespan=mcp_app.router.lifespan_context)"
)


class _Lifespan:
    """Whether one app's lifespan is running: the SDK serves requests only inside it."""

    running = False


class _InFlight:
    """Counts the POST responses still being sent (tool calls among them), for a graceful stop.

    A response is under way until its last body message is sent: the SDK may stream it from
    another task after the request's handler has returned.
    """

    count = 0

    def __init__(self, app: ASGIApp, lifespan: _Lifespan) -> None:
        self.app = app
        self.lifespan = lifespan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.lifespan.running:
            logger.error("%s", NOT_STARTED)
            await PlainTextResponse(NOT_STARTED, status_code=500)(scope, receive, send)
            return
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        finished = False

        def finish() -> None:
            nonlocal finished
            if not finished:
                finished = True
                _InFlight.count -= 1

        async def counted(message: Message) -> None:
            try:
                await send(message)
            finally:
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    finish()

        _InFlight.count += 1
        try:
            await self.app(scope, receive, counted)
        except BaseException:
            finish()
            raise


class _Answers:
    """A client's answer to the server's question that the SDK cannot read (a lone surrogate
    escaped, an integer past 4,300 digits) is answered 400 and dropped by it, and the question
    waited forever: such a body is handed on as the error that fails the question, as over stdio
    (`unread_message`). Bodies that name a method (requests, notifications) are the SDK's; one
    past `limit` is left for its size check."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        read: list[Message] = []
        size = 0
        while True:
            message = await receive()
            read.append(message)
            size += len(message.get("body", b""))
            if message["type"] != "http.request" or not message.get("more_body") or size > self.limit:
                break
        body = b"".join(message.get("body", b"") for message in read)
        whole = read[-1]["type"] == "http.request" and not read[-1].get("more_body") and size <= self.limit
        if whole and (said := _unread_answer(body)) is not None:
            read = [{"type": "http.request", "body": said, "more_body": False}]
        buffered = iter(read)

        async def replayed() -> Message:
            return next(buffered, None) or await receive()

        await self.app(scope, replayed, send)


def _unread_answer(body: bytes) -> bytes | None:
    """The error that fails the question a client's answer answers, where the SDK cannot read the
    answer; None for anything else (a request or a notification is the SDK's to answer). A body
    without the key an answer has is not parsed here: requests, on every call, are parsed once."""
    if b'"result"' not in body and b'"error"' not in body:
        return None
    try:
        message = from_json(body)
    except ValueError:
        message = None  # (text the SDK's reader refuses: `unread_message` reads what it can)
    else:
        if not isinstance(message, dict) or "method" in message:
            return None
    try:
        if message is None:
            jsonrpc_message_adapter.validate_json(body, by_name=False)
        else:
            jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as failure:
        unread = unread_message(failure)
        if unread is not None and not unread[0]:  # (an answer: the question it answers fails)
            return unread[1].model_dump_json(by_alias=True, exclude_none=True).encode()
    return None


def _stopping() -> bool:
    """True once the ASGI server (uvicorn) has been asked to stop by a signal."""
    handler = signal.getsignal(signal.SIGTERM)
    return bool(getattr(getattr(handler, "__self__", None), "should_exit", False))


def _graceful(
    inner: Callable[[Starlette], AbstractAsyncContextManager[Any]],
    state: _Lifespan,
) -> Callable[[Starlette], AbstractAsyncContextManager[Any]]:
    """Wrap the app's lifespan: on SIGTERM, close event streams only once no call is under way.

    The SDK answers calls over server-sent events, whose library closes every stream as soon as
    uvicorn is told to stop, cutting calls short. Here streams stay open until the calls under
    way have answered; the server's own grace period still bounds the wait.
    """
    from sse_starlette.sse import AppStatus

    AppStatus.enable_automatic_graceful_drain = False

    async def drain() -> None:
        while not (_stopping() and _InFlight.count == 0):
            await anyio.sleep(0.05)
        AppStatus.should_exit = True

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[Any]:
        AppStatus.should_exit = False
        async with inner(app) as inner_state, anyio.create_task_group() as group:
            group.start_soon(drain)
            state.running = True
            try:
                yield inner_state
            finally:
                state.running = False
            group.cancel_scope.cancel()

    return lifespan


def _health(
    server: Server[Any], security: TransportSecuritySettings
) -> Callable[[Request], Any]:
    """GET /healthz: the server's name, version and tool count, behind the same Host check."""
    check = TransportSecurityMiddleware(security)
    body = {
        "status": "ok",
        "name": server.name,
        "version": server.version or "",
        "tools": len(served_tools(server)),
    }

    async def health(request: Request) -> Response:
        refused = await check.validate_request(request)
        return refused if refused is not None else JSONResponse(body)

    return health


def create_app(
    server: Server[Any],
    *,
    path: str = "/mcp",
    stateless: bool = False,
    json_response: bool = False,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] | None = None,
    allowed_origins: Sequence[str] | None = None,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
    max_request_body_size: int = MAX_REQUEST_BODY_SIZE,
    health_path: str | None = "/healthz",
) -> Starlette:
    """The streamable HTTP ASGI app serving `server` at `path`.

    `host` is the address the app is served on: beyond the loopback, `allowed_hosts` (and
    usually `allowed_origins`) must be given, or `['*']` to switch the Host check off.
    `stateless=True` lets any replica answer any request (no session state; needed behind a load
    balancer without sticky sessions). `token_verifier` requires a bearer token on `path` (401
    without a valid one); `auth` adds the SDK's OAuth resource-server settings. `health_path`
    answers GET with the server's name, version and tool count, without a session or a token.
    """
    if token_verifier is not None and auth is None:
        # The SDK installs its bearer-token middleware only with AuthSettings; an issuer is
        # required by the model but unused without an authorization-server provider.
        auth = AuthSettings.model_validate(
            {"issuer_url": "http://127.0.0.1", "resource_server_url": None}
        )
    security, origins = _security(host, allowed_hosts, allowed_origins)
    routes = [Route(health_path, _health(server, security), methods=["GET"])] if health_path else []
    app = server.streamable_http_app(
        streamable_http_path=path,
        json_response=json_response,
        stateless_http=stateless,
        max_request_body_size=max_request_body_size,
        transport_security=security,
        host=host,
        auth=auth,
        token_verifier=token_verifier,
        custom_starlette_routes=routes,
    )
    lifespan = _Lifespan()
    app.router.lifespan_context = _graceful(app.router.lifespan_context, lifespan)
    app.add_middleware(_Answers, limit=max_request_body_size)  # (innermost: the checks go first)
    if origins is not None:
        app.add_middleware(_OriginCheck, allowed=origins)
    app.add_middleware(_InFlight, lifespan=lifespan)
    return app


def app_of(
    server: Server[Any] | None, factory: Callable[..., Server[Any]], **options: Any
) -> Starlette:
    """`create_app` for a package: `server`, or the one `factory` makes from the options that
    `create_app` does not take itself (create_server's: handlers, timeout, instructions, ...)."""
    own = set(inspect.signature(create_app).parameters) - {"server"}
    server_options = {key: value for key, value in options.items() if key not in own}
    if server is None:
        server = factory(**server_options)
    elif server_options:
        raise TypeError(f"create_app() got a server and server options: {sorted(server_options)}")
    return create_app(server, **{key: value for key, value in options.items() if key in own})
