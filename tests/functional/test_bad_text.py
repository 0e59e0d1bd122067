"""Text JSON cannot carry (lone surrogates) never breaks a call: the client sees U+FFFD instead.

Lone surrogates come from file names decoded with `surrogateescape`; a surrogate pair written as two
code points is the character it encodes. Tried in memory, over stdio and over HTTP, in every place a
handler's text reaches the wire: a returned str, content blocks, structured output, ToolError and
error results, log messages and progress, and the questions a handler asks (form and URL
elicitations, sampling, a `CannotAsk` of its own).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import anyio
import pytest
from mcp import Client, types
from mcp.client.context import ClientRequestContext
from mcp.shared.exceptions import MCPError

from tests.functional.helpers import imported, write_package
from tests.functional.servers import http_server, stdio_params

PACKAGE = "fx_bad_text"

TOOLSET = """\
mcpstub: 1
server: {name: bad-text, version: 0.1.0}
tools:
  - name: text
    inputSchema:
      type: object
      properties: {kind: {type: string}}
      required: [kind]
  - name: listing
    inputSchema:
      type: object
      properties: {kind: {type: string}}
      required: [kind]
    outputSchema:
      type: object
      properties:
        name: {type: string}
        plain: {type: string, pattern: "^[a-z]*$"}
        names: {type: array, items: {type: string}}
        sizes: {type: object, additionalProperties: {type: integer}}
      required: [name]
  - name: ask
    inputSchema:
      type: object
      properties: {kind: {type: string}}
      required: [kind]
    elicitations:
      confirm:
        type: object
        properties: {ok: {type: boolean}}
        required: [ok]
"""

BAD = "report-\\udcff\\udc80.txt \\ud83d\\ude00 \\ud800"
SHOWN = "report-\\ufffd\\ufffd.txt \\U0001f600 \\ufffd"

TEXT = f"""\
from __future__ import annotations

from mcp import types

from ..models import TextInput
from ..results import TextResult, ToolError
from ..server import ToolContext

BAD = "{BAD}"


async def text(args: TextInput, ctx: ToolContext) -> TextResult | str:
    if args.kind == "str":
        return BAD
    if args.kind == "blocks":
        return (
            TextResult.text(BAD)
            + TextResult.resource_link("file:///" + BAD, BAD, description=BAD)
            + TextResult.resource("file:///x", text=BAD, mime_type="text/plain")
            + TextResult.blocks(types.TextContent(type="text", text=BAD))
        )
    if args.kind == "tool-error":
        raise ToolError(BAD)
    if args.kind == "error-result":
        return TextResult.error(BAD)
    if args.kind == "exception":
        raise RuntimeError(BAD)
    if args.kind == "log":
        await ctx.info(BAD)
        await ctx.log("warning", {{BAD: [BAD]}}, logger=BAD)
        await ctx.report_progress(0.5, 1.0, BAD)
        return "logged"
    return "plain"
"""

LISTING = f"""\
from __future__ import annotations

from mcp import types

from ..models import ListingInput, ListingOutput
from ..results import ListingResult
from ..server import ToolContext

BAD = "{BAD}"


async def listing(args: ListingInput, ctx: ToolContext) -> ListingOutput | ListingResult:
    if args.kind == "output":
        return ListingOutput(name=BAD, names=[BAD, "ok"], sizes={{BAD: 1}})
    if args.kind == "extra":
        return ListingResult.ok(ListingOutput(name="ok"), types.TextContent(type="text", text=BAD))
    if args.kind == "pattern":
        return ListingOutput.model_construct(name="ok", plain="abc\\udcff")
    return ListingResult.error(BAD)
"""


ASK = f"""\
from __future__ import annotations

from mcp import types

from mcpstub_runtime import CannotAsk

from ..models import AskConfirm, AskInput
from ..results import AskResult
from ..server import ToolContext

BAD = "{BAD}"


async def ask(args: AskInput, ctx: ToolContext) -> AskResult | str:
    if args.kind == "cannot":
        raise CannotAsk(BAD)
    answer = await ctx.elicit(BAD, AskConfirm)
    went = await ctx.elicit_url(BAD, "https://example.com/" + BAD, elicitation_id=BAD)
    reply = await ctx.sample(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=BAD))],
        max_tokens=5,
        system_prompt=BAD,
        stop_sequences=[BAD],
        key=BAD,
    )
    assert isinstance(reply.content, types.TextContent)
    return f"{{answer.action}} {{went.action}} {{reply.content.text}}"
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad_text")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "text.py").write_text(TEXT, encoding="utf-8")
    (folder / "handlers" / "listing.py").write_text(LISTING, encoding="utf-8")
    (folder / "handlers" / "ask.py").write_text(ASK, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _texts(result: types.CallToolResult) -> list[str]:
    return [block.text for block in result.content if isinstance(block, types.TextContent)]


async def _every_path_answers(client: Client) -> None:
    shown = SHOWN.encode().decode("unicode_escape")
    progress: list[str | None] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(message)

    with anyio.fail_after(60):
        plain = await client.call_tool("text", {"kind": "str"})
        assert plain.is_error is not True and _texts(plain) == [shown]

        blocks = await client.call_tool("text", {"kind": "blocks"})
        assert blocks.is_error is not True
        link = blocks.content[1]
        resource = blocks.content[2]
        assert isinstance(link, types.ResourceLink) and isinstance(resource, types.EmbeddedResource)
        assert _texts(blocks) == [shown, shown]
        assert link.name == shown and link.description == shown and shown in str(link.uri)
        assert getattr(resource.resource, "text", None) == shown

        for kind in ("tool-error", "error-result"):
            failed = await client.call_tool("text", {"kind": kind})
            assert failed.is_error is True and _texts(failed) == [shown], kind
        crashed = await client.call_tool("text", {"kind": "exception"})
        assert crashed.is_error is True and _texts(crashed) == ["internal error in tool text"]

        logged = await client.call_tool("text", {"kind": "log"}, progress_callback=on_progress)
        assert _texts(logged) == ["logged"]

        output = await client.call_tool("listing", {"kind": "output"})
        assert output.is_error is not True, output.content
        payload = output.structured_content
        assert payload is not None and payload["name"] == shown and payload["names"] == [shown, "ok"]
        # keys: pydantic's JSON mode has already put one U+FFFD per byte of the bad key
        [(key, size)] = payload["sizes"].items()
        assert size == 1 and key.startswith("report-\ufffd") and key.encode("utf-8")
        extra = await client.call_tool("listing", {"kind": "extra"})
        assert extra.is_error is not True and _texts(extra)[1:] == [shown]
        # the output as sent breaks the schema's pattern: an output error, never a bad answer
        pattern = await client.call_tool("listing", {"kind": "pattern"})
        assert pattern.is_error is True and pattern.structured_content is None
        assert "output did not match the declared schema" in _texts(pattern)[0]
        assert "/plain" in _texts(pattern)[0]
        error = await client.call_tool("listing", {"kind": "error"})
        assert error.is_error is True and _texts(error) == [shown]

        asked: list[object] = []
        del ANSWERING_SEEN[:]
        answer = await client.call_tool("ask", {"kind": "ask"})
        assert _texts(answer) == ["accept accept sampled"], answer
        [form, url, sampled] = ANSWERING_SEEN
        assert isinstance(form, types.ElicitRequestFormParams) and form.message == shown
        assert isinstance(url, types.ElicitRequestURLParams) and url.message == shown
        assert url.url == "https://example.com/" + shown
        assert isinstance(sampled, types.CreateMessageRequestParams) and sampled.system_prompt == shown
        assert sampled.stop_sequences == [shown]
        assert getattr(sampled.messages[0].content, "text", None) == shown
        try:
            refused = await client.call_tool("ask", {"kind": "cannot"})
            asked.append(_texts(refused))
        except MCPError as error:  # 2026-07-28: the protocol's error
            asked.append(error.error.message)
        assert asked in ([shown], [[shown]]), asked

        # the server is still there
        after = await client.call_tool("text", {"kind": "plain"})
        assert _texts(after) == ["plain"]


ANSWERING_SEEN: list[object] = []


async def _elicited(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
    ANSWERING_SEEN.append(params)
    if isinstance(params, types.ElicitRequestURLParams):
        return types.ElicitResult(action="accept")
    return types.ElicitResult(action="accept", content={"ok": True})


async def _sampled(
    context: ClientRequestContext, params: types.CreateMessageRequestParams
) -> types.CreateMessageResult:
    ANSWERING_SEEN.append(params)
    return types.CreateMessageResult(
        role="assistant", content=types.TextContent(type="text", text="sampled"), model="m"
    )


ANSWERING = {"elicitation_callback": _elicited, "sampling_callback": _sampled}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_in_memory(pkg: ModuleType, mode: str) -> None:
    async with Client(pkg.create_server(), mode=mode, **ANSWERING) as client:  # type: ignore[arg-type]
        await _every_path_answers(client)


@pytest.mark.anyio
async def test_stdio(root: Path) -> None:
    async with Client(stdio_params(root, PACKAGE), **ANSWERING) as client:  # type: ignore[arg-type]
        await _every_path_answers(client)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_http(root: Path, mode: str) -> None:
    with http_server(root, PACKAGE) as server:
        async with Client(server.url, mode=mode, **ANSWERING) as client:  # type: ignore[arg-type]
            await _every_path_answers(client)
        assert server.process.poll() is None


@pytest.mark.anyio
async def test_the_server_log_carries_writable_text(pkg: ModuleType) -> None:
    written: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            written.append(self.format(record))

    logger = logging.getLogger(f"{PACKAGE}.server")
    keep = Keep(logging.ERROR)
    logger.addHandler(keep)
    try:
        async with Client(pkg.create_server(), **ANSWERING) as client:  # type: ignore[arg-type]
            await _every_path_answers(client)
    finally:
        logger.removeHandler(keep)
    assert written, "the handler's exception was logged"
    text = "\n".join(written)
    text.encode("utf-8")  # a UTF-8 log file or a test runner's report can take it
    assert "RuntimeError: report-\\udcff\\udc80.txt" in text  # and the bad bytes stay visible
