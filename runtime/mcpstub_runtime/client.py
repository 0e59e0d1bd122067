"""The typed client of a generated package: `connect(Client, target)` and its base class.

A generated `client.py` declares `Client(ToolsClient)` with one method per tool (its keyword
arguments are the input model's fields, `@arguments(InputModel)`) and a `connect(target)` that
calls `connect` here. What is the same for every toolset lives in this module:

- the transport, from the target: an http(s) URL (streamable HTTP, with a bearer `token` or
  extra `headers`), a command (a list of arguments, or the SDK's `StdioServerParameters`), or an
  in-memory `mcp.server.Server`;
- drift (`drift.py`): on connect the server's `tools/list` is read as sent and each tool the client knows is
  compared with the Tool object frozen in the package; what differs is reported once as a
  `DriftWarning` naming each tool and where it differs, and is kept in `client.drift`. With
  `strict=True` a call of a drifted tool raises `DriftError` and nothing is sent;
- answers: an `isError` result raises `ToolError` with its text; an output is validated into the
  package's output type (a model, or the type a non-object output declares), and one the type
  refuses raises `UnexpectedOutput`; a tool without an output schema returns its content blocks;
- logs: the server's log messages at `log_level` ("info" unless told) and above become records
  of the Python logger `<package>.client`, or go to `on_log` instead;
- questions: what a tool asks its user goes to `on_elicit` (`Question`, with the package's model
  of the form), its answer checked against the form before it is sent.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import math
import os
import shlex
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Concatenate, ParamSpec, TypedDict, TypeVar, Unpack, cast
from urllib.parse import urlsplit, urlunsplit

import jsonschema_rs
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ClientRequestContext, ListRootsFnT, LoggingFnT, SamplingFnT
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types import CONNECTION_CLOSED, INVALID_PARAMS
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, TypeAdapter, ValidationError

from ._text import clean, describe, json_data
from .context import LOG_LEVELS
from .drift import (
    SHOWN_DIFFERENCES,
    Drift,
    DriftError,
    DriftWarning,
    compare,
    differences,
    judged,
    pointer,
    same_form,
)
from .interactive import CALL_META_KEY
from .results import ToolError
from .spec import ToolSpec

__all__ = [
    "CANCEL",
    "ConnectOptions",
    "Dismissed",
    "Drift",
    "DriftError",
    "DriftWarning",
    "LogHandler",
    "Target",
    "ToolError",
    "ToolsClient",
    "UnexpectedOutput",
    "arguments",
    "connect",
]

# What `connect` takes as the server: a URL, a command, the SDK's stdio parameters, or a server.
Target = str | Sequence[str] | StdioServerParameters | Server[Any] | MCPServer
# Receives each log message the server sends (at `log_level` or above) instead of Python logging.
LogHandler = Callable[[types.LoggingMessageNotificationParams], Awaitable[None] | None]

# A listing longer than this many pages is a server that never stops paginating.
_MAX_PAGES = 1000
# MCP's log levels as Python logging levels (Python has no notice, alert or emergency).
_PYTHON_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}

P = ParamSpec("P")
R = TypeVar("R")
ArgsT = TypeVar("ArgsT", bound=BaseModel)
ClientT = TypeVar("ClientT", bound="ToolsClient")


class ConnectOptions(TypedDict, total=False):
    """The keyword options of `connect`."""

    token: str  # a bearer token for an HTTP URL: sent as `Authorization: Bearer <token>`
    headers: Mapping[str, str]  # more HTTP headers for an HTTP URL
    strict: bool  # refuse to call a tool whose advertised form differs (DriftError)
    log_level: types.LoggingLevel | None  # the least severe server log message wanted; None: none
    on_log: LogHandler  # receives those messages instead of the logger `<package>.client`
    mode: str  # "auto" (default), "legacy" (2025-11-25) or a protocol version ("2026-07-28")
    timeout: float  # seconds to wait for each answer
    on_elicit: ElicitHandler  # answers what a tool asks its user (`elicitations`); else none is
    sampling_callback: SamplingFnT  # the SDK's: answers a tool's `ctx.sample(...)`
    list_roots_callback: ListRootsFnT  # the SDK's: answers a tool's `ctx.list_roots()`


@dataclass(frozen=True)
class Question:
    """What a tool asks its user (`elicitation/create`), as `on_elicit` receives it: a form to fill
    in, or (`url` set, no schema) a page to send the user to (a sign-in, a payment)."""

    message: str
    schema: Mapping[str, Any]  # the requested schema, as sent ({} for a URL)
    form: type[BaseModel] | None  # the package's model of it (`DeployConfirm`), when a tool declares it
    url: str | None = None  # the page a URL-mode question sends the user to


class Dismissed(Enum):
    """The type of `CANCEL`."""

    CANCEL = "cancel"


# `on_elicit`'s answer for a question the user dismissed without choosing (MCP's "cancel"; None
# is an explicit "decline"): the handler gets `CancelledElicitation` and the call goes on.
CANCEL = Dismissed.CANCEL

# `on_elicit` returns the answer: the form model filled in (or any mapping of the fields), or None
# (or False) to decline, or CANCEL; to a URL question, True once the user agreed to go there. It
# may be a plain or an async function.
Answer = BaseModel | Mapping[str, Any] | bool | Dismissed | None
ElicitHandler = Callable[[Question], Answer | Awaitable[Answer]]


class UnexpectedOutput(Exception):
    """A tool's answer does not fit the output type the client was generated with."""


def _text(result: types.CallToolResult) -> str:
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    return "\n".join(texts) or "the tool answered isError without a message"


class ToolsClient:
    """Base of a generated `Client`: the connection, the drift found on connect, the calls."""

    # The package's TOOLS: what the client was generated for.
    _tools: ClassVar[Mapping[str, ToolSpec]] = {}
    # Output types are prepared on a tool's first call.
    _adapters: ClassVar[dict[str, TypeAdapter[Any]]]

    __slots__ = ("_asking", "_drift", "_modern", "_session", "_strict")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._adapters = {}

    def __init__(
        self, session: Client, drift: Drift, *, strict: bool = False, asking: _Asking | None = None
    ) -> None:
        self._session = session
        self._asking = asking
        self._drift = drift
        self._strict = strict
        self._modern = session.protocol_version in MODERN_PROTOCOL_VERSIONS

    @property
    def session(self) -> Client:
        """The SDK's `mcp.Client`, for what the typed methods do not cover (resources, ...)."""
        return self._session

    @property
    def drift(self) -> Drift:
        """How the server's tools differed from this client's on connect (falsy: not at all)."""
        return self._drift

    async def _result(self, name: str, arguments: BaseModel) -> types.CallToolResult:
        """Call tool `name`; an `isError` answer raises `ToolError` with its text."""
        if self._strict and self._drift.affects(name):
            what = self._drift.changed.get(name, ("not listed by the server",))
            raise DriftError(
                f"{name}: not called, the server's tool differs from this client's "
                f"(strict mode): {'; '.join(what)}"
            )
        _no_stray_keywords(name, arguments, self._tools[name].input_schema if name in self._tools else None)
        try:
            sent = json_data(arguments, exclude_unset=True)
        except UnicodeEncodeError:  # (a lone surrogate in a key of a field typed Any: said below)
            sent = arguments.model_dump(by_alias=True, exclude_unset=True)
        _sendable(sent, f"{name}: argument ")
        asking = self._asking
        with asking.calling(name) if asking is not None else contextlib.nullcontext() as call:
            try:
                # Where the SDK cannot say which call a question belongs to (2025-11-25 over stdio
                # or HTTP), the call is tagged: an mcpstub server tags its questions alike.
                tag = {CALL_META_KEY: call.tag} if call is not None and not call.known else None
                meta = cast(types.RequestParamsMeta | None, tag)
                result = await self._session.call_tool(name, sent, meta=meta)
            except RuntimeError as exc:
                if asking is not None:
                    asking.raise_failed(call)
                # The SDK checks structuredContent against the schema the server lists for the tool.
                if "structured content" not in str(exc):
                    raise
                raise UnexpectedOutput(f"{name}: {exc}") from exc
            except Exception as exc:
                if asking is not None:
                    asking.raise_failed(call)
                if _closed(exc):  # the server went away (stopped, killed): the call may have run
                    raise ConnectionError(f"{name}: {_LOST}") from exc
                if name in self._drift.missing and isinstance(exc, MCPError) and exc.code == INVALID_PARAMS:
                    raise _no_such_tool(name, exc.message) from exc
                raise
        if asking is not None:
            asking.raise_failed(call)  # (the question was cancelled: what went wrong answering it)
        if result.is_error:
            said = _text(result)
            if name in self._drift.missing and "unknown tool" in said.lower():
                raise _no_such_tool(name, said)  # (the SDK's MCPServer answers so)
            raise ToolError(said)
        return result

    async def _output(self, name: str, arguments: BaseModel) -> Any:
        """Call tool `name` and return its output, validated into the package's output type."""
        spec = self._tools[name]
        result = await self._result(name, arguments)
        payload = result.structured_content
        sent_null = "structured_content" in result.model_fields_set
        if payload is None and not sent_null:
            raise UnexpectedOutput(f"{name}: the answer carries no structuredContent")
        if spec.wraps_output and not self._modern:
            # 2025-11-25 connections get a non-object output wrapped as {"result": value}.
            if not isinstance(payload, dict) or "result" not in payload:
                raise UnexpectedOutput(f'{name}: the answer is not wrapped as {{"result": ...}}')
            payload = payload["result"]
        adapter = self._adapters.get(name)
        if adapter is None:
            adapter = self._adapters[name] = TypeAdapter(spec.output_type)
        try:
            # By wire names only: a field's Python name is an extra key to the schema.
            return adapter.validate_python(payload, by_alias=True, by_name=False)
        except ValidationError as exc:
            raise UnexpectedOutput(
                f"{name}: the output does not fit {spec.output_class}: "
                + "; ".join(
                    f"{pointer(tuple(map(str, error['loc'])))or '/'} {error['msg']}"
                    for error in exc.errors()[:5]
                )
            ) from exc

    async def _content(self, name: str, arguments: BaseModel) -> list[types.ContentBlock]:
        """Call tool `name` (it has no output schema) and return its content blocks."""
        result = await self._result(name, arguments)
        return list(result.content)


# Keywords by which an input schema may judge (and so take) a property it does not list.
_TAKES_UNLISTED = frozenset(
    {"additionalProperties", "patternProperties", "unevaluatedProperties", "propertyNames", "allOf",
     "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies", "$ref",
     "$dynamicRef"}
)  # fmt: skip


def _no_stray_keywords(tool: str, arguments: BaseModel, schema: Mapping[str, Any] | None) -> None:
    """Refuse a keyword argument that is no field of a tool whose input lists its properties and
    nothing more: sent, it would be a key of its own the open object takes silently (a misspelled
    optional argument, `severty=`). Where the schema may take others (a `oneOf` of property sets,
    typed `additionalProperties`, ...), they are sent for it to judge."""
    extra = list(arguments.model_extra or ())
    if not extra or schema is None or _TAKES_UNLISTED & schema.keys():
        return
    import difflib  # only for the message

    close = difflib.get_close_matches(extra[0], list(type(arguments).model_fields), n=1)
    meant = f" (did you mean {close[0]!r}?)" if close else ""
    raise TypeError(f"{tool}: unexpected keyword argument {extra[0]!r}{meant}: its input lists no such one")


def _no_such_tool(name: str, said: str) -> DriftError:
    """A call of a tool the server did not list on connect, which it refused."""
    return DriftError(
        f"{name}: the server did not list this tool on connect, and refused the call ({said}): it "
        "serves other tools than this client was generated for; restart it with the package this "
        "client belongs to, or generate the client from the server's"
    )


def arguments(
    model: Callable[P, ArgsT],
) -> Callable[
    [Callable[[ClientT, ArgsT], Awaitable[R]]], Callable[Concatenate[ClientT, P], Awaitable[R]]
]:
    """Make a method that takes the input model take its fields as keyword arguments instead.

    Type checkers read the keywords, their types and defaults from the model's constructor.
    """

    declared = cast(type[BaseModel], model).model_fields

    def decorate(
        method: Callable[[ClientT, ArgsT], Awaitable[R]],
    ) -> Callable[Concatenate[ClientT, P], Awaitable[R]]:
        async def call(self: ClientT, /, *args: P.args, **kwargs: P.kwargs) -> R:
            return await method(self, model(*args, **kwargs))

        call.__name__ = method.__name__
        call.__qualname__ = method.__qualname__
        call.__doc__ = method.__doc__
        call.__module__ = method.__module__
        fields = [  # (the model's own signature is `**data` until pydantic builds it)
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty
                if field.is_required()
                else field.get_default(call_default_factory=True),
                annotation=field.annotation,
            )
            for name, field in declared.items()
        ]
        # (positional only, so a field named `self` is a keyword all the same)
        own = "self" if "self" not in declared else "client"
        self_parameter = inspect.Parameter(own, inspect.Parameter.POSITIONAL_ONLY)
        call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [self_parameter, *fields],
            return_annotation=inspect.signature(method).return_annotation,
        )
        return call

    return decorate


def _sink(
    logger: str, level: types.LoggingLevel | None, on_log: LogHandler | None
) -> LoggingFnT:
    """Where the server's log messages go: `on_log`, else the Python logger `logger`."""
    least = None if level is None else LOG_LEVELS.index(level)

    async def receive(params: types.LoggingMessageNotificationParams) -> None:
        if least is None or LOG_LEVELS.index(params.level) < least:
            return
        if on_log is not None:
            pending = on_log(params)
            if pending is not None:
                await pending
            return
        data = params.data
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        if params.logger:
            text = f"{params.logger}: {text}"
        logging.getLogger(logger).log(
            _PYTHON_LEVELS[params.level],
            "%s",
            text,
            extra={"mcp_level": params.level, "mcp_logger": params.logger},
        )

    return receive


async def _transport(
    target: Target,
    token: str | None,
    headers: Mapping[str, str] | None,
    stack: AsyncExitStack,
    refusals: list[int | str],
) -> Any:
    """What `mcp.Client` takes for `target`; an HTTP client is entered on `stack`, and the status
    of each HTTP answer that refuses access (401, 403) is added to `refusals`, of any other error
    its status and reason as text."""
    if isinstance(target, str):
        scheme, separator, _ = target.partition("://")
        if not separator or scheme.lower() not in {"http", "https"}:
            raise ValueError(
                f"connect() takes an http(s) URL as a string, not {target[:80]!r}: give a "
                "command as a list of arguments, e.g. ['python', '-m', 'my_tools']"
            )
        sent = dict(headers or {})
        if token is not None:
            if not token:
                raise ValueError("token is empty: give the bearer token, or leave token out")
            if not all("!" <= c <= "~" for c in token):
                raise ValueError("token must be printable ASCII without spaces (a bearer token)")
            sent["Authorization"] = f"Bearer {token}"
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        async def note_refusal(response: Any) -> None:
            if response.status_code in {401, 403}:
                refusals.append(response.status_code)
            elif response.status_code >= 400:  # (said, where connecting fails as the SDK's bare error)
                refusals.append(f"{response.status_code} {response.reason_phrase}".strip())

        http = await stack.enter_async_context(create_mcp_http_client(headers=sent))
        http.event_hooks = {"response": [note_refusal]}
        # An answer of any size, as over stdio (the SDK's default refuses an SSE event past 1 MiB,
        # which a large output or any answer after a progress note is, as a lost connection).
        return streamable_http_client(target, http_client=http, max_sse_event_size=None)
    if token is not None or headers is not None:
        raise TypeError("token and headers apply to an http(s) URL target only")
    if isinstance(target, Server | MCPServer | StdioServerParameters):
        return target
    if (
        isinstance(target, Sequence)
        and target
        and all(isinstance(part, str) for part in target)
    ):
        # The SDK's default environment, and the Python path this process was given: a server
        # command of a package found only on it (a src layout, a test) must find it too.
        python_path = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else None
        return StdioServerParameters(command=target[0], args=list(target[1:]), env=python_path)
    raise TypeError(
        "connect() takes an http(s) URL, a command (a list of arguments, or "
        "StdioServerParameters) or a server object (mcp.server.Server, MCPServer), not "
        f"{type(target).__name__}"
    )


async def listing_page(
    session: Any, request: types.ListToolsRequest, raw: TypeAdapter[Any]
) -> dict[str, Any]:
    """One page of tools/list as the server sent it, also where the SDK refuses it (a tool with
    `inputSchema: {}`): then it is read without the SDK's check, for what reads it to judge."""
    try:
        page: dict[str, Any] = await session.send_request(request, raw)
        return page
    except ValidationError:
        send = getattr(getattr(session, "_dispatcher", None), "send_raw_request", None)
        if send is None:  # (an SDK without the raw path: its refusal stands)
            raise
        data = request.model_dump(by_alias=True, mode="json", exclude_none=True)
        found = await send(data["method"], data.get("params"), {})
        return found if isinstance(found, dict) else {}


async def _listing(session: Client) -> list[dict[str, Any]]:
    """Every tool object of the server's tools/list, as sent (the SDK's models drop keys)."""
    raw = TypeAdapter(dict[str, Any])
    tools: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        page = await listing_page(session.session, types.ListToolsRequest(params=params), raw)
        listed = page.get("tools")
        if isinstance(listed, list):
            tools.extend(tool for tool in listed if isinstance(tool, dict))
        cursor = page.get("nextCursor")
        if not isinstance(cursor, str):
            return tools
    raise RuntimeError(f"tools/list has more than {_MAX_PAGES} pages")


@asynccontextmanager
async def _connected(
    client_class: type[ClientT],
    target: Target,
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    strict: bool = False,
    log_level: types.LoggingLevel | None = "info",
    on_log: LogHandler | None = None,
    mode: str = "auto",
    timeout: float | None = None,
    on_elicit: ElicitHandler | None = None,
    sampling_callback: SamplingFnT | None = None,
    list_roots_callback: ListRootsFnT | None = None,
) -> AsyncIterator[ClientT]:
    if log_level is not None and log_level not in LOG_LEVELS:
        raise ValueError(f"log_level must be one of {', '.join(LOG_LEVELS)} or None")
    package = client_class.__module__.rpartition(".")[0] or client_class.__module__
    raised: list[BaseException] = []
    refusals: list[int | str] = []
    connected = False
    try:
        async with AsyncExitStack() as stack:
            transport = await _transport(target, token, headers, stack, refusals)
            asking = None if on_elicit is None else _Asking(client_class._tools, on_elicit, package, strict)
            session = Client(
                transport,
                mode=mode,
                read_timeout_seconds=timeout,
                logging_callback=_sink(f"{package}.client", log_level, on_log),
                log_level=log_level,
                elicitation_callback=asking,
                sampling_callback=sampling_callback,
                list_roots_callback=list_roots_callback,
            )
            await stack.enter_async_context(session)
            modern = session.protocol_version in MODERN_PROTOCOL_VERSIONS
            if asking is not None:
                # Questions are answered in the asking call's own task (its context) on 2026-07-28,
                # and in memory; on 2025-11-25 over a transport, in the connection's reader.
                asking.contexts_kept = modern or isinstance(target, Server | MCPServer)
            if not modern and session.server_capabilities.logging is not None:
                # 2025-11-25: the connection's level is set once (the least is "emergency").
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await session.session.set_logging_level(log_level or "emergency")
            drift = compare(client_class._tools, await _listing(session), modern=modern)
            if drift:
                info = session.server_info
                server = f"the server {info.name!r}" if info is not None else "the server"
                warnings.warn(
                    DriftWarning(
                        f"{package}: {server} advertises tools that differ from those this client "
                        f"was generated for:\n{drift.describe()}\nTo follow the server, generate the "
                        "client again from its tools (mcpstub import, then mcpstub generate); if the "
                        "toolset of this client is the contract, the server is behind it."
                    ),
                    stacklevel=3,
                )
            connected = True
            try:
                yield client_class(session, drift, strict=strict, asking=asking)
            except BaseException as exc:
                raised.append(exc)
                raise
    except Exception as exc:
        if raised and raised[0] is exc:
            raise
        if raised and isinstance(exc, ExceptionGroup) and _only(exc, raised[0]):
            # The SDK's task groups wrap what the caller's block raised: it is given back as
            # raised, so that `except ToolError:` around the block catches it.
            raise raised[0] from None
        if not connected and refusals and isinstance(refusals[-1], int):
            raise PermissionError(_refused(target, refusals[-1], token is not None)) from exc
        if not connected and refusals and not _not_found(exc):  # (a 404 is said below)
            raise ConnectionError(
                f"{target}: answered HTTP {refusals[-1]}, not as an MCP server answers; a generated "
                "package serves MCP at /mcp"
            ) from exc
        if not connected and _closed(exc) and (command := _command(target)) is not None:
            raise ConnectionError(
                f"the server command {shlex.join(command)} ended before it answered: its error"
                " output (above, unless redirected) says why"
            ) from None
        if not connected and isinstance(target, str) and (why := _unreachable(exc)) is not None:
            raise ConnectionError(f"{target}: no MCP server answers there ({why})") from exc
        if not connected and isinstance(target, str) and _not_found(exc):
            raise ConnectionError(
                f"{target}: nothing serves MCP at this path (HTTP 404 Not Found); a generated package"
                " serves it at /mcp"
            ) from exc
        if not connected and _command(target) and (why := _not_started(exc)):
            raise ConnectionError(f"the server command {_named(target)} cannot be started: {why}") from exc
        if connected and (_unreachable(exc) is not None or _closed(exc)):
            raise ConnectionError(f"{_named(target)}: {_LOST}") from exc
        if not connected and isinstance(exc, ExceptionGroup) and len(_leaves(exc)) == 1:
            raise _leaves(exc)[0] from None  # why connecting failed, not the task group's wrapper
        raise
    except BaseExceptionGroup as group:  # (past `Exception`: a group holding a BaseException)
        if raised and _only(group, raised[0]):
            raise raised[0] from None  # a KeyboardInterrupt or SystemExit the caller's block raised
        raise


@dataclass(eq=False)
class _Call:
    """One call of the typed client in flight: its tool, and what went wrong answering its questions."""

    tool: str
    failed: list[BaseException] = field(default_factory=list)
    known: bool = True  # whether its questions come in its own context (else: by its tag)
    tag: str = field(default_factory=lambda: uuid.uuid4().hex)


# The call the running task makes. The SDK runs a question's callback in the context of the call
# that asked: on 2026-07-28 its driver answers within the call; on 2025-11-25 in memory, the
# server's request carries the caller's context. Over stdio or HTTP on 2025-11-25 it does not.
_CALLING: ContextVar[_Call | None] = ContextVar("mcpstub_calling", default=None)


class _Asking:
    """`on_elicit` as the SDK's elicitation callback: each form-mode question with the package's
    model of it, the answer checked against the requested schema before it is sent. What goes
    wrong (`on_elicit` raised, or answered what the form refuses) cancels the question, and the
    call that asked raises it. A URL-mode request is a `Question` with its `url`."""

    def __init__(
        self, tools: Mapping[str, ToolSpec], on_elicit: ElicitHandler, package: str = "", strict: bool = False
    ) -> None:
        self.on_elicit, self.package, self.strict = on_elicit, package, strict
        self.warned: set[str] = set()  # the unknown forms warned of, by tool and schema
        self.calls: list[_Call] = []  # the calls in flight, first started first
        self.contexts_kept = False  # whether a question is answered in the asking call's context
        # What went wrong answering a question no call could be told from (2025-11-25 over stdio
        # or HTTP, several calls that could have asked it in flight): raised by the first of them
        # to end.
        self.stray: list[tuple[BaseException, list[_Call]]] = []
        # Each declared form: the tool that asks it, its key, its requested schema, its model.
        self.forms = [
            (name, elicitation.key, elicitation.schema, model)
            for name, spec in tools.items()
            for model, elicitation in spec.forms.items()
        ]
        self.asking_tools = {name for name, _, _, _ in self.forms}

    @contextlib.contextmanager
    def calling(self, tool: str) -> Iterator[_Call]:
        """A call of `tool` in flight for the block: what its questions are tied to."""
        call = _Call(tool, known=self.contexts_kept)
        self.calls.append(call)
        token = _CALLING.set(call)
        try:
            yield call
        finally:
            _CALLING.reset(token)
            self.calls.remove(call)

    def asker(self, schema: Mapping[str, Any] | None, meta: Mapping[str, Any] | None = None) -> _Call | None:
        """The call that asked the question being answered (of `schema`; None: a URL), when it can
        be told: None for one no typed call asked (`client.session.call_tool`), or, where the
        context is not kept and the server does not tag questions with their call (`meta`), when
        several calls that could have asked it are in flight."""
        call = _CALLING.get()
        if call is not None and call in self.calls:
            return call
        if self.contexts_kept:
            return None
        if meta is not None and CALL_META_KEY in meta:  # (a raw call's question: tagged "")
            return next((call for call in self.calls if call.tag == meta[CALL_META_KEY]), None)
        able = self.could_ask(schema)
        return able[0] if len(able) == 1 else None

    def could_ask(self, schema: Mapping[str, Any] | None) -> list[_Call]:
        """The calls in flight that could have asked a question (where the context is not kept):
        of a form, those of tools declaring one like it, else those of tools declaring any (none:
        a raw call's, or a tool's this client knows asks none); of a URL, every one."""
        if schema is None:
            return list(self.calls)
        like = {name for name, _, asked, _ in self.forms if same_form(asked, schema)}
        for tools in (like, self.asking_tools):
            able = [call for call in self.calls if call.tool in tools]
            if able:
                return able
        return []

    def form(self, schema: Mapping[str, Any], asker: _Call | None = None) -> type[BaseModel] | None:
        """The model of the form: the asking call's tool's (None where it declares none like it),
        or, where the asking call is not known, of a call in flight, else of any tool. Forms that
        differ only in what judges no answer (titles, descriptions, defaults, order) are one."""
        declared = [(name, m) for name, _, asked, m in self.forms if same_form(asked, schema)]
        if asker is not None:
            return next((m for name, m in declared if name == asker.tool), None)
        if not declared:
            return None
        calling = [call.tool for call in self.calls]
        return next((m for name, m in declared if name in calling), declared[0][1])

    def unknown_form(self, schema: Mapping[str, Any], asker: _Call | None) -> DriftError | None:
        """A form the asking call's tool declares none like: warned of once (`DriftWarning`), where
        the differences from the tool's closest form are said; the error a strict client raises."""
        if asker is None:
            return None
        own = [(key, asked) for name, key, asked, _ in self.forms if name == asker.tool]
        now = judged(schema, ordered=False)  # (pointers as the schemas are written)
        each = [list(differences(judged(asked, False), now, (f"elicitations/{k}",))) for k, asked in own]
        closest = min(each, key=len) if each else []
        shown = "; ".join(closest[:SHOWN_DIFFERENCES])
        more = len(closest) - SHOWN_DIFFERENCES
        said = (
            f"{self.package}: the server's tool {asker.tool!r} asks a form that differs from those this "
            f"client was generated for: {shown}" + (f"; and {more} more" if more > 0 else "")
            if own
            else f"{self.package}: the server's tool {asker.tool!r} asks a form, and this client was "
            "generated for a tool that asks none"
        )
        if self.strict:
            return DriftError(f"{said}; a strict client answers no such question (cancelled)")
        seen = f"{asker.tool}\0{json.dumps(schema, sort_keys=True, default=str)}"
        if seen not in self.warned:
            self.warned.add(seen)
            warnings.warn(
                DriftWarning(
                    f"{said}\non_elicit gets it with form None. To follow the server, generate the "
                    "client again from the server's surface.json (mcpstub import, then mcpstub generate): "
                    "a live server's tools/list shows no forms."
                ),
                stacklevel=2,
            )
        return None

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        form = params.requested_schema if isinstance(params, types.ElicitRequestFormParams) else None
        asker = self.asker(form, params.meta)
        if asker is not None and asker.failed:  # the call failed already: its user is not asked again
            if self.contexts_kept:  # (a handler asking anew each round): the call ends, raising it
                raise RuntimeError("an earlier question of this call failed")
            return types.ElicitResult(action="cancel")
        if isinstance(params, types.ElicitRequestFormParams):
            schema = params.requested_schema
            question = Question(params.message, schema, self.form(schema, asker))
        else:
            question = Question(params.message, {}, None, url=params.url)
        try:
            if question.url is None and question.form is None:
                refused = self.unknown_form(question.schema, asker)
                if refused is not None:
                    raise refused
            given = self.on_elicit(question)
            answered = await given if inspect.isawaitable(given) else given
            if answered is CANCEL:
                return types.ElicitResult(action="cancel")
            content = _content(question, answered)
        except Exception as exc:
            asked = question.schema if question.url is None else None
            known = self.contexts_kept or CALL_META_KEY in (params.meta or {})  # (no typed call asked it)
            able = [asker] if asker is not None else [] if known else self.could_ask(asked)
            if not able:  # a question of a raw call (`client.session`), no typed call in flight:
                raise  # the SDK answers it with an error, and that call fails
            if asker is not None:
                asker.failed.append(exc)
            else:
                self.stray.append((exc, able))
            return types.ElicitResult(action="cancel")
        if content is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=content if question.url is None else None)

    def raise_failed(self, call: _Call | None) -> None:
        """Raise what went wrong answering a question of `call`, now ending, if anything did."""
        if call is not None and call.failed:
            raise call.failed.pop(0)
        for index, (failed, able) in enumerate(self.stray):
            if call in able:
                del self.stray[index]
                raise failed


def _content(question: Question, answered: object) -> dict[str, Any] | None:
    """The answer as it goes on the wire (its fields by their wire names), checked against the
    form; None to decline. To a URL question: {} to accept (True), None to decline (None, False)."""
    if question.url is not None:
        if answered is None or isinstance(answered, bool):
            return {} if answered else None
        raise TypeError(
            f"on_elicit returned {type(answered).__name__} for the URL question {question.message!r}: "
            "return True once the user agreed to open the page, None to decline, or CANCEL"
        )
    if answered is None or answered is False:
        return None
    if isinstance(answered, BaseModel):
        content = answered.model_dump(mode="json", by_alias=True, exclude_none=True)
    elif isinstance(answered, Mapping):
        content = dict(answered)
    else:
        raise TypeError(
            f"on_elicit returned {type(answered).__name__} for {question.message!r}: return the "
            "form's model filled in, a mapping of its fields, None to decline, or CANCEL"
        )
    for key, value in content.items():
        # What an elicitation answer may carry (MCP): a string, a number, a boolean, or a list of
        # strings (a multi-select); the SDK refuses anything else once the answer is built.
        primitive = value is None or isinstance(value, str | int | float | bool)
        if not primitive and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise ValueError(
                f"on_elicit's answer to {question.message!r} gives {key!r} a {type(value).__name__}: an "
                "answer's values are strings, numbers, booleans or lists of strings"
            )
    _sendable(content, f"on_elicit's answer to {question.message!r} gives ")
    wire = _python_names(question.form)
    for key in content:
        if key in wire and key not in question.schema.get("properties", {}):
            raise ValueError(
                f"on_elicit's answer to {question.message!r} gives {key!r}, the Python name of the "
                f"form's field {wire[key]!r}: give it by its wire name, or return the model filled in"
            )
    checker = jsonschema_rs.Draft202012Validator(dict(question.schema), validate_formats=True, offline=True)
    if not checker.is_valid(content):
        raise ValueError(
            f"on_elicit's answer to {question.message!r} does not fit its form:\n"
            + describe(checker.iter_errors(content))
        )
    return content


def _sendable(value: Any, said: str, path: str = "") -> None:
    """Raise ValueError (`said`, then where) for what JSON cannot carry: text `_text.clean` would
    change (a lone surrogate, as a file name read with surrogateescape holds: sent anyway, it would
    end the whole connection; the server replaces it, the client says so instead), and a NaN or
    an infinity (which the SDK would send as null)."""
    if isinstance(value, str):
        if clean(value) != value:
            raise ValueError(
                f"{said}{path.lstrip('/') or 'text'!r} {value!r}: a lone surrogate has no UTF-8 form, "
                "and JSON text cannot carry it (decode the bytes it came from, or replace it)"
            )
    elif isinstance(value, float) and not math.isfinite(value):  # (sent, it would arrive as null)
        raise ValueError(f"{said}{path.lstrip('/') or 'value'!r} {value!r}: JSON has no NaN or infinity")
    elif isinstance(value, dict):
        for key, item in value.items():
            _sendable(key, said, path)
            _sendable(item, said, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _sendable(item, said, f"{path}/{index}")


def _python_names(form: type[BaseModel] | None) -> dict[str, str]:
    """Each field of `form` whose Python name is not its wire name: Python name -> wire name."""
    if form is None:
        return {}
    names = {name: field.alias for name, field in form.model_fields.items()}
    return {name: alias for name, alias in names.items() if alias is not None and alias != name}


def _refused(target: Target, status: int, token_given: bool) -> str:
    """What to tell the caller the server refused, and what to do about it."""
    parts = urlsplit(str(target))
    url = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
    if status == 403:
        return f"{url} answered 403 Forbidden: the token does not grant access to the MCP endpoint"
    if token_given:
        return f"{url} answered 401 Unauthorized: the server refused the bearer token given"
    return (
        f"{url} answered 401 Unauthorized: the server requires a bearer token; "
        "pass connect(url, token=...)"
    )


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    return [
        leaf
        for inner in group.exceptions
        for leaf in (_leaves(inner) if isinstance(inner, BaseExceptionGroup) else [inner])
    ]


def _command(target: Target) -> list[str] | None:
    """The command line a stdio target starts, or None for another target."""
    if isinstance(target, StdioServerParameters):
        return [target.command, *target.args]
    if isinstance(target, Sequence) and not isinstance(target, str):
        return [str(word) for word in target]
    return None


_LOST = "the connection to the server was lost: a call in flight may have run all the same"


def _named(target: Target) -> str:
    """The target as a message names it: the command line, or the URL."""
    command = _command(target)
    return shlex.join(command) if command is not None else str(target)


def _not_started(error: BaseException) -> str | None:
    """Why the command to start is not there or may not run, when that is what `error` says."""
    leaves = _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    if len(leaves) != 1 or not isinstance(leaves[0], FileNotFoundError | PermissionError):
        return None
    missing = leaves[0]  # (the command, or the folder it is started in)
    return f"{missing.strerror}: {missing.filename}" if missing.filename else missing.strerror or str(missing)


def _closed(error: BaseException) -> bool:
    """Whether `error` (or all that a group holds) is the SDK's "Connection closed"."""
    leaves = _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    return bool(leaves) and all(
        isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED for leaf in leaves
    )


def _unreachable(error: BaseException) -> str | None:
    """Why no HTTP connection could be made, when that is what `error` (or a group) says: the
    HTTP client's transport error (refused, no such host, timed out), by its class's lineage."""
    leaves = _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    for leaf in leaves:
        if any(cls.__name__ == "TransportError" for cls in type(leaf).__mro__):
            return str(leaf) or type(leaf).__name__
    return None


def _not_found(error: BaseException) -> bool:
    """Whether connecting was answered 404 (the SDK's client says it as an error "Not Found")."""
    leaves = _leaves(error) if isinstance(error, BaseExceptionGroup) else [error]
    return any(isinstance(leaf, MCPError) and str(leaf.error.message) == "Not Found" for leaf in leaves)


def _only(group: BaseExceptionGroup[BaseException], error: BaseException) -> bool:
    """True when `group` holds `error` and nothing else (at any depth)."""
    return all(
        _only(inner, error) if isinstance(inner, BaseExceptionGroup) else inner is error
        for inner in group.exceptions
    )


def connect(
    client_class: type[ClientT], target: Target, **options: Unpack[ConnectOptions]
) -> AbstractAsyncContextManager[ClientT]:
    """Connect `client_class` (a generated `Client`) to `target`; use with `async with`."""
    return _connected(client_class, target, **options)
