"""Numbers the schema accepts reach the handler exactly: `integer` as int, `number` as int or float."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema_rs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from pydantic import ValidationError

from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_numbers"

TOOLSET = """\
mcpstub: 1
server: {name: numbers}
$defs:
  Count: {type: integer, minimum: 0}
tools:
  - name: echo
    inputSchema:
      type: object
      properties:
        n: {type: number}
        i: {type: integer}
        bounded: {type: number, minimum: -1e308, maximum: 1e308}
        step: {type: integer, multipleOf: 3}
        tenth: {type: number, multipleOf: 0.1}
        count: {$ref: "#/$defs/Count"}
        maybe: {type: [integer, "null"]}
        ints: {type: array, items: {type: integer}}
        nums: {type: object, additionalProperties: {type: number}}
        either: {type: [integer, string]}
        # Numbers past 2**53 in what a model compares: the validator judges those.
        top: {type: integer, maximum: 1e25}
        floor: {type: number, minimum: 1e25}
        below: {type: number, exclusiveMaximum: 9007199254740993}
        above: {type: integer, exclusiveMinimum: -9007199254740993}
        exact: {const: 10000000000000000000000000}
        choice: {type: integer, enum: [1e25, 2]}
        pair: {enum: [[1e20, 1], 3]}
        # A bound beside another type; a length no model can hold.
        page: {type: [integer, string], minimum: 0}
        ratio: {type: [number, "null", string], maximum: 1}
        note: {type: string, maxLength: 99999999999999999999}
        odd: {type: integer, minimum: 98765432109876543}
    outputSchema:
      type: object
      properties:
        kinds: {type: object, additionalProperties: {type: string}}
        n: {type: number}
        i: {type: integer}
        top: {type: integer, maximum: 1e25}
        capped: {type: integer, multipleOf: 10, maximum: 1e25, default: 1e25}
        odd: {type: integer, minimum: 98765432109876543}
        late: {type: integer, minimum: 98765432109876543, default: 98765432109876544.0}
      required: [kinds]
"""

HANDLER = """\
from __future__ import annotations

from ..models import EchoInput, EchoOutput
from ..results import EchoResult
from ..server import ToolContext


async def echo(args: EchoInput, ctx: ToolContext) -> EchoOutput | EchoResult:
    values = args.model_dump(exclude_unset=True)
    kinds = {key: type(value).__name__ for key, value in values.items()}
    if "ints" in values:
        kinds["ints"] = ",".join(type(v).__name__ for v in values["ints"])
    out = EchoOutput(kinds=kinds)
    if "n" in values:
        out.n = values["n"]
    if "i" in values:
        out.i = values["i"]
    if "top" in values:
        out.top = values["top"]
    if "odd" in values:
        out.odd = values["odd"]
    return out
"""

BIG = 10**400


def written(value: Any) -> Any:
    """The integer an integer-valued float stands for, as the validator reads it: the one it holds,
    past 2**64 the one its shortest form writes (1e300 is 10**300, not the double's digits)."""
    if not (isinstance(value, float) and value.is_integer()):
        return value
    return int(value) if abs(value) < 2**64 else int(Decimal(repr(value)))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("numbers")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "echo.py").write_text(HANDLER, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture(scope="module")
def model(pkg: ModuleType) -> Any:
    return importlib.import_module(f"{pkg.__name__}.models").EchoInput


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"n": BIG}, {"n": BIG}),
        ({"n": -BIG, "bounded": 2**1000}, {"n": -BIG, "bounded": 2**1000}),
        ({"n": 1e300, "i": 1e300}, {"n": 1e300, "i": 10**300}),  # (the integer written, not the double's)
        ({"i": -1.5e200, "top": 1e25}, {"i": -15 * 10**199, "top": 10**25}),
        ({"page": 5.0, "ratio": 1, "note": "x"}, {"page": 5, "ratio": 1, "note": "x"}),
        ({"page": "a", "ratio": -BIG}, {"page": "a", "ratio": -BIG}),
        ({"page": 1e25, "ratio": 0.5}, {"page": 10**25, "ratio": 0.5}),
        ({"i": 1.0, "count": 2.0, "maybe": 3.0}, {"i": 1, "count": 2, "maybe": 3}),
        ({"i": BIG, "step": 3e20}, {"i": BIG, "step": int(3e20)}),
        ({"tenth": 0.7, "ints": [1.0, 2, 1e20]}, {"tenth": 0.7, "ints": [1, 2, 10**20]}),
        ({"nums": {"a": BIG, "b": 0.5}, "either": 4.0}, {"nums": {"a": BIG, "b": 0.5}, "either": 4}),
    ],
)
def test_models_take_every_number_the_schema_accepts(
    pkg: ModuleType, model: Any, arguments: dict[str, Any], expected: dict[str, Any]
) -> None:
    assert pkg.TOOLS["echo"].input_schema and _accepts(pkg, arguments)
    values = model.model_validate(arguments).model_dump(exclude_unset=True)
    assert values == expected
    for key, value in expected.items():  # exact types: an integer stays int, a float stays float
        got = values[key]
        assert type(got) is type(value), (key, got)


@pytest.mark.parametrize(
    "arguments",
    [{"i": 1.5}, {"i": True}, {"n": "1"}, {"n": False}, {"count": -1}, {"ints": [0.5]}, {"page": 1.5}],
)
def test_models_still_refuse_what_the_schema_refuses(pkg: ModuleType, model: Any, arguments: Any) -> None:
    assert not _accepts(pkg, arguments)
    with pytest.raises(ValidationError):
        model.model_validate(arguments)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.integers(min_value=-(10**500), max_value=10**500),
        st.floats(allow_nan=False, allow_infinity=False),
    )
)
def test_any_json_number_the_schema_accepts_is_taken_exactly(pkg: ModuleType, value: Any) -> None:
    model = importlib.import_module(f"{pkg.__name__}.models").EchoInput
    for key in ("n", "i", "tenth", "step"):
        arguments = {key: value}
        if _accepts(pkg, arguments):
            got = model.model_validate(arguments).model_dump()[key]
            if key in ("i", "step"):
                assert type(got) is int and got == written(value)
            else:
                assert got == value and (isinstance(got, int) or isinstance(value, float))


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", None])
async def test_big_numbers_reach_the_handler_through_a_client(pkg: ModuleType, mode: str | None) -> None:
    options: dict[str, Any] = {"mode": mode} if mode else {}
    async with Client(pkg.create_server(), **options) as client:
        big = await client.call_tool("echo", {"n": BIG, "i": 1e300})
        small = await client.call_tool("echo", {"n": 1.5, "i": 1.0, "ints": [1.0, 2]})
    assert not big.is_error, big.content
    assert big.structured_content is not None
    assert big.structured_content["kinds"] == {"n": "int", "i": "int"}
    assert big.structured_content["n"] == BIG and big.structured_content["i"] == 10**300
    assert small.structured_content is not None
    assert small.structured_content["kinds"] == {"n": "float", "i": "int", "ints": "int,int"}


BIG_BOUNDS = ("top", "floor", "below", "above", "exact", "choice", "pair")


def _near(bound: int) -> st.SearchStrategy[Any]:
    """Integers within a few thousand of `bound` and the doubles nearest them."""
    around = st.integers(min_value=bound - 4096, max_value=bound + 4096)
    return st.one_of(around, around.map(float), st.just(bound), st.just(float(bound)))


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(BIG_BOUNDS),
    st.one_of(_near(10**25), _near(-(2**53)), _near(2**53), _near(int(1e25)), _near(10**20)),
)
def test_a_model_takes_every_number_past_2_53_the_validator_takes(
    model: Any, pkg: ModuleType, key: str, value: Any
) -> None:
    """The validator compares a float with a big bound as a double, an integer exactly: a model
    refusing what it takes made a call the schema allows an internal error."""
    for arguments in ({key: value}, {key: [value, 1]}):
        if _accepts(pkg, arguments):
            model.model_validate(arguments)


@pytest.mark.anyio
async def test_a_float_at_a_big_integer_bound_is_answered(pkg: ModuleType) -> None:
    async with Client(pkg.create_server()) as client:
        done = await client.call_tool("echo", {"top": 1e25, "floor": 10**25 + 1, "exact": 1e25})
        bounded = await client.call_tool("echo", {"page": 5.0, "ratio": 10**30 * -1, "note": "x"})
        # (a double of 17 digits below 2**64: the int it holds, which the same bound takes back)
        odd = await client.call_tool("echo", {"odd": 98765432109876544.0})
    assert not done.is_error, done.content
    assert done.structured_content is not None
    assert done.structured_content["kinds"] == {"top": "int", "floor": "int", "exact": "float"}
    assert done.structured_content["top"] == 10**25  # (echoed: the output's maximum: 1e25 takes it)
    assert done.structured_content["capped"] == 10**25  # (a default filled in)
    assert done.structured_content["late"] == 98765432109876544
    assert not odd.is_error, odd.content
    assert odd.structured_content is not None and odd.structured_content["odd"] == 98765432109876544
    assert not bounded.is_error, bounded.content
    assert bounded.structured_content is not None
    assert bounded.structured_content["kinds"] == {"page": "int", "ratio": "int", "note": "str"}


def test_package_passes_mypy_strict(root: Path, mypy_strict: MypyRun) -> None:
    done = mypy_strict(PACKAGE, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


_VALIDATORS: dict[int, Any] = {}


def _accepts(pkg: ModuleType, arguments: Any) -> bool:
    """What the advertised input schema says, as the server's validator sees it."""
    schema = pkg.TOOLS["echo"].input_schema
    if id(schema) not in _VALIDATORS:
        _VALIDATORS[id(schema)] = jsonschema_rs.Draft202012Validator(dict(schema))
    return bool(_VALIDATORS[id(schema)].is_valid(arguments))
