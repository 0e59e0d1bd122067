"""Handlers use plain values: shared scalars and enums are annotated types, every default type-checks."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import Client
from pydantic import MISSING

from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_plain_models"

TOOLSET = """\
mcpstub: 1
server: {name: plain}
$defs:
  City: {type: string, minLength: 1, description: a city}
  EntryType: {enum: [file, dir]}
  Size: {type: integer, minimum: 0}
  Limit: {anyOf: [{type: integer, minimum: 1}, {type: "null"}], default: 30}
  Point:
    type: object
    properties: {x: {type: number}, y: {type: number}}
    required: [x]
  Tags: {type: array, items: {type: string}}
  Count: {type: integer, minimum: 0, default: 1.0}
  Town: {type: string, minLength: 1, default: Oslo}
  Labels: {type: array, items: {type: string}, default: [x]}
tools:
  - name: list_dir
    inputSchema:
      type: object
      properties:
        city: {$ref: "#/$defs/City"}
        kind: {$ref: "#/$defs/EntryType", default: file}
        size: {$ref: "#/$defs/Size", default: 0}
        limit: {$ref: "#/$defs/Limit"}
        page: {anyOf: [{type: integer, minimum: 1}, {type: "null"}], default: 30}
        note: {type: ["string", "null"], default: null}
        flag: {type: boolean, default: true}
        ratio: {type: number, default: 0.5}
        mode: {type: string, enum: [fast, slow], default: fast}
        origin: {$ref: "#/$defs/Point", default: {x: 1.5}}
        corners: {type: array, items: {$ref: "#/$defs/Point"}, default: [{x: 0, y: 0}]}
        inline: {type: object, properties: {a: {type: integer}}, default: {a: 1}}
        opts: {type: object, default: {verbose: false}}
        tags: {$ref: "#/$defs/Tags", default: [a]}
        nums: {type: array, items: {type: integer}, default: [1, 2]}
        maybe_point: {anyOf: [{$ref: "#/$defs/Point"}, {type: "null"}], default: null}
        whole: {type: integer, default: 2.0}
        count: {$ref: "#/$defs/Count"}
        ints: {type: array, items: {type: integer}, default: [1.0, 2]}
        either: {type: [integer, string], default: 3.0}
        number: {type: number, default: 4.0}
        town: {$ref: "#/$defs/Town"}
        labels: {$ref: "#/$defs/Labels"}
      required: [city]
    outputSchema:
      type: object
      properties:
        city: {$ref: "#/$defs/City"}
        kind: {$ref: "#/$defs/EntryType"}
        size: {$ref: "#/$defs/Size"}
        tags: {$ref: "#/$defs/Tags"}
        echo: {type: object}
      required: [city, kind, size, tags, echo]
"""

# A filled-in handler as a user writes it: plain str, Literal and int values, no `.root`.
HANDLER = """\
from __future__ import annotations

from pydantic import MISSING

from ..models import EntryType, ListDirInput, ListDirOutput
from ..results import ListDirResult
from ..server import ToolContext


async def list_dir(args: ListDirInput, ctx: ToolContext) -> ListDirOutput | ListDirResult:
    kind: EntryType = "dir" if args.kind == "file" else "file"
    # Town's own default fills nothing: a town the client left out is MISSING, narrowed away here.
    town: str = "Oslo" if args.town is MISSING else args.town
    city: str = args.city.upper() if town.lower() else ""
    size: int = args.size + 1
    echo = args.model_dump(mode="json", by_alias=True)
    return ListDirOutput(city=city, kind=kind, size=size, tags=[*args.tags, "b"], echo=echo)
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plain")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "list_dir.py").write_text(HANDLER, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_package_with_every_kind_of_default_passes_mypy_strict(root: Path, mypy_strict: MypyRun) -> None:
    done = mypy_strict(PACKAGE, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


def test_scalars_and_enums_are_plain_types_with_their_constraints(pkg: ModuleType) -> None:
    models = importlib.import_module(f"{pkg.__name__}.models")
    args = models.ListDirInput(city="Oslo")
    assert type(args.city) is str and args.kind == "file" and args.size == 0
    assert args.page == 30 and args.note is None and args.tags == ["a"]
    assert args.origin == models.Point(x=1.5) and args.corners == [models.Point(x=0, y=0)]
    assert args.opts == {"verbose": False} and args.maybe_point is None
    # An integer written 2.0 is the integer 2 (JSON Schema counts it so); a number stays a float.
    found = [(v, type(v)) for v in (args.whole, args.either, args.number)]
    assert found == [(2, int), (3, int), (4.0, float)]
    assert args.ints == [1, 2] and all(type(v) is int for v in args.ints)
    # A definition's own default fills no field that merely refers to it: the client left it out.
    assert args.town is MISSING and args.limit is MISSING and args.count is MISSING
    assert args.labels is MISSING and not {"town", "limit", "count", "labels"} & args.model_fields_set
    # A default written on the property fills it in, and the client's own values are told apart.
    assert args.kind == "file" and "kind" not in args.model_fields_set
    sent = models.ListDirInput(city="x", kind="file", town="Bergen")
    assert sent.model_fields_set == {"city", "kind", "town"} and sent.town == "Bergen"
    # Neither the field nor the alias takes None.
    assert models.Town is not None
    assert "None" not in str(models.Labels)
    for bad in ({"city": "x", "town": None}, {"city": "x", "labels": None}):
        with pytest.raises(ValueError):
            models.ListDirInput.model_validate(bad)
    # Defaults are fresh values, not one object shared between calls.
    assert models.ListDirInput(city="x").origin is not args.origin
    for bad in ({"city": ""}, {"city": "x", "kind": "link"}, {"city": "x", "size": -1}):
        with pytest.raises(ValueError):
            models.ListDirInput.model_validate(bad)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_defaults_reach_the_handler_and_the_wire(pkg: ModuleType, mode: str | None) -> None:
    options: dict[str, Any] = {"mode": mode} if mode else {}
    async with Client(pkg.create_server(), **options) as client:
        result = await client.call_tool("list_dir", {"city": "Oslo", "kind": "dir"})
    assert not result.is_error, result.content
    out = result.structured_content
    assert out is not None
    assert (out["city"], out["kind"], out["size"], out["tags"]) == ("OSLO", "file", 1, ["a", "b"])
    assert out["echo"]["origin"] == {"x": 1.5}
    assert out["echo"]["corners"] == [{"x": 0, "y": 0}]
    assert out["echo"]["page"] == 30 and out["echo"]["inline"] == {"a": 1}
    # Fields whose only default is their definition's: left out by the client, absent in the handler.
    assert not {"limit", "count", "town", "labels"} & out["echo"].keys()
