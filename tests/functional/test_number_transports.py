"""Numbers the schema accepts reach the handler, and come back, as the schema counts them.

`integer`: an exact `int` (an integer-valued float such as 1.0 or 1e300 included). `number`: an
`int` for an integer literal of any size (never rounded to a float), a `float` otherwise. Odd values
drawn by hypothesis (huge integers, 1e308, -0.0, 5e-324, ...) go through the official client
in memory, over stdio and over HTTP, in and out.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, types

from tests.functional.helpers import imported, write_package
from tests.functional.servers import HttpServer, http_server, stdio_params

PACKAGE = "fx_number_transports"

TOOLSET = """\
mcpstub: 1
server: {name: numbers, version: 0.1.0}
tools:
  - name: echo
    inputSchema:
      type: object
      properties:
        n: {type: number}
        i: {type: integer}
        bounded: {type: integer, minimum: -100}
      required: [n, i]
    outputSchema:
      type: object
      properties:
        n: {type: number}
        i: {type: integer}
        seen: {type: string}
      required: [n, i, seen]
"""

ECHO = """\
from __future__ import annotations

import json

from ..models import EchoInput, EchoOutput
from ..results import EchoResult
from ..server import ToolContext


async def echo(args: EchoInput, ctx: ToolContext) -> EchoOutput | EchoResult:
    seen = json.dumps([type(args.n).__name__, repr(args.n), type(args.i).__name__, repr(args.i)])
    return EchoOutput(n=args.n, i=args.i, seen=seen)
"""

ODD = [10**400, -(10**400), 2**53 + 1, 2**64, 1e308, -1e308, -0.0, 0.0, 5e-324, 1.0, 1e300, -1e300]
NUMBERS = st.one_of(
    st.sampled_from(ODD),
    st.integers(min_value=-(10**500), max_value=10**500),
    st.floats(allow_nan=False, allow_infinity=False),
)
INTEGERS = st.one_of(
    st.sampled_from([v for v in ODD if isinstance(v, int) or v.is_integer()]),
    st.integers(min_value=-(10**500), max_value=10**500),
    st.floats(allow_nan=False, allow_infinity=False).filter(float.is_integer),
)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("number_transports")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "echo.py").write_text(ECHO, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture(scope="module")
def server(root: Path) -> Iterator[HttpServer]:
    with http_server(root, PACKAGE) as running:
        yield running


def written(value: Any) -> int:
    """The integer an integer-valued float stands for, as the validator reads it: the one it holds,
    past 2**64 the one its shortest form writes (1e300 is 10**300, not the double's digits)."""
    if not isinstance(value, float):
        return value
    return int(value) if abs(value) < 2**64 else int(Decimal(repr(value)))


def _same(got: Any, sent: Any) -> bool:
    """`got` is `sent` exactly: same value, int stays int, -0.0 keeps its sign."""
    if isinstance(sent, float):
        return isinstance(got, float) and got == sent and math.copysign(1, got) == math.copysign(1, sent)
    return type(got) is int and got == sent


async def _check(client: Client, pairs: list[tuple[Any, Any]]) -> None:
    for n, i in pairs:
        with anyio.fail_after(30):
            result = await client.call_tool("echo", {"n": n, "i": i})
        assert result.is_error is not True, (n, i, result.content)
        payload = result.structured_content
        assert payload is not None
        n_type, n_repr, i_type, i_repr = json.loads(payload["seen"])
        # the handler got: for number, int for an integer literal, float otherwise; for integer, int
        assert n_type == type(n).__name__ and n_repr == repr(n), (n, n_type, n_repr)
        assert i_type == "int" and i_repr == repr(written(i)), (i, i_type, i_repr)
        # and the client gets back exactly what was sent (integer-valued floats as ints)
        assert _same(payload["n"], n), (payload["n"], n)
        assert _same(payload["i"], written(i)), (payload["i"], i)
        text = result.content[0]
        assert isinstance(text, types.TextContent) and json.loads(text.text)["i"] == written(i)


PAIRS = st.lists(st.tuples(NUMBERS, INTEGERS), min_size=10, max_size=20)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_every_odd_value_listed(pkg: ModuleType, anyio_backend: str) -> None:
    integral = [v for v in ODD if isinstance(v, int) or v.is_integer()]
    async with Client(pkg.create_server(), mode="legacy") as client:
        await _check(client, [(n, i) for n in ODD for i in integral[:3]])
        await _check(client, [(1, i) for i in integral])
        # the schema's own bounds still hold for huge values
        low = await client.call_tool("echo", {"n": 1, "i": 1, "bounded": -(10**400)})
        assert low.is_error is True and "/bounded" in low.content[0].text  # type: ignore[union-attr]


@settings(max_examples=5, deadline=None)
@given(pairs=PAIRS)
def test_in_memory(pkg: ModuleType, pairs: list[tuple[Any, Any]]) -> None:
    async def run() -> None:
        async with Client(pkg.create_server()) as client:
            await _check(client, pairs)

    anyio.run(run)


@settings(max_examples=3, deadline=None)
@given(pairs=PAIRS)
def test_stdio(root: Path, pairs: list[tuple[Any, Any]]) -> None:
    async def run() -> None:
        async with Client(stdio_params(root, PACKAGE)) as client:
            await _check(client, pairs)

    anyio.run(run)


@settings(max_examples=5, deadline=None)
@given(pairs=PAIRS)
def test_http(server: HttpServer, pairs: list[tuple[Any, Any]]) -> None:
    async def run() -> None:
        async with Client(server.url) as client:
            await _check(client, pairs)

    anyio.run(run)
