"""A hand-written package for the runtime's own tests (the `tools` fixture, through conftest.py):
models and results as mcpstub writes them, tools declared directly as `ToolSpec`s, no generator
involved."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcpstub_runtime import ServerInfo, ToolSpec

PACKAGE = "rt_fixture_pkg"

MODELS = """\
from __future__ import annotations

from pydantic import BaseModel


class EchoInput(BaseModel):
    text: str


class EchoOutput(BaseModel):
    text: str


class Item(BaseModel):
    name: str


class ItemsInput(BaseModel):
    count: int = 1


ItemsOutput = list[Item]


class NoteInput(BaseModel):
    pass
"""

RESULTS = """\
from __future__ import annotations

from mcpstub_runtime import ContentResult, StructuredResult


class EchoResult(StructuredResult["EchoOutput"]):
    __slots__ = ()
    _output_name = "EchoOutput"


class ItemsResult(StructuredResult["list[Item]"]):
    __slots__ = ()
    _output_name = None


class NoteResult(ContentResult):
    __slots__ = ()
"""

ECHO_HANDLER = """\
async def echo(args, ctx):
    raise NotImplementedError
"""

ECHO_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "maxLength": 5}},
    "required": ["text"],
}
ECHO_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}
ITEMS_INPUT: dict[str, Any] = {"type": "object", "properties": {"count": {"type": "integer"}}}
ITEMS_OUTPUT: dict[str, Any] = {
    "type": "array",
    "items": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
}
NOTE_INPUT: dict[str, Any] = {"type": "object"}
INFO = ServerInfo(name="runtime-fixture", version="0.0.1", instructions="For tests.")


def _spec(name: str, input_schema: dict[str, Any], output_schema: dict[str, Any] | None,
          output_class: str | None, result: str) -> ToolSpec:  # fmt: skip
    module = sys.modules[f"{PACKAGE}.results"]
    wire: dict[str, Any] = {"name": name, "inputSchema": input_schema}
    legacy = output_schema
    if output_schema is not None:
        wire["outputSchema"] = output_schema
        if output_schema.get("type") != "object":
            legacy = {"type": "object", "properties": {"result": output_schema}, "required": ["result"]}
    return ToolSpec(
        name=name,
        package=PACKAGE,
        identifier=name,
        input_class=f"{name.title()}Input",
        output_class=output_class,
        result_type=getattr(module, result),
        input_schema=input_schema,
        output_schema=output_schema,
        legacy_output_schema=legacy,
        dialect="2020-12",
        output_dialect="2020-12" if output_schema is not None else None,
        wire=wire,
        digests={"2026-07-28": "0" * 64, "2025-11-25": "1" * 64},
    )


@pytest.fixture
def tools(tmp_path: Path) -> Iterator[dict[str, ToolSpec]]:
    """The fixture package on sys.path and its three tools: echo (object output), items (an
    array of objects), note (content only)."""
    folder = tmp_path / PACKAGE
    (folder / "handlers").mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "models.py").write_text(MODELS)
    (folder / "results.py").write_text(RESULTS)
    (folder / "handlers" / "__init__.py").write_text("")
    (folder / "handlers" / "echo.py").write_text(textwrap.dedent(ECHO_HANDLER))
    sys.path.insert(0, str(tmp_path))
    try:
        __import__(f"{PACKAGE}.results")
        yield {
            "echo": _spec("echo", ECHO_INPUT, ECHO_OUTPUT, "EchoOutput", "EchoResult"),
            "items": _spec("items", ITEMS_INPUT, ITEMS_OUTPUT, "ItemsOutput", "ItemsResult"),
            "note": _spec("note", NOTE_INPUT, None, None, "NoteResult"),
        }
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]
