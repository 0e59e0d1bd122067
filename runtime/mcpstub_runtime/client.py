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
  of the form), its answer checked against the form before it is sent (`asking.py`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import logging
import os
import shlex
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any, ClassVar, Concatenate, ParamSpec, TypedDict, TypeVar, Unpack, cast
from urllib.parse import urlsplit, urlunsplit

import jsonschema_rs
from mcp import Client, StdioServerParameters, types
from mcp.client.session import ListRootsFnT, LoggingFnT, SamplingFnT
from mcp.server import Server
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types import CONNECTION_CLOSED, INVALID_PARAMS, INVALID_REQUEST, MISSING_REQUIRED_CLIENT_CAPABILITY
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, TypeAdapter, ValidationError

from ._text import describe, json_data
from .asking import CANCEL, Dismissed, ElicitHandler, Question, _Asking, _sendable, checked_answers
from .context import LOG_LEVELS
from .drift import (
    Drift,
    DriftError,
    DriftWarning,
    compare,
    pointer,
)
from .interactive import CALL_META_KEY, CANNOT_ASK_SAID
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
    "Question",
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

    __slots__ = (
        "_answered", "_asking", "_checkers", "_drift", "_listed", "_modern", "_refused", "_session",
        "_strict",
    )  # fmt: skip

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._adapters = {}

    def __init__(
        self,
        session: Client,
        drift: Drift,
        *,
        strict: bool = False,
        asking: _Asking | None = None,
        refused: list[int | str] | None = None,
        listed: Mapping[str, Any] | None = None,
        answered: frozenset[str] = frozenset(),
    ) -> None:
        self._session = session
        self._answered = answered  # the arguments of `connect` given that answer a tool's questions
        self._listed = dict(listed or {})  # each tool's outputSchema as the server listed it on connect
        self._checkers: dict[str, tuple[Any, jsonschema_rs.Validator]] = {}
        self._asking = asking
        self._drift = drift
        self._strict = strict
        self._refused = refused if refused is not None else []  # HTTP errors answered, as they come
        self._modern = session.protocol_version in MODERN_PROTOCOL_VERSIONS
        # The SDK checks structuredContent again with Python's `jsonschema`, whose patterns are
        # Python's: `\p{Lu}` or `(?<y>...)` failed every call, `\s` refused U+FEFF. The tools
        # listed on connect are checked as a server checks them (ECMA-262 patterns).
        inner = session.session
        checked = functools.partial(_check_output, self, inner.validate_tool_result)
        inner.validate_tool_result = checked  # type: ignore[method-assign]

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
        # (judged as Python holds them: pydantic's JSON dump replaces a lone surrogate in a key)
        _sendable(arguments.model_dump(by_alias=True, exclude_unset=True), f"{name}: argument ")
        sent = json_data(arguments, exclude_unset=True)
        asking, refused = self._asking, len(self._refused)
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
                if isinstance(exc, MCPError) and len(self._refused) > refused and _from_http(exc):
                    raise MCPError(exc.code, _http_error(name, exc.message, self._refused[-1])) from exc
                if isinstance(exc, MCPError) and exc.code == MISSING_REQUIRED_CLIENT_CAPABILITY:
                    said = _declared_by(exc.message, self._answered, exc.data)
                    raise MCPError(exc.code, said, exc.data) from exc
                raise
        if asking is not None:
            asking.raise_failed(call)  # (the question was cancelled: what went wrong answering it)
        if result.is_error:
            said = _text(result)
            if name in self._drift.missing and "unknown tool" in said.lower():
                raise _no_such_tool(name, said)  # (the SDK's MCPServer answers so)
            raise ToolError(_declared_by(said, self._answered))
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
     "$dynamicRef", "dependentRequired", "enum", "const", "minProperties"}
)  # fmt: skip


async def _check_output(
    client: ToolsClient,
    sdk_check: Callable[[str, types.CallToolResult], Awaitable[None]],
    name: str,
    result: types.CallToolResult,
) -> None:
    """Check a result's structuredContent against the output schema the server listed for the tool
    (on connect, or as the SDK last listed it), as the SDK does, but as a server's validator reads
    it (ECMA-262 patterns; formats unasserted, as by the SDK); as the SDK does where the tool was
    not listed or its schema is of a dialect the validator does not know."""
    relisted: Mapping[str, Any] = getattr(client._session.session, "_tool_output_schemas", None) or {}
    if name in relisted:
        schema = relisted[name]
    elif name in client._listed and not relisted:
        schema = client._listed[name]
    else:  # (not listed, or not in the listing the session made since)
        return await sdk_check(name, result)
    if schema is None:
        return None
    if result.structured_content is None and "structured_content" not in result.model_fields_set:
        raise RuntimeError(f"Tool {name} has an output schema but did not return structured content")
    cached = client._checkers.get(name)
    if cached is None or cached[0] is not schema:  # (a listing since, with another schema)
        try:
            cached = (schema, jsonschema_rs.validator_for(schema, validate_formats=False, offline=True))
        except (ValueError, jsonschema_rs.ValidationError) as exc:
            if str(exc).startswith("Unknown meta-schema"):  # (draft-03, a dialect of its own)
                return await sdk_check(name, result)
            raise RuntimeError(f"Invalid schema for tool {name}: {exc}") from None
        client._checkers[name] = cached
    checker = cached[1]
    if not checker.is_valid(result.structured_content):
        said = describe(checker.iter_errors(result.structured_content))
        raise RuntimeError(f"Invalid structured content returned by tool {name}:\n{said}")
    return None


def _no_stray_keywords(tool: str, arguments: BaseModel, schema: Mapping[str, Any] | None) -> None:
    """Refuse a keyword argument that is no field of a tool whose input lists its properties and
    nothing more: sent, it would be a key of its own the open object takes silently (a misspelled
    optional argument, `severty=`). Where the schema may take others (a `oneOf` of property sets,
    typed `additionalProperties`, ...), they are sent for it to judge."""
    extra = list(arguments.model_extra or ())
    if not extra or schema is None or "properties" not in schema or _TAKES_UNLISTED & schema.keys():
        return  # (`{type: object}` alone lists none: any key is the tool's)
    required = schema.get("required")
    named: list[Any] = required if isinstance(required, list) else []
    extra = [key for key in extra if key not in named]  # (required, yet unlisted: a key it takes)
    if extra:
        raise _StrayKeyword(tool, extra[0], type(arguments).model_fields)


class _StrayKeyword(TypeError):
    """A keyword argument that is no field of the input (raised before anything is sent); the
    typed method raises it as Python's own TypeError, by its name (`_unexpected`)."""

    def __init__(self, called: str, keyword: str, fields: Iterable[str]) -> None:
        super().__init__(_unexpected(called, keyword, fields))
        self.keyword, self.fields = keyword, fields


def _unexpected(called: str, keyword: str, fields: Iterable[str]) -> str:
    import difflib  # only for the message

    close = difflib.get_close_matches(keyword, list(fields), n=1)
    meant = f" (did you mean {close[0]!r}?)" if close else ""
    return f"{called}: unexpected keyword argument {keyword!r}{meant}: its input lists no such one"


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
    # A closed input's model refuses another keyword too, as a validation error among the others:
    # a keyword that is no field is said as Python says it, with the field it is close to.
    closed = cast(type[BaseModel], model).model_config.get("extra") == "forbid"
    taken = {*declared, *(field.alias for field in declared.values() if field.alias)}

    def decorate(
        method: Callable[[ClientT, ArgsT], Awaitable[R]],
    ) -> Callable[Concatenate[ClientT, P], Awaitable[R]]:
        async def call(self: ClientT, /, *args: P.args, **kwargs: P.kwargs) -> R:
            if closed and (stray := [key for key in kwargs if key not in taken]):
                raise TypeError(_unexpected(method.__name__, stray[0], declared))
            try:
                return await method(self, model(*args, **kwargs))
            except _StrayKeyword as refused:  # (an open input's: said by the method's name too)
                said = _unexpected(method.__name__, refused.keyword, refused.fields)
                raise TypeError(said) from None  # (Python's own type: no private name shown)

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
        own = "self"
        while own in declared:
            own += "_"
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
            elif response.status_code >= 400 and response.request.method == "POST":  # (a GET may be 405)
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
            given = {"on_elicit": on_elicit, "sampling_callback": sampling_callback,
                     "list_roots_callback": list_roots_callback}  # fmt: skip
            answered = frozenset(keyword for keyword, value in given.items() if value is not None)
            asking = None if on_elicit is None else _Asking(client_class._tools, on_elicit, package, strict)
            sampling_callback, list_roots_callback = checked_answers(sampling_callback, list_roots_callback)
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
            listed = await _listing(session)
            drift = compare(client_class._tools, listed, modern=modern)
            outputs = {str(tool.get("name")): tool.get("outputSchema") for tool in listed}
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
                yield client_class(
                    session, drift, strict=strict, asking=asking, refused=refusals, listed=outputs,
                    answered=answered,
                )  # fmt: skip
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
                f"{_named(target)}: answered HTTP {refusals[-1]}, not as an MCP server answers; a generated "
                "package serves MCP at /mcp"
            ) from exc
        if not connected and _closed(exc) and (command := _command(target)) is not None:
            raise ConnectionError(
                f"the server command {shlex.join(command)} ended before it answered: its error"
                " output (above, unless redirected) says why"
            ) from None
        if not connected and isinstance(target, str) and (why := _unreachable(exc)) is not None:
            raise ConnectionError(f"{_named(target)}: no MCP server answers there ({why})") from exc
        if not connected and isinstance(target, str) and _not_found(exc):
            raise ConnectionError(
                f"{_named(target)}: nothing serves MCP at this path (HTTP 404 Not Found); a generated package"
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


# What a client passes to `connect` to declare each capability a tool may ask it for.
_DECLARED_BY = {"elicitation": "on_elicit", "sampling": "sampling_callback", "roots": "list_roots_callback"}


def _declared_by(said: str, answered: frozenset[str], data: Any = None) -> str:
    """`said`, and which argument of `connect` (none of `answered`, those given) declares the
    capabilities it says the client lacks: a 2026-07-28 error's `requiredCapabilities`, or an mcpstub
    server's refusal on 2025-11-25 (not a handler's own words)."""
    needed = data.get("requiredCapabilities") if isinstance(data, dict) else None
    if not isinstance(needed, dict):
        refusal = CANNOT_ASK_SAID.fullmatch(said)
        needed = {refusal[1].partition(" ")[0]: {}} if refusal is not None else {}
    lacking = [k for capability, k in _DECLARED_BY.items() if capability in needed and k not in answered]
    if not lacking:
        return said
    return f"{said}; connect({', '.join(f'{k}=...' for k in lacking)}) declares it"


def _from_http(error: MCPError) -> bool:
    """Whether `error` is what the SDK makes of an HTTP error answering a request (not a timeout, nor
    a JSON-RPC error of the server's own, which another call's HTTP error must not be taken for)."""
    return error.message in ("Server returned an error response", "Session terminated") or (
        error.code == INVALID_REQUEST and "session" in error.message.lower()  # (an SDK server's 404)
    )


def _http_error(name: str, said: str, status: int | str) -> str:
    """What to say of a call the server answered with an HTTP error (`said`: the SDK's stand-in)."""
    if said == "Session terminated" or str(status).startswith("404"):
        return f"{name}: the server no longer knows this connection's session (HTTP 404): connect again"
    shown = status if isinstance(status, str) else {401: "401 Unauthorized"}.get(status, "403 Forbidden")
    too_large = (
        ": the request is larger than the server takes (its --max-body-bytes): its arguments, or on "
        "2026-07-28 the answers to what the tool asked and the state the server sealed with them"
    )
    why = too_large if shown.startswith("413") else ""
    return f"{name}: the server answered the call HTTP {shown}{why}"


def _refused(target: Target, status: int, token_given: bool) -> str:
    """What to tell the caller the server refused, and what to do about it."""
    url = _named(target)
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
    if command is not None:
        return shlex.join(command)
    parts = urlsplit(str(target))  # (a URL's user and password stay unsaid)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2])) if parts.netloc else str(target)


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
