"""The generated code itself: user text is inert and byte-exact, and the package is mypy-strict."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from mcp import Client

from tests.conftest import MypyRun
from tests.functional.helpers import imported, write_package

PACKAGE = "fx_generated_code"

# Quotes of every kind, backslashes, template syntax and code that must never run.
NASTY = (
    'He said """hi""" and \'\'\' {{ toolset }} {% for x in y %}{% endfor %} {# c #} '
    '\\n \\ \\\\ "\n\tline é ${HOME} %s f"{x}" \'); __import__("os")._exit(3) #'
)

TOOLSET = f"""\
mcpstub: 1
server:
  name: literal-server
  version: 2.0.0
  instructions: {json.dumps(NASTY, ensure_ascii=False)}
tools:
  - name: get-report.v2
    title: {json.dumps(NASTY, ensure_ascii=False)}
    description: {json.dumps(NASTY, ensure_ascii=False)}
    inputSchema:
      type: object
      properties:
        topic:
          type: string
          description: {json.dumps(NASTY, ensure_ascii=False)}
          default: {json.dumps(NASTY, ensure_ascii=False)}
        mode:
          enum: [{json.dumps(NASTY, ensure_ascii=False)}, plain]
        limit: {{type: integer, minimum: 1}}
    outputSchema:
      type: object
      properties:
        title: {{type: string}}
        score: {{type: number}}
      required: [title, score]
  - name: ping
    inputSchema: {{type: object}}
"""

HANDLER = """\
from __future__ import annotations

from mcp import types

from ..models import GetReportV2Input, GetReportV2Output
from ..results import GetReportV2Result
from ..server import ToolContext


async def get_report_v2(args: GetReportV2Input, ctx: ToolContext) -> GetReportV2Output | GetReportV2Result:
    await ctx.report_progress(0.5)
    if args.limit == 0:
        return GetReportV2Result.error("bad limit")
    output = GetReportV2Output(title="t", score=1.0)
    return GetReportV2Result.ok(output, types.TextContent(type="text", text="extra"))
"""

PING = """\
from __future__ import annotations

from ..models import PingInput
from ..results import PingResult
from ..server import ToolContext


async def ping(args: PingInput, ctx: ToolContext) -> PingResult | str:
    return PingResult.text("pong") + PingResult.image(b"x", "image/png")
"""


# Passing handlers: mypy --strict accepts the right shapes (async or plain `def`) and must refuse
# each wrong one (an unused `type: ignore` fails the strict run, so a missed error is caught too).
USES = """\
from __future__ import annotations

from . import create_server
from .models import GetReportV2Input, GetReportV2Output, PingInput
from .results import PingResult
from .client import connect as connect_client
from .server import ToolContext
from .testing import connect


async def ping_async(args: PingInput, ctx: ToolContext) -> str:
    return "pong"


def ping_sync(args: PingInput, ctx: ToolContext) -> PingResult:
    return PingResult.text("pong")


def report_sync(args: GetReportV2Input, ctx: ToolContext) -> GetReportV2Output:
    return GetReportV2Output(title="t", score=1.0)


async def wrong_input(args: GetReportV2Input, ctx: ToolContext) -> str:
    return "x"


async def wrong_output(args: PingInput, ctx: ToolContext) -> int:
    return 1


def wrong_arity(args: PingInput) -> str:
    return "x"


def build() -> None:
    create_server({"ping": ping_async, "get-report.v2": report_sync}, timeout=5)
    create_server({"ping": ping_sync})
    connect({"ping": ping_sync})
    create_server({"ping": wrong_input})  # type: ignore[arg-type]
    create_server({"ping": wrong_output})  # type: ignore[arg-type]
    create_server({"ping": wrong_arity})  # type: ignore[arg-type]
    create_server({"pong": ping_async})  # type: ignore[arg-type]
    create_server({"ping": 3})  # type: ignore[arg-type]


# The typed client: keyword arguments and return types are checked, and so are connect's options.
async def call() -> None:
    async with connect_client(create_server(), strict=True, log_level="debug") as client:
        report: GetReportV2Output = await client.get_report_v2(limit=2, topic="t")
        blocks = await client.ping()
        assert report.score >= 0 and blocks[0].type in {"text", "image"}
        await client.get_report_v2(limt=2)  # type: ignore[call-arg]
        await client.get_report_v2(limit="2")  # type: ignore[arg-type]
        await client.get_report_v2(2)  # type: ignore  # positional: refused (its code varies)
        wrong: int = await client.get_report_v2()  # type: ignore[assignment]
        text: str = await client.ping()  # type: ignore[assignment]
        await client.pong()  # type: ignore[attr-defined]
    async with connect_client("http://127.0.0.1:1/mcp", token="t", headers={"X-A": "b"}):
        pass
    connect_client(["python", "-m", "x"], tokn="t")  # type: ignore[call-arg]
    connect_client(["python", "-m", "x"], log_level="loud")  # type: ignore[arg-type]
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated")
    folder, _ = write_package(root, PACKAGE, TOOLSET)
    (folder / "handlers" / "get_report_v2.py").write_text(HANDLER, encoding="utf-8")
    (folder / "handlers" / "ping.py").write_text(PING, encoding="utf-8")
    (folder / "uses.py").write_text(USES, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def pkg(root: Path) -> Iterator[ModuleType]:
    with imported(root, PACKAGE) as package:
        yield package


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_user_text_is_byte_exact_and_inert(pkg: ModuleType) -> None:
    server = pkg.create_server()
    assert server.instructions == NASTY
    async with Client(server, mode="legacy") as client:
        listed = await client.list_tools()
        result = await client.call_tool("get-report.v2", {"mode": NASTY})
    tool = listed.tools[0]
    assert tool.name == "get-report.v2"
    assert tool.title == NASTY and tool.description == NASTY
    topic = tool.input_schema["properties"]["topic"]
    assert topic["description"] == NASTY and topic["default"] == NASTY
    assert tool.input_schema["properties"]["mode"]["enum"] == [NASTY, "plain"]
    assert result.structured_content == {"title": "t", "score": 1.0}


def test_generated_package_passes_mypy_strict(root: Path, mypy_strict: MypyRun) -> None:
    done = mypy_strict(PACKAGE, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr


def test_code_using_the_package_from_its_path_is_checked_against_its_types(
    root: Path, tmp_path: Path, mypy_strict: MypyRun
) -> None:
    """The package is found as an installed one (on the Python path, not named to mypy): its
    `py.typed` marker makes mypy read its types rather than skip them."""
    assert (root / PACKAGE / "py.typed").read_bytes() == b""
    (tmp_path / "uses.py").write_text(
        f"from {PACKAGE}.models import GetReportV2Input\n\nlimit: str = GetReportV2Input().limit\n", "utf-8"
    )
    done = mypy_strict("uses.py", cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(root)})
    said = '(expression has type "int | MISSING", variable has type "str")  [assignment]'
    assert done.stdout.splitlines()[0].endswith(said), done.stdout


def test_generated_code_never_imports_mcpstub(root: Path) -> None:
    for path in (root / PACKAGE).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        # the runtime library (mcpstub_runtime) is what it runs on; the generator never
        assert not re.search(r"(?:import|from) mcpstub\b(?!_)", text), path


def test_a_handler_the_changed_schema_no_longer_fits_is_found_by_mypy(
    tmp_path: Path, mypy_strict: MypyRun
) -> None:
    # A handler is imported on its tool's first call: a handler left returning `str` when its tool
    # gained an output schema failed every call, and mypy --strict said nothing.
    toolset = "mcpstub: 1\nserver: {name: s}\ntools:\n  - name: wave\n    inputSchema: {type: object}\n"
    folder, _ = write_package(tmp_path, "fx_changed", toolset)
    stub = (folder / "handlers" / "wave.py").read_text("utf-8")
    filled = stub.replace(stub[stub.index("    # Until"):], '    return "hi"\n')
    (folder / "handlers" / "wave.py").write_text(filled, "utf-8")
    assert mypy_strict("fx_changed", cwd=tmp_path).returncode == 0
    output = "    outputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}\n"
    kept = (folder / "handlers" / "wave.py").read_text("utf-8")
    write_package(tmp_path, "fx_changed", toolset + output)
    (folder / "handlers" / "wave.py").write_text(kept, "utf-8")  # (the user's handler, as it was)
    done = mypy_strict("fx_changed", cwd=tmp_path)
    assert done.returncode == 1 and 'TypedDict item "wave"' in done.stdout, done.stdout
    assert "WaveOutput | WaveResult" in done.stdout, done.stdout
