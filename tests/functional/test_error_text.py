"""Error texts stay short and read the same at build time (examples) and at run time (calls)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema_rs
import pytest
from mcp import Client, types

from mcpstub.errortext import MESSAGE_MAX, describe_error
from mcpstub.pipeline import check_toolset
from mcpstub_runtime._text import describe
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_error_text"
SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 3},
        "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
        "a/b~c": {"type": "integer"},
        "blob": {"type": "object", "properties": {"k": {"type": "integer"}}},
    },
    "not": {"required": ["forbidden"]},
}
BIG = {"forbidden": True, "notes": ["x" * 100] * 30, "name": "y" * 500}  # 3 KB, fails `not`
CASES: list[dict[str, Any]] = [
    BIG,
    {"name": "toolong", "tags": ["ok", "NOT OK", 5], "a/b~c": "1", "blob": {"k": "z" * 300}},
    {"tags": "not a list", "blob": ["y" * 400]},
]


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    root = tmp_path_factory.mktemp("errortext")
    toolset = "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: take\n    inputSchema: " + json.dumps(SCHEMA)
    write_package(root, PACKAGE, toolset + "\n")
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _build_time(tmp_path: Path, instance: Any) -> list[str]:
    """The build-time diagnostics for `instance` as an example, minus their fixed opening."""
    text = "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: take\n    inputSchema: "
    text += json.dumps(SCHEMA) + "\n    examples: [{input: " + json.dumps(instance) + "}]\n"
    (tmp_path / "tools.yaml").write_text(text, "utf-8")
    checked = check_toolset(tmp_path / "tools.yaml", "tools.yaml")
    prefix = "example input does not match the input schema at "
    assert all(d.message.startswith(prefix) for d in checked.diagnostics)
    return [d.message.removeprefix(prefix) for d in checked.diagnostics]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_build_time_and_run_time_words_agree(pkg: ModuleType, tmp_path: Path, index: int) -> None:
    instance = CASES[index]
    validator = jsonschema_rs.validator_for(SCHEMA, validate_formats=True)
    run_time = describe(validator.iter_errors(instance)).split("\n")
    expected = [
        describe_error(e.instance_path, e.message, e.instance) for e in validator.iter_errors(instance)
    ]
    assert run_time == ["- " + line for line in expected]
    assert sorted(_build_time(tmp_path, instance)) == sorted(expected)
    assert all(len(line) <= MESSAGE_MAX + 60 for line in expected), expected


def test_a_long_instance_is_not_echoed_back(tmp_path: Path) -> None:
    [message] = [m for m in _build_time(tmp_path, BIG) if m.startswith("(root)")]
    assert len(json.dumps(BIG)) > 3000
    assert len(message) < 400, message
    assert message.count("xxxxxxxxxx") <= 2
    pointers = {m.split(":", 1)[0] for m in _build_time(tmp_path, CASES[1])}
    assert pointers == {"/name", "/tags/1", "/tags/2", "/a~1b~0c", "/blob/k"}


@pytest.mark.anyio
async def test_a_refused_call_answers_briefly(pkg: ModuleType) -> None:
    async with Client(pkg.create_server()) as client:
        result = await client.call_tool("take", BIG)
    assert result.is_error is True
    text = "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))
    assert len(text) < 1000, text
    assert "- (root): " in text and "- /name: " in text


def test_short_message_leaves_short_messages_alone() -> None:
    message = '"abc" is longer than 2 characters'
    assert describe_error(["a", 0], message, "abc") == "/a/0: " + message
    assert describe_error([], message, "abc").startswith("(root): ")
