"""Property names Python would change (NFKC, non-identifiers, keywords) keep their wire names both ways."""

from __future__ import annotations

import importlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, types
from mcp.client.context import ClientRequestContext

from tests.functional.helpers import imported, write_package

PACKAGE = "fx_wire_names"
# Pairs that Python (NFKC), datamodel-code-generator (a-b -> a_b) or a keyword rename (class_)
# would make one identifier, plus a name that is no identifier at all after NFKC.
NAMES = ["\ufb01le", "file", "\uff58", "x", "\u210c", "H", "a-b", "a_b", "class", "class_", "file_", "\u00bd"]
# ... and names the model generator spells in snake case beside one so spelled already.
NAMES += ["Content-Type", "content_type", "ContentType", "content-type", "Class", "Foo", "foo-", "Y", "- y"]
NAMES += ["HTTP-Server", "HttpServer", "httpServer", "http-server"]  # (three spelled alike, and one more)

TOOLSET = f"""\
mcpstub: 1
server: {{name: wire}}
tools:
  - name: echo
    inputSchema:
      type: object
      properties: {json.dumps({n: {"type": "integer"} for n in NAMES}, ensure_ascii=False)}
      additionalProperties: false
    outputSchema:
      type: object
      properties:
        seen: {{type: object, additionalProperties: {{type: integer}}}}
        nested:
          type: object
          properties: {json.dumps({n: {"type": "integer"} for n in NAMES}, ensure_ascii=False)}
          additionalProperties: false
      required: [seen, nested]
  - name: book
    inputSchema:
      type: object
      properties:
        start-date: {{type: string, format: date}}
    elicitations:
      when:
        type: object
        properties:
          due-date: {{type: string, format: date}}
"""

BOOK = """\
from __future__ import annotations

from ..models import BookInput, BookWhen
from ..server import ToolContext


async def book(args: BookInput, ctx: ToolContext) -> str:
    when = await ctx.elicit("When?", BookWhen)
    due = when.data.due_date if when.action == "accept" else when.action
    return f"start={args.start_date} due={due} extra={sorted(args.model_extra or {})}"
"""

HANDLER = """\
from __future__ import annotations

from ..models import EchoInput, EchoOutput, EchoOutputNested
from ..results import EchoResult
from ..server import ToolContext


async def echo(args: EchoInput, ctx: ToolContext) -> EchoOutput | EchoResult:
    seen = args.model_dump(by_alias=True, exclude_unset=True)
    nested = EchoOutputNested.model_validate(seen)
    return EchoOutput(seen=seen, nested=nested)
"""


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("wire")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "echo.py").write_text(HANDLER, encoding="utf-8")
    (folder / "handlers" / "book.py").write_text(BOOK, encoding="utf-8")
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_every_wire_name_is_its_own_field(pkg: ModuleType) -> None:
    model = importlib.import_module(f"{pkg.__name__}.models").EchoInput
    aliases = [field.alias or name for name, field in model.model_fields.items()]
    assert sorted(aliases) == sorted(NAMES)
    value = {n: i for i, n in enumerate(NAMES)}
    assert model.model_validate(value).model_dump(by_alias=True) == value
    for name in NAMES:  # one name sent: exactly that field is set
        assert model.model_validate({name: 7}).model_dump(by_alias=True, exclude_unset=True) == {name: 7}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_wire_names_round_trip_through_a_client(pkg: ModuleType, mode: str | None) -> None:
    options: dict[str, Any] = {"mode": mode} if mode else {}
    value = {n: i for i, n in enumerate(NAMES)}
    async with Client(pkg.create_server(), **options) as client:
        result = await client.call_tool("echo", value)
        single = await client.call_tool("echo", {"\ufb01le": 1})
    assert not result.is_error, result.content
    assert result.structured_content == {"seen": value, "nested": value}
    assert single.structured_content == {"seen": {"\ufb01le": 1}, "nested": {"\ufb01le": 1}}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_a_python_name_on_the_wire_is_an_extra_key_not_its_field(pkg: ModuleType, mode: str) -> None:
    """The schema is the contract: `start_date` / `due_date` are keys it does not know (so it does
    not check their format), and they do not fill the fields `start-date` / `due-date`."""

    async def answer(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"due_date": "not a date"})

    async with Client(pkg.create_server(), mode=mode, elicitation_callback=answer) as client:
        result = await client.call_tool("book", {"start_date": "not a date either"})
        wire = await client.call_tool("book", {"start-date": "not a date"})
    assert not result.is_error, result.content
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    assert block.text == "start=MISSING due=MISSING extra=['start_date']"
    assert wire.is_error  # by its wire name the schema checks it


SPELLINGS = ["ContentType", "content_type", "content-type", "Content-Type", "contentType", "CONTENT_TYPE"]
SPELLINGS += ["content__type", "content_type_1", "content_type_", "class", "Class", "class_", "class_1"]
SPELLINGS += ["Y", "y", "- y", "y_1", "model_dump", "modelDump"]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(SPELLINGS), min_size=2, max_size=8, unique=True))
def test_any_names_spelled_alike_keep_a_field_each(names: list[str]) -> None:
    # The model generator respells names (snake case, keywords, numbered duplicates): each wire
    # name must still get a field of its own, which reads and writes it.
    properties = json.dumps({n: {"type": "integer"} for n in names})
    toolset = "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: t\n"
    toolset += f"    inputSchema: {{type: object, properties: {properties}}}\n"
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_package(root, "fx_spelled", toolset)
        with imported(root, "fx_spelled") as package:
            model = importlib.import_module("fx_spelled.models").TInput
            value = {n: i for i, n in enumerate(names)}
            assert model.model_validate(value).model_dump(by_alias=True, exclude_unset=True) == value
            del package
