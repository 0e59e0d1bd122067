"""Deterministic synthetic toolsets for the benchmarks, and the same tools for MCPServer.

`build_toolset(n)` returns the document of an `n`-tool toolset: nested objects, enums, arrays,
formats, nullable fields and document-level `$defs` shared by every tool (so the combined model
schema has shared classes). Every fourth tool has no output schema (it answers with content).
`mcpserver_source(n)` returns a Python module defining an `MCPServer` with the same tools written
the way a user of the SDK would: pydantic models and functions with typed parameters.
`sample_input(i)` / `sample_output(i)` are valid payloads for tool `i`. Same `n`, same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

NOUNS = ("order", "customer", "invoice", "ticket", "shipment", "product", "payment", "report")
STATUSES = ["active", "inactive", "pending", "archived"]
CURRENCIES = ["EUR", "USD", "GBP", "JPY"]
REGIONS = ["emea", "amer", "apac"]

SHARED_DEFS: dict[str, Any] = {
    "Status": {"type": "string", "enum": STATUSES, "description": "Lifecycle state."},
    "Tag": {"type": "string", "minLength": 1, "maxLength": 32},
    "Money": {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "minimum": 0},
            "currency": {"type": "string", "enum": CURRENCIES},
        },
        "required": ["amount", "currency"],
        "additionalProperties": False,
    },
    "Address": {
        "type": "object",
        "properties": {
            "street": {"type": "string"},
            "city": {"type": "string", "minLength": 1},
            "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
            "postcode": {"type": "string"},
        },
        "required": ["city", "country"],
    },
    "Pagination": {
        "type": "object",
        "properties": {
            "page": {"type": "integer", "minimum": 1, "default": 1},
            "per_page": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
        },
    },
}


def tool_name(i: int) -> str:
    """The name of tool `i`."""
    return f"list_{NOUNS[i % len(NOUNS)]}s_{i}"


def has_output(i: int) -> bool:
    """Whether tool `i` declares an output schema."""
    return i % 4 != 3


def _has_options(i: int) -> bool:
    return i % 3 == 0


def _input_schema(i: int) -> dict[str, Any]:
    noun = NOUNS[i % len(NOUNS)]
    props: dict[str, Any] = {
        "query": {"type": "string", "minLength": 1, "description": f"Search text for {noun}s."},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
        "status": {"$ref": "#/$defs/Status"},
        "sort": {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/Tag"}, "maxItems": 10},
        "filter": {
            "type": "object",
            "properties": {
                "created_after": {"type": "string", "format": "date-time"},
                "min_amount": {"$ref": "#/$defs/Money"},
                "region": {"type": "string", "enum": REGIONS},
                "address": {"$ref": "#/$defs/Address"},
            },
            "additionalProperties": False,
        },
        "page": {"$ref": "#/$defs/Pagination"},
    }
    if _has_options(i):
        props["options"] = {
            "type": "object",
            "properties": {
                "flags": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}, "enabled": {"type": "boolean"}},
                        "required": ["name", "enabled"],
                    },
                },
                "dry_run": {"type": "boolean", "default": False},
            },
        }
    return {"type": "object", "properties": props, "required": ["query"], "additionalProperties": False}


def _output_schema(i: int) -> dict[str, Any]:
    item = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "name": {"type": "string"},
            "status": {"$ref": "#/$defs/Status"},
            "price": {"$ref": "#/$defs/Money"},
            "address": {"$ref": "#/$defs/Address"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "score": {"type": "number"},
            "created": {"type": "string", "format": "date-time"},
        },
        "required": ["id", "name", "status", "price"],
    }
    return {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": item},
            "total": {"type": "integer", "minimum": 0},
            "next_page": {"type": ["integer", "null"]},
        },
        "required": ["items", "total"],
    }


def build_tool(i: int) -> dict[str, Any]:
    """The toolset entry of tool `i`."""
    noun = NOUNS[i % len(NOUNS)]
    tool: dict[str, Any] = {
        "name": tool_name(i),
        "title": f"List {noun}s ({i})",
        "description": f"Search {noun}s by text, status, tags and filters; paginated.",
        "inputSchema": _input_schema(i),
    }
    if has_output(i):
        tool["outputSchema"] = _output_schema(i)
    tool["annotations"] = {"readOnlyHint": True}
    return tool


def build_toolset(n: int) -> dict[str, Any]:
    """The document of a synthetic toolset with `n` tools."""
    return {
        "mcpstub": 1,
        "server": {"name": f"bench{n}", "version": "1.0.0", "instructions": "Synthetic benchmark tools."},
        "$defs": SHARED_DEFS,
        "tools": [build_tool(i) for i in range(n)],
    }


def write_toolset(path: Path, n: int) -> Path:
    """Write the `n`-tool toolset to `path` (JSON is YAML) and return the path."""
    path.write_text(json.dumps(build_toolset(n), indent=1) + "\n", encoding="utf-8")
    return path


def sample_input(i: int) -> dict[str, Any]:
    """Arguments tool `i` accepts, touching most of its schema."""
    args: dict[str, Any] = {
        "query": "blue widgets",
        "limit": 25,
        "status": "active",
        "tags": ["sale", "new"],
        "filter": {
            "created_after": "2026-01-01T00:00:00Z",
            "min_amount": {"amount": 10.5, "currency": "EUR"},
            "region": "emea",
            "address": {"city": "Paris", "country": "FR"},
        },
        "page": {"page": 2, "per_page": 50},
    }
    if _has_options(i):
        args["options"] = {"flags": [{"name": "fast", "enabled": True}], "dry_run": False}
    return args


def sample_output(i: int, items: int = 5) -> dict[str, Any]:
    """A payload tool `i`'s output schema accepts, with `items` items."""
    return {
        "items": [
            {
                "id": f"id-{k}",
                "name": f"{NOUNS[i % len(NOUNS)]} {k}",
                "status": STATUSES[k % len(STATUSES)],
                "price": {"amount": 9.99 + k, "currency": CURRENCIES[k % len(CURRENCIES)]},
                "address": {"street": "1 Rue de Rivoli", "city": "Paris", "country": "FR",
                            "postcode": "75001"},
                "tags": ["a", "b"],
                "score": 0.5 + k / 10,
                "created": "2026-01-02T03:04:05Z",
            }
            for k in range(items)
        ],
        "total": items,
        "next_page": None,
    }


# --- the same tools for MCPServer --------------------------------------------------------------

_SHARED_PY = '''\
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["active", "inactive", "pending", "archived"]
Tag = Annotated[str, Field(min_length=1, max_length=32)]


class Money(BaseModel):
    model_config = ConfigDict(extra="forbid")
    amount: Annotated[float, Field(ge=0)]
    currency: Literal["EUR", "USD", "GBP", "JPY"]


class Address(BaseModel):
    street: str | None = None
    city: Annotated[str, Field(min_length=1)]
    country: Annotated[str, Field(pattern="^[A-Z]{2}$")]
    postcode: str | None = None


class Pagination(BaseModel):
    page: Annotated[int, Field(ge=1)] = 1
    per_page: Annotated[int, Field(ge=1, le=100)] = 20


class Filter(BaseModel):
    model_config = ConfigDict(extra="forbid")
    created_after: str | None = None
    min_amount: Money | None = None
    region: Literal["emea", "amer", "apac"] | None = None
    address: Address | None = None


class Flag(BaseModel):
    name: str
    enabled: bool


class Options(BaseModel):
    flags: list[Flag] | None = None
    dry_run: bool = False


class Item(BaseModel):
    id: str
    name: str
    status: Status
    price: Money
    address: Address | None = None
    tags: list[str] | None = None
    score: float | None = None
    created: str | None = None


class ListOutput(BaseModel):
    items: list[Item]
    total: Annotated[int, Field(ge=0)]
    next_page: int | None = None
'''


def _mcpserver_function(i: int) -> str:
    params = [
        "query: Annotated[str, Field(min_length=1)]",
        "limit: Annotated[int, Field(ge=1, le=100)] = 10",
        "status: Status | None = None",
        'sort: Literal["asc", "desc"] = "desc"',
        "tags: Annotated[list[Tag], Field(max_length=10)] | None = None",
        "filter: Filter | None = None",
        "page: Pagination | None = None",
    ]
    if _has_options(i):
        params.append("options: Options | None = None")
    returns = "ListOutput" if has_output(i) else "str"
    body = "return RESULT" if has_output(i) else 'return "ok"'
    lines = [f"def {tool_name(i)}(", *(f"    {p}," for p in params), f") -> {returns}:"]
    noun = NOUNS[i % len(NOUNS)]
    lines.append(f'    """Search {noun}s by text, status, tags and filters; paginated."""')
    lines.append(f"    {body}")
    return "\n".join(lines)


def mcpserver_source(n: int) -> str:
    """A module defining `mcp = MCPServer(...)` with the same `n` tools as `build_toolset(n)`."""
    parts = [
        '"""Generated by benchmarks/toolset.py: the synthetic tools, written for MCPServer."""',
        "# ruff: noqa",
        _SHARED_PY,
        "from mcp.server import MCPServer",
        "from mcp.types import ToolAnnotations",
        "",
        f'mcp = MCPServer("bench{n}", version="1.0.0", instructions="Synthetic benchmark tools.")',
        f"RESULT = ListOutput.model_validate({sample_output(0)!r})",
        "",
    ]
    for i in range(n):
        parts.append(_mcpserver_function(i))
        parts.append(
            f"mcp.add_tool({tool_name(i)}, title={build_tool(i)['title']!r}, "
            "annotations=ToolAnnotations(readOnlyHint=True))\n"
        )
    return "\n\n".join(parts) + "\n"


# --- toolsets of other shapes, for the generation benchmarks ---------------------------------------

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus" / "github.json"
SHAPES = ("mixed", "deep", "shared", "enums", "draft07", "corpus")


def _deep_object(depth: int, seed: int) -> dict[str, Any]:
    if depth == 0:
        return {"type": "string", "maxLength": 10 + seed % 7}
    return {
        "type": "object",
        "properties": {
            f"level{depth}": _deep_object(depth - 1, seed),
            f"n{depth}": {"type": "integer", "minimum": depth},
            f"flag{depth}": {"type": "boolean"},
        },
        "required": [f"level{depth}"],
    }


def _shared_defs(count: int) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for k in range(count):
        props: dict[str, Any] = {"id": {"type": "string"}, "size": {"type": "integer", "minimum": 0}}
        if k:
            props["parent"] = {"$ref": f"#/$defs/Entity{k - 1}"}
        defs[f"Entity{k}"] = {"type": "object", "properties": props, "required": ["id"]}
    return defs


def _shaped_tool(shape: str, i: int) -> dict[str, Any]:
    name = f"{shape}_tool_{i}"
    if shape == "deep":
        schema = {"type": "object", "properties": {"root": _deep_object(8, i), "q": {"type": "string"}}}
        out = {"type": "object", "properties": {"tree": _deep_object(6, i + 1)}}
    elif shape == "shared":
        refs = {f"e{k}": {"$ref": f"#/$defs/Entity{(i * 7 + k * 13) % 60}"} for k in range(5)}
        schema = {"type": "object", "properties": {**refs, "note": {"type": "string"}}}
        out = {"type": "object", "properties": {"items": {"type": "array",
                                                          "items": {"$ref": f"#/$defs/Entity{i % 60}"}}}}
    elif shape == "enums":
        wide = [f"value_{i}_{k}" for k in range(300)]
        schema = {"type": "object", "properties": {
            "a": {"type": "string", "enum": wide},
            "b": {"enum": [*range(100), "x", None]},
            "c": {"type": "array", "items": {"type": "string", "enum": wide[:150]}},
        }, "required": ["a"]}
        out = {"type": "object", "properties": {"picked": {"type": "string", "enum": wide[::3]}}}
    elif shape == "draft07":
        schema = {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "definitions": {"Pair": {"type": "array", "items": [{"type": "string"}, {"type": "number"}],
                                     "additionalItems": False}},
            "properties": {
                "pairs": {"type": "array", "items": {"$ref": "#/definitions/Pair"}},
                "limit": {"type": "number", "exclusiveMinimum": 0},
                "tag": {"type": ["string", "null"]},
                "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
            },
            "required": ["pairs"],
            "additionalProperties": False,
        }
        out = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
               "properties": {"ok": {"type": "boolean"}, "count": {"type": "integer"}}}
    else:
        raise ValueError(shape)
    tool: dict[str, Any] = {"name": name, "description": f"{shape} tool {i}", "inputSchema": schema}
    if has_output(i):
        tool["outputSchema"] = out
    return tool


def build_shaped(shape: str, n: int) -> dict[str, Any]:
    """An `n`-tool toolset of one shape (`SHAPES`); `corpus` is the GitHub server's 117 tools, repeated."""
    if shape == "mixed":
        return build_toolset(n)
    doc: dict[str, Any] = {"mcpstub": 1, "server": {"name": f"{shape}{n}", "version": "1.0.0"}}
    if shape == "corpus":
        corpus = json.loads(CORPUS.read_text("utf-8"))
        tools = []
        for i in range(n):
            tool = dict(corpus[i % len(corpus)])
            tool["name"] = f"{tool['name']}_{i // len(corpus)}" if i >= len(corpus) else tool["name"]
            tools.append(tool)
        doc["tools"] = tools
        return doc
    if shape == "shared":
        doc["$defs"] = _shared_defs(60)
    doc["tools"] = [_shaped_tool(shape, i) for i in range(n)]
    return doc


def edit_tools(doc: dict[str, Any], indexes: list[int], round_: int) -> dict[str, Any]:
    """The toolset with one property added to each chosen tool's input schema (a typical edit)."""
    doc = json.loads(json.dumps(doc))
    for i in indexes:
        schema = doc["tools"][i]["inputSchema"]
        schema.setdefault("properties", {})[f"added_{round_}"] = {"type": "integer", "minimum": round_}
    return doc
