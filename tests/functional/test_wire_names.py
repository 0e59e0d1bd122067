"""Property names Python would change (NFKC, non-identifiers, keywords) keep their wire names both ways."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from mcp import Client, types
from mcp.client.context import ClientRequestContext

from tests.functional.helpers import imported, write_package

PACKAGE = "fx_wire_names"
# Pairs that Python (NFKC), datamodel-code-generator (a-b -> a_b) or a keyword rename (class_)
# would make one identifier, plus a name that is no identifier at all after NFKC.
NAMES = ["\ufb01le", "file", "\uff58", "x", "\u210c", "H", "a-b", "a_b", "class", "class_", "file_", "\u00bd"]
# ... and names the model generator spells in snake case beside one so spelled already.
NAMES += ["Content-Type", "content_type", "ContentType", "Class", "Foo", "foo-", "Y", "- y", "HTTP-Server"]

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
