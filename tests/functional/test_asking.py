"""Handlers that ask (ctx.elicit, ctx.sample, ctx.list_roots) through real clients of both
protocol generations: the Python SDK in-process and over HTTP (stateful, and stateless replicas
sharing the sealing key), and the TypeScript SDK over stdio."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.client.context import ClientRequestContext
from mcp.shared.exceptions import MCPError

from mcpstub.cli import main as mcpstub
from mcpstub_runtime import InvalidAnswer, ToolError
from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package
from tests.functional.servers import http_app, http_server, server_env

PACKAGE = "fx_asking"
EXTERNAL = Path(__file__).resolve().parents[1] / "external"

TOOLSET = """\
mcpstub: 1
server: {name: deployer, version: 1.0.0}
tools:
  - name: deploy
    inputSchema:
      type: object
      properties:
        service: {type: string}
      required: [service]
    elicitations:
      confirm:
        type: object
        properties:
          ok: {type: boolean, title: Deploy now?}
          note: {type: string, maxLength: 20}
        required: [ok]
"""

HANDLER = """\
from __future__ import annotations

from mcp import types

from ..models import DeployConfirm, DeployInput
from ..results import DeployResult
from ..server import ToolContext

DEPLOYED: list[str] = []


async def deploy(args: DeployInput, ctx: ToolContext) -> DeployResult | str:
    answer = await ctx.elicit(f"Deploy {args.service}?", DeployConfirm)
    if answer.action != "accept" or not answer.data.ok:
        return f"not deployed ({answer.action})"
    note = await ctx.sample(f"A release note for {args.service}", max_tokens=20, key="note")
    roots = await ctx.list_roots()
    DEPLOYED.append(args.service)  # after the questions: once per final retry, however many rounds
    text = note.content.text if isinstance(note.content, types.TextContent) else ""
    return f"deployed {args.service} ({text}) from {roots[0].uri} [{len(DEPLOYED)}]"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("asking")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "deploy.py").write_text(HANDLER, "utf-8")  # in place of the stub
    return root


@pytest.fixture
def package(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as module:
        yield module


async def confirm(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    assert isinstance(params, types.ElicitRequestFormParams)
    assert params.requested_schema["properties"]["note"] == {"type": "string", "maxLength": 20}
    return types.ElicitResult(action="accept", content={"ok": True})


async def decline(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


async def sample(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="v2"), model="m"
    )


async def roots(context: ClientRequestContext) -> types.ListRootsResult:
    return types.ListRootsResult(roots=[types.Root(uri="file:///srv", name="srv")])


ANSWERING = {"elicitation_callback": confirm, "sampling_callback": sample, "list_roots_callback": roots}


def text(result: types.CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_handler_asks_and_acts_once_on_both_generations(package: ModuleType, mode: str) -> None:
    deployed = __import__(f"{PACKAGE}.handlers.deploy", fromlist=["DEPLOYED"]).DEPLOYED
    deployed.clear()
    async with Client(package.create_server(), mode=mode, **ANSWERING) as client:  # type: ignore[arg-type]
        result = await client.call_tool("deploy", {"service": "api"})
    assert not result.is_error, result
    assert text(result) == "deployed api (v2) from file:///srv [1]"
    assert deployed == ["api"]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_declined_form_reaches_the_handler(package: ModuleType, mode: str) -> None:
    async with Client(package.create_server(), mode=mode, elicitation_callback=decline) as client:  # type: ignore[arg-type]
        assert text(await client.call_tool("deploy", {"service": "api"})) == "not deployed (decline)"


def flipping(shown: list[str]) -> Any:
    """A client that answers each form it is shown otherwise than the last."""

    async def answer(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params.message)
        return types.ElicitResult(action="accept", content={"ok": True, "note": f"answer {len(shown)}"})

    return answer


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_one_key_is_one_question_on_both_generations(
    package: ModuleType, mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    confirm = __import__(f"{PACKAGE}.models", fromlist=["DeployConfirm"]).DeployConfirm

    async def asks_again(args: Any, ctx: Any) -> str:
        first = await ctx.elicit(f"Deploy {args.service}?", confirm)
        await ctx.list_roots()
        again = await ctx.elicit(f"Deploy {args.service}?", confirm)  # the same question: its answer
        return f"{first.data.note}, {again.data.note}"

    async def asks_otherwise(args: Any, ctx: Any) -> str:
        await ctx.elicit(f"Deploy {args.service}?", confirm)
        await ctx.elicit(f"Deploy {args.service} now?", confirm)  # other words: a bug
        return "never"

    shown: list[str] = []
    server = package.create_server(handlers={"deploy": asks_again})
    answering = {"elicitation_callback": flipping(shown), "list_roots_callback": roots}
    async with Client(server, mode=mode, **answering) as client:  # type: ignore[arg-type]
        result = await client.call_tool("deploy", {"service": "api"})
    assert text(result) == "answer 1, answer 1" and shown == ["Deploy api?"]
    shown.clear()
    server = package.create_server(handlers={"deploy": asks_otherwise})
    async with Client(server, mode=mode, elicitation_callback=flipping(shown)) as client:  # type: ignore[arg-type]
        result = await client.call_tool("deploy", {"service": "api"})
    assert result.is_error and shown == ["Deploy api?"], (text(result), shown)
    # (a form's key is the toolset's: the fix is to ask alike, or to declare another form)
    assert "ask it in the same words each time, or declare another form" in caplog.text, caplog.text


@pytest.mark.anyio
async def test_a_client_without_the_capability_is_told_which(package: ModuleType) -> None:
    async with Client(package.create_server(), mode="legacy") as client:
        result = await client.call_tool("deploy", {"service": "api"})
    assert result.is_error and "did not declare the elicitation (form) capability" in text(result)
    async with Client(package.create_server(), mode="2026-07-28") as client:
        with pytest.raises(Exception, match="elicitation") as caught:
            await client.call_tool("deploy", {"service": "api"})
    assert (
        getattr(caught.value, "error", None) is None
        or caught.value.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
    )


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_the_typed_client_says_which_argument_of_connect_declares_what_a_tool_asks_for(
    package: ModuleType, mode: str
) -> None:
    # The server's error names the capability; the typed client's user passes an argument.
    connect = __import__(f"{PACKAGE}.client", fromlist=["connect"]).connect
    failed = ToolError if mode == "legacy" else MCPError
    answers: dict[str, Any] = {"on_elicit": lambda q: {"ok": True}, "list_roots_callback": roots}
    cases = [({"sampling_callback": sample, "list_roots_callback": roots}, "elicitation (form)", "on_elicit"),
             (answers, "sampling", "sampling_callback")]  # fmt: skip
    for given, capability, keyword in cases:
        async with connect(package.create_server(), mode=mode, **given) as client:
            with pytest.raises(failed) as raised:
                await client.deploy(service="api")
        said = raised.value.message if isinstance(raised.value, MCPError) else str(raised.value)
        hint = f"did not declare the {capability} capability; connect({keyword}=...) declares it"
        assert said.endswith(hint), said
    # A handler's own words, alike as they may be, are its own: nothing is added to them.
    words = "the upstream API says you did not declare the sampling rate"

    async def upstream(args: Any, ctx: Any) -> str:
        raise ToolError(words)

    for given in ({}, {"sampling_callback": sample}):
        async with connect(package.create_server({"deploy": upstream}), mode=mode, **given) as client:
            with pytest.raises(ToolError) as own:
                await client.deploy(service="api")
        assert str(own.value) == words


async def refuse_ok(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"ok": False})


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_asking_one_key_again_and_again_gets_its_answer_and_a_spinning_asker_stops_at_its_limit(
    package: ModuleType, mode: str
) -> None:
    # Asking again is the earlier answer, however often (a helper reading it once per item); a
    # handler asking until the answer changes spins, yet its time limit stops it and other calls
    # are answered meanwhile.
    confirm = __import__(f"{PACKAGE}.models", fromlist=["DeployConfirm"]).DeployConfirm

    async def per_item(args: Any, ctx: Any) -> str:
        answers = [(await ctx.elicit("Deploy?", confirm)).data.ok for _ in range(3000)]
        return f"{len(answers)} answers, {sum(answers)} yes"

    async def until_yes(args: Any, ctx: Any) -> str:
        while not (await ctx.elicit("Deploy?", confirm)).data.ok:
            pass
        return "deployed"

    server = package.create_server(handlers={"deploy": per_item})
    async with Client(server, mode=mode, elicitation_callback=refuse_ok) as client:  # type: ignore[arg-type]
        assert text(await client.call_tool("deploy", {"service": "api"})) == "3000 answers, 0 yes"
    server = package.create_server(handlers={"deploy": until_yes}, timeout=1.0)
    with anyio.fail_after(30):
        async with Client(server, mode=mode, elicitation_callback=refuse_ok) as client:  # type: ignore[arg-type]
            async with anyio.create_task_group() as group:
                box: dict[str, Any] = {}

                async def spin() -> None:
                    box["spun"] = await client.call_tool("deploy", {"service": "api"})

                group.start_soon(spin)
                await anyio.sleep(0.2)
                listed = await client.list_tools()  # answered while the handler spins
    assert listed.tools
    assert box["spun"].is_error and "timed out after 1 s" in text(box["spun"]), text(box["spun"])


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_question_answered_at_once_still_lets_other_tasks_run(package: ModuleType, mode: str) -> None:
    confirm = __import__(f"{PACKAGE}.models", fromlist=["DeployConfirm"]).DeployConfirm

    async def waits_for_a_task(args: Any, ctx: Any) -> str:
        await ctx.elicit("Deploy?", confirm)
        ran = anyio.Event()

        async def other() -> None:
            ran.set()

        async with anyio.create_task_group() as group:
            group.start_soon(other)
            asked = 0
            while asked < 900 and not ran.is_set():  # answered: each asking returns at once
                await ctx.elicit("Deploy?", confirm)
                asked += 1
        return f"asked {asked} times before another task ran"

    server = package.create_server(handlers={"deploy": waits_for_a_task})
    async with Client(server, mode=mode, elicitation_callback=refuse_ok) as client:  # type: ignore[arg-type]
        result = await client.call_tool("deploy", {"service": "api"})
    assert text(result) == "asked 1 times before another task ran"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("mode", "raised"),
    [
        ("legacy", "cannot-ask"),
        ("2026-07-28", "cannot-ask"),
        ("legacy", "invalid-answer"),  # (on 2026-07-28 a wrong answer is asked for again)
        ("legacy", "tool-error"),
        ("2026-07-28", "tool-error"),
    ],
)
async def test_what_a_task_group_raises_is_answered_as_the_handler_s_own(
    package: ModuleType, mode: str, raised: str
) -> None:
    confirm = __import__(f"{PACKAGE}.models", fromlist=["DeployConfirm"]).DeployConfirm

    async def in_a_task_group(args: Any, ctx: Any) -> str:
        async def ask() -> None:
            if raised == "tool-error":
                raise ToolError("nothing to deploy")
            await ctx.elicit("Deploy?", confirm)

        async with anyio.create_task_group() as group:
            group.start_soon(ask)
            group.start_soon(ask)
        return "never"

    async def wrong(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"ok": "yes"})

    answering = {"elicitation_callback": wrong} if raised == "invalid-answer" else {}
    server = package.create_server(handlers={"deploy": in_a_task_group})
    async with Client(server, mode=mode, **answering) as client:  # type: ignore[arg-type]
        if raised == "cannot-ask" and mode == "2026-07-28":
            with pytest.raises(MCPError) as caught:
                await client.call_tool("deploy", {"service": "api"})
            assert caught.value.error.code == types.MISSING_REQUIRED_CLIENT_CAPABILITY
            assert "cannot ask 'confirm'" in caught.value.error.message
            return
        result = await client.call_tool("deploy", {"service": "api"})
    expected = {
        "cannot-ask": "cannot ask 'confirm': the client did not declare the elicitation (form) capability",
        "invalid-answer": "the client's answer to 'confirm' was refused: content does not match the "
        'requested schema:\n- /ok: "yes" is not of type "boolean"',
        "tool-error": "nothing to deploy",
    }[raised]
    assert result.is_error and text(result) == expected


@pytest.mark.anyio
async def test_an_answer_the_form_refuses_is_said_field_by_field_and_short(package: ModuleType) -> None:
    async def wrong(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"ok": "yes", "note": "x" * 100_000})

    async with Client(package.create_server(), mode="legacy", elicitation_callback=wrong) as client:
        result = await client.call_tool("deploy", {"service": "api"})
    said = text(result)
    assert result.is_error and len(said) < 500, len(said)
    assert '\n- /ok: "yes" is not of type "boolean"' in said and "\n- /note: " in said


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")  # (the model built unchecked)
async def test_an_answer_json_cannot_carry_or_of_the_wrong_shape_is_said_where(package: ModuleType) -> None:
    # A NaN was said to be "null" (never sent); a roots answer the SDK's model refuses named no field.
    async def nan(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"ok": True, "note": float("nan")})

    async def bad_roots(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult.model_construct(roots=[{"uri": "not a uri"}])

    async with Client(package.create_server(), mode="legacy", elicitation_callback=nan) as client:
        said = text(await client.call_tool("deploy", {"service": "api"}))
    assert said.endswith("- /note: NaN and infinities have no JSON form"), said

    # A lone surrogate, which the schema's check takes, reached the handler's model as text.
    async def lone(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"ok": True, "note": "a\ud800"})

    async with Client(package.create_server(), mode="legacy", elicitation_callback=lone) as client:
        said = text(await client.call_tool("deploy", {"service": "api"}))
    assert said.endswith("- /note: not Unicode text: a lone surrogate (an unpaired \\ud800-\\udfff escape)")
    answering = {**ANSWERING, "list_roots_callback": bad_roots}
    async with Client(package.create_server(), mode="legacy", **answering) as client:  # type: ignore[arg-type]
        said = text(await client.call_tool("deploy", {"service": "api"}))
    refused = "the client's answer to 'roots' was refused: it does not match the answer's form:"
    assert f"{refused}\n- /roots/0/uri: " in said, said

    # Nor does a sampling or roots answer holding one reach the handler as text.
    async def lone_sample(
        context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        content = types.TextContent(type="text", text="v\udc80")
        return types.CreateMessageResult(role="assistant", content=content, model="m")

    async def lone_root(context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri="file:///srv", name="n\ud800")])

    for key, where, answering in (
        ("note", "/content/text", {**ANSWERING, "sampling_callback": lone_sample}),
        ("roots", "/roots/0/name", {**ANSWERING, "list_roots_callback": lone_root}),
    ):
        async with Client(package.create_server(), mode="legacy", **answering) as client:  # type: ignore[arg-type]
            said = text(await client.call_tool("deploy", {"service": "api"}))
        refused = f"the client's answer to {key!r} was refused: it does not match the answer's form:"
        assert f"{refused}\n- {where}: not Unicode text" in said, said


@pytest.mark.anyio
async def test_an_app_with_json_responses_is_said_to_be_why_a_2025_client_cannot_be_asked(
    package: ModuleType,
) -> None:
    with http_app(package.create_server(), json_response=True) as url:
        async with Client(url, mode="legacy", **ANSWERING) as client:  # type: ignore[arg-type]
            result = await client.call_tool("deploy", {"service": "api"})
    assert result.is_error and "HTTP served stateless or with JSON responses" in text(result)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "code",
    # (the SDK's codes for a closed connection and a timeout are codes a client may send too)
    [types.INVALID_REQUEST, types.CONNECTION_CLOSED, types.REQUEST_TIMEOUT, 0],
    ids=["invalid-request", "connection-closed-code", "timeout-code", "zero"],
)
async def test_a_client_s_error_answer_is_an_invalid_answer_not_a_crash(
    package: ModuleType, caplog: pytest.LogCaptureFixture, code: int
) -> None:
    async def refuse(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ErrorData:
        return types.ErrorData(code=code, message="user agent refused: no UI " + "x" * 1000)

    caught: list[str] = []

    async def deploy(args: Any, ctx: Any) -> str:
        confirm = __import__(f"{PACKAGE}.models", fromlist=["DeployConfirm"]).DeployConfirm
        try:
            await ctx.elicit("Deploy?", confirm)
        except InvalidAnswer as exc:
            caught.append(exc.message)
            raise
        return "never"

    server = package.create_server(handlers={"deploy": deploy})
    async with Client(server, mode="legacy", elicitation_callback=refuse) as client:  # type: ignore[arg-type]
        result = await client.call_tool("deploy", {"service": "api"})
    said = "the client answered 'confirm' with an error: user agent refused: no UI x"
    assert caught and caught[0].startswith(said) and len(caught[0]) < 400
    assert result.is_error and text(result) == caught[0]
    assert "Traceback" not in caplog.text and "raised" not in caplog.text


def test_the_sdk_s_own_errors_for_no_answer_stay_its_own() -> None:
    # A closed connection or a wait timed out is no answer of the client's: the SDK's MCPError
    # goes on (the words are the SDK's, by its two dispatchers), not an InvalidAnswer.
    from mcpstub_runtime.interactive import _unanswered  # noqa: PLC0415

    closed, timeout = types.CONNECTION_CLOSED, types.REQUEST_TIMEOUT
    assert _unanswered(types.ErrorData(code=closed, message="Connection closed"))
    assert not _unanswered(types.ErrorData(code=closed, message="User rejected the request"))
    assert not _unanswered(types.ErrorData(code=types.INVALID_REQUEST, message="Connection closed"))
    # A question has no time limit of its own: a timeout in its place is the client's (a proxy's).
    assert not _unanswered(types.ErrorData(code=timeout, message="Request 'elicitation/create' timed out"))


@pytest.mark.anyio
async def test_stateless_replicas_share_the_sealing_key(root: Path) -> None:
    key = {"MCPSTUB_REQUEST_STATE_KEYS": secrets.token_hex(32)}
    with http_server(root, PACKAGE, "--stateless", "--workers", "2", env=key) as server:
        for _ in range(3):  # rounds land on either worker
            async with Client(server.url, mode="2026-07-28", **ANSWERING) as client:  # type: ignore[arg-type]
                result = await client.call_tool("deploy", {"service": "web"})
            assert not result.is_error, (result, server.stderr())
            assert text(result).startswith("deployed web (v2) from file:///srv")
        async with Client(server.url, mode="legacy", **ANSWERING) as client:  # type: ignore[arg-type]
            result = await client.call_tool("deploy", {"service": "web"})
        assert result.is_error and "no back-channel" in text(result)


def test_several_workers_without_a_shared_key_refuse_to_start(root: Path) -> None:
    env = {k: v for k, v in server_env(root).items() if k != "MCPSTUB_REQUEST_STATE_KEYS"}
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--http", "127.0.0.1:0", "--stateless", "--workers", "2"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "MCPSTUB_REQUEST_STATE_KEYS" in done.stderr and "Traceback" not in done.stderr
    short = {**env, "MCPSTUB_REQUEST_STATE_KEYS": "too-short"}
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE, "--http", "127.0.0.1:0", "--stateless", "--workers", "2"],
        env=short, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "at least 32 bytes" in done.stderr and "Traceback" not in done.stderr
    for blank in (" ", " , ,"):  # no key at all, however written: each worker would make its own
        done = subprocess.run(
            [sys.executable, "-m", PACKAGE, "--http", "127.0.0.1:0", "--stateless", "--workers", "2"],
            env={**env, "MCPSTUB_REQUEST_STATE_KEYS": blank}, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode == 2, (blank, done.stderr)
        assert "set MCPSTUB_REQUEST_STATE_KEYS to one shared secret" in done.stderr


@pytest.mark.parametrize("how", [[], ["--check"]], ids=["stdio", "check"])
def test_a_sealing_key_too_short_is_a_usage_error_on_stdio_and_for_check(root: Path, how: list[str]) -> None:
    env = {**server_env(root), "MCPSTUB_REQUEST_STATE_KEYS": "too-short"}
    done = subprocess.run(
        [sys.executable, "-m", PACKAGE, *how], env=env, input="", capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "MCPSTUB_REQUEST_STATE_KEYS" in done.stderr and "at least 32 bytes" in done.stderr
    assert "Traceback" not in done.stderr and "usage:" in done.stderr


def test_the_typescript_client_answers_over_stdio(root: Path) -> None:
    if not (EXTERNAL / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("the TypeScript client is not installed: run `make test` (it runs npm ci)")
    answers = {
        "elicitation": {"action": "accept", "content": {"ok": True, "note": "from ts"}},
        "sampling": "ts-note",
        "roots": [{"uri": "file:///ts", "name": "ts"}],
    }
    done = subprocess.run(
        ["node", "asking.mjs", "deploy", json.dumps({"service": "ts"}), json.dumps(answers), "--",
         sys.executable, "-m", PACKAGE],
        cwd=EXTERNAL, env={**server_env(root)}, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    assert answer["result"]["content"][0]["text"].startswith("deployed ts (ts-note) from file:///ts")
    assert [a.get("message") for a in answer["asked"]] == ["Deploy ts?", None, None]
    assert answer["asked"][0]["requestedSchema"]["required"] == ["ok"]


def test_emitted_contract_tests_answer_a_handler_that_asks(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text(TOOLSET + "    examples: [{input: {service: api}}]\n", "utf-8")
    out = tmp_path / "asking_contract"
    assert mcpstub(["generate", str(tmp_path / "tools.yaml"), "--out", str(out), "--emit-tests"]) == 0
    (out / "handlers" / "deploy.py").write_text(HANDLER, "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "asking_contract/test_contract.py",
         "-k", "examples"],
        cwd=tmp_path, env={**server_env(tmp_path), "MCPSTUB_CONTRACT_ALL_TOOLS": "1"},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("answer", ["model", "async-model", "mapping", "decline"])
async def test_the_typed_client_answers_a_question_with_its_form(
    package: ModuleType, mode: str, answer: str
) -> None:
    """`on_elicit` gets the question with the package's model of its form, and its answer (the
    model filled in, a mapping, or None to decline) reaches the handler, on both generations."""
    connect = __import__(f"{PACKAGE}.client", fromlist=["connect"]).connect
    asked: list[Any] = []

    def fill(question: Any) -> Any:
        asked.append(question)
        if answer == "decline":
            return None
        return {"ok": True} if answer == "mapping" else question.form(ok=True, note="go")

    async def fill_later(question: Any) -> Any:
        return fill(question)

    on_elicit = fill_later if answer == "async-model" else fill
    callbacks = {"sampling_callback": sample, "list_roots_callback": roots}
    async with connect(package.create_server(), mode=mode, on_elicit=on_elicit, **callbacks) as client:
        blocks = await client.deploy(service="api")
    said = blocks[0].text
    expected = "not deployed (decline)" if answer == "decline" else "deployed api (v2)"
    assert said.startswith(expected), said
    question = asked[0]
    assert question.form is package.models.DeployConfirm and question.message == "Deploy api?"
    assert question.schema["properties"]["note"] == {"type": "string", "maxLength": 20}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize(
    ("answer", "said"),
    [
        ("text", "sampling_callback returned str: return CreateMessageResult or CreateMessageResultWith"),
        ("nan", "sampling_callback's answer gives '_meta/n' nan: JSON has no NaN or infinity"),
        ("long", "sampling_callback's answer gives '_meta/n': an integer of more than 4,300 digits"),
        ("unchecked", "sampling_callback's answer does not fit its model:\n- /role: "),
        ("roots", "list_roots_callback returned list: return ListRootsResult"),
        ("error", "sampling_callback's error gives 'data/n': an integer of more than 4,300 digits"),
    ],
)
async def test_the_typed_client_checks_what_its_sampling_and_roots_callbacks_return(
    package: ModuleType, mode: str, answer: str, said: str
) -> None:
    # As on_elicit's answers are: a huge integer sent ended the connection, a NaN went as null,
    # a str or a model built unchecked was a pydantic error of the SDK's, naming no callback.
    connect = __import__(f"{PACKAGE}.client", fromlist=["connect"]).connect
    reply = types.TextContent(type="text", text="v2")

    async def sampled(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> Any:
        if answer == "text":
            return "hi"
        if answer == "unchecked":
            return types.CreateMessageResult.model_construct(role="robot", content=reply, model="m")
        if answer == "error":  # (a refusal goes out too: a huge integer in it ended the connection)
            return types.ErrorData(code=-1, message="no", data={"n": 10**5000})
        n = float("nan") if answer == "nan" else 10**5000
        return types.CreateMessageResult(role="assistant", content=reply, model="m", _meta={"n": n})

    async def listed(context: ClientRequestContext) -> Any:
        return [types.Root(uri="file:///srv")] if answer == "roots" else await roots(context)

    callbacks = {"sampling_callback": sample if answer == "roots" else sampled, "list_roots_callback": listed}
    # (2025-11-25: the server's isError, ToolError; 2026-07-28: the SDK client's own MCPError)
    refused = ToolError if mode == "legacy" else MCPError
    server = package.create_server()
    async with connect(server, mode=mode, on_elicit=lambda q: {"ok": True}, **callbacks) as client:
        with pytest.raises(refused) as raised:
            await client.deploy(service="api")
        assert said in str(raised.value), raised.value


def test_the_client_page_answers_a_question(tmp_path: Path, mypy_strict: MypyRun) -> None:
    """docs/client.md's example of a tool that asks, run as shown on a package of that tool (and
    checked by `mypy --strict`, as the README's walk checks code that uses a package)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "client.md").read_text("utf-8")
    section = page.split("## A tool that asks its user", 1)[1].split("\n## ", 1)[0]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    folder, _ = write_package(tmp_path, "deploy_tools", TOOLSET)
    (folder / "handlers" / "deploy.py").write_text(
        "from ..models import DeployConfirm, DeployInput\n"
        "from ..server import ToolContext\n\n\n"
        "async def deploy(args: DeployInput, ctx: ToolContext) -> str:\n"
        '    answer = await ctx.elicit(f"Deploy {args.service}?", DeployConfirm)\n'
        '    return f"deployed {args.service}" if answer.action == "accept" and answer.data.ok else "kept"\n',
        "utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    (tmp_path / "asking_example.py").write_text(code, "utf-8")
    checked = mypy_strict("asking_example.py", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout
    shown = section.split("prints ", 1)[1].split(".\n", 1)[0]
    assert [f"`{line}`" for line in done.stdout.splitlines()] == shown.split(" and ")
