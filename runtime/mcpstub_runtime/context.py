"""ToolContext: what a handler gets besides its arguments (progress and logging for its request,
and the questions it may ask: `interactive.Asking`).

One instance per call. Everything a handler may ask of its client is a method here, so that one
handler serves every protocol generation the runtime speaks.
"""

from __future__ import annotations

import warnings
import weakref
from typing import Any

from mcp import types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning

from ._text import clean, plain_json, pointer, unreadable
from .interactive import Asking, Interaction

__all__ = ["ToolContext"]

# MCP's log levels, least severe first, and the level each connection asked for (logging/setLevel).
LOG_LEVELS: tuple[types.LoggingLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
_CONNECTION_LEVELS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


class ToolContext(Asking):
    """What a handler gets besides its arguments: progress and logging for this request, and
    questions to its user or client (`elicit`, `elicit_url`, `sample`, `list_roots`, `ask`)."""

    __slots__ = ("_ctx", "_interaction")

    def __init__(
        self, request_context: ServerRequestContext[Any, Any], interaction: Interaction | None = None
    ) -> None:
        self._ctx = request_context
        self._interaction = interaction if interaction is not None else Interaction(request_context, {})

    @property
    def request_context(self) -> ServerRequestContext[Any, Any]:
        """The SDK's context for this request (session, metadata, transport request)."""
        return self._ctx

    @property
    def lifespan_context(self) -> Any:
        """What the server's lifespan yielded."""
        return self._ctx.lifespan_context

    @property
    def request_id(self) -> types.RequestId | None:
        """The JSON-RPC id of this tools/call request."""
        return self._ctx.request_id

    @property
    def protocol_version(self) -> str:
        """The protocol version of this request's connection."""
        return self._ctx.protocol_version

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send a progress notification, if the client asked for progress on this call."""
        if message is not None:
            message = clean(message)
        for name, number in (("progress", progress), ("total", total)):
            if number is None and name == "total":
                continue
            if not isinstance(number, int | float) or isinstance(number, bool):
                raise TypeError(f"{name} must be an int or a float, not {type(number).__name__}")
            if (found := unreadable(number)) is not None:
                raise ValueError(f"the {name} cannot be sent: {found[1]}")
        await self._ctx.session.report_progress(progress, total, message)

    async def log(self, level: types.LoggingLevel, data: Any, *, logger: str | None = None) -> None:
        """Send a log message to the client, tied to this request.

        On 2026-07-28 connections it is delivered only if the request opted in at that level;
        on older ones, if it is at least the level the connection set (logging/setLevel), if any.
        """
        if LOG_LEVELS.index(level) < _CONNECTION_LEVELS.get(connection(self._ctx), 0):
            return
        # As sent: text JSON cannot carry made U+FFFD, and no NaN written as null.
        sent = plain_json(data, exclude_none=True)
        if (found := unreadable(sent)) is not None:
            raise ValueError(f"the log message cannot be sent: at {pointer(found[0])}, {found[1]}")
        # MCP 2026-07-28 deprecates the logging capability; the SDK warns on every call.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            pending = self._ctx.session.send_log_message(
                level,
                sent,
                logger if logger is None else clean(logger),
                related_request_id=self._ctx.request_id,
            )
        await pending

    async def debug(self, message: str) -> None:
        """`log("debug", message)`."""
        await self.log("debug", message)

    async def info(self, message: str) -> None:
        """`log("info", message)`."""
        await self.log("info", message)

    async def warning(self, message: str) -> None:
        """`log("warning", message)`."""
        await self.log("warning", message)

    async def error(self, message: str) -> None:
        """`log("error", message)`."""
        await self.log("error", message)


async def set_logging_level(
    ctx: ServerRequestContext[Any, Any], params: types.SetLevelRequestParams
) -> types.EmptyResult:
    """logging/setLevel: the least severe level this connection's log messages carry."""
    _CONNECTION_LEVELS[connection(ctx)] = LOG_LEVELS.index(params.level)
    return types.EmptyResult()


def connection(ctx: ServerRequestContext[Any, Any]) -> Any:
    """What lives as long as the client's connection: the SDK's per-request session wraps it."""
    return getattr(ctx.session, "_connection", ctx.session)
