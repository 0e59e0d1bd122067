"""NaN and infinities have no JSON form: never sent as the null JSON would carry instead.

A Python float may be one; a schema may take null, or anything. Sent as null, the handler would get
None for the caller's NaN, or the client null for the handler's infinity, and nothing says so. The
typed client refuses such an argument or answer before sending; the server refuses such an output.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from mcpstub_runtime._text import not_text
from tests.functional.helpers import imported, write_package
from tests.functional.servers import StdioPeer, http_server, opening, stdio_exchange

PACKAGE = "fx_non_finite"

TOOLSET = """\
mcpstub: 1
server: {name: non-finite}
tools:
  - name: echo
    inputSchema:
      type: object
      properties:
        x: {type: [number, "null"]}
        v: {}
        tags: {type: object, additionalProperties: {type: integer}}
    outputSchema:
      type: object
      properties: {got: {type: string}}
      required: [got]
  - name: anything
    inputSchema:
      type: object
      properties: {kind: {type: string}}
      required: [kind]
    outputSchema: {}
  - name: measured
    inputSchema:
      type: object
      properties: {kind: {type: string}}
      required: [kind]
    outputSchema:
      type: object
      properties: {y: {type: [number, "null"]}, ys: {type: array, items: {}}}
  - name: noisy
    inputSchema: {type: object}
  - name: ask
    inputSchema: {type: object}
    outputSchema:
      type: object
      properties: {got: {type: string}}
      required: [got]
    elicitations:
      amount:
        type: object
        properties: {amount: {type: number}}
        required: [amount]
"""

HANDLERS = {
    "echo": """\
from ..models import EchoInput, EchoOutput
from ..server import ToolContext


async def echo(args: EchoInput, ctx: ToolContext) -> EchoOutput:
    return EchoOutput(got=repr(args.model_dump(exclude_unset=True)))
""",
    "anything": """\
from datetime import timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, field_serializer

from ..models import AnythingInput
from ..server import ToolContext


async def anything(args: AnythingInput, ctx: ToolContext) -> Any:
    values = {"nan": float("nan"), "inf": float("inf"), "deep": [1, {"a~/b": [2.5, -float("inf")]}]}
    values["big"] = [10**4300]  # (4,301 digits: one more than Python's JSON readers take)
    if args.kind == "own":  # a model of the handler's own, its JSON serializer as pydantic runs it
        return {"value": Own(v=3, when=timedelta(seconds=1.5))}
    return {"fine": 1.5} if args.kind == "fine" else {"value": values[args.kind]}


class Own(BaseModel):
    model_config = ConfigDict(ser_json_timedelta="float")
    v: int
    when: timedelta

    @field_serializer("v", when_used="json")
    def _v(self, v: int) -> str:
        return f"json:{v}"
""",
    "measured": """\
from ..models import MeasuredInput, MeasuredOutput
from ..server import ToolContext


async def measured(args: MeasuredInput, ctx: ToolContext) -> MeasuredOutput:
    if args.kind == "list":
        return MeasuredOutput(ys=[0, float("nan")])
    if args.kind == "extra":  # a key the schema does not list, kept as sent
        return MeasuredOutput(y=2.5, more={"z": float("inf")})
    if args.kind == "surrogate":  # a key JSON text cannot carry, in a field typed Any
        return MeasuredOutput(y=2.5, ys=[{"\\udc80": 1}])
    if args.kind == "object":  # something of no JSON form at all
        return MeasuredOutput(ys=[object()])
    return MeasuredOutput(y=float("nan") if args.kind == "nan" else 2.5)
""",
    "noisy": """\
from decimal import Decimal
from typing import Any

from mcp import types
from pydantic import BaseModel

from ..models import NoisyInput
from ..results import NoisyResult
from ..server import ToolContext


class Own(BaseModel):  # (its config writes a NaN as null in a JSON dump)
    x: int = 1
    y: float | None = None


async def noisy(args: NoisyInput, ctx: ToolContext) -> str:
    nan, big = float("nan"), 10**4300
    meta: dict[str, Any] = {"type": "text", "text": "x", "_meta": {"a/b": [1, nan]}}
    said = []
    for name, attempt in {
        "block": lambda: NoisyResult.blocks(types.TextContent.model_validate(meta)),
        "link": lambda: NoisyResult.resource_link("file:///x", "x", size=big),
        "extra": lambda: NoisyResult.text("x") + NoisyResult.blocks(types.TextContent.model_validate(meta)),
        "set": lambda: NoisyResult.blocks(types.TextContent.model_validate({**meta, "_meta": {"s": {big}}})),
        "mime": lambda: NoisyResult.image(b"x", nan),  # type: ignore[arg-type]
    }.items():
        try:
            attempt()
        except (ValueError, TypeError) as exc:
            said.append(f"{name}: {exc}")
    for name, sending in {
        "log": lambda: ctx.log("info", {"v": [2, -big]}),
        "log nan": lambda: ctx.log("info", nan),
        "progress": lambda: ctx.report_progress(0.5, float("inf")),
        "decimal": lambda: ctx.report_progress(Decimal("NaN")),  # type: ignore[arg-type]
        "big progress": lambda: ctx.report_progress(big),
        "own model": lambda: ctx.log("info", {"m": [Own(y=nan)]}),
    }.items():
        try:
            await sending()
        except (ValueError, TypeError) as exc:
            said.append(f"{name}: {exc}")
    await ctx.log("info", {"fine": 1.5, "own": Own(), "none": None})
    await ctx.report_progress(1, 2)
    return "\\n".join(said)
""",
    "ask": """\
from ..models import AskAmount, AskInput, AskOutput
from ..server import ToolContext


async def ask(args: AskInput, ctx: ToolContext) -> AskOutput:
    answer = await ctx.elicit("How much?", AskAmount)
    return AskOutput(got=repr(getattr(answer, "data", None)))
""",
}


@pytest.fixture(scope="module", params=["current", "generated before"])
def pkg(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    # "generated before" its models' config kept a NaN as a float in JSON dumps: the runtime finds
    # one all the same (in Python's dump), fields typed Any and extra keys included.
    root = tmp_path_factory.mktemp("non_finite")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    for name, text in HANDLERS.items():
        (folder / "handlers" / f"{name}.py").write_text(text, encoding="utf-8")
    if request.param != "current":
        models = (folder / "models.py").read_text("utf-8")
        assert 'ser_json_inf_nan="constants",' in models
        (folder / "models.py").write_text(models.replace('ser_json_inf_nan="constants",', ""), "utf-8")
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def connect(pkg: ModuleType, mode: str, **options: Any) -> Any:
    client = importlib.import_module(f"{pkg.__name__}.client")
    return client.connect(pkg.create_server(), mode=mode, **options)


MODES = ["auto", "legacy"]
NO_JSON = ": JSON has no NaN or infinity$"


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("arguments", "where"),
    [({"x": float("nan")}, f"'x' nan{NO_JSON}"), ({"x": float("-inf")}, f"'x' -inf{NO_JSON}"),
     ({"v": {"k": [float("inf")]}}, f"'v/k/0' inf{NO_JSON}"),
     ({"v": (1.0, float("inf"))}, f"'v/1' inf{NO_JSON}"),  # (a tuple given where Any is typed)
     ({"v": {float("inf")}}, f"'v/0' inf{NO_JSON}"),  # (a set)
     ({"v": {"\udc80k": 1, "k": float("nan")}}, "'v' '\\\\udc80k': a lone surrogate"),
     ({"tags": {"k\udc80": 1}}, "'tags' 'k\\\\udc80': a lone surrogate")],  # (JSON mode replaced it)
)  # fmt: skip
async def test_the_client_refuses_an_argument_json_cannot_carry(
    pkg: ModuleType, mode: str, arguments: dict[str, Any], where: str
) -> None:
    async with connect(pkg, mode) as client:
        with pytest.raises(ValueError, match=f"^echo: argument {where}"):
            await client.echo(**arguments)
        assert (await client.echo(x=None, v={"k": [1.5]})).got == "{'x': None, 'v': {'k': [1.5]}}"


NOT_FINITE = "not a finite number (NaN, Infinity, or a literal past the double range such as 1e400)"
NOT_TEXT = "not Unicode text: a lone surrogate (an unpaired \\ud800-\\udfff escape)"
# Literals Python's JSON readers (the SDK's too) take, none of them a JSON number a double holds.
LITERALS = [
    ('{"v": NaN}', "/v"), ('{"v": {"k": [1, Infinity]}}', "/v/k/1"), ('{"x": -Infinity}', "/x"),
    ('{"x": 1e400}', "/x"), ('{"v": -1E+999, "x": 1}', "/v"), ('{"tags": {"a": NaN}}', "/tags/a"),
]  # fmt: skip


@pytest.mark.anyio
async def test_text_like_a_non_finite_number_or_no_json_text_at_all_is_an_argument_like_any(
    pkg: ModuleType,
) -> None:
    # (a lone surrogate, which pydantic cannot write as JSON, made the search for NaN fail: every
    # such call was an internal error; the SDK's in-memory and 2026-07-28 HTTP readers take one,
    # which is no text: refused at its path, as the 2025-11-25 readers refuse the request, in a
    # field of any type, a key too; a field typed `str` was an internal error)
    async with Client(pkg.create_server()) as client:
        odd = await client.call_tool("echo", {"v": ["x:NaN,y", "[-Infinity]"]})
        assert odd.is_error is not True, odd.content
        assert odd.structured_content == {"got": "{'v': ['x:NaN,y', '[-Infinity]']}"}
        for tool, arguments, where in (("echo", {"v": ["x:NaN,y", "file-\udc80.txt"]}, "/v/1"),
                                       ("anything", {"kind": "\ud800"}, "/kind")):  # fmt: skip
            refused = await client.call_tool(tool, arguments)
            assert refused.is_error is True
            said = refused.content[0].text  # type: ignore[union-attr]
            assert said == f"invalid arguments for tool {tool}:\n- {where}: {NOT_TEXT}", said
    # (a key holding one, which the SDK's Python client cannot send, the 2026-07-28 HTTP reader takes)
    assert not_text({"v": [{"ok": 1, "k\udfff": 1}]}) == ["v", 0, "k\udfff"]


UNREADABLE_ANSWERS = [
    '{"action": "accept", "content": {"amount": 1}, "note": "\\udc80"}', "5",  # (unreadable, no shape)
    '{"action": "accept", "content": {"amount": 1' + "0" * 5000 + "}}",  # (past Python's digits)
    '{"action": "accept", "content": {"amount": 1}, "_meta": {"n": 1' + "0" * 5000 + "}}",
]


def test_a_client_answer_the_sdk_cannot_read_fails_the_question_over_stdio(pkg: ModuleType) -> None:
    # (the SDK only logged it: the call waiting on the answer waited forever); one server answers
    # each in turn, the next call after the last.
    peer = StdioPeer(Path(pkg.__file__ or "").parent.parent, pkg.__name__)
    try:
        peer.send(opening({"elicitation": {"form": {}}}))
        assert peer.receive()[0]["id"] == 0
        for call, answer in enumerate(UNREADABLE_ANSWERS, start=1):
            asking = {"jsonrpc": "2.0", "id": call, "method": "tools/call", "params": {"name": "ask"}}
            peer.send([json.dumps(asking)])
            (question,) = peer.receive()
            assert question["method"] == "elicitation/create", question
            peer.send([f'{{"jsonrpc": "2.0", "id": {json.dumps(question["id"])}, "result": {answer}}}'])
            (done,) = peer.receive()
            assert done["id"] == call and done["result"]["isError"] is True, (answer[:80], done)
    finally:
        peer.close()


@pytest.mark.anyio
async def test_a_client_answer_the_sdk_cannot_read_fails_the_question_over_http(pkg: ModuleType) -> None:
    # 2025-11-25 over HTTP the SDK answered such a POST 400 and dropped it: the question waited
    # forever (no client of the SDK's can write one: a raw client sends it). One server answers
    # each in turn, in one session.
    answers = ['{"amount": 1' + "0" * 5000 + "}", '{"amount": 1, "note": "\\ud800"}',
               '{"amount": 1, "method": "card", "note": "method \\ud800"}']  # (a request's word, as a key)
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
             "clientInfo": {"name": "raw", "version": "1"}}  # fmt: skip
    root = Path(pkg.__file__ or "").parent.parent
    with http_server(root, pkg.__name__) as server, anyio.fail_after(120):
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            opening = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
            opened = await http.post(server.url, json=opening)
            http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
            http.headers["mcp-protocol-version"] = "2025-11-25"
            await http.post(server.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"})
            for number, answer in enumerate(answers, start=2):
                call = {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": {"name": "ask"}}
                async with http.stream("POST", server.url, json=call) as events:
                    lines = events.aiter_lines()
                    async for line in lines:
                        if line.startswith("data: ") and "elicitation/create" in line:
                            asked = json.loads(line.removeprefix("data: "))["id"]
                            break
                    result = f'{{"action": "accept", "content": {answer}}}'
                    reply = f'{{"jsonrpc": "2.0", "id": {json.dumps(asked)}, "result": {result}}}'
                    sent = await http.post(server.url, content=reply)
                    assert sent.status_code == 202, sent.text
                    async for line in lines:
                        if line.startswith("data: "):
                            done = json.loads(line.removeprefix("data: "))
                            break
                assert done["id"] == number and done["result"]["isError"] is True, (answer[:80], done)
                assert "the client's answer is unreadable" in done["result"]["content"][0]["text"], done


def test_a_raw_client_s_nan_infinity_or_1e400_is_invalid_arguments(pkg: ModuleType) -> None:
    # The SDK reads them as float NaN or infinity: a field of any value handed one to the handler
    # and a typed field was said to be "null", which the client never sent.
    lines = opening()
    for number, (arguments, _) in enumerate([*LITERALS, ('{"x": 1e308, "v": [-0.0, "NaN"]}', "")], start=1):
        call = f'{{"name": "echo", "arguments": {arguments}}}'
        lines.append(f'{{"jsonrpc": "2.0", "id": {number}, "method": "tools/call", "params": {call}}}')
    root = Path(pkg.__file__ or "").parent.parent
    answers = {a["id"]: a["result"] for a in stdio_exchange(root, pkg.__name__, lines, len(lines) - 1)}
    for number, (arguments, at) in enumerate(LITERALS, start=1):
        said = answers[number]["content"][0]["text"]
        expected = f"invalid arguments for tool echo:\n- {at}: {NOT_FINITE}"
        assert answers[number]["isError"] and said == expected, (arguments, said)
    assert answers[len(LITERALS) + 1]["structuredContent"] == {"got": "{'x': 1e+308, 'v': [-0.0, 'NaN']}"}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("tool", "kind", "at"),
    [("anything", "nan", "/value"), ("anything", "inf", "/value"), ("anything", "deep", "/value/1/a~0~1b/1"),
     ("measured", "nan", "/y"), ("measured", "list", "/ys/1"), ("measured", "extra", "/more/z")],
)  # fmt: skip
async def test_the_server_refuses_an_output_json_cannot_carry(
    pkg: ModuleType, mode: str, tool: str, kind: str, at: str
) -> None:
    errors = importlib.import_module(f"{pkg.__name__}.client")
    async with connect(pkg, mode) as client:
        with pytest.raises(errors.ToolError) as raised:
            await getattr(client, tool)(kind=kind)
        said = str(raised.value)
        assert f"- {at}: NaN and infinities have no JSON form" in said and "null" not in said, said
        fine = await getattr(client, tool)(kind="fine")  # (what it holds otherwise is sent)
        assert fine == {"fine": 1.5} if tool == "anything" else fine.y == 2.5


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_an_integer_longer_than_json_readers_take_is_never_sent(pkg: ModuleType, mode: str) -> None:
    # Python's JSON readers (the SDK's too) refuse an integer of more than 4,300 digits: sent over
    # HTTP or stdio, the connection ended ("connection lost") and every call after it failed.
    errors = importlib.import_module(f"{pkg.__name__}.client")
    big = 10**4300
    async with connect(pkg, mode) as client:
        with pytest.raises(ValueError, match=r"^echo: argument 'v/0': an integer of more than 4,300 digits"):
            await client.echo(v=[-big])
        assert (await client.echo(v=big - 1)).got.startswith("{'v': 9999")  # (4,300 digits: taken)
        with pytest.raises(errors.ToolError, match=r"- /value/0: an integer of more than 4,300 digits"):
            await client.anything(kind="big")
        assert await client.anything(kind="fine") == {"fine": 1.5}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_a_handler_is_told_of_a_number_json_cannot_carry_in_blocks_logs_and_progress(
    pkg: ModuleType, mode: str
) -> None:
    # Sent, a NaN became null, and an integer past 4,300 digits ended a Python client's
    # connection (over stdio the call got no answer): the handler is told where it builds one.
    logged: list[Any] = []

    async def log(params: Any) -> None:
        logged.append(params.data)

    async with connect(pkg, mode, on_log=log) as client:
        said = (await client.noisy())[0].text.split("\n")
    digits = "an integer of more than 4,300 digits, which JSON readers refuse"
    assert said == [
        "block: the text block cannot be sent: at /_meta/a~1b/1, NaN and infinities have no JSON form",
        f"link: the resource_link block cannot be sent: at /size, {digits}",
        "extra: the text block cannot be sent: at /_meta/a~1b/1, NaN and infinities have no JSON form",
        f"set: the text block cannot be sent: at /_meta/s/0, {digits}",
        "mime: mime_type must be a str",
        f"log: the log message cannot be sent: at /v/1, {digits}",
        "log nan: the log message cannot be sent: at (root), NaN and infinities have no JSON form",
        "progress: the total cannot be sent: NaN and infinities have no JSON form",
        "decimal: progress must be an int or a float, not Decimal",
        f"big progress: the progress cannot be sent: {digits}",
        "own model: the log message cannot be sent: at /m/0/y, NaN and infinities have no JSON form",
    ]
    # Nothing of the refused ones was sent; a model's fields that are None are left out, as before.
    assert logged == [{"fine": 1.5, "own": {"x": 1}, "none": None}]


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_what_else_an_output_holds_is_sent_as_pydantic_writes_json(pkg: ModuleType, mode: str) -> None:
    errors = importlib.import_module(f"{pkg.__name__}.client")
    async with connect(pkg, mode) as client:
        assert await client.anything(kind="own") == {"value": {"v": "json:3", "when": 1.5}}
        assert (await client.measured(kind="surrogate")).ys == [{"\ufffd": 1}]  # (as handlers.md says)
        with pytest.raises(errors.ToolError, match="declared schema: a value in it has no JSON form"):
            await client.measured(kind="object")  # (not an internal error)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", MODES)
async def test_an_answer_json_cannot_carry_is_refused_by_the_client(pkg: ModuleType, mode: str) -> None:
    async def nan(question: Any) -> Any:
        return {"amount": float("nan")}

    async with connect(pkg, mode, on_elicit=nan) as client:
        with pytest.raises(ValueError, match="gives 'amount' nan: JSON has no NaN or infinity"):
            await client.ask()

    async def extra(question: Any) -> Any:  # a key the form does not list, in its model
        return question.form(amount=1, other=float("inf"))

    async with connect(pkg, mode, on_elicit=extra) as client:
        with pytest.raises(ValueError, match="gives 'other' inf: JSON has no NaN or infinity"):
            await client.ask()

    async def surrogate(question: Any) -> Any:  # a key JSON text cannot carry, in an extra
        return question.form(amount=1, more={"\udc80": 1})

    async with connect(pkg, mode, on_elicit=surrogate) as client:
        with pytest.raises(ValueError, match="gives 'more' '\\\\udc80': a lone surrogate"):
            await client.ask()

    async def fine(question: Any) -> Any:
        return {"amount": 2.5}

    async with connect(pkg, mode, on_elicit=fine) as client:
        assert (await client.ask()).got == "AskAmount(amount=2.5)"


@settings(max_examples=300, deadline=None)
@given(
    before=st.text(alphabet='ab{}",: ', max_size=9000).map(str.encode),
    run=st.sampled_from([1, 4299, 4300, 4301, 4302, 9000]),
    after=st.integers(min_value=0, max_value=9000),
)
def test_the_server_looks_for_a_long_integer_wherever_its_run_of_digits_stands(
    before: bytes, run: int, after: int
) -> None:
    # Only every 4,300th byte of an output's text is looked at (this runs on every call): a run of
    # more than 4,300 digits is found wherever it starts and ends, and a shorter one never is.
    from mcpstub_runtime._text import may_be_unreadable  # noqa: PLC0415

    assert may_be_unreadable(before + b"7" * run + b"x" * after) == (run > 4300)
