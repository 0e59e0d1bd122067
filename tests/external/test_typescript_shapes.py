"""The TypeScript SDK client (2025-11-25) against every output shape and the advertised Tool objects.

The client validates each structuredContent against the outputSchema it was shown and raises when
they disagree, so every successful call here proves the wrapped form holds together. Handlers are
real handler modules of a generated package served over stdio: each returns a value its schema
allows, or, when called with `{"bad": true}`, one it refuses (which must come back as `isError`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcpstub.output_wrapper import legacy_output_schema
from tests.functional.helpers import write_package

HERE = Path(__file__).resolve().parent
SHAPES = HERE.parent / "golden" / "trees" / "shapes" / "tools.yaml"


# Per tool: (a value its schema allows, a value it refuses), as Python source for the handler.
HANDLER_VALUES = {
    "list_items": ("[models.Item(id=1, name='one'), models.Item(id=2)]", "[{'name': 'no id'}]"),
    "greet": ("'Hello, ' + args.name", "''"),
    "ratio": ("0.25", "1.5"),
    "count": ("3", "-1"),
    "flag": ("True", "'yes'"),
    "nothing": ("None", "0"),
    "mixed": ("[1, 2]", "1.5"),
    "anything": ("{'any': ['thing', None]}", "object()"),
    "any_true": ("'anything'", "object()"),
    "maybe_item": ("None", "'not an object'"),
    "pairs": ("['a', 1]", "['a', 'b']"),
    "item": ("models.ItemOutput(id=7)", "{'id': 7}"),
}
EXPECTED = {
    "list_items": [{"id": 1, "name": "one"}, {"id": 2}],
    "greet": "Hello, Ada",
    "ratio": 0.25,
    "count": 3,
    "flag": True,
    "nothing": None,
    "mixed": [1, 2],
    "anything": {"any": ["thing", None]},
    "any_true": "anything",
    "maybe_item": None,
    "pairs": ["a", 1],
    "item": {"id": 7},
}


def serve_and_call(root: Path, package: str, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    if not (HERE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        pytest.fail("the TypeScript client is not installed: run `make test` (it runs npm ci)")
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        ["node", "client.mjs", "--calls", json.dumps(calls), "--", sys.executable, "-m", package],
        cwd=HERE, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


@pytest.fixture(scope="module")
def shapes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any, dict[str, Any]]:
    root = tmp_path_factory.mktemp("ts_shapes")
    folder, toolset = write_package(root, "ts_shapes_pkg", SHAPES.read_text("utf-8"))
    for tool in toolset.tools:
        good, bad = HANDLER_VALUES[tool.name]
        (folder / "handlers" / f"{tool.identifier}.py").write_text(
            "from typing import Any\n\nfrom .. import models\n\n\n"
            f"async def {tool.identifier}(args: Any, ctx: Any) -> Any:\n"
            f"    return {bad} if getattr(args, 'bad', False) else {good}\n",
            encoding="utf-8",
        )
    calls: list[tuple[str, dict[str, Any]]] = []
    for tool in toolset.tools:
        base = {"name": "Ada"} if tool.name == "greet" else {}
        calls += [(tool.name, base), (tool.name, {**base, "bad": True})]
    return root, toolset, serve_and_call(root, "ts_shapes_pkg", calls)


def test_typescript_client_is_shown_the_wrapped_form(shapes: tuple[Path, Any, dict[str, Any]]) -> None:
    _, toolset, answer = shapes
    for tool, wire, parsed in zip(toolset.tools, answer["wireTools"], answer["tools"], strict=True):
        legacy = legacy_output_schema(tool.output_schema, tool.output_dialect)
        expected = {**tool.advertised, "outputSchema": legacy}
        assert wire == expected, tool.name
        assert parsed["outputSchema"] == expected["outputSchema"], tool.name


def test_typescript_client_accepts_every_shape_and_sees_refusals_as_errors(
    shapes: tuple[Path, Any, dict[str, Any]],
) -> None:
    _, toolset, answer = shapes
    results = answer["results"]
    for index, tool in enumerate(toolset.tools):
        good, bad = results[2 * index], results[2 * index + 1]
        assert "error" not in good, (tool.name, good)
        assert not good.get("isError"), (tool.name, good)
        wrapped = tool.name != "item"
        expected = {"result": EXPECTED[tool.name]} if wrapped else EXPECTED[tool.name]
        assert good["structuredContent"] == expected, tool.name
        assert json.loads(good["content"][0]["text"]) == expected, tool.name
        assert "error" not in bad, (tool.name, bad)
        assert bad["isError"] is True, (tool.name, bad)
        assert "structuredContent" not in bad, tool.name
        assert bad["content"][0]["text"].startswith("output did not match the declared schema"), tool.name
