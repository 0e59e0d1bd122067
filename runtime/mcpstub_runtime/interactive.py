"""Interactive handlers: what a tool asks its user or the client, on both protocol generations.

A handler asks through its context: `await ctx.elicit("Deploy?", DeployConfirm)` (a form whose
requested schema the toolset declared and froze), `ctx.elicit_url(...)`, `ctx.sample(...)`,
`ctx.list_roots()`, or several at once with `ctx.ask(Elicit(...), Sample(...), ...)`.

- On 2025-11-25 connections each question is a request over the session's back-channel
  (`elicitation/create`, `sampling/createMessage`, `roots/list`), awaited in place.
- On 2026-07-28 the call is answered with an input-required result: the questions under their
  keys (a form under the key the toolset declared it by), and a request state that the SDK's
  `RequestStateBoundary` seals. The client retries with the answers and the state; the handler
  runs again from the start, and each question it asks is answered at once from the retry or from
  the state (answers of earlier rounds ride in it). Questions asked together (`ask`, or tasks
  started together) go out in one round; a missing, malformed or wrong answer is asked again;
  an answer counts for the question under its key unless the state says the key was last asked
  in other words (a client may answer ahead); answers to keys not asked are ignored; the state a
  client altered is refused (-32602) by the boundary before anything runs. The state is bound to
  the call's tool, arguments, server and user, not used up: nothing is kept between rounds, so a
  client may send a round again while the state is valid.

On both, within one call a key is one question: asked again, it gets the answer it got (the
client is not asked again); asked with another question, it is the handler's bug (`ValueError`).
Every question is a checkpoint, answered at once or not: a handler asking in a loop (until the
answer is right, which it never becomes) still lets its time limit, other calls and a shutdown run.
An answer is handed to the handler only once it matches: a form's content is checked against the
frozen requested schema and then the model, a sampling or roots answer against the SDK's models.
A question the client's declared capabilities do not allow raises `CannotAsk` in the handler.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypedDict, TypeVar, Unpack, overload

import anyio.lowlevel
import jsonschema_rs
from mcp import types
from mcp.server import ServerRequestContext
from mcp.server.elicitation import (
    AcceptedElicitation,
    AcceptedUrlElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationResult,
    UrlElicitationResult,
)
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp.types.version import is_version_at_least
from pydantic import BaseModel, ValidationError

from ._text import (
    NOT_TEXT,
    clean,
    clean_json,
    describe,
    model_errors,
    not_text,
    plain_json,
    pointer,
    unreadable,
    writable,
)

__all__ = [
    "REQUEST_STATE_KEYS_VARIABLE",
    "Ask",
    "Asking",
    "CannotAsk",
    "Elicit",
    "ElicitUrl",
    "Elicitation",
    "InputRequired",
    "Interaction",
    "InvalidAnswer",
    "ListRoots",
    "Sample",
    "SamplingOptions",
    "capability_error",
    "request_state_boundary",
    "request_state_keys",
    "request_state_security",
    "run_asking",
]

logger = logging.getLogger(__name__)

# The first protocol generation that asks through input-required results.
INPUT_REQUIRED_PROTOCOL = "2026-07-28"
# A call's `_meta` key a client sets (a short text) for the questions the call asks to carry back
# in theirs ("" for a call that set none): on 2025-11-25 over stdio or HTTP nothing else says
# which call a question is of.
CALL_META_KEY = "io.mcpstub/call"
# Where the sealing keys come from: one secret of 32 bytes or more, or several separated by commas
# (the first seals, every one unseals: rotate by putting the new key first, then dropping the old).
REQUEST_STATE_KEYS_VARIABLE = "MCPSTUB_REQUEST_STATE_KEYS"
_STATE_VERSION = 1
_SAID_MAX = 240  # characters of a client's error message said again

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")
A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")


class CannotAsk(Exception):
    """The question cannot reach this client: it did not declare the capability it needs, or its
    connection has no way to carry a question (2025-11-25 over HTTP served stateless or with JSON
    responses)."""

    def __init__(self, message: str, capability: types.ClientCapabilities | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.capability = capability


class InvalidAnswer(Exception):
    """A 2025-11-25 client answered with something that does not match the question, or with an
    error (on 2026-07-28 the question is asked again instead)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InputRequired:
    """What a call answers when its handler asked what has no answer yet (2026-07-28)."""

    __slots__ = ("wire",)

    def __init__(self, wire: dict[str, Any]) -> None:
        self.wire = wire


class _NeedsInput(BaseException):
    """Raised in a handler on 2026-07-28 when a question has no answer yet: the call is answered
    with an input-required result. A BaseException, so `except Exception` does not swallow it."""


def _unanswered(error: types.ErrorData) -> bool:
    """Whether an error is the SDK's for a question that got no answer: the connection closed (its
    code, which a client may send too, with the SDK's own words). A question is sent with no time
    limit of its own (the tool's `timeout` cancels the call instead), so a timeout is the client's."""
    closed = error.code == types.CONNECTION_CLOSED and error.message == "Connection closed"
    return closed and error.data is None


@dataclass(frozen=True)
class Elicitation:
    """A form a tool declared: its wire key and frozen requested schema."""

    key: str
    schema: Mapping[str, Any]
    validator: jsonschema_rs.Validator = field(compare=False, repr=False)

    @classmethod
    def of(cls, key: str, schema: Mapping[str, Any]) -> Elicitation:
        """The form under `key` asking with `schema` (checked at build time)."""
        validator = jsonschema_rs.Draft202012Validator(dict(schema), validate_formats=True, offline=True)
        return cls(key, schema, validator)


class Ask(Generic[R]):
    """One question: what it needs from the client, how it goes on the wire, how its answer reads."""

    key: str | None = None

    def wire_key(self, forms: Mapping[type[BaseModel], Elicitation]) -> str:
        """The key the question is known by on the wire."""
        raise NotImplementedError

    def request(self, forms: Mapping[type[BaseModel], Elicitation]) -> dict[str, Any]:
        """The request as it goes on the wire: `{"method": ..., "params": ...}`."""
        raise NotImplementedError

    def allowed(self, capabilities: types.ClientCapabilities | None) -> str | None:
        """None when the client declared what this question needs; else what it lacks."""
        raise NotImplementedError

    def read(self, answer: Any, forms: Mapping[type[BaseModel], Elicitation]) -> R:
        """The answer as the handler gets it; raises ValueError when it does not match."""
        raise NotImplementedError


class Elicit(Ask[ElicitationResult[M]]):
    """A form the tool declared (`elicitations` in the toolset), asked with `message`."""

    def __init__(self, message: str, model: type[M]) -> None:
        self.message = message
        self.model = model

    def _form(self, forms: Mapping[type[BaseModel], Elicitation]) -> Elicitation:
        form = forms.get(self.model)
        if form is None:
            declared = ", ".join(sorted(m.__name__ for m in forms)) or "none"
            raise TypeError(
                f"{self.model.__name__} is not a form this tool declares (declared: {declared}): "
                "add it under the tool's `elicitations` in the toolset and regenerate"
            )
        return form

    def wire_key(self, forms: Mapping[type[BaseModel], Elicitation]) -> str:
        return self._form(forms).key

    def request(self, forms: Mapping[type[BaseModel], Elicitation]) -> dict[str, Any]:
        schema = dict(self._form(forms).schema)
        return {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": self.message, "requestedSchema": schema},
        }

    def allowed(self, capabilities: types.ClientCapabilities | None) -> str | None:
        elicitation = capabilities.elicitation if capabilities is not None else None
        # A bare `elicitation: {}` (before modes existed) means forms.
        if elicitation is not None and (elicitation.form is not None or elicitation.url is None):
            return None
        return "elicitation (form)"

    def read(self, answer: Any, forms: Mapping[type[BaseModel], Elicitation]) -> ElicitationResult[M]:
        result = types.ElicitResult.model_validate(answer)
        if result.action == "decline":
            return DeclinedElicitation()
        if result.action == "cancel":
            return CancelledElicitation()
        if result.content is None:
            raise ValueError("accepted without content")
        form = self._form(forms)
        if (found := unreadable(result.content)) is not None:  # (the schema's check would say "null")
            at, why = found
            raise ValueError(f"content does not match the requested schema:\n- {pointer(at)}: {why}")
        if (lone := not_text(result.content)) is not None:  # (a lone surrogate: the schema takes it)
            at_text = writable(pointer(lone))
            raise ValueError(f"content does not match the requested schema:\n- {at_text}: {NOT_TEXT}")
        if not form.validator.is_valid(result.content):
            errors = form.validator.iter_errors(result.content)
            raise ValueError(f"content does not match the requested schema:\n{describe(errors)}")
        # By wire names only, as the schema read it (a Python name is an extra key there).
        data = self.model.model_validate(result.content, by_alias=True, by_name=False)
        return AcceptedElicitation(data=data)


class ElicitUrl(Ask[UrlElicitationResult]):
    """A URL-mode elicitation: the user is sent to `url` (credentials, payment, OAuth)."""

    def __init__(
        self, message: str, url: str, *, key: str = "url", elicitation_id: str | None = None
    ) -> None:
        self.message, self.url, self.key = message, url, key
        self.elicitation_id = elicitation_id or key

    def wire_key(self, forms: Mapping[type[BaseModel], Elicitation]) -> str:
        return self.key or "url"

    def request(self, forms: Mapping[type[BaseModel], Elicitation]) -> dict[str, Any]:
        params = {
            "mode": "url",
            "message": self.message,
            "url": self.url,
            "elicitationId": self.elicitation_id,
        }
        return {"method": "elicitation/create", "params": params}

    def allowed(self, capabilities: types.ClientCapabilities | None) -> str | None:
        elicitation = capabilities.elicitation if capabilities is not None else None
        return None if elicitation is not None and elicitation.url is not None else "elicitation (url)"

    def read(self, answer: Any, forms: Mapping[type[BaseModel], Elicitation]) -> UrlElicitationResult:
        result = types.ElicitResult.model_validate(answer)
        if result.action == "accept":
            return AcceptedUrlElicitation()
        return DeclinedElicitation() if result.action == "decline" else CancelledElicitation()


class SamplingOptions(TypedDict, total=False):
    """What a sampling request may say besides its messages and token limit."""

    system_prompt: str | None
    temperature: float | None
    stop_sequences: list[str] | None
    metadata: dict[str, Any] | None
    model_preferences: types.ModelPreferences | None
    include_context: types.IncludeContext | None


class Sample(Ask[types.CreateMessageResult]):
    """A completion from the client's model (`sampling/createMessage`)."""

    def __init__(
        self,
        messages: str | list[types.SamplingMessage],
        *,
        max_tokens: int,
        key: str = "sampling",
        **options: Unpack[SamplingOptions],
    ) -> None:
        if isinstance(messages, str):
            text = types.TextContent(type="text", text=messages)
            messages = [types.SamplingMessage(role="user", content=text)]
        self.key = key
        self.params = types.CreateMessageRequestParams(messages=messages, max_tokens=max_tokens, **options)

    def wire_key(self, forms: Mapping[type[BaseModel], Elicitation]) -> str:
        return self.key or "sampling"

    def request(self, forms: Mapping[type[BaseModel], Elicitation]) -> dict[str, Any]:
        # (a NaN kept as the float it is, also in `metadata`, for the question's check to find)
        params = plain_json(self.params, exclude_none=True)
        return {"method": "sampling/createMessage", "params": params}

    def allowed(self, capabilities: types.ClientCapabilities | None) -> str | None:
        return None if capabilities is not None and capabilities.sampling is not None else "sampling"

    def read(self, answer: Any, forms: Mapping[type[BaseModel], Elicitation]) -> types.CreateMessageResult:
        _all_text(answer)
        return types.CreateMessageResult.model_validate(answer, by_name=False)


class ListRoots(Ask[list[types.Root]]):
    """The client's roots (`roots/list`)."""

    def __init__(self, *, key: str = "roots") -> None:
        self.key = key

    def wire_key(self, forms: Mapping[type[BaseModel], Elicitation]) -> str:
        return self.key or "roots"

    def request(self, forms: Mapping[type[BaseModel], Elicitation]) -> dict[str, Any]:
        return {"method": "roots/list", "params": {}}

    def allowed(self, capabilities: types.ClientCapabilities | None) -> str | None:
        return None if capabilities is not None and capabilities.roots is not None else "roots"

    def read(self, answer: Any, forms: Mapping[type[BaseModel], Elicitation]) -> list[types.Root]:
        _all_text(answer)
        return list(types.ListRootsResult.model_validate(answer, by_name=False).roots)


def _all_text(answer: Any) -> None:
    """Refuse an answer holding a lone surrogate, which its model takes as text."""
    if (lone := not_text(answer)) is not None:
        raise ValueError(f"it does not match the answer's form:\n- {writable(pointer(lone))}: {NOT_TEXT}")


def _digest(request: Mapping[str, Any]) -> str:
    """Pins an answer to the exact question the client was shown."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"))
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()[:16]).decode().rstrip("=")


class Interaction:
    """What one tools/call has asked and been answered: made per call by the dispatcher.

    One record serves both protocol generations: each key is one question (`asked`: the digest
    it was first asked with; another question under it is the handler's bug), and once answered
    it is not asked again (`answered`: its digest and answer as JSON data; on 2026-07-28, what
    the next round's state carries). Most calls ask nothing: what the request says about earlier
    rounds (its answers and state) is read on the first question, not when the call starts.
    """

    def __init__(
        self, ctx: ServerRequestContext[Any, Any], forms: Mapping[type[BaseModel], Elicitation]
    ) -> None:
        self._ctx = ctx
        self._forms = forms
        self.asked: dict[str, str] = {}
        self.answered: dict[str, tuple[str, Any]] = {}
        # This round's questions to ask, by key (2026-07-28).
        self.pending: dict[str, dict[str, Any]] = {}
        # One back-channel request per key at a time: tasks asking one key at once ask it once.
        self._asking: dict[str, anyio.Lock] = {}

    @cached_property
    def modern(self) -> bool:
        """Whether this call asks through input-required results (2026-07-28), not the back-channel."""
        return is_version_at_least(self._ctx.protocol_version, INPUT_REQUIRED_PROTOCOL)

    @cached_property
    def _rounds(self) -> _Rounds:
        """What the request carries from earlier rounds (2026-07-28)."""
        params: Mapping[str, Any] = self._ctx.params or {}
        responses = params.get("inputResponses") if self.modern else None
        earlier, shown = _decode(params.get("requestState") if self.modern else None)
        return _Rounds(responses if isinstance(responses, Mapping) else {}, earlier, shown)

    @property
    def capabilities(self) -> types.ClientCapabilities | None:
        """What the client declared (on 2026-07-28, in this request)."""
        return self._ctx.session.client_capabilities

    async def ask(self, questions: tuple[Ask[Any], ...]) -> tuple[Any, ...]:
        """The answers to `questions`, in order: awaited over the back-channel on 2025-11-25; on
        2026-07-28 taken from the retry or the state, or, for any missing, the call stops here and
        is answered with an input-required result asking for them all."""
        # Each question lets the event loop run, answered at once or not: a handler asking in a
        # loop must not keep its own time limit, other calls or a shutdown from running.
        await anyio.lowlevel.checkpoint()
        if not self.modern:
            return tuple([await self._ask_back(q) for q in questions])
        answers: list[Any] = []
        missing = False
        for question in questions:
            found, answer = self._lookup(question)
            missing = missing or not found
            answers.append(answer)
        if missing:
            # Questions asked at the same moment by other tasks of the handler join this round.
            for _ in range(3):
                await anyio.lowlevel.cancel_shielded_checkpoint()
            raise _NeedsInput
        return tuple(answers)

    def _record(self, question: Ask[Any]) -> tuple[str, dict[str, Any], str]:
        """The question's key, request and digest, once it is known to be the key's one question.

        The request is as it goes on the wire: text JSON cannot carry (a file name decoded with
        surrogateescape, say) is sent as U+FFFD, as in results and logs."""
        key = clean(question.wire_key(self._forms))
        request = clean_json(question.request(self._forms))
        if (found := unreadable(request)) is not None:  # (sent, a NaN would be null; the client ends)
            where = pointer(found[0]) or "/"
            raise ValueError(f"the question {key!r} cannot be sent: at {where}, {found[1]}")
        digest = _digest(request)
        if self.asked.setdefault(key, digest) != digest:
            fix = (
                "ask it in the same words each time, or declare another form for the other question"
                if isinstance(question, Elicit)
                else "give each its own key="
            )
            raise ValueError(f"the key {key!r} was asked twice with different questions in one call: {fix}")
        return key, request, digest

    def _lookup(self, question: Ask[Any]) -> tuple[bool, Any]:
        key, request, digest = self._record(question)
        if key in self.answered:
            return True, question.read(self.answered[key][1], self._forms)
        rounds = self._rounds
        lacking = question.allowed(self.capabilities)
        recorded = rounds.earlier.get(key)
        if recorded is not None and recorded[0] == digest:
            try:
                answer = question.read(recorded[1], self._forms)
            except (ValueError, ValidationError):
                pass  # the form changed shape since (a redeploy): asked again
            else:
                self.answered[key] = recorded
                return True, answer
        if lacking is not None:
            raise _cannot(lacking, key)
        raw = rounds.responses.get(key)
        # An answer counts for the question it answers: for a key last shown, or answered, in other
        # words (an amount that changed since, say), the question is asked again.
        last = rounds.shown.get(key, recorded[0] if recorded is not None else digest)
        if raw is not None and last == digest:
            try:
                answer = question.read(raw, self._forms)
            except (ValueError, ValidationError) as exc:
                logger.warning("the answer to %r was refused and is asked for again: %s", key, exc)
            else:
                self.answered[key] = (digest, _plain(raw))
                return True, answer
        self.pending[key] = request
        return False, None

    async def _ask_back(self, question: Ask[Any]) -> Any:
        key, request, digest = self._record(question)
        session = self._ctx.session
        if not session.can_send_request:  # each request a connection of its own: none to ask on
            raise CannotAsk(
                f"cannot ask {key!r}: this 2025-11-25 connection has no back-channel (HTTP served "
                "stateless or with JSON responses); clients of 2026-07-28 can answer questions there"
            )
        lacking = question.allowed(self.capabilities)
        if lacking is not None:
            raise _cannot(lacking, key)
        async with self._asking.setdefault(key, anyio.Lock()):
            if key in self.answered:
                return question.read(self.answered[key][1], self._forms)
            typed, result_type = _TYPED[request["method"]]
            tag = (self._ctx.meta or {}).get(CALL_META_KEY)
            tag = tag if isinstance(tag, str) and len(tag) <= 64 else ""  # ("": a call without)
            request = {**request, "params": {**request["params"], "_meta": {CALL_META_KEY: tag}}}
            try:
                answer = _plain(
                    await session.send_request(
                        typed.model_validate(request),
                        result_type,
                        metadata=ServerMessageMetadata(related_request_id=self._ctx.request_id),
                    )
                )
                result = question.read(answer, self._forms)
            except (ValueError, ValidationError) as exc:
                raise InvalidAnswer(f"the client's answer to {key!r} was refused: {_reason(exc)}") from None
            except MCPError as exc:  # the client answered with an error: its refusal, no bug here
                if _unanswered(exc.error):
                    raise  # (the SDK's own: no answer came)
                said = exc.error.message or f"(code {exc.error.code}, no message)"
                said = said if len(said) <= _SAID_MAX else said[: _SAID_MAX - 1] + "…"
                raise InvalidAnswer(f"the client answered {key!r} with an error: {said}") from None
            self.answered[key] = (digest, answer)
            return result

    def input_required(self) -> InputRequired:
        """The input-required result asking what is pending, with the answers so far as state."""
        state = {
            "v": _STATE_VERSION,
            "answers": {k: {"q": q, "answer": a} for k, (q, a) in self.answered.items()},
            "asked": {k: _digest(r) for k, r in self.pending.items()},
        }
        wire = {
            "resultType": "input_required",
            "inputRequests": dict(self.pending),
            "requestState": json.dumps(state, separators=(",", ":")),
        }
        return InputRequired(wire)


@dataclass(frozen=True)
class _Rounds:
    """What a 2026-07-28 retry carries: its answers by key (`responses`), and from its request
    state the answers of earlier rounds (`earlier`: key -> question digest, answer) and the
    digest of each question the last round showed the client (`shown`)."""

    responses: Mapping[str, Any]
    earlier: dict[str, tuple[str, Any]]
    shown: dict[str, str]


# Each question's request and result models, by method, for the back-channel.
_TYPED: dict[str, tuple[type[Any], type[BaseModel]]] = {
    "elicitation/create": (types.ElicitRequest, types.ElicitResult),
    "sampling/createMessage": (types.CreateMessageRequest, types.CreateMessageResult),
    "roots/list": (types.ListRootsRequest, types.ListRootsResult),
}


# A question the client cannot be asked, as a 2025-11-25 call's error says it (the typed client
# reads the capability back from it).
CANNOT_ASK = "cannot ask {key!r}: the client did not declare the {lacking} capability"
CANNOT_ASK_SAID = re.compile(r"cannot ask '.*': the client did not declare the (.+) capability", re.DOTALL)


def _cannot(lacking: str, key: str) -> CannotAsk:
    needs = {
        "elicitation (form)": types.ClientCapabilities(
            elicitation=types.ElicitationCapability(form=types.FormElicitationCapability())
        ),
        "elicitation (url)": types.ClientCapabilities(
            elicitation=types.ElicitationCapability(url=types.UrlElicitationCapability())
        ),
        "sampling": types.ClientCapabilities(sampling=types.SamplingCapability()),
        "roots": types.ClientCapabilities(roots=types.RootsCapability()),
    }
    return CannotAsk(CANNOT_ASK.format(key=key, lacking=lacking), needs[lacking])


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):  # (each field, as the handler's own errors name them)
        return f"it does not match the answer's form:\n{model_errors(exc, 5)}"
    return str(exc)


def _plain(value: Any) -> Any:
    """An answer as JSON data (the SDK may hand over models)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


def _decode(state: Any) -> tuple[dict[str, tuple[str, Any]], dict[str, str]]:
    """The answers and asked-question digests an unsealed request state carries. The boundary
    let only what this server sealed through; what it cannot read is no progress."""
    if not isinstance(state, str) or not state:
        return {}, {}
    try:
        data = json.loads(state)
        answers = {k: (v["q"], v["answer"]) for k, v in data["answers"].items()}
        asked = {k: v for k, v in data["asked"].items() if isinstance(v, str)}
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}, {}
    if data.get("v") != _STATE_VERSION:
        return {}, {}
    return answers, asked


async def run_asking(
    call: Callable[..., Awaitable[R]],
    interaction: Interaction,
    *args: Any,
    answered: tuple[type[Exception], ...] = (),
) -> R | InputRequired:
    """`await call(*args)`, or the input-required result when the handler asked what has no
    answer yet.

    Raised from a handler's task group, what the caller answers for itself (`CannotAsk`,
    `InvalidAnswer`, and the kinds in `answered`) comes out of the group, as it would from the
    handler itself: a group of nothing else raises its first."""
    try:
        result = await call(*args)
    except _NeedsInput:
        return interaction.input_required()
    except BaseExceptionGroup as group:  # tasks of one handler asking together
        leaves = _leaves(group)
        kinds = (CannotAsk, InvalidAnswer, *answered)
        said = [leaf for leaf in leaves if isinstance(leaf, kinds)]
        if said and all(isinstance(leaf, (_NeedsInput, *kinds)) for leaf in leaves):
            raise said[0] from None
        if not all(isinstance(leaf, _NeedsInput) for leaf in leaves):
            raise
        return interaction.input_required()
    if interaction.pending:  # the handler caught the stop and carried on: the questions stand
        return interaction.input_required()
    return result


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    return [
        leaf
        for inner in group.exceptions
        for leaf in (_leaves(inner) if isinstance(inner, BaseExceptionGroup) else [inner])
    ]


def capability_error(exc: CannotAsk) -> MCPError:
    """The JSON-RPC error a 2026-07-28 call answers with when a handler let `CannotAsk` escape."""
    data: dict[str, Any] = {}
    if exc.capability is not None:
        required = exc.capability.model_dump(mode="json", by_alias=True, exclude_none=True)
        data["requiredCapabilities"] = required
    message = clean(exc.message)  # a handler may raise CannotAsk with text of its own
    return MCPError(code=types.MISSING_REQUIRED_CLIENT_CAPABILITY, message=message, data=data or None)


def request_state_keys(environ: Mapping[str, str] | None = None) -> list[str]:
    """The sealing keys `MCPSTUB_REQUEST_STATE_KEYS` gives (comma-separated, each stripped of
    spaces; none for a variable unset or blank). What the sealing uses and what `--workers`
    requires are read here alike, so no value passes one and fails the other."""
    text = (os.environ if environ is None else environ).get(REQUEST_STATE_KEYS_VARIABLE, "")
    return [k.strip() for k in text.split(",") if k.strip()]


def request_state_security(environ: Mapping[str, str] | None = None) -> RequestStateSecurity:
    """The sealing policy: the keys in `MCPSTUB_REQUEST_STATE_KEYS` (comma-separated, the first
    seals), or a key made now for this process alone when the variable gives none. A key the SDK
    refuses (shorter than 32 bytes) raises ValueError naming the variable."""
    keys = request_state_keys(environ)
    if not keys:
        return RequestStateSecurity.ephemeral()
    try:
        return RequestStateSecurity(keys=keys)
    except ValueError as exc:
        raise ValueError(f"{REQUEST_STATE_KEYS_VARIABLE}: {exc}") from None


def request_state_boundary(
    server_name: str, security: RequestStateSecurity | None = None
) -> RequestStateBoundary:
    """The SDK's middleware that seals every outgoing request state and refuses (-32602) one that
    was altered, expired, or sealed for another call, server or principal."""
    return RequestStateBoundary(security or request_state_security(), default_audience=server_name)


class Asking:
    """The asking half of a handler's context (`ToolContext` inherits it)."""

    __slots__ = ()
    _interaction: Interaction

    async def elicit(self, message: str, model: type[M]) -> ElicitationResult[M]:
        """Ask the user to fill in a form the tool declared: accepted with a validated `model`,
        declined or cancelled."""
        (answer,) = await self._interaction.ask((Elicit(message, model),))
        result: ElicitationResult[M] = answer
        return result

    async def elicit_url(
        self, message: str, url: str, *, key: str = "url", elicitation_id: str | None = None
    ) -> UrlElicitationResult:
        """Send the user to `url` (URL-mode elicitation): accepted (they went), declined or cancelled."""
        (answer,) = await self._interaction.ask(
            (ElicitUrl(message, url, key=key, elicitation_id=elicitation_id),)
        )
        result: UrlElicitationResult = answer
        return result

    async def sample(
        self,
        messages: str | list[types.SamplingMessage],
        *,
        max_tokens: int,
        key: str = "sampling",
        **options: Unpack[SamplingOptions],
    ) -> types.CreateMessageResult:
        """A completion from the client's model (a prompt, or the SDK's `SamplingMessage`s)."""
        question = Sample(messages, max_tokens=max_tokens, key=key, **options)
        (answer,) = await self._interaction.ask((question,))
        result: types.CreateMessageResult = answer
        return result

    async def list_roots(self, *, key: str = "roots") -> list[types.Root]:
        """The client's roots."""
        (answer,) = await self._interaction.ask((ListRoots(key=key),))
        roots: list[types.Root] = answer
        return roots

    @overload
    async def ask(self, a: Ask[A], /) -> tuple[A]: ...
    @overload
    async def ask(self, a: Ask[A], b: Ask[B], /) -> tuple[A, B]: ...
    @overload
    async def ask(self, a: Ask[A], b: Ask[B], c: Ask[C], /) -> tuple[A, B, C]: ...
    @overload
    async def ask(self, a: Ask[A], b: Ask[B], c: Ask[C], d: Ask[D], /) -> tuple[A, B, C, D]: ...
    async def ask(self, *questions: Ask[Any]) -> tuple[Any, ...]:
        """Several questions at once: on 2026-07-28 they go out in one round."""
        return await self._interaction.ask(questions)

    @property
    def client_capabilities(self) -> types.ClientCapabilities | None:
        """What the client declared it can answer (elicitation, sampling, roots)."""
        return self._interaction.capabilities
