"""Over stdio on 2025-11-25 the SDK answers a server's question outside the call that asked: the
typed client tags each call, and an mcpstub server tags the questions a call asks alike, so what
`on_elicit` raises is raised by the call that asked and its form is its own tool's, however many
calls are in flight (also of tools that declare no form, also of the same form); a question of a
raw `client.session.call_tool` fails that call, never the next typed one."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from tests.functional.helpers import imported, write_package
from tests.functional.servers import stdio_params

PACKAGE = "fx_asking_stdio"

FORM = "{type: object, properties: {ok: {type: boolean}}, required: [ok]}"

TOOLSET = f"""\
mcpstub: 1
server: {{name: asking-stdio}}
tools:
  - name: login
    inputSchema: {{type: object}}
  - name: quick
    inputSchema: {{type: object}}
  - name: first
    inputSchema: {{type: object}}
    elicitations: {{confirm: {FORM}}}
  - name: second
    inputSchema: {{type: object}}
    elicitations: {{confirm: {FORM}}}
"""

HANDLERS = {
    "login": """\
import anyio


async def login(args, ctx):
    went = await ctx.elicit_url("Sign in", "https://example.com/login")
    await anyio.sleep(0.6)
    return f"login {went.action}"
""",
    "quick": """\
import anyio


async def quick(args, ctx):
    await anyio.sleep(0.3)
    return "quick done"
""",
    "first": """\
import anyio

from ..models import FirstConfirm


async def first(args, ctx):
    answer = await ctx.elicit("First?", FirstConfirm)
    await anyio.sleep(0.6)
    return f"first {answer.action}"
""",
    "second": """\
import anyio

from ..models import SecondConfirm


async def second(args, ctx):
    await anyio.sleep(0.1)
    answer = await ctx.elicit("Second?", SecondConfirm)
    return f"second {answer.action}"
""",
}


class Mine(Exception):
    pass


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("asking_stdio")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    for name, text in HANDLERS.items():
        (folder / "handlers" / f"{name}.py").write_text(text, "utf-8")
    return root


@pytest.fixture(scope="module")
def package(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as module:
        yield module


def at_once(root: Path, on_elicit: Any, *tools: str, raw: str | None = None) -> dict[str, Any]:
    """`tools` called at once over stdio on 2025-11-25 (and `raw` through the SDK's own session),
    then one more call of the first: what each returned or raised."""
    connect = importlib.import_module(f"{PACKAGE}.client").connect
    outcomes: dict[str, Any] = {}

    async def run() -> None:
        async with connect(stdio_params(root, PACKAGE), mode="legacy", on_elicit=on_elicit) as client:

            async def one(name: str) -> None:
                try:
                    outcomes[name] = (await getattr(client, name)())[0].text
                except Exception as exc:  # what the call raised, kept to compare
                    outcomes[name] = exc

            async def sdk(name: str) -> None:
                result = await client.session.call_tool(name, {})
                outcomes[f"raw {name}"] = (result.is_error, result.content[0].text)

            async with anyio.create_task_group() as group:
                for name in tools:
                    group.start_soon(one, name)
                if raw is not None:
                    group.start_soon(sdk, raw)
            outcomes["after"] = (await getattr(client, tools[0])())[0].text

    anyio.run(run)
    return outcomes


def test_what_on_elicit_raises_is_raised_by_the_call_that_asked_not_the_first_to_end(
    package: ModuleType, root: Path
) -> None:
    def fail(question: Any) -> Any:
        if question.url is not None:
            raise Mine("no browser here")
        return CANCEL

    CANCEL = importlib.import_module(f"{PACKAGE}.client").CANCEL
    outcomes = at_once(root, fail, "quick", "login")
    assert outcomes["quick"] == "quick done", outcomes  # (ends first: it asked nothing)
    assert isinstance(outcomes["login"], Mine), outcomes


def test_each_of_two_calls_of_one_form_is_given_its_own_tool_s_and_its_own_failure(
    package: ModuleType, root: Path
) -> None:
    forms = importlib.import_module(f"{PACKAGE}.models")
    given: dict[str, Any] = {}

    def answer(question: Any) -> Any:
        given[question.message] = question.form
        if question.message == "First?":
            raise Mine("not the first")
        return question.form(ok=True)

    outcomes = at_once(root, answer, "second", "first")
    assert given == {"First?": forms.FirstConfirm, "Second?": forms.SecondConfirm}
    assert outcomes["second"] == "second accept", outcomes  # (ends first)
    assert isinstance(outcomes["first"], Mine), outcomes


def test_a_question_of_a_raw_call_fails_that_call_not_a_typed_call_in_flight(
    package: ModuleType, root: Path
) -> None:
    def fail_login(question: Any) -> Any:
        if question.url is not None:
            raise Mine("not for a raw call")
        return question.form(ok=True)

    outcomes = at_once(root, fail_login, "second", raw="login")
    assert outcomes["second"] == "second accept" and outcomes["after"] == "second accept", outcomes
    failed, said = outcomes["raw login"]
    assert failed and "not for a raw call" in said, outcomes
