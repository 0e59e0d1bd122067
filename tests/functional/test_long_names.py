"""Long tool and definition names: the formatter lays their statements out differently.

A name near the line length turns `X: TypeAlias = Y` into `X: (\n    TypeAlias\n) = (...)` and a
class header into one base per line. Every step that reads the generated models must find the
classes and aliases however they are laid out: each tool here is generated, bound to its own
classes, served and called through the official client in both protocol generations.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client

from tests.conftest import MypyRun

from .helpers import imported, write_package

PACKAGE = "fx_long_names"
LENGTHS = (40, 64, 68, 87, 100, 128)
SHARED = "Pet" + "p" * 90  # a shared definition whose class name alone is near the line length


def name(stem: str, length: int) -> str:
    return (stem + "_" + "x" * length)[:length]


def tool_yaml(length: int) -> str:
    return f"""
  - name: {name("pets", length)}
    inputSchema:
      type: object
      properties: {{a: {{type: string}}, b: {{type: integer}}}}
      anyOf: [{{required: [a]}}, {{required: [b]}}]
    outputSchema:
      type: object
      oneOf: [{{$ref: "#/$defs/Cat"}}, {{$ref: "#/$defs/Dog"}}]
  - name: {name("shared", length)}
    inputSchema: {{type: object}}
    outputSchema: {{$ref: "#/$defs/{SHARED}"}}
  - name: {name("list", length)}
    inputSchema: {{type: object}}
    outputSchema: {{type: array, items: {{$ref: "#/$defs/Cat"}}}}
  - name: {name("nested", length)}
    inputSchema: {{type: object}}
    outputSchema:
      type: object
      properties:
        inner: {{type: object, properties: {{n: {{type: integer}}}}, required: [n]}}
      required: [inner]
"""


TOOLSET = (
    f"""\
mcpstub: 1
server: {{name: long}}
$defs:
  Cat:
    type: object
    properties: {{kind: {{const: cat}}, lives: {{type: integer}}}}
    required: [kind]
  Dog:
    type: object
    properties: {{kind: {{const: dog}}, good: {{type: boolean}}}}
    required: [kind]
  {SHARED}:
    type: object
    properties: {{tag: {{type: string}}}}
    required: [tag]
tools:"""
    + "".join(tool_yaml(length) for length in LENGTHS)
)

# Per tool stem: the arguments sent and the JSON value the handler returns.
CALLS: dict[str, tuple[dict[str, Any], Any]] = {
    "pets": ({"b": 3}, {"kind": "dog", "good": True}),
    "shared": ({}, {"tag": "t"}),
    "list": ({}, [{"kind": "cat", "lives": 9}]),
    "nested": ({}, {"inner": {"n": 1}}),
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("long")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    return root, folder


@pytest.fixture(scope="module")
def pkg(generated: tuple[Path, Path]) -> Iterator[ModuleType]:
    root, _ = generated
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_every_long_named_tool_has_its_own_classes(pkg: ModuleType) -> None:
    tools = importlib.import_module(f"{PACKAGE}.tools").TOOLS
    assert len(tools) == len(LENGTHS) * len(CALLS)
    for length in LENGTHS:
        pets = tools[name("pets", length)]
        # Object roots with only combinators are open model classes, not aliases of a union.
        for model in (pets.input_model, pets.output_model):
            assert isinstance(model, type) and model.model_config["extra"] == "allow", (length, model)
        nested = tools[name("nested", length)].output_model
        assert set(nested.model_fields) == {"inner"}


def returning(value: Any) -> Any:
    async def handler(args: Any, ctx: Any) -> Any:
        return value

    return handler


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_long_named_tools_answer_through_a_client(pkg: ModuleType, mode: str | None) -> None:
    tools = importlib.import_module(f"{PACKAGE}.tools").TOOLS
    models = importlib.import_module(f"{PACKAGE}.models")
    handlers = {}
    for length in LENGTHS:
        for stem, (_, value) in CALLS.items():
            spec = tools[name(stem, length)]
            if stem == "list":
                output = [models.Cat.model_validate(item) for item in value]
            else:  # object outputs are returned as their output model
                output = spec.output_model.model_validate(value)
            handlers[name(stem, length)] = returning(output)
    options: dict[str, Any] = {"mode": mode} if mode else {}
    async with Client(pkg.create_server(handlers), **options) as client:
        for length in LENGTHS:
            for stem, (arguments, value) in CALLS.items():
                result = await client.call_tool(name(stem, length), arguments)
                assert result.is_error is not True, (stem, length, result.content)
                wrapped = mode == "legacy" and stem == "list"
                assert result.structured_content == ({"result": value} if wrapped else value), (stem, length)
        refused = await client.call_tool(name("pets", 128), {})  # neither `a` nor `b`
    assert refused.is_error is True


def test_the_generated_package_passes_mypy_strict(generated: tuple[Path, Path], mypy_strict: MypyRun) -> None:
    root, _ = generated
    run = mypy_strict("-p", PACKAGE, cwd=root)
    assert run.returncode == 0, run.stdout + run.stderr
