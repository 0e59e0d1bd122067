"""Tools whose derived class names would clash generate and serve: each call reaches its handler
with the classes of its own schemas, and its output goes out through its own output class."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client

from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_class_clash"

# `foo` + property `input` is `FooInputInput`, the input class of `foo_input`; `foo`'s output
# property `output` is `FooOutputOutput`, the output class of `foo_output`; a shared definition
# `Foo` with a property `input` is tool `foo`'s input class name.
TOOLSET = """\
mcpstub: 1
server: {name: clash}
$defs:
  Foo:
    type: object
    properties:
      input: {type: object, properties: {shared: {type: string}}, required: [shared]}
    required: [input]
tools:
  - name: foo
    inputSchema:
      type: object
      properties:
        input: {type: object, properties: {a: {type: string}}, required: [a]}
        items: {type: array, items: {type: object, properties: {n: {type: integer}}, required: [n]}}
        foo: {$ref: "#/$defs/Foo"}
      required: [input]
    outputSchema:
      type: object
      properties:
        output: {type: object, properties: {echo: {type: string}}, required: [echo]}
      required: [output]
  - name: foo_input
    inputSchema:
      type: object
      properties:
        b: {type: integer}
        input: {type: object, properties: {z: {type: integer}}, required: [z]}
      required: [b]
    outputSchema:
      type: object
      properties: {total: {type: integer}}
      required: [total]
  - name: foo_output
    inputSchema: {type: object, properties: {c: {type: boolean}}, required: [c]}
    outputSchema:
      type: object
      properties: {flag: {type: boolean}}
      required: [flag]
  # Their classes take `Tool` after the name: ContentResult and StructuredResult are the runtime's.
  - name: content
    inputSchema: {type: object}
  - name: structured
    inputSchema: {type: object}
    outputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
"""

HANDLERS = {
    "foo": """\
from __future__ import annotations

from ..models import Foo, FooInput, FooInputNestedInput, FooOutput, FooOutputNestedOutput
from ..results import FooResult
from ..server import ToolContext


async def foo(args: FooInput, ctx: ToolContext) -> FooOutput | FooResult:
    assert type(args.input) is FooInputNestedInput, type(args.input)
    shared = args.foo.input.shared if isinstance(args.foo, Foo) else ""
    return FooOutput(output=FooOutputNestedOutput(echo=args.input.a + shared))
""",
    "foo_input": """\
from __future__ import annotations

from ..models import FooInputInput, FooInputInputInput, FooInputOutput
from ..results import FooInputResult
from ..server import ToolContext


async def foo_input(args: FooInputInput, ctx: ToolContext) -> FooInputOutput | FooInputResult:
    nested = 0
    if "input" in args.model_fields_set:
        assert type(args.input) is FooInputInputInput, type(args.input)
        nested = args.input.z
    return FooInputOutput(total=args.b + nested)
""",
    "foo_output": """\
from __future__ import annotations

from ..models import FooOutputInput, FooOutputOutput
from ..results import FooOutputResult
from ..server import ToolContext


async def foo_output(args: FooOutputInput, ctx: ToolContext) -> FooOutputOutput | FooOutputResult:
    return FooOutputOutput(flag=not args.c)
""",
    "content": """\
from __future__ import annotations

from ..models import ContentToolInput
from ..results import ContentToolResult
from ..server import ToolContext


async def content(args: ContentToolInput, ctx: ToolContext) -> ContentToolResult | str:
    return ContentToolResult.text("a") + ContentToolResult.text("b")
""",
    "structured": """\
from __future__ import annotations

from ..models import StructuredToolInput, StructuredToolOutput
from ..results import StructuredToolResult
from ..server import ToolContext


async def structured(
    args: StructuredToolInput, ctx: ToolContext
) -> StructuredToolOutput | StructuredToolResult:
    return StructuredToolResult.ok(StructuredToolOutput(n=7))
""",
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("clash")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    for name, text in HANDLERS.items():
        (folder / "handlers" / f"{name}.py").write_text(text, encoding="utf-8")
    return root, folder


@pytest.fixture(scope="module")
def pkg(generated: tuple[Path, Path]) -> Iterator[ModuleType]:
    root, _ = generated
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_every_tool_is_bound_to_the_classes_of_its_own_schemas(pkg: ModuleType) -> None:
    tools = importlib.import_module(f"{PACKAGE}.tools").TOOLS
    wire = {
        "foo": ({"input", "items", "foo"}, {"output"}),
        "foo_input": ({"b", "input"}, {"total"}),
        "foo_output": ({"c"}, {"flag"}),
    }
    for name, (inputs, outputs) in wire.items():
        spec = tools[name]
        for model, expected in ((spec.input_model, inputs), (spec.output_model, outputs)):
            assert {f.alias or n for n, f in model.model_fields.items()} == expected, (name, model)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_clashing_tools_answer_through_a_client(pkg: ModuleType, mode: str | None) -> None:
    options: dict[str, Any] = {"mode": mode} if mode else {}
    async with Client(pkg.create_server(), **options) as client:
        foo = await client.call_tool(
            "foo", {"input": {"a": "x"}, "items": [{"n": 1}], "foo": {"input": {"shared": "y"}}}
        )
        foo_input = await client.call_tool("foo_input", {"b": 2, "input": {"z": 3}})
        foo_output = await client.call_tool("foo_output", {"c": True})
        refused = await client.call_tool("foo_input", {"b": 2, "input": {"a": "x"}})
        content = await client.call_tool("content", {})
        structured = await client.call_tool("structured", {})
    assert not foo.is_error, foo.content
    assert foo.structured_content == {"output": {"echo": "xy"}}
    assert not foo_input.is_error, foo_input.content
    assert foo_input.structured_content == {"total": 5}
    assert foo_output.structured_content == {"flag": False}
    assert refused.is_error  # foo's nested `input` shape is not foo_input's
    assert [block.text for block in content.content] == ["a", "b"]  # type: ignore[union-attr]
    assert structured.structured_content == {"n": 7}


def test_the_generated_package_passes_mypy_strict(generated: tuple[Path, Path], mypy_strict: MypyRun) -> None:
    root, _ = generated
    run = mypy_strict("-p", PACKAGE, cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
