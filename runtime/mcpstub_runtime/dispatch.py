"""create_server(): the MCP low-level Server with dispatch, validation and error handling.

Arguments are checked against each tool's advertised inputSchema and outputs against its
outputSchema (jsonschema-rs validators compiled once per tool, on its first call), so whatever a
schema allows is accepted and whatever it forbids is refused. tools/list and tools/call answer
each connection in its protocol generation's form: a non-object output goes out as it is on
2026-07-28 and as `{"result": value}` on 2025-11-25, and Tool objects go out as written (extension
keys included), not re-parsed by the SDK's models. Handler modules are imported on a tool's first
call, so a broken handler fails only its own tool (logged with its traceback, under the logger
`<package>.server`).
"""

from __future__ import annotations

import asyncio
import difflib
import importlib
import inspect
import logging
import os
import warnings
import weakref
from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Any, cast

import anyio
import anyio.lowlevel
import anyio.to_thread
import jsonschema_rs
from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticSerializationError, to_json

from ._text import (
    NOT_TEXT,
    clean,
    clean_json,
    describe,
    json_data,
    may_be_unreadable,
    not_text,
    pointer,
    unreadable,
    writable,
)
from .context import ToolContext, set_logging_level
from .interactive import (
    CannotAsk,
    Elicitation,
    InputRequired,
    Interaction,
    InvalidAnswer,
    capability_error,
    request_state_boundary,
    run_asking,
)
from .outputs import misfit
from .results import ContentResult, StructuredResult, ToolError
from .spec import ServerInfo, ToolSpec

__all__ = ["DIGEST_META_KEY", "HANDSHAKE_PROTOCOL", "Handler", "create_server", "served_tools"]

Handler = Callable[[Any, ToolContext], Awaitable[Any]]

# At most this many schema errors are listed in one result.
_OWNED_OPTIONS = frozenset({"on_list_tools", "on_call_tool"})
# The methods whose results the SDK's sieve would change (see `_as_written`).
_FIXED_METHODS = frozenset({"tools/call", "tools/list"})
# tools/list results carry `{DIGEST_META_KEY: {tool name: sha256}}` in their `_meta`.
DIGEST_META_KEY = "io.mcpstub/sha256"
# Connections of any version other than the 2026-07-28 one are shown the 2025-11-25 objects.
HANDSHAKE_PROTOCOL = "2025-11-25"
# The tools each server made here serves (for /healthz and the test helpers).
_SERVED: weakref.WeakKeyDictionary[Server[Any], Mapping[str, ToolSpec]] = (
    weakref.WeakKeyDictionary()
)


_NO_MATCH = "output did not match the declared schema"


class _WritableText(logging.Filter):
    """Log records carry only text every handler can write: a handler's exception may hold lone
    surrogates (file names), which would break a UTF-8 log file or a test runner's report.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        record.msg = writable(record.getMessage())
        record.args = None
        if record.exc_text:
            record.exc_text = writable(record.exc_text)
        return True


def _logger(package: str) -> logging.Logger:
    """The logger a package's tools report to: `<package>.server`."""
    logger = logging.getLogger(f"{package}.server")
    if not any(isinstance(f, _WritableText) for f in logger.filters):
        logger.addFilter(_WritableText())
    return logger


def _error(message: str) -> dict[str, Any]:
    return {
        "content": [{"type": "text", "text": clean(message)}],
        "isError": True,
        "resultType": "complete",
    }


async def _reraise_cancellation() -> None:
    """Raise the cancellation if this request is being cancelled (the client's
    notifications/cancelled, a time limit, shutdown); return if it is not."""
    await anyio.lowlevel.checkpoint_if_cancelled()
    try:
        task = asyncio.current_task()
    except RuntimeError:  # not running on asyncio
        return
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def load_handler(spec: ToolSpec) -> tuple[object, Handler]:
    """The tool's handler module imported (on its first call, or by `--check`): its function as
    written, and as called."""
    module = importlib.import_module(f"{spec.package}.handlers.{spec.identifier}")
    function = getattr(module, spec.identifier, None)
    if function is None:
        raise LookupError(f"it defines no function {spec.identifier!r}")
    return function, as_handler(spec.name, function)


def load_failure(exc: BaseException, package: str | None = None) -> str:
    """Why a handler (or the models) did not load, in one line: the error, and the place in the
    package (`package`'s own files first) or in what it imports that raised it, not the import
    machinery's frames."""
    import sys
    import traceback

    if isinstance(exc, SystemExit):
        return f"it exits the process on import (SystemExit: {exc.code!r})"
    if isinstance(exc, SyntaxError):
        column = f":{exc.offset}" if exc.offset else ""
        said = f"SyntaxError: {exc.msg} (at {shown_file(exc.filename or '?')}:{exc.lineno}{column})"
    else:
        said = " ".join("".join(traceback.format_exception_only(exc)).split())
    frames = [
        f
        for f in traceback.extract_tb(exc.__traceback__)
        if "importlib" not in f.filename and not f.filename.startswith(_RUNTIME_FOLDER)
    ]
    module = sys.modules.get(package or "")
    folder = os.path.dirname(os.path.abspath(module.__file__ or "")) + os.sep if module else None
    own = [f for f in frames if folder and os.path.abspath(f.filename).startswith(folder)]
    place = (own or frames)[-1:] if not isinstance(exc, SyntaxError) or own else []
    return f"{said} (at {shown_file(place[0].filename)}:{place[0].lineno})" if place else said


def shown_file(path: str) -> str:
    """`path` from the working folder where it is below it (as a message names a file), else as is."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # (another drive)
        return path
    return path if relative.startswith("..") else relative


_RUNTIME_FOLDER = os.path.dirname(os.path.abspath(__file__)) + os.sep


def as_handler(tool: str, function: object) -> Handler:
    """`function` as an async handler: checked to take (args, ctx); a plain `def` runs in a
    worker thread, off the event loop."""
    if not callable(function):
        raise TypeError(f"the handler for tool {tool!r} is not callable: {function!r}")
    generator = inspect.isasyncgenfunction(function) or inspect.isgeneratorfunction(function)
    if inspect.isclass(function) or generator:
        kind = "a generator" if generator else "a class"
        raise TypeError(f"the handler for tool {tool!r} is {kind}: give a function that returns the result")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # no signature to check (some builtins)
        signature = None
    if signature is not None:
        try:
            signature.bind(None, None)
        except TypeError:
            code = getattr(inspect.unwrap(function), "__code__", None)  # (not a decorator's wrapper)
            where = f" (at {shown_file(code.co_filename)}:{code.co_firstlineno})" if code is not None else ""
            raise TypeError(
                f"the handler for tool {tool!r} must take (args, ctx), not {signature}{where}"
            ) from None
    # An instance whose __call__ is async counts as async too.
    call = inspect.getattr_static(function, "__call__", None)
    if inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(call):
        return cast(Handler, function)
    sync = cast(Callable[[Any, ToolContext], Any], function)

    async def in_thread(args: Any, ctx: ToolContext) -> Any:
        # A call cancelled or timed out answers at once; the thread finishes on its own.
        result = await anyio.to_thread.run_sync(sync, args, ctx, abandon_on_cancel=True)
        if inspect.isawaitable(result):
            result = await result
        return result

    return in_thread


def _is_stub(exc: NotImplementedError, handler: object) -> bool:
    """Whether the handler itself raised a bare NotImplementedError, as the generated stub does.

    One raised deeper (a library, an abstract method) is a failure like any other.
    """
    trace = exc.__traceback__
    if exc.args or trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    # The handler itself, behind decorators (functools.wraps), partial() or a __call__ method.
    seen: list[object] = []
    while handler is not None and len(seen) < 32:
        seen.append(handler)
        code = getattr(handler, "__code__", None)
        if code is None and callable(handler) and not inspect.isroutine(handler):
            code = getattr(handler.__call__, "__code__", None)
        if code is trace.tb_frame.f_code:
            return True
        inner = getattr(handler, "__wrapped__", None)
        handler = inner if inner is not None else getattr(handler, "func", None)
    return False


_VALIDATORS: weakref.WeakKeyDictionary[ToolSpec, dict[str, jsonschema_rs.Validator]] = (
    weakref.WeakKeyDictionary()
)


def validator(spec: ToolSpec, which: str, schema: Mapping[str, Any]) -> jsonschema_rs.Validator:
    """The compiled validator for one of a tool's schemas (`which`: input, output,
    legacy-output), in that schema's own dialect; compiled once per tool and schema."""
    compiled = _VALIDATORS.setdefault(spec, {})
    found = compiled.get(which)
    if found is None:
        dialect = spec.dialect if which == "input" else spec.output_dialect
        cls = (
            jsonschema_rs.Draft7Validator
            if dialect == "draft-07"
            else jsonschema_rs.Draft202012Validator
        )
        found = compiled[which] = cls(dict(schema), validate_formats=True, offline=True)
    return found


class Refused(Exception):
    """A call answered with a protocol error, not a result (a question the client cannot take)."""

    def __init__(self, error: MCPError) -> None:
        super().__init__(error)
        self.error = error


class _Entry:
    """One tool as served by one server: its spec, handler and validators."""

    __slots__ = (
        "forms",
        "function",
        "handler",
        "input_model",
        "input_validator",
        "logger",
        "output_model",
        "output_validator",
        "spec",
        "structured",
        "timeout",
        "wraps",
    )

    def __init__(self, spec: ToolSpec, timeout: float | None) -> None:
        self.spec = spec
        self.logger = _logger(spec.package)
        # The handler as written, and as called; None until the handler module is imported.
        self.function: object = None
        self.handler: Handler | None = None
        self.timeout = spec.timeout if spec.timeout is not None else timeout
        self.structured = spec.output_class is not None
        self.wraps = spec.wraps_output  # a non-object output: a plain value, not a model
        self.input_validator: jsonschema_rs.Validator | None = None
        self.output_validator: jsonschema_rs.Validator | None = None
        # Resolved on the first call: importing the models is not part of start-up.
        self.input_model: type[BaseModel] | None = None
        self.output_model: type[BaseModel] | None = None
        self.forms: dict[type[BaseModel], Elicitation] | None = None

    def _load_handler(self) -> Handler:
        self.function, self.handler = load_handler(self.spec)
        return self.handler

    async def call(self, ctx: ServerRequestContext[Any, Any], arguments: Any) -> dict[str, Any]:
        """Answer one tools/call; never raises (an escaping error would leak its text).

        Only a cancellation of this request goes on: whatever else a handler raises, even a
        BaseException of its own (SystemExit, KeyboardInterrupt, a CancelledError it raised
        itself), is an isError answer, so the process and its other calls carry on.
        """
        try:
            return await self._call(ctx, arguments)
        except Refused as refusal:
            raise refusal.error from None
        except Exception:
            self.logger.exception("tool %r failed", self.spec.name)
            return _error(f"internal error in tool {self.spec.name}")
        except BaseException:
            await _reraise_cancellation()
            self.logger.exception("tool %r raised a BaseException", self.spec.name)
            return _error(f"internal error in tool {self.spec.name}")

    async def _call(self, ctx: ServerRequestContext[Any, Any], arguments: Any) -> dict[str, Any]:
        spec = self.spec
        if arguments is None:
            arguments = {}
        checker = self.input_validator
        if checker is None:
            checker = self.input_validator = validator(spec, "input", spec.input_schema)
        valid = checker.is_valid(arguments)
        if not valid or _may_be_non_finite(arguments):
            # A NaN, an infinity or 1e400 (read as one) is no JSON number, though the SDK's reader
            # takes it: a schema of any value would let it through, a typed one said "null".
            if (found := unreadable(arguments)) is not None:
                return _error(f"invalid arguments for tool {spec.name}:\n- {pointer(found[0])}: {NOT_FINITE}")
            # Nor is a lone surrogate (`"\ud800"`) text: the schema's check takes it, the model not.
            if (lone := not_text(arguments)) is not None:
                where = writable(pointer(lone))
                return _error(f"invalid arguments for tool {spec.name}:\n- {where}: {NOT_TEXT}")
        if not valid:
            return _error(
                f"invalid arguments for tool {spec.name}:\n"
                + describe(checker.iter_errors(arguments))
            )
        try:
            model = self.input_model
            if model is None:
                model = self.input_model = spec.input_model
            # By wire names only: the schema sees a field's Python name (`due_date` for
            # `due-date`) as an extra key, so it must not fill the field past the schema's check.
            args = model.model_validate(arguments, by_alias=True, by_name=False)
        except ValidationError:
            self.logger.exception(
                "tool %r: arguments the inputSchema accepts were refused by %s",
                spec.name,
                spec.input_class,
            )
            return _error(f"internal error in tool {spec.name}")
        forms = self.forms
        if forms is None:
            forms = self.forms = spec.forms
        interaction = Interaction(ctx, forms)
        refused: CannotAsk | None = None
        handler = self.handler
        if handler is None:
            try:
                handler = self._load_handler()
            except Exception as exc:  # its own mistake, said once in a line: no call ran
                self.logger.error(
                    "tool %r: handlers/%s.py does not load: %s (`python -m %s --check` checks every handler)",
                    spec.name,
                    spec.identifier,
                    load_failure(exc, spec.package),
                    spec.package,
                )
                return _error(f"internal error in tool {spec.name}")
        try:
            tool_ctx = ToolContext(ctx, interaction)
            timeout = self.timeout
            if timeout is None:
                result = await run_asking(handler, interaction, args, tool_ctx, answered=(ToolError,))
            else:
                with anyio.move_on_after(timeout) as scope:
                    result = await run_asking(handler, interaction, args, tool_ctx, answered=(ToolError,))
                if scope.cancelled_caught:
                    self.logger.warning("tool %r timed out after %g s", spec.name, timeout)
                    return _error(f"tool {spec.name} timed out after {timeout:g} s")
        except ToolError as exc:
            return _error(str(exc.message))
        except CannotAsk as exc:
            refused = exc
        except InvalidAnswer as exc:
            return _error(exc.message)
        except NotImplementedError as exc:
            if _is_stub(exc, self.function):
                return _error(f"{spec.name} is not implemented yet")
            self.logger.exception("tool %r raised", spec.name)
            return _error(f"internal error in tool {spec.name}")
        except Exception:
            self.logger.exception("tool %r raised", spec.name)
            return _error(f"internal error in tool {spec.name}")
        if refused is not None:
            if interaction.modern:  # the protocol's own error: what the request should declare
                raise Refused(capability_error(refused))
            return _error(refused.message)
        if isinstance(result, InputRequired):
            return result.wire
        if self.structured:
            return self._structured(result, ctx.protocol_version in MODERN_PROTOCOL_VERSIONS)
        return self._content(result)

    def _structured(self, result: Any, modern: bool) -> dict[str, Any]:
        spec = self.spec
        extra: tuple[dict[str, Any], ...] = ()
        if isinstance(result, StructuredResult) and isinstance(result, spec.result_type):
            if result._is_error:
                return {"content": list(result._content), "isError": True, "resultType": "complete"}
            output = result._output
            extra = result._content
        else:
            output = result
        if self.wraps:
            # A plain value (list, str, number, ...): the output schema judges it, once any
            # model its type declares is one (not a dict standing in for it).
            wrong = misfit(output, spec)
            if wrong is not None:
                return self._bad_output(wrong)
            try:
                payload = json_data(output, cleaned=True)
            # Whatever a handler returned, the client gets an answer.
            except Exception:
                return self._bad_output(f": the handler returned {type(result).__name__}")
        else:
            output_model = self.output_model
            if output_model is None:
                output_model = self.output_model = cast(type[BaseModel], spec.output_model)
            if not isinstance(output, output_model):
                return self._bad_output(misfit(output, spec) or "")
            try:
                payload = json_data(output, cleaned=True)
            except Exception as exc:  # (an object of its own in a field typed Any that has no JSON form)
                return self._bad_output(f": a value in it has no JSON form ({type(exc).__name__}: {exc})")
        try:
            text = to_json(payload, inf_nan_mode="constants")
        except PydanticSerializationError:
            # Text JSON cannot carry (lone surrogates): sent as U+FFFD, then validated as sent.
            payload = clean_json(payload)
            text = to_json(payload, inf_nan_mode="constants")
        if may_be_unreadable(text) and (found := unreadable(payload)) is not None:
            # (a NaN not sent as null, which the schema may take: the handler's value is not the one
            # sent; an integer past Python's readers not sent to end the client's connection)
            return self._bad_output(f":\n- {pointer(found[0])}: {found[1]}")
        checker = self.output_validator
        if checker is None:
            checker = self.output_validator = validator(
                spec, "output", cast(Mapping[str, Any], spec.output_schema)
            )
        if not checker.is_valid(payload):
            return self._bad_output(":\n" + describe(checker.iter_errors(payload)))
        if self.wraps and not modern:
            # 2025-11-25 carries objects only; the text mirrors the structuredContent sent.
            payload = {"result": payload}
            text = b'{"result":' + text + b"}"
        return {
            "content": [{"type": "text", "text": text.decode()}, *extra],
            "structuredContent": payload,
            "resultType": "complete",
        }

    def _content(self, result: Any) -> dict[str, Any]:
        if isinstance(result, str):
            return {"content": [{"type": "text", "text": clean(result)}], "resultType": "complete"}
        if isinstance(result, ContentResult) and isinstance(result, self.spec.result_type):
            answer: dict[str, Any] = {"content": list(result._content), "resultType": "complete"}
            if result._is_error:
                answer["isError"] = True
            return answer
        name = self.spec.result_type.__name__
        return self._bad_output(
            f": the handler returned {type(result).__name__}; return a str or {name}.text(...)",
            "output is not text or content (the tool declares no output schema)",
        )

    def _bad_output(self, detail: str, said: str = _NO_MATCH) -> dict[str, Any]:
        self.logger.error("tool %r: %s%s", self.spec.name, said, detail)
        return _error(f"{said}{detail}")


NOT_FINITE = "not a finite number (NaN, Infinity, or a literal past the double range such as 1e400)"


def _may_be_non_finite(arguments: Any) -> bool:
    """Whether the arguments may hold a NaN or an infinity: their JSON text, written in pydantic's
    code, has `NaN` or `Infinity` where a value stands, not inside a string (0.8 us for small
    arguments, 7 ms for 100,000 floats; a walk in Python takes 30 ms). A lone surrogate, which
    pydantic cannot write (the SDK's in-memory and 2026-07-28 HTTP readers take it), is walked."""
    try:
        text = to_json(arguments, inf_nan_mode="constants")
    except PydanticSerializationError:
        return True
    # Where one stands as a value: after `:`, `[`, `,` or `-`, before `,`, `]` or `}` (a string
    # holding that is walked too: the walk decides).
    for word in (b"NaN", b"Infinity"):
        at = text.find(word)
        while at != -1:
            end = at + len(word)
            if text[at - 1 : at] in (b":", b"[", b",", b"-") and text[end : end + 1] in (b",", b"]", b"}"):
                return True
            at = text.find(word, end)
    return False


def _meant(tools: Mapping[str, ToolSpec], given: Collection[object]) -> Callable[[object], str]:
    """A key of `handlers` no tool has, with the tool it likely names: the one whose handler is
    that function (`get_thing` for `get-thing`), in any case, else the nearest name; one `given`
    already is said to be given twice."""
    folded = {spec.identifier.casefold(): name for name, spec in tools.items()}
    folded.update({name.casefold(): name for name in tools})

    def said(key: object) -> str:
        if not isinstance(key, str):
            return repr(key)
        same = folded.get(key.casefold())
        if same in given:
            return f"{key!r} (a second handler for {same!r}, given under its name too)"
        near = difflib.get_close_matches(key.casefold(), list(folded), n=1)
        tool = same or (folded[near[0]] if near else None)
        return f"{key!r} (did you mean {tool!r}?)" if tool else repr(key)

    return said


def create_server(
    tools: Mapping[str, ToolSpec],
    info: ServerInfo,
    handlers: Mapping[str, object] | None = None,
    *,
    timeout: float | None = None,
    request_state_security: RequestStateSecurity | None = None,
    **options: Any,
) -> Server[Any]:
    """A ready MCP low-level Server serving every tool of `tools`.

    `handlers` maps tool names to handlers used instead of the handler modules (for tests and
    dependency injection): `async def` or plain `def` (run in a worker thread), taking
    (args, ctx); one of another shape is refused here. `timeout` is the seconds a call may run,
    for tools whose toolset entry sets none: then the handler is cancelled and the client gets an
    isError answer. `request_state_security` seals the request state of 2026-07-28 calls whose
    handlers ask (default: the keys in `MCPSTUB_REQUEST_STATE_KEYS`, else a key of this process
    alone). Other keyword options reach `mcp.server.Server` (name, version, instructions,
    lifespan, resource and prompt handlers, ...).
    """
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout < float("inf")
    ):
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    given: dict[object, object] = dict(cast(Mapping[object, object], handlers or {}))
    unknown = sorted(set(given) - set(tools), key=repr)
    if unknown:
        raise ValueError(f"handlers given for unknown tools: {', '.join(map(_meant(tools, given), unknown))}")
    owned = sorted(_OWNED_OPTIONS & set(options))
    if owned:
        raise TypeError(f"create_server() serves the tools itself; remove {', '.join(owned)}")
    entries = {name: _Entry(spec, timeout) for name, spec in tools.items()}
    for name, function in given.items():
        entry = entries[cast(str, name)]
        entry.function, entry.handler = function, as_handler(entry.spec.name, function)
    modern_tools = tuple(spec.wire for spec in tools.values())
    legacy_tools = tuple(spec.legacy_wire for spec in tools.values())
    listings = _listings(tools)
    handshake_listing = listings[HANDSHAKE_PROTOCOL]

    async def on_list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listings.get(ctx.protocol_version, handshake_listing)

    async def on_call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> dict[str, Any]:
        entry = entries.get(params.name)
        if entry is None:
            message = clean(f"Unknown tool: {params.name}")
            raise MCPError(code=types.INVALID_PARAMS, message=message)
        return await entry.call(ctx, params.arguments)

    def get_tool_input_schema(name: str) -> Mapping[str, Any] | None:
        spec = tools.get(name)
        return spec.input_schema if spec is not None else None

    options.setdefault("version", info.version)
    options.setdefault("instructions", info.instructions)
    options.setdefault("title", info.title)
    options.setdefault("description", info.description)
    options.setdefault("website_url", info.website_url)
    if info.icons is not None:  # an empty list is sent, as the snapshot records it
        options.setdefault("icons", [types.Icon.model_validate(i) for i in info.icons])
    options.setdefault("get_tool_input_schema", get_tool_input_schema)
    # Handlers send log messages (`ToolContext.log`), so the server declares logging and honours
    # the level a client sets for its connection.
    options.setdefault("on_set_logging_level", set_logging_level)
    name = options.pop("name", info.name)
    # The runner accepts a wire dict as a handler result; returning one skips a model round trip.
    with warnings.catch_warnings():
        # The SDK warns that 2026-07-28 deprecates logging/setLevel; 2025-11-25 clients use it.
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        server: Server[Any] = Server(
            name, on_list_tools=on_list_tools, on_call_tool=cast(Any, on_call_tool), **options
        )
    # Seals each input-required result's state and refuses (-32602) one that comes back altered.
    boundary = request_state_boundary(name, request_state_security)
    server.middleware.append(_as_written(entries, modern_tools, legacy_tools, boundary))
    _SERVED[server] = tools
    return server


def served_tools(server: Server[Any]) -> Mapping[str, ToolSpec]:
    """The tools a server made by `create_server` serves (empty for any other server)."""
    return _SERVED.get(server, {})


def _listings(tools: Mapping[str, ToolSpec]) -> dict[str, types.ListToolsResult]:
    """The tools/list answer of each protocol generation, with its tools' digests in `_meta`.

    What the SDK checks against the protocol; the middleware below sends the wire objects.
    """
    listings = {}
    for protocol in ("2026-07-28", HANDSHAKE_PROTOCOL):
        shown = [
            types.Tool.model_validate(spec.legacy_wire if protocol == HANDSHAKE_PROTOCOL else spec.wire)
            for spec in tools.values()
        ]
        digests = {name: spec.digests[protocol] for name, spec in tools.items()}
        listings[protocol] = types.ListToolsResult(tools=shown, _meta={DIGEST_META_KEY: digests})
    return listings


def _as_written(
    entries: Mapping[str, _Entry],
    modern_tools: tuple[Mapping[str, Any], ...],
    legacy_tools: tuple[Mapping[str, Any], ...],
    boundary: RequestStateBoundary,
) -> Any:
    """Middleware that sends the answers as computed where the SDK's per-version sieve would not.

    The SDK re-parses every result with its protocol models, which drop keys they do not know
    (annotation extension keys) and a `structuredContent` of `null`; both are put back here.
    Inside it runs `boundary`, the SDK's request-state middleware, as the next layer would: one
    layer, not two, on every request.
    """

    async def middleware(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        result = await boundary(ctx, call_next)
        method = ctx.method
        if method not in _FIXED_METHODS or not isinstance(result, dict):
            return result
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if method == "tools/list" and "tools" in result:
            # Versions before 2025-11-25 get its objects whole, as their digests describe them.
            return {**result, "tools": list(modern_tools if modern else legacy_tools)}
        if method == "tools/call" and modern and "structuredContent" not in result:
            name = ctx.params.get("name") if isinstance(ctx.params, Mapping) else None
            entry = entries.get(name) if isinstance(name, str) else None
            asking = result.get("resultType") == "input_required"
            if entry is not None and entry.wraps and not result.get("isError") and not asking:
                return {**result, "structuredContent": None}  # a null output, dropped as absent
        return result

    return middleware
