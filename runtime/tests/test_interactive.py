"""Asking from a handler (`mcpstub_runtime.interactive`): one handler, both protocol generations.

The SDK's own clients answer: `Client(server, mode="legacy")` over the 2025-11-25 back-channel,
`Client(server)` through 2026-07-28 input-required rounds; raw requests attack the rounds.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.context import ClientRequestContext
from mcp.server import Server, ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel
from runtime_fixture import INFO, PACKAGE

from mcpstub_runtime import create_server
from mcpstub_runtime.interactive import (
    Asking,
    CannotAsk,
    Elicit,
    Elicitation,
    InputRequired,
    Interaction,
    InvalidAnswer,
    ListRoots,
    capability_error,
    request_state_boundary,
    run_asking,
)

pytestmark = pytest.mark.anyio


class Confirm(BaseModel):
    ok: bool
    note: str = "none"


class Name(BaseModel):
    name: str


FORMS = {
    Confirm: Elicitation.of(
        "confirm",
        {
            "type": "object",
            "properties": {"ok": {"type": "boolean"}, "note": {"type": "string", "maxLength": 10}},
            "required": ["ok"],
        },
    ),
    Name: Elicitation.of(
        "user_name", {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    ),
}


class Ctx(Asking):
    def __init__(self, interaction: Interaction) -> None:
        self._interaction = interaction


Handler = Callable[[Ctx], Awaitable[str]]


def serve(handler: Handler, runs: list[str] | None = None) -> Server[Any]:
    async def on_call_tool(ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams) -> Any:
        interaction = Interaction(ctx, FORMS)
        if runs is not None:
            runs.append("run")
        try:
            result = await run_asking(lambda: handler(Ctx(interaction)), interaction)
        except CannotAsk as exc:
            if interaction.modern:
                raise capability_error(exc) from None
            return {
                "content": [{"type": "text", "text": exc.message}],
                "isError": True,
                "resultType": "complete",
            }
        except InvalidAnswer as exc:
            return {
                "content": [{"type": "text", "text": exc.message}],
                "isError": True,
                "resultType": "complete",
            }
        except Exception as exc:  # a handler's bug: the generated server logs it and answers so
            return {
                "content": [{"type": "text", "text": f"{type(exc).__name__}: {exc}"}],
                "isError": True,
                "resultType": "complete",
            }
        if isinstance(result, InputRequired):
            return result.wire
        return {"content": [{"type": "text", "text": result}], "resultType": "complete"}

    async def on_list_tools(ctx: ServerRequestContext[Any, Any], params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="t", input_schema={"type": "object"})])

    server: Server[Any] = Server("asker", on_call_tool=on_call_tool, on_list_tools=on_list_tools)
    server.middleware.append(request_state_boundary("asker"))
    return server


async def accept_all(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert isinstance(params, types.ElicitRequestFormParams)
    if "name" in params.requested_schema["properties"]:
        return types.ElicitResult(action="accept", content={"name": "Ada"})
    return types.ElicitResult(action="accept", content={"ok": True})


async def sampled(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    text = params.messages[0].content
    assert isinstance(text, types.TextContent)
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text=f"re: {text.text}"), model="m"
    )


async def rooted(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///work", name="work")])


async def call(server: Server[Any], mode: str, **callbacks: Any) -> types.CallToolResult:
    async with Client(server, mode=mode, **callbacks) as client:  # type: ignore[arg-type]
        return await client.call_tool("t", {})


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


MODES = ["legacy", "2026-07-28"]


@pytest.mark.parametrize("mode", MODES)
async def test_one_handler_asks_on_both_generations(mode: str) -> None:
    async def handler(ctx: Ctx) -> str:
        answer = await ctx.elicit("Deploy?", Confirm)
        assert answer.action == "accept"
        reply = await ctx.sample("hello", max_tokens=10, key="greeting")
        roots = await ctx.list_roots(key="client_roots")
        assert isinstance(reply.content, types.TextContent)
        return f"{answer.data.ok} {answer.data.note} {reply.content.text} {roots[0].uri}"

    result = await call(
        serve(handler),
        mode,
        elicitation_callback=accept_all,
        sampling_callback=sampled,
        list_roots_callback=rooted,
    )
    assert not result.is_error, result
    assert text(result) == "True none re: hello file:///work"


@pytest.mark.parametrize("action", ["decline", "cancel"])
@pytest.mark.parametrize("mode", MODES)
async def test_decline_and_cancel_reach_the_handler(mode: str, action: str) -> None:
    async def refuse(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action=action)  # type: ignore[arg-type]

    async def handler(ctx: Ctx) -> str:
        return (await ctx.elicit("Deploy?", Confirm)).action

    assert text(await call(serve(handler), mode, elicitation_callback=refuse)) == action


@pytest.mark.parametrize("mode", MODES)
async def test_an_answer_off_the_frozen_schema_never_reaches_the_handler(mode: str) -> None:
    answers = iter([{"ok": True, "note": "far too long for ten"}, {"ok": "yes"}, {"ok": False}])

    async def wrong_then_right(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content=next(answers))

    seen: list[Confirm] = []

    async def handler(ctx: Ctx) -> str:
        answer = await ctx.elicit("Deploy?", Confirm)
        assert answer.action == "accept"
        seen.append(answer.data)
        return "done"

    result = await call(serve(handler), mode, elicitation_callback=wrong_then_right)
    if mode == "legacy":  # one question, one answer: refused, and said so
        assert result.is_error and "'confirm' was refused" in text(result)
        assert seen == []
    else:  # asked again until the answer matches
        assert text(result) == "done"
        assert seen == [Confirm(ok=False)]


async def test_questions_asked_together_go_out_in_one_round_and_answers_carry_on() -> None:
    rounds: list[list[str]] = []
    runs: list[str] = []

    async def handler(ctx: Ctx) -> str:
        name, roots = await ctx.ask(Elicit("Name?", Name), ListRoots(key="client_roots"))
        assert name.action == "accept"
        async with anyio.create_task_group() as group:  # tasks started together ask together

            async def greet() -> None:
                await ctx.sample("greet", max_tokens=5, key="greeting")

            async def confirm() -> None:
                await ctx.elicit("Sure?", Confirm)

            group.start_soon(greet)
            group.start_soon(confirm)
        return f"{name.data.name} {len(roots)}"

    async def counting(
        context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        rounds.append([params.message])
        return await accept_all(context, params)

    result = await call(
        serve(handler, runs), "2026-07-28", elicitation_callback=counting, sampling_callback=sampled,
        list_roots_callback=rooted,
    )  # fmt: skip
    assert text(result) == "Ada 1"
    assert len(runs) == 3  # asked: name + roots; then greeting + confirm; then done
    assert rounds == [["Name?"], ["Sure?"]]


async def raw(
    server: Server[Any], params: dict[str, Any], capabilities: dict[str, Any] | None = None, name: str = "t"
) -> Any:
    """One 2026-07-28 tools/call over stateless HTTP, as a client without a driver sends it: the
    result, or the error."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "sampling": {}, "roots": {}}
        if capabilities is None
        else capabilities,
    }
    call = {"name": name, "arguments": {}, **params}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    body["params"]["_meta"] = meta
    headers = {"MCP-Protocol-Version": "2026-07-28", "Accept": "application/json, text/event-stream"}
    headers |= {"Mcp-Method": "tools/call", "Mcp-Name": name}
    app = server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            response = await http.post("/mcp", json=body, headers=headers)
    answer = response.json()
    return answer["result"] if "result" in answer else answer["error"]


def greeter() -> Server[Any]:
    async def handler(ctx: Ctx) -> str:
        answer = await ctx.elicit("What is your name?", Name)
        return f"Hello, {answer.data.name}!" if answer.action == "accept" else answer.action

    return serve(handler)


async def test_the_state_is_sealed_and_a_tampered_one_is_refused() -> None:
    server = greeter()
    first = await raw(server, {})
    assert first["resultType"] == "input_required"
    assert first["inputRequests"]["user_name"]["method"] == "elicitation/create"
    state = first["requestState"]
    assert "user_name" not in state and "asked" not in state  # sealed, not readable
    answer = {"user_name": {"action": "accept", "content": {"name": "Alice"}}}
    done = await raw(server, {"inputResponses": answer, "requestState": state})
    assert done["content"][0]["text"] == "Hello, Alice!"
    for bad in (state + "-TAMPERED", state[:-2] + ("AA" if not state.endswith("AA") else "BB"), "v1.xyz", ""):
        refused = await raw(server, {"inputResponses": answer, "requestState": bad})
        if bad == "":
            continue  # no state at all: no progress, the answer stands for the question
        assert refused["code"] == -32602, (bad, refused)


async def test_missing_wrong_and_extra_keys() -> None:
    server = greeter()
    again = await raw(
        server, {"inputResponses": {"wrong_key": {"action": "accept", "content": {"name": "x"}}}}
    )
    assert again["resultType"] == "input_required" and list(again["inputRequests"]) == ["user_name"]
    extra = {
        "user_name": {"action": "accept", "content": {"name": "Alice"}},
        "unknown_extra_key": {"action": "accept", "content": {"foo": "bar"}},
    }
    assert (await raw(server, {"inputResponses": extra}))["content"][0]["text"] == "Hello, Alice!"
    malformed = await raw(
        server, {"inputResponses": {"user_name": {"action": "accept", "content": {"name": 5}}}}
    )
    assert malformed["resultType"] == "input_required"


async def test_only_what_the_client_declared_is_asked() -> None:
    async def handler(ctx: Ctx) -> str:
        try:
            answer = await ctx.elicit("Name?", Name)
        except CannotAsk:
            reply = await ctx.sample("Make up a name", max_tokens=5, key="made_up")
            assert isinstance(reply.content, types.TextContent)
            return reply.content.text
        return answer.action

    first = await raw(serve(handler), {}, {"sampling": {}})
    assert first["resultType"] == "input_required"
    assert [r["method"] for r in first["inputRequests"].values()] == ["sampling/createMessage"]
    nothing = await raw(greeter(), {}, {})
    assert nothing["code"] == types.MISSING_REQUIRED_CLIENT_CAPABILITY


def flipping(shown: list[str]) -> Callable[..., Awaitable[types.ElicitResult]]:
    """A client that answers each form it is shown otherwise than the last: a question asked of
    it twice would get two answers."""

    async def answer(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params.message)
        if (
            isinstance(params, types.ElicitRequestFormParams)
            and "name" in params.requested_schema["properties"]
        ):
            return types.ElicitResult(action="accept", content={"name": f"Ada {len(shown)}"})
        return types.ElicitResult(
            action="accept", content={"ok": len(shown) % 2 == 1, "note": str(len(shown))}
        )

    return answer


@pytest.mark.parametrize("mode", MODES)
async def test_a_key_asked_again_gets_the_same_answer_without_asking_again(mode: str) -> None:
    async def handler(ctx: Ctx) -> str:
        first = await ctx.elicit("Deploy?", Confirm)
        name = await ctx.elicit("Name?", Name)
        again = await ctx.elicit("Deploy?", Confirm)  # after another question
        (third, fourth) = await ctx.ask(Elicit("Deploy?", Confirm), Elicit("Deploy?", Confirm))
        assert first.action == again.action == third.action == fourth.action == "accept"
        assert name.action == "accept"
        assert first.data == again.data == third.data == fourth.data
        return f"{first.data} {name.data.name}"

    shown: list[str] = []
    result = await call(serve(handler), mode, elicitation_callback=flipping(shown))
    assert text(result) == "ok=True note='1' Ada 2"
    assert shown == ["Deploy?", "Name?"]


@pytest.mark.parametrize("mode", MODES)
async def test_tasks_asking_one_key_at_once_ask_it_once(mode: str) -> None:
    answers: list[str] = []

    async def handler(ctx: Ctx) -> str:
        async def confirm() -> None:
            answer = await ctx.elicit("Deploy?", Confirm)
            assert answer.action == "accept"
            answers.append(answer.data.note)

        async with anyio.create_task_group() as group:
            group.start_soon(confirm)
            group.start_soon(confirm)
        return " ".join(answers)

    shown: list[str] = []
    result = await call(serve(handler), mode, elicitation_callback=flipping(shown))
    assert shown == ["Deploy?"]
    assert text(result).split()[-2:] == ["1", "1"]  # the last run's two tasks, one answer


async def asked_with_other_words(ctx: Ctx) -> str:
    await ctx.elicit("Deploy?", Confirm)
    await ctx.elicit("Deploy now?", Confirm)
    return "never"


async def sampled_with_other_limits(ctx: Ctx) -> str:
    await ctx.sample("one", max_tokens=5)
    await ctx.list_roots(key="other")
    await ctx.sample("one", max_tokens=50)  # the same words, another request
    return "never"


async def asked_for_something_else(ctx: Ctx) -> str:
    await ctx.list_roots(key="sampling")
    await ctx.sample("one", max_tokens=5)  # its default key, taken by the roots
    return "never"


@pytest.mark.parametrize(
    "handler", [asked_with_other_words, sampled_with_other_limits, asked_for_something_else]
)
@pytest.mark.parametrize("mode", MODES)
async def test_a_key_asked_again_with_another_question_fails_the_call(mode: str, handler: Handler) -> None:
    shown: list[str] = []

    async def counted(context: ClientRequestContext, params: Any) -> types.CreateMessageResult:
        shown.append("sampled")
        return await sampled(context, params)

    async def listed(context: ClientRequestContext) -> types.ListRootsResult:
        shown.append("roots")
        return await rooted(context)

    result = await call(
        serve(handler), mode, elicitation_callback=flipping(shown), sampling_callback=counted,
        list_roots_callback=listed,
    )  # fmt: skip
    assert result.is_error and "was asked twice with different questions" in text(result), text(result)
    assert text(result).startswith("ValueError: the key ")
    assert len(shown) == len(set(shown))  # the second question never reached the client


async def test_a_form_the_tool_did_not_declare_is_refused() -> None:
    class Other(BaseModel):
        x: int

    async def handler(ctx: Ctx) -> str:
        await ctx.elicit("?", Other)
        return "never"

    for mode in MODES:
        result = await call(serve(handler), mode, elicitation_callback=accept_all)
        assert result.is_error and "Other is not a form this tool declares" in text(result)


async def test_a_state_answers_only_the_call_it_was_sealed_for() -> None:
    server = greeter()
    state = (await raw(server, {"arguments": {"a": 1}}))["requestState"]
    answer = {"user_name": {"action": "accept", "content": {"name": "Alice"}}}
    assert (await raw(server, {"arguments": {"a": 1}, "inputResponses": answer, "requestState": state}))[
        "content"
    ][0]["text"] == "Hello, Alice!"
    other_arguments = await raw(
        server, {"arguments": {"a": 2}, "inputResponses": answer, "requestState": state}
    )
    other_tool = await raw(
        server, {"arguments": {"a": 1}, "inputResponses": answer, "requestState": state}, name="u"
    )
    other_server = await raw(
        greeter(), {"arguments": {"a": 1}, "inputResponses": answer, "requestState": state}
    )
    assert [r["code"] for r in (other_arguments, other_tool, other_server)] == [-32602] * 3


async def test_a_state_is_bound_to_its_call_not_used_up() -> None:
    """What the handlers guide says a replay does: the server keeps nothing between rounds."""
    effects: list[str] = []
    balance = ["10"]

    async def handler(ctx: Ctx) -> str:
        answer = await ctx.elicit(f"Pay {balance[0]}?", Confirm)
        assert answer.action == "accept"
        if answer.data.ok:
            effects.append(balance[0])  # after the last question
        return f"{answer.data.ok} {len(effects)}"

    server = serve(handler)
    state = (await raw(server, {}))["requestState"]
    yes = {
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}},
        "requestState": state,
    }
    no = {
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": False}}},
        "requestState": state,
    }
    assert (await raw(server, yes))["content"][0]["text"] == "True 1"
    assert (await raw(server, yes))["content"][0]["text"] == "True 2"  # a replay runs it again
    assert (await raw(server, no))["content"][0]["text"] == "False 2"  # and may answer otherwise
    balance[0] = "20"  # the question's words changed since: the old round's answer does not count
    again = await raw(server, yes)
    assert again["inputRequests"]["confirm"]["params"]["message"] == "Pay 20?"
    assert effects == ["10", "10"]


async def test_an_answer_to_other_words_is_asked_again() -> None:
    asked = iter(["What is your name?", "Your name, please?"])

    async def handler(ctx: Ctx) -> str:
        answer = await ctx.elicit(next(asked), Name)
        return answer.action

    server = serve(handler)
    first = await raw(server, {})
    answer = {"user_name": {"action": "accept", "content": {"name": "Alice"}}}
    again = await raw(server, {"inputResponses": answer, "requestState": first["requestState"]})
    assert again["inputRequests"]["user_name"]["params"]["message"] == "Your name, please?"


async def test_an_answer_given_in_an_earlier_round_to_other_words_is_not_taken_again() -> None:
    """A key answered in one round and asked in other words since (the amount changed): an answer
    to it sent again with a later round is the answer to the old words, and is asked again."""
    amount = ["10"]
    paid: list[str] = []

    async def handler(ctx: Ctx) -> str:
        confirm = await ctx.elicit(f"Pay {amount[0]}?", Confirm)
        name = await ctx.elicit("What is your name?", Name)
        if confirm.action == "accept" and confirm.data.ok and name.action == "accept":
            paid.append(amount[0])
        return "done"

    server = serve(handler)
    yes = {"confirm": {"action": "accept", "content": {"ok": True}}}
    first = await raw(server, {})
    second = await raw(server, {"inputResponses": yes, "requestState": first["requestState"]})
    assert list(second["inputRequests"]) == ["user_name"]
    amount[0] = "9999"
    named = {"user_name": {"action": "accept", "content": {"name": "Alice"}}}
    for answers in (named, {**named, **yes}):  # the old answer resent with the new round
        again = await raw(server, {"inputResponses": answers, "requestState": second["requestState"]})
        assert again["inputRequests"]["confirm"]["params"]["message"] == "Pay 9999?", again
    assert paid == []


async def test_a_handler_that_swallows_the_stop_still_asks() -> None:
    async def handler(ctx: Ctx) -> str:
        try:
            await ctx.elicit("What is your name?", Name)
        except BaseException:
            pass
        return "carried on"

    first = await raw(serve(handler), {})
    assert first["resultType"] == "input_required"


async def test_a_served_package_refuses_a_forged_state_before_any_handler_runs(tools: Any) -> None:
    ran: list[Any] = []

    async def echo(args: Any, ctx: Any) -> Any:  # asks nothing
        ran.append(args)
        return __import__(f"{PACKAGE}.models", fromlist=["x"]).EchoOutput(text=args.text)

    server = create_server(tools, INFO, {"echo": echo})
    for forged in ("v1.forged", "x" * 200, "{}"):
        refused = await raw(server, {"arguments": {"text": "hi"}, "requestState": forged}, name="echo")
        assert refused["code"] == -32602, (forged, refused)
    assert ran == []
    answered = await raw(server, {"arguments": {"text": "hi"}}, name="echo")
    assert answered["structuredContent"] == {"text": "hi"} and len(ran) == 1
