"""A tool whose input or output schema is a `$ref` to an object definition uses that class itself."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client

from mcpstub.pipeline import check_toolset
from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_shared_roots"

COMMON = """\
$defs:
  Address:
    type: object
    properties: {street: {type: string}}
    required: [street]
"""

TOOLSET = """\
mcpstub: 1
server: {name: roots}
$defs:
  FileInfo:
    type: object
    properties:
      name: {type: string}
      size: {type: integer, minimum: 0}
    required: [name]
  Renamed: {$ref: "#/$defs/FileInfo"}
tools:
  - name: stat
    inputSchema: {$ref: "#/$defs/FileInfo"}
    outputSchema: {$ref: "#/$defs/FileInfo"}
  - name: stat_again
    inputSchema: {type: object, properties: {name: {type: string}}, required: [name]}
    outputSchema: {$ref: "#/$defs/Renamed"}
  - name: locate
    inputSchema: {type: object}
    outputSchema: {$ref: "common.yaml#/$defs/Address"}
"""

HANDLERS = {
    "stat": """\
from __future__ import annotations

from ..models import FileInfo, StatInput, StatOutput
from ..results import StatResult
from ..server import ToolContext


async def stat(args: StatInput, ctx: ToolContext) -> StatOutput | StatResult:
    return FileInfo(name=args.name.upper(), size=len(args.name))
""",
    "stat_again": """\
from __future__ import annotations

from ..models import FileInfo, StatAgainInput, StatAgainOutput
from ..results import StatAgainResult
from ..server import ToolContext


async def stat_again(args: StatAgainInput, ctx: ToolContext) -> StatAgainOutput | StatAgainResult:
    return StatAgainResult.ok(FileInfo(name=args.name))
""",
    "locate": """\
from __future__ import annotations

from ..models import LocateInput, LocateOutput
from ..results import LocateResult
from ..server import ToolContext


async def locate(args: LocateInput, ctx: ToolContext) -> LocateOutput | LocateResult:
    return LocateOutput(street="Main St")
""",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("roots")
    (root / "common.yaml").write_text(COMMON, encoding="utf-8")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    for name, text in HANDLERS.items():
        (folder / "handlers" / f"{name}.py").write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_root_ref_names_the_shared_class(pkg: ModuleType) -> None:
    models = importlib.import_module(f"{pkg.__name__}.models")
    assert models.StatInput is models.FileInfo and models.StatOutput is models.FileInfo
    assert models.StatAgainOutput is models.FileInfo
    assert set(models.LocateOutput.model_fields) == {"street"}
    assert pkg.TOOLS["stat"].output_model is models.FileInfo


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_handlers_return_the_shared_class(pkg: ModuleType, mode: str | None) -> None:
    options: dict[str, Any] = {"mode": mode} if mode else {}
    async with Client(pkg.create_server(), **options) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        stat = await client.call_tool("stat", {"name": "ab"})
        again = await client.call_tool("stat_again", {"name": "x"})
        located = await client.call_tool("locate", {})
        refused = await client.call_tool("stat", {"size": 1})
    assert stat.structured_content == {"name": "AB", "size": 2}
    assert again.structured_content == {"name": "x"}
    assert located.structured_content == {"street": "Main St"}
    assert refused.is_error and "name" in refused.content[0].text  # type: ignore[union-attr]
    assert listed["stat"].output_schema is not None
    assert listed["stat"].output_schema["$ref"] == "#/$defs/FileInfo"


def test_package_passes_mypy_strict(root: Path, mypy_strict: MypyRun) -> None:
    done = mypy_strict(PACKAGE, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("schema", "defs"),
    [
        ('{$ref: "#/$defs/City"}', "City: {type: string}"),
        ('{$ref: "#/$defs/Hop"}', 'Hop: {$ref: "#/$defs/City"}\n  City: {type: string}'),
        ('{$ref: "#/$defs/Either"}', "Either: {anyOf: [{type: object}, {type: string}]}"),
    ],
)
def test_a_ref_root_that_is_not_an_object_is_refused(tmp_path: Path, schema: str, defs: str) -> None:
    source = tmp_path / "tools.yaml"
    text = f"mcpstub: 1\nserver: {{name: t}}\n$defs:\n  {defs}\n"
    text += f"tools:\n  - name: t\n    inputSchema: {schema}\n"
    source.write_text(text, encoding="utf-8")
    checked = check_toolset(source)
    assert [d.code for d in checked.diagnostics if d.is_error] == ["root-not-object"]
    line = text.split("\n").index(f"    inputSchema: {schema}") + 1
    assert [d.location.line for d in checked.diagnostics] == [line]


RENAMED_KEYS = """\
mcpstub: 1
server: {name: renamed}
$defs:
  Foo_bar: {type: object, properties: {a: {type: string}}, required: [a]}
  my-thing: {type: object, properties: {b: {type: integer}}}
  snake_kind: {type: string, enum: [x, y]}
  item_list: {type: array, items: {$ref: "#/$defs/Foo_bar"}}
tools:
  - name: by_snake
    inputSchema: {$ref: "#/$defs/my-thing"}
    outputSchema: {$ref: "#/$defs/Foo_bar"}
  - name: by_enum
    inputSchema: {type: object}
    outputSchema: {$ref: "#/$defs/snake_kind"}
  - name: by_list
    inputSchema: {type: object}
    outputSchema: {$ref: "#/$defs/item_list"}
"""


@pytest.mark.anyio
async def test_a_root_reference_to_a_key_the_generator_spells_otherwise_is_that_class(tmp_path: Path) -> None:
    # `Foo_bar` is the class `FooBar`, `my-thing` is `MyThing`: a tool rooted at one is that class.
    write_package(tmp_path, "fx_renamed_roots", RENAMED_KEYS)
    with imported(tmp_path, "fx_renamed_roots") as package:
        models = importlib.import_module("fx_renamed_roots.models")
        tools = importlib.import_module("fx_renamed_roots.tools").TOOLS
        assert tools["by_snake"].output_model is models.FooBar
        assert tools["by_snake"].input_model is models.MyThing

        async def snake(args: Any, ctx: Any) -> Any:
            return models.FooBar(a=str(args.b))

        async def kind(args: Any, ctx: Any) -> Any:
            return "y"

        async def items(args: Any, ctx: Any) -> Any:
            return [models.FooBar(a="one")]

        handlers = {"by_snake": snake, "by_enum": kind, "by_list": items}
        async with Client(package.create_server(handlers)) as client:
            assert (await client.call_tool("by_snake", {"b": 3})).structured_content == {"a": "3"}
            assert (await client.call_tool("by_enum", {})).structured_content == "y"
            assert (await client.call_tool("by_list", {})).structured_content == [{"a": "one"}]
