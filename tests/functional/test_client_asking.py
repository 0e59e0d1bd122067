"""The typed client answers what a tool asks its user (`on_elicit`), on both protocol generations:
the package's model is sent by its wire names, an answer its form refuses or an `on_elicit` that
fails raises once from the call that asked (not a retry loop, a task group or a server error), and
`Question.form` is the model of the tool being called where two tools ask the same form."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from tests.functional.helpers import imported, write_package

PACKAGE = "fx_client_asking"

CONFIRM = """\
        type: object
        properties:
          ok: {type: boolean}
          note: {type: string, maxLength: 20}
        required: [ok]
"""

TOOLSET = f"""\
mcpstub: 1
server: {{name: asker, version: 1.0.0}}
tools:
  - name: deploy
    inputSchema: {{type: object, properties: {{service: {{type: string}}}}, required: [service]}}
    elicitations:
      confirm:
{CONFIRM}      target:
        type: object
        properties:
          dry-run: {{type: boolean}}
          class: {{type: string, enum: [small, large]}}
        required: [dry-run]
  - name: other
    inputSchema: {{type: object}}
    elicitations:
      confirm:
{CONFIRM}  - name: signin
    inputSchema: {{type: object}}
"""

DEPLOY = """\
from ..models import DeployConfirm, DeployInput, DeployTarget
from ..server import ToolContext


async def deploy(args: DeployInput, ctx: ToolContext) -> str:
    first = await ctx.elicit(f"Deploy {args.service}?", DeployConfirm)
    if first.action != "accept":
        return f"not deployed ({first.action})"
    second = await ctx.elicit("Where?", DeployTarget)
    if second.action != "accept":
        return f"no target ({second.action})"
    return f"deployed ok={first.data.ok} dry_run={second.data.dry_run} class={second.data.class_}"
"""

OTHER = """\
from ..models import OtherConfirm, OtherInput
from ..server import ToolContext


async def other(args: OtherInput, ctx: ToolContext) -> str:
    answer = await ctx.elicit("Other?", OtherConfirm)
    return f"other {answer.action}"
"""


SIGNIN = """\
from ..models import SigninInput
from ..server import ToolContext


async def signin(args: SigninInput, ctx: ToolContext) -> str:
    went = await ctx.elicit_url("Sign in to go on", "https://example.com/login")
    return f"sign-in {went.action}"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("client_asking")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "deploy.py").write_text(DEPLOY, "utf-8")
    (folder / "handlers" / "other.py").write_text(OTHER, "utf-8")
    (folder / "handlers" / "signin.py").write_text(SIGNIN, "utf-8")
    return root


@pytest.fixture
def package(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as module:
        yield module


def models() -> Any:
    return importlib.import_module(f"{PACKAGE}.models")


def call(package: ModuleType, mode: str, tool: str, on_elicit: Any) -> Any:
    connect = importlib.import_module(f"{PACKAGE}.client").connect

    async def run() -> Any:
        async with connect(package.create_server(), mode=mode, on_elicit=on_elicit) as client:
            blocks = await {
                "deploy": lambda: client.deploy(service="api"),
                "other": client.other,
                "signin": client.signin,
            }[tool]()
            return blocks[0].text

    return anyio.run(run)


MODES = ["legacy", "2026-07-28"]


@pytest.mark.parametrize("mode", MODES)
def test_the_package_s_models_are_sent_by_their_wire_names(package: ModuleType, mode: str) -> None:
    forms = models()

    def answer(question: Any) -> Any:
        if question.form is forms.DeployConfirm:
            return forms.DeployConfirm(ok=True)
        assert question.form is forms.DeployTarget
        return forms.DeployTarget(dry_run=True, class_="large")  # `dry-run` and `class` on the wire

    assert call(package, mode, "deploy", answer) == "deployed ok=True dry_run=True class=large"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("answer", "raised", "said"),
    [
        ({"ok": True, "note": "x" * 21}, ValueError, "answer to 'Deploy api?' does not fit its form"),
        ({"note": "a"}, ValueError, '"ok" is a required property'),
        ({"ok": "yes"}, ValueError, "is not of type"),
        (42, TypeError, "on_elicit returned int for 'Deploy api?'"),
        ("yes", TypeError, "on_elicit returned str"),
        ({"ok": True, "extra": {"a": 1}}, ValueError, "gives 'extra' a dict: an answer's values are"),
        ({"ok": True, "tags": [1, 2]}, ValueError, "gives 'tags' a list"),
        ({"ok": True, "note": "n\udc80"}, ValueError, "gives 'note' 'n\\\\udc80': a lone surrogate has no"),
    ],
    ids=[
        "too-long",
        "missing",
        "wrong-type",
        "a-number",
        "a-string",
        "an-object",
        "a-list-of-numbers",
        "a-lone-surrogate",
    ],
)
def test_an_answer_the_form_refuses_raises_once_from_the_call(
    package: ModuleType, mode: str, answer: Any, raised: type[Exception], said: str
) -> None:
    asked: list[str] = []

    def fill(question: Any) -> Any:
        asked.append(question.message)
        return answer

    with pytest.raises(raised, match=said.replace("(", r"\(").replace("?", r"\?")):
        call(package, mode, "deploy", fill)
    assert asked == ["Deploy api?"]  # asked once: the refusal is not retried


@pytest.mark.parametrize("mode", MODES)
def test_a_field_s_python_name_in_an_answer_is_refused_naming_its_wire_name(
    package: ModuleType, mode: str
) -> None:
    """`class_` for `class`: the form's schema would take it as an extra key, and the server would
    not read it as the field."""

    def fill(question: Any) -> Any:
        if question.form is models().DeployConfirm:
            return {"ok": True}
        return {"dry-run": True, "class_": "huge"}

    with pytest.raises(ValueError, match="gives 'class_', the Python name of the form's field 'class'"):
        call(package, mode, "deploy", fill)


class Mine(Exception):
    pass


@pytest.mark.parametrize("mode", MODES)
def test_what_on_elicit_raises_is_what_the_call_raises(package: ModuleType, mode: str) -> None:
    def fail(question: Any) -> Any:
        raise Mine("no one to ask")

    with pytest.raises(Mine, match="no one to ask"):
        call(package, mode, "deploy", fail)


@pytest.mark.parametrize("mode", MODES)
def test_the_form_of_the_tool_being_called_is_given(package: ModuleType, mode: str) -> None:
    """`deploy` and `other` ask the same form: each call is given its own tool's model."""
    forms: list[type[Any]] = []

    def decline(question: Any) -> Any:
        forms.append(question.form)
        return None

    assert call(package, mode, "other", decline) == "other decline"
    assert call(package, mode, "deploy", decline) == "not deployed (decline)"
    assert forms == [models().OtherConfirm, models().DeployConfirm]


def overlapping() -> dict[str, Any]:
    """Handlers of `deploy` and `other` that each ask their form while the other's call is in
    flight, when both are called at once: `other` asks second and ends first."""
    forms = models()

    async def deploy(args: Any, ctx: Any) -> str:
        answer = await ctx.elicit(f"Deploy {args.service}?", forms.DeployConfirm)
        await anyio.sleep(0.3)
        return f"deploy {answer.action}"

    async def other(args: Any, ctx: Any) -> str:
        await anyio.sleep(0.1)
        answer = await ctx.elicit("Other?", forms.OtherConfirm)
        return f"other {answer.action}"

    return {"deploy": deploy, "other": other}


def both_at_once(package: ModuleType, mode: str, on_elicit: Any) -> dict[str, Any]:
    """`deploy` and `other` called at once, each asking its form (the same one) while the other
    call is in flight, `other` ending first: what each returned or raised."""
    connect = importlib.import_module(f"{PACKAGE}.client").connect
    outcomes: dict[str, Any] = {}

    async def run() -> None:
        server = package.create_server(handlers=overlapping())
        async with connect(server, mode=mode, on_elicit=on_elicit) as client:

            async def one(name: str) -> None:
                try:
                    blocks = await (client.deploy(service="api") if name == "deploy" else client.other())
                    outcomes[name] = blocks[0].text
                except Exception as exc:  # what the call raised, kept to compare
                    outcomes[name] = exc

            async with anyio.create_task_group() as group:
                group.start_soon(one, "deploy")
                group.start_soon(one, "other")

    anyio.run(run)
    return outcomes


@pytest.mark.parametrize("mode", MODES)
def test_what_on_elicit_raises_is_raised_by_the_call_that_asked_not_the_first_to_end(
    package: ModuleType, mode: str
) -> None:
    def fail_deploy(question: Any) -> Any:
        if question.message == "Deploy api?":
            raise Mine("no one to ask")
        return None

    outcomes = both_at_once(package, mode, fail_deploy)
    assert outcomes["other"] == "other decline"
    assert isinstance(outcomes["deploy"], Mine), outcomes


@pytest.mark.parametrize("mode", MODES)
def test_each_of_two_calls_at_once_is_given_its_own_tool_s_form(package: ModuleType, mode: str) -> None:
    given: dict[str, Any] = {}

    def decline(question: Any) -> Any:
        given[question.message] = question.form
        return None

    assert both_at_once(package, mode, decline) == {"other": "other decline", "deploy": "deploy decline"}
    assert given == {"Deploy api?": models().DeployConfirm, "Other?": models().OtherConfirm}


@pytest.mark.parametrize(("mode", "raised"), [("2026-07-28", "MCPError"), ("legacy", "ToolError")])
def test_without_on_elicit_a_call_that_asks_fails_as_the_page_says(
    package: ModuleType, mode: str, raised: str
) -> None:
    """client.md: the SDK's MCPError on 2026-07-28, a ToolError saying the tool cannot ask on
    2025-11-25."""
    from mcp.shared.exceptions import MCPError  # noqa: PLC0415

    from mcpstub_runtime.results import ToolError  # noqa: PLC0415

    with pytest.raises((MCPError, ToolError)) as failed:
        call(package, mode, "deploy", None)
    assert type(failed.value).__name__ == raised, repr(failed.value)
    if raised == "ToolError":
        assert "cannot ask" in str(failed.value)


@pytest.mark.parametrize(
    ("asks", "said"),
    [
        ("confirm: {type: object, properties: {ok: {type: boolean}}}",
         ['`answer = await ctx.elicit("...", GoConfirm)`', "`from ..models import GoConfirm`"]),
        ("confirm: {type: object, properties: {ok: {type: boolean}}}\n"
         "      where: {type: object, properties: {to: {type: string}}}",
         ['`answer = await ctx.elicit("...", Form)`', "GoConfirm, GoWhere (from ..models"]),
    ],
)  # fmt: skip
def test_the_stub_of_a_tool_that_asks_shows_how_with_its_forms(
    tmp_path: Path, asks: str, said: list[str]
) -> None:
    """The stub names the forms the tool may ask and how (as comments: nothing imported that the
    stub does not use); it is still a stub, answered as one."""
    toolset = f"""\
mcpstub: 1
server: {{name: s}}
tools:
  - name: go
    inputSchema: {{type: object}}
    elicitations:
      {asks}
"""
    folder, _ = write_package(tmp_path, "fx_stub_asks", toolset)
    stub = (folder / "handlers" / "go.py").read_text("utf-8")
    assert all(s in stub for s in said), stub
    with imported(tmp_path, "fx_stub_asks") as module:
        connect = importlib.import_module("fx_stub_asks.client").connect

        async def run() -> Any:
            async with connect(module.create_server()) as client:
                return await client.go()

        from mcpstub_runtime.results import ToolError  # noqa: PLC0415

        with pytest.raises(ToolError, match="go is not implemented yet"):
            anyio.run(run)


@pytest.mark.parametrize("mode", MODES)
def test_an_argument_json_cannot_carry_is_refused_before_it_is_sent_and_the_client_goes_on(
    package: ModuleType, mode: str
) -> None:
    # A file name read with surrogateescape: sent, it would end the connection over stdio (the
    # writer cannot encode it), and every call with it.
    connect = importlib.import_module(f"{PACKAGE}.client").connect

    async def run() -> str:
        async with connect(package.create_server(), mode=mode, on_elicit=lambda question: None) as client:
            with pytest.raises(ValueError, match=r"deploy: argument 'service' 'a\\udc80': a lone surrogate"):
                await client.deploy(service="a\udc80")
            return str((await client.deploy(service="api"))[0].text)

    assert anyio.run(run) == "not deployed (decline)"


@pytest.mark.parametrize("mode", MODES)
def test_a_question_of_a_raw_session_call_fails_that_call_not_a_typed_call_in_flight(
    package: ModuleType, mode: str
) -> None:
    # `client.session.call_tool` is the SDK's own call: what on_elicit raises answering its
    # question is that call's, never a typed call's that happens to be in flight.
    connect = importlib.import_module(f"{PACKAGE}.client").connect
    forms = models()

    def fail_other(question: Any) -> Any:
        if question.message == "Other?":
            raise Mine("not for a raw call")
        return forms.DeployConfirm(ok=True)

    outcomes: dict[str, Any] = {}

    async def run() -> None:
        server = package.create_server(handlers=overlapping())
        async with connect(server, mode=mode, on_elicit=fail_other) as client:

            async def typed() -> None:
                outcomes["typed"] = (await client.deploy(service="api"))[0].text

            async def raw() -> None:
                try:
                    outcomes["raw"] = await client.session.call_tool("other", {})
                except Exception as exc:  # what the raw call raised, kept to compare
                    outcomes["raw"] = exc

            async with anyio.create_task_group() as group:
                group.start_soon(typed)
                group.start_soon(raw)
            outcomes["after"] = (await client.deploy(service="b"))[0].text

    anyio.run(run)
    assert outcomes["typed"] == "deploy accept", outcomes
    assert outcomes["after"] == "deploy accept", outcomes
    raw = outcomes["raw"]
    assert isinstance(raw, Exception) or raw.is_error, raw


def test_without_the_asking_call_s_context_a_question_goes_to_the_one_call_that_can_ask(
    package: ModuleType,
) -> None:
    # 2025-11-25 over stdio or HTTP answers questions outside the calls' own tasks: of the calls in
    # flight, only those of tools that declare forms can have asked.
    from mcpstub_runtime.asking import _Asking  # noqa: PLC0415 - the client's own part, tested alone

    asking = _Asking(importlib.import_module(f"{PACKAGE}.client").Client._tools, lambda q: None)
    confirm = next(schema for tool, key, schema, _ in asking.forms if (tool, key) == ("deploy", "confirm"))
    with asking.calling("plain"), asking.calling("deploy") as deploy:
        found: list[Any] = []
        context = __import__("contextvars").Context()  # as the connection's reader: no call's context
        context.run(lambda: found.append(asking.asker(confirm)))
        assert found == [deploy]
        context.run(lambda: found.append(asking.asker(None)))  # a URL: either call could have asked
        assert found[-1] is None
        with asking.calling("other") as other:
            context.run(lambda: found.append(asking.asker(confirm)))
            assert found[-1] is None  # two calls could have asked: not told
            # An mcpstub server tags a question with its call's tag ("" for a raw call's).
            context.run(lambda: found.append(asking.asker(confirm, {"io.mcpstub/call": other.tag})))
            assert found[-1] is other
            context.run(lambda: found.append(asking.asker(confirm, {"io.mcpstub/call": ""})))
            assert found[-1] is None


@pytest.mark.parametrize("mode", MODES)
def test_a_url_question_is_given_to_on_elicit_with_its_page(package: ModuleType, mode: str) -> None:
    asked: list[Any] = []

    def go(question: Any) -> Any:
        asked.append(question)
        return True

    assert call(package, mode, "signin", go) == "sign-in accept"
    assert [(q.message, q.url, q.form, dict(q.schema)) for q in asked] == [
        ("Sign in to go on", "https://example.com/login", None, {})
    ]
    assert call(package, mode, "signin", lambda question: None) == "sign-in decline"
    assert call(package, mode, "signin", lambda question: False) == "sign-in decline"
    with pytest.raises(TypeError, match="return True once the user agreed to open the page"):
        call(package, mode, "signin", lambda question: {"ok": True})


@pytest.mark.parametrize("mode", MODES)
def test_false_declines_a_form_as_none_does(package: ModuleType, mode: str) -> None:
    assert call(package, mode, "deploy", lambda question: False) == "not deployed (decline)"


def served_by(root: Path, name: str, toolset: str) -> ModuleType:
    """A package of the same tools whose server asks forms written otherwise (`toolset`)."""
    if not (root / name).exists():
        folder, _ = write_package(root, name, toolset)
        for handler, text in (("deploy", DEPLOY), ("other", OTHER), ("signin", SIGNIN)):
            (folder / "handlers" / f"{handler}.py").write_text(text, "utf-8")
    with imported(root, name) as module:
        return module


def call_server(package: ModuleType, server: Any, mode: str, on_elicit: Any, **options: Any) -> str:
    connect = importlib.import_module(f"{PACKAGE}.client").connect

    async def run() -> str:
        async with connect(server, mode=mode, on_elicit=on_elicit, **options) as client:
            blocks = await client.deploy(service="api")
            return str(blocks[0].text)

    return anyio.run(run)


# The server's `confirm` told otherwise: a title, a description and a default added.
RETITLED = TOOLSET.replace(
    "          ok: {type: boolean}\n",
    "          ok: {type: boolean, title: Go ahead, description: say yes, default: false}\n",
    1,
)
RENAMED = TOOLSET.replace("          ok: {type: boolean}\n", "          go: {type: boolean}\n", 1).replace(
    "        required: [ok]\n", "        required: [go]\n", 1
)


@pytest.mark.parametrize("mode", MODES)
def test_a_form_told_otherwise_is_still_the_package_s_model(
    root: Path, package: ModuleType, mode: str
) -> None:
    """Titles, descriptions and defaults judge no answer: the client still knows the form."""
    server = served_by(root, "fx_asking_retitled", RETITLED).create_server()
    forms = models()

    def answer(question: Any) -> Any:
        if question.form is forms.DeployConfirm:
            return forms.DeployConfirm(ok=True)
        assert question.form is forms.DeployTarget
        return forms.DeployTarget(dry_run=False, class_="small")

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no drift to warn of
        said = call_server(package, server, mode, answer)
    assert said == "deployed ok=True dry_run=False class=small"


@pytest.mark.parametrize("mode", MODES)
def test_a_form_the_client_does_not_know_is_warned_of_and_refused_by_a_strict_client(
    root: Path, package: ModuleType, mode: str
) -> None:
    from mcpstub_runtime.client import DriftError, DriftWarning  # noqa: PLC0415

    server = served_by(root, "fx_asking_renamed", RENAMED)
    forms: list[Any] = []

    def decline(question: Any) -> Any:
        forms.append(question.form)
        return None

    with pytest.warns(DriftWarning) as caught:
        assert call_server(package, server.create_server(), mode, decline) == "not deployed (decline)"
    assert forms == [None]
    said = str(caught[0].message)
    assert "tool 'deploy' asks a form that differs from those this client was generated for" in said
    assert 'elicitations/confirm /properties/ok: {"type": "boolean"} -> (absent)' in said, said
    assert "on_elicit gets it with form None" in said
    assert len(caught) == 1

    asked: list[Any] = []
    with pytest.raises(DriftError, match="a strict client answers no such question"):
        call_server(package, server.create_server(), mode, asked.append, strict=True)
    assert asked == []  # refused before on_elicit saw it


@pytest.mark.parametrize("mode", MODES)
def test_a_call_whose_on_elicit_failed_is_not_asked_again(package: ModuleType, mode: str) -> None:
    """A handler whose question changes each time it runs (a new question on 2026-07-28, where each
    round runs it again): the call that failed answers no more, and ends with what on_elicit raised."""
    forms = models()
    runs: list[int] = []

    async def restless(args: Any, ctx: Any) -> str:
        runs.append(len(runs) + 1)
        answer = await ctx.elicit(f"Deploy? (run {len(runs)})", forms.DeployConfirm)
        return f"deploy {answer.action}"

    asked: list[str] = []

    def fail(question: Any) -> Any:
        asked.append(question.message)
        raise Mine("no one to ask")

    with pytest.raises(Mine, match="no one to ask"):
        call_server(package, package.create_server({"deploy": restless}), mode, fail)
    assert asked == ["Deploy? (run 1)"]


# The server's `other` asks `deploy`'s target form under its key; its `signin` asks a form too.
OTHERWISE = TOOLSET.replace(
    f"  - name: other\n    inputSchema: {{type: object}}\n    elicitations:\n      confirm:\n{CONFIRM}",
    "  - name: other\n    inputSchema: {type: object}\n    elicitations:\n      confirm:\n"
    "        type: object\n        properties:\n          dry-run: {type: boolean}\n"
    "          class: {type: string, enum: [small, large]}\n        required: [dry-run]\n",
).replace(
    "  - name: signin\n    inputSchema: {type: object}\n",
    f"  - name: signin\n    inputSchema: {{type: object}}\n    elicitations:\n      confirm:\n{CONFIRM}",
)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tool", ["other", "signin"])
def test_a_form_the_calling_tool_does_not_declare_is_unknown_whoever_declares_it(
    root: Path, package: ModuleType, mode: str, tool: str
) -> None:
    """`other` is asked `deploy`'s target form, `signin` (which asks no form here) a confirm form:
    each is a form its tool declares none like, though another tool of the package declares it."""
    from mcpstub_runtime.client import DriftError, DriftWarning  # noqa: PLC0415

    assert OTHERWISE != TOOLSET and OTHERWISE.count("confirm:") == 3
    server = served_by(root, "fx_asking_otherwise", OTHERWISE)
    models = importlib.import_module("fx_asking_otherwise.models")

    async def asks(args: Any, ctx: Any) -> str:
        model = models.OtherConfirm if tool == "other" else models.SigninConfirm
        return f"{tool} {(await ctx.elicit('Sure?', model)).action}"

    connect = importlib.import_module(f"{PACKAGE}.client").connect
    forms: list[Any] = []

    def run(**options: Any) -> str:
        async def go() -> str:
            async with connect(server.create_server({tool: asks}), mode=mode, **options) as client:
                blocks = await (client.other() if tool == "other" else client.signin())
                return str(blocks[0].text)

        return anyio.run(go)

    with pytest.warns(DriftWarning, match=f"the server's tool '{tool}' asks a form"):
        assert run(on_elicit=lambda question: forms.append(question.form)) == f"{tool} decline"
    assert forms == [None]
    with pytest.raises(DriftError):
        run(on_elicit=lambda question: forms.append(question.form), strict=True)
    assert forms == [None]


def test_forms_are_one_whatever_order_their_lists_are_written_in() -> None:
    from mcpstub_runtime.drift import same_form  # noqa: PLC0415

    form = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}}
    assert same_form({**form, "required": ["a", "b"]}, {**form, "required": ["b", "a"]})
    assert not same_form({**form, "required": ["a", "b"]}, {**form, "required": ["a"]})
    choice = {"type": "string", "enum": ["x", "y"]}
    legacy = {"type": "object", "properties": {"c": choice}}
    assert same_form(legacy, {"type": "object", "properties": {"c": {**choice, "enumNames": ["X", "Y"]}}})
    assert same_form(legacy, {"type": "object", "properties": {"c": {**choice, "enum": ["y", "x"]}}})
    assert not same_form(legacy, {"type": "object", "properties": {"c": {**choice, "enum": ["x"]}}})
    titled = [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]

    def single(choices: list[Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {"c": {"type": "string", "oneOf": choices}}}

    def many(choices: list[Any]) -> dict[str, Any]:
        return {"type": "object", "properties": {"c": {"type": "array", "items": {"anyOf": choices}}}}

    assert same_form(single(titled), single(titled[::-1])) and same_form(many(titled), many(titled[::-1]))
    assert not same_form(single(titled), single(titled[:1]))
    titled = {"type": "object", "properties": {"title": {"type": "string"}}}  # a property named like a word
    assert not same_form(titled, {"type": "object", "properties": {}})


@pytest.mark.parametrize("mode", MODES)
def test_cancel_dismisses_a_question_and_the_call_goes_on(package: ModuleType, mode: str) -> None:
    """`CANCEL` is MCP's "cancel" (None its "decline"): the handler sees it and answers the call,
    for a form (an async `on_elicit` too) and for a page."""
    cancel = importlib.import_module(f"{PACKAGE}.client").CANCEL

    async def dismiss(question: Any) -> Any:
        return cancel

    assert call(package, mode, "deploy", lambda question: cancel) == "not deployed (cancel)"
    assert call(package, mode, "deploy", dismiss) == "not deployed (cancel)"
    assert call(package, mode, "other", lambda question: cancel) == "other cancel"
    assert call(package, mode, "signin", lambda question: cancel) == "sign-in cancel"
