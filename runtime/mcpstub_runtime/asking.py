"""The typed client's answers to what a tool asks its user: `on_elicit` as the SDK's elicitation
callback (`_Asking`). Each question reaches `on_elicit` as a `Question` with the package's model of
the form; the answer is checked against the form before it is sent, and what goes wrong answering
it is raised by the call that asked. Which call that is: the one whose task the SDK answers in (on
2026-07-28, and in memory), else the one whose tag an mcpstub server carries back in the question
(`io.mcpstub/call`), else a call in flight that could have asked it.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import math
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import jsonschema_rs
from mcp import types
from mcp.client.session import ClientRequestContext
from pydantic import BaseModel, ValidationError

from ._text import clean, describe, json_data, model_errors, unreadable
from .drift import SHOWN_DIFFERENCES, DriftError, DriftWarning, differences, judged, same_form
from .interactive import CALL_META_KEY
from .spec import ToolSpec


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
        # (judged as Python holds it first: its JSON dump replaces or refuses a lone surrogate)
        said = f"on_elicit's answer to {question.message!r} gives "
        _sendable(answered.model_dump(by_alias=True, exclude_none=True), said)
        content: dict[str, Any] = json_data(answered, exclude_none=True)
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
    end the whole connection; the server replaces it, the client says so instead), a NaN or an
    infinity (which the SDK would send as null) and an integer no JSON reader in Python takes."""
    if isinstance(value, str):
        if clean(value) != value:
            raise ValueError(
                f"{said}{path.lstrip('/') or 'text'!r} {value!r}: a lone surrogate has no UTF-8 form, "
                "and JSON text cannot carry it (decode the bytes it came from, or replace it)"
            )
    elif isinstance(value, float) and not math.isfinite(value):  # (sent, it would arrive as null)
        raise ValueError(f"{said}{path.lstrip('/') or 'value'!r} {value!r}: JSON has no NaN or infinity")
    elif isinstance(value, int) and (found := unreadable(value)) is not None:  # (sent, the server would end)
        raise ValueError(f"{said}{path.lstrip('/') or 'value'!r}: {found[1]}")
    elif isinstance(value, dict):
        for key, item in value.items():
            _sendable(key, said, path)
            _sendable(item, said, f"{path}/{key}")
    elif isinstance(value, list | tuple | set | frozenset):  # (as Python holds a value it is given)
        for index, item in enumerate(value):
            _sendable(item, said, f"{path}/{index}")


def _python_names(form: type[BaseModel] | None) -> dict[str, str]:
    """Each field of `form` whose Python name is not its wire name: Python name -> wire name."""
    if form is None:
        return {}
    names = {name: field.alias for name, field in form.model_fields.items()}
    return {name: alias for name, alias in names.items() if alias is not None and alias != name}


def checked_answers(sampling: Any, roots: Any) -> tuple[Any, Any]:
    """The SDK's `sampling_callback` and `list_roots_callback`, each checked as `on_elicit`'s
    answers are: what is not the answer's model (a str, a dict, a model built unchecked), or holds
    what JSON cannot carry (a NaN; an integer past 4,300 digits ends the connection), is refused
    before it is sent, the server told why (the call's ToolError says it)."""

    def checked(name: str, callback: Any, answers: tuple[type[BaseModel], ...]) -> Any:
        async def answer(*args: Any) -> Any:
            given = callback(*args)
            answered = await given if inspect.isawaitable(given) else given
            try:
                if isinstance(answered, types.ErrorData):  # (a refusal: it goes out too)
                    _sendable(answered.model_dump(by_alias=True, exclude_none=True), f"{name}'s error gives ")
                    return answered
                if not isinstance(answered, answers):
                    wanted = " or ".join(a.__name__ for a in answers)
                    raise TypeError(f"{name} returned {type(answered).__name__}: return {wanted}")
                data = answered.model_dump(by_alias=True, exclude_none=True)
                _sendable(data, f"{name}'s answer gives ")
                type(answered).model_validate(data)  # (a model built with `model_construct` is not checked)
            except ValidationError as exc:
                said = f"{name}'s answer does not fit its model:\n{model_errors(exc)}"
                return types.ErrorData(code=types.INVALID_PARAMS, message=said)
            except (TypeError, ValueError) as exc:
                return types.ErrorData(code=types.INVALID_PARAMS, message=str(exc))
            return answered

        return answer

    results = (types.CreateMessageResult, types.CreateMessageResultWithTools)
    return (
        None if sampling is None else checked("sampling_callback", sampling, results),
        None if roots is None else checked("list_roots_callback", roots, (types.ListRootsResult,)),
    )
