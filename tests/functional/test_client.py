"""The typed client (client.py) end to end: it calls every tool of the bundled example in memory,
over stdio and over HTTP with a bearer token, and of a server written without mcpstub, imported
and generated client-only; it reports drift and refuses drifted tools in strict mode; every
command of docs/client.md is run here."""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp import StdioServerParameters, types
from mcp.server import Server

from mcpstub import cli
from mcpstub.layout import CLIENT_RESERVED
from mcpstub_runtime import StaticTokenVerifier
from mcpstub_runtime.client import DriftError, DriftWarning, ToolsClient
from tests.functional.helpers import imported, write_package
from tests.functional.servers import free_port, http_app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "weather"
DOC = (ROOT / "docs" / "client.md").read_text("utf-8")


def blocks(language: str) -> list[str]:
    """The fenced blocks of docs/client.md in `language`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", DOC, flags=re.MULTILINE | re.DOTALL)


def run_python(code: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a page's Python block as a script (`python` in it is this interpreter); its output."""
    code = code.replace('"python"', repr(sys.executable))
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def call_every_weather_tool(client: Any) -> None:
    """Every tool of the example, answered as its types say (what a user of it notices)."""
    forecast = await client.get_forecast(city="Paris", days=2)
    assert type(forecast).__name__ == "GetForecastOutput"
    assert forecast.city == "Paris" and len(forecast.days) == 2
    alerts = await client.get_alerts(city="Oslo")
    assert [alert.headline for alert in alerts.alerts] == ["Heavy snow expected overnight"]
    radar = await client.radar_map(city="Lima", zoom=1)
    assert [block.type for block in radar] == ["text", "image"]
    assert isinstance(radar[1], types.ImageContent) and radar[1].mime_type == "image/png"
    cities = await client.list_cities()
    assert sorted(cities.cities) == ["Lima", "Oslo", "Paris", "Tokyo"]
    with pytest.raises(client_module(client).ToolError, match="no weather station for 'Atlantis'"):
        await client.get_alerts(city="Atlantis")


def client_module(client: Any) -> Any:
    return sys.modules[type(client).__module__]


@pytest.fixture
def weather() -> Iterator[Any]:
    with imported(EXAMPLE, "weather_tools") as package:
        yield package


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_example_is_called_in_memory(weather: Any, mode: str) -> None:
    connect = importlib.import_module("weather_tools.client").connect

    async def run() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DriftWarning)  # its own server: no drift
            async with connect(weather.create_server(), mode=mode) as client:
                assert not client.drift
                await call_every_weather_tool(client)

    anyio.run(run)


def test_a_keyword_that_is_no_field_is_refused_and_the_signature_shows_the_fields(weather: Any) -> None:
    # get_alerts' input is an open object: a misspelled optional argument, sent, would be a key of
    # its own the server takes, the default applied instead (`severty="severe"` gave minor alerts).
    module = importlib.import_module("weather_tools.client")
    shown = str(inspect.signature(module.Client.get_alerts))
    assert shown.startswith("(self, /, *, city: str, severity: Literal['minor', 'moderate', 'severe'] = ")
    called: list[str] = []

    async def run() -> None:
        async with module.connect(weather.create_server()) as client:
            client._session.call_tool = lambda *a, **k: called.append(a[0])  # (nothing must be sent)
            with pytest.raises(TypeError, match=r"^get_alerts: unexpected keyword argument "
                               r"'severty' \(did you mean 'severity'\?\): its input lists no such one$"):
                await client.get_alerts(city="Oslo", severty="severe")
            # get_forecast's input is closed: the same mistake is said so too, not as the model's
            # validation errors among "city: Field required" (what docs/client.md shows).
            with pytest.raises(TypeError, match=r"^get_forecast: unexpected keyword argument "
                               r"'cty' \(did you mean 'city'\?\): its input lists no such one$"):
                await client.get_forecast(cty="Paris")
            with pytest.raises(TypeError, match=r"'unit' \(did you mean 'units'\?\)"):
                await client.get_forecast(city="Paris", unit="metric")

    anyio.run(run)
    assert called == []


KEYWORDS = """\
mcpstub: 1
server: {name: keywords}
tools:
  - name: greet
    inputSchema:
      type: object
      properties: {self: {type: string}, self_: {type: string}, obj: {type: object, default: {a: 1}}}
  - name: pick
    inputSchema:
      type: object
      oneOf:
        - {properties: {kind: {const: circle}, r: {type: number}}, required: [kind, r]}
        - {properties: {kind: {const: square}, side: {type: number}}, required: [kind, side]}
  - name: counts
    inputSchema: {type: object, additionalProperties: {type: integer}}
  - name: free
    inputSchema: {type: object}
  - name: required
    inputSchema: {type: object, properties: {a: {type: string}}, required: [a, b]}
  - name: closed
    inputSchema:
      type: object
      properties: {class: {type: string}, Max Size: {type: integer}}
      additionalProperties: false
  - name: look-up
    inputSchema: {type: object, properties: {term: {type: string}}}
  - name: shut-down
    inputSchema: {type: object, properties: {term: {type: string}}, additionalProperties: false}
"""


def test_keywords_the_schema_may_take_are_sent_and_a_field_named_self_is_one(tmp_path: Path) -> None:
    # Only a tool whose input lists its properties and nothing more refuses another keyword: a
    # `oneOf` of property sets or typed additionalProperties judge the keys they are sent.
    folder, _ = write_package(tmp_path, "fx_keywords", KEYWORDS)
    for tool in ("greet", "pick", "counts", "free", "required", "closed", "look_up", "shut_down"):
        body = "    return repr(args.model_dump(by_alias=True, exclude_unset=True))\n"
        (folder / "handlers" / f"{tool}.py").write_text(f"async def {tool}(args, ctx):\n{body}")
    with imported(tmp_path, "fx_keywords") as package:
        module = importlib.import_module("fx_keywords.client")
        shown = str(inspect.signature(module.Client.greet))
        assert shown.startswith("(self__, /, *, self: ") and "obj: " in shown and "= {'a': 1}" in shown

        async def run() -> list[str]:
            async with module.connect(package.create_server()) as client:
                said = [(await client.greet(self="s"))[0].text]
                said.append((await client.pick(kind="circle", r=1))[0].text)
                said.append((await client.counts(apples=3))[0].text)
                said.append((await client.free(x=1))[0].text)  # (it lists no property: any is its)
                said.append((await client.required(a="x", b=1))[0].text)  # (required, if unlisted)
                with pytest.raises(TypeError, match="'slef' \\(did you mean 'self'\\?\\)"):
                    await client.greet(slef="s")
                # A closed input takes its fields by name and by wire name, and refuses another.
                said.append((await client.closed(class_="c", max_size=1))[0].text)
                said.append((await client.closed(**{"class": "c", "Max Size": 2}))[0].text)
                stray = r"^closed: unexpected keyword argument 'clas' \(did you mean 'class_'"
                with pytest.raises(TypeError, match=stray):
                    await client.closed(clas="c")
                # Open or closed, the method the caller wrote is named, not the tool (look-up).
                for method in (client.look_up, client.shut_down):
                    stray = rf"^{method.__name__}: unexpected keyword argument 'trem'"
                    with pytest.raises(TypeError, match=stray) as raised:
                        await method(trem="x")
                    assert type(raised.value) is TypeError  # (no private class in the traceback)
                return said

        assert anyio.run(run) == [
            "{'self': 's'}", "{'kind': 'circle', 'r': 1}", "{'apples': 3}", "{'x': 1}", "{'a': 'x', 'b': 1}",
            "{'class': 'c', 'Max Size': 1}", "{'class': 'c', 'Max Size': 2}",
        ]


def test_the_example_is_called_over_stdio(weather: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    connect = importlib.import_module("weather_tools.client").connect

    monkeypatch.chdir(EXAMPLE)  # where `python -m weather_tools` finds the package

    async def run() -> None:
        async with connect([sys.executable, "-m", "weather_tools"], strict=True) as client:
            assert not client.drift
            await call_every_weather_tool(client)

    anyio.run(run)


def test_a_server_command_finds_the_package_on_the_python_path_it_was_given(tmp_path: Path) -> None:
    """The package is found only through PYTHONPATH (not the working folder): the server command
    the client starts finds it there too."""
    code = textwrap.dedent(
        """\
        import asyncio
        from weather_tools.client import connect

        async def main():
            async with connect(["python", "-m", "weather_tools"]) as client:
                print((await client.get_forecast(city="Paris", days=1)).city)

        asyncio.run(main())
        """
    )
    assert run_python(code, tmp_path, {"PYTHONPATH": str(EXAMPLE)}) == "Paris\n"


@pytest.mark.parametrize("as_parameters", [False, True])
def test_a_server_command_that_ends_before_answering_says_so(weather: Any, as_parameters: bool) -> None:
    connect = importlib.import_module("weather_tools.client").connect
    command = [sys.executable, "-c", "import sys; sys.exit('no server here')"]
    target = StdioServerParameters(command=command[0], args=command[1:]) if as_parameters else command

    async def run() -> None:
        async with connect(target):
            raise AssertionError("connected")

    with pytest.raises(ConnectionError, match="ended before it answered") as raised:
        anyio.run(run)
    assert shlex.join(command) in str(raised.value)


def test_a_server_command_that_cannot_start_says_so(weather: Any, tmp_path: Path) -> None:
    # (what is missing is named: the command, or the folder it is to start in)
    connect = importlib.import_module("weather_tools.client").connect
    for command, why in [
        ([str(tmp_path / "no-such-server")], "No such file or directory"),
        ([str(tmp_path)], "Permission denied"),  # (a folder: not a program)
    ]:

        async def run(command: list[str] = command) -> None:
            async with connect(command):
                raise AssertionError("connected")

        with pytest.raises(ConnectionError) as raised:
            anyio.run(run)
        said = f"the server command {shlex.join(command)} cannot be started: {why}: {command[0]}"
        assert str(raised.value) == said


def test_a_ctrl_c_inside_the_block_comes_out_as_itself(weather: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    connect = importlib.import_module("weather_tools.client").connect
    monkeypatch.chdir(EXAMPLE)

    async def run() -> None:
        async with connect([sys.executable, "-m", "weather_tools"]):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):  # not a BaseExceptionGroup the SDK's task group made
        anyio.run(run)


# A server that answers the handshake and the listing, then ends on the first call.
GONE_ON_A_CALL = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    method, answer = message.get("method"), None
    if method == "initialize":
        info = {"name": "gone", "version": "1"}
        version = message["params"]["protocolVersion"]
        answer = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
    elif method == "tools/list":
        answer = {"tools": []}
    elif method == "tools/call":
        sys.exit(0)
    if answer is not None:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": answer}), flush=True)
"""


def test_a_server_gone_during_a_call_is_a_connection_error_that_says_the_call_may_have_run(
    weather: Any,
) -> None:
    connect = importlib.import_module("weather_tools.client").connect

    async def run() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DriftWarning)  # (it lists no tools)
            async with connect([sys.executable, "-c", GONE_ON_A_CALL], mode="legacy") as client:
                await client.get_forecast(city="Paris", days=1)

    with pytest.raises(ConnectionError) as raised:
        anyio.run(run)
    said = "get_forecast: the connection to the server was lost: a call in flight may have run all the same"
    assert str(raised.value) == said


def test_a_url_no_server_answers_says_so(weather: Any) -> None:
    """A ConnectionError naming the URL, not the HTTP library's own error."""
    import socket  # noqa: PLC0415

    connect = importlib.import_module("weather_tools.client").connect
    with socket.socket() as probe:  # a port nothing listens on once this is closed
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/mcp"

    async def run() -> None:
        async with connect(url):
            raise AssertionError("connected")

    with pytest.raises(ConnectionError, match=f"^{re.escape(url)}: no MCP server answers there"):
        anyio.run(run)


@contextmanager
def serving(command: str, port: int) -> Iterator[dict[str, str]]:
    """The page's server command (`VAR=value python -m ...`) running on `port`; its variables."""
    words = shlex.split(command.replace("8000", str(port)))
    variables = dict(word.split("=", 1) for word in words if re.fullmatch(r"[A-Z_]+=.*", word))
    argv = [sys.executable if word == "python" else word for word in words if word not in
            {f"{k}={v}" for k, v in variables.items()}]  # fmt: skip
    process = subprocess.Popen(argv, cwd=EXAMPLE, env={**os.environ, **variables}, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        yield variables
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_example_is_called_over_http_with_a_token_as_the_page_shows(weather: Any) -> None:
    connect = importlib.import_module("weather_tools.client").connect

    port = free_port()
    server_command = blocks("sh")[0].strip()
    with serving(server_command, port) as variables:
        url = f"http://127.0.0.1:{port}/mcp"
        shown = run_python(blocks("python")[1].replace("8000", str(port)), EXAMPLE, variables)
        assert shown == "['Heavy snow expected overnight']\n"

        async def run(token: str | None) -> None:
            options = {"token": token} if token is not None else {}
            async with connect(url, **options) as client:
                await call_every_weather_tool(client)

        anyio.run(run, variables["WEATHER_TOKEN"])
        with pytest.raises(PermissionError, match=r"401 Unauthorized: .* pass connect\(url, token=...\)"):
            anyio.run(run, None)
        with pytest.raises(PermissionError, match="401 Unauthorized: the server refused the bearer token"):
            anyio.run(run, "wrong")

        async def elsewhere() -> None:  # a path the server does not serve (a password in the URL)
            async with connect(url.replace("//", "//ada:s3cret@") + "x", token=variables["WEATHER_TOKEN"]):
                raise AssertionError("connected")

        with pytest.raises(ConnectionError, match=r"^http://127\.0\.0\.1:\d+/mcpx: nothing serves MCP"):
            anyio.run(elsewhere)

        async def health() -> None:  # a path that answers, but not as MCP does
            async with connect(url.replace("/mcp", "/healthz"), token=variables["WEATHER_TOKEN"]):
                raise AssertionError("connected")

        with pytest.raises(ConnectionError, match=r"/healthz: answered HTTP 405 Method Not Allowed, not as"):
            anyio.run(health)


def test_the_page_s_first_example_prints_what_it_says() -> None:
    assert run_python(blocks("python")[0], EXAMPLE) == "Paris 2 sunny\n"
    assert "prints `Paris 2 sunny`" in DOC


CHANGED = {
    # What the page's drift warning shows: a bound changed, a tool gone, a tool added.
    "days: {type: integer, minimum: 1, maximum: 14, default: 3}": (
        "days: {type: integer, minimum: 1, maximum: 7, default: 3}"
    ),
    "  - name: list_cities": "  - name: get_radar",
}


def test_drift_is_warned_as_the_page_shows_and_strict_mode_refuses(weather: Any, tmp_path: Path) -> None:
    connect = importlib.import_module("weather_tools.client").connect

    text = (EXAMPLE / "tools.yaml").read_text("utf-8")
    for old, new in CHANGED.items():
        assert old in text
        text = text.replace(old, new)
    folder, _ = write_package(tmp_path, "weather_changed", text)
    shutil.copytree(EXAMPLE / "weather_tools" / "handlers", folder / "handlers", dirs_exist_ok=True)

    async def run(strict: bool, tool: str) -> Any:
        with imported(tmp_path, "weather_changed") as changed:
            async with connect(changed.create_server(), strict=strict) as client:
                return await getattr(client, tool)(city="Paris")

    with pytest.warns(DriftWarning) as caught:
        anyio.run(run, False, "get_alerts")
    shown = blocks("text")[0].replace("weather_client:", "weather_tools:")
    assert str(caught[0].message).startswith(shown.rstrip("\n")), str(caught[0].message)
    # Either side may be the one to follow: the client's (a server not yet deployed) or the server's.
    assert str(caught[0].message).endswith(
        "(mcpstub import, then mcpstub generate); if the toolset of this client is the contract, "
        "the server is behind it."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DriftWarning)
        assert anyio.run(run, True, "get_alerts").alerts == []  # unchanged: called
        with pytest.raises(DriftError, match="get_forecast: not called"):
            anyio.run(run, True, "get_forecast")
        # Without strict mode the call is made: the changed server answers as it now does.
        assert len(anyio.run(run, False, "get_forecast").days) == 3


SMALL_SERVER = '''\
"""A small MCP server written with the SDK alone (no mcpstub): two tools."""

from pydantic import BaseModel

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")


class Note(BaseModel):
    title: str
    words: int


@server.tool()
def make_note(title: str, body: str = "") -> Note:
    """Make a note."""
    return Note(title=title, words=len(body.split()))


@server.tool()
def shout(text: str) -> str:
    """Shout the text back."""
    return text.upper()


if __name__ == "__main__":
    server.run()
'''


def test_a_server_written_without_mcpstub_is_imported_and_called_client_only(tmp_path: Path) -> None:
    (tmp_path / "notes_server.py").write_text(SMALL_SERVER, "utf-8")
    command = f"{shlex.quote(sys.executable)} notes_server.py"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert cli.main(["import", "--server-command", command, "-o", "notes.yaml"]) == 0
        assert cli.main(["generate", "notes.yaml", "--out", "notes_client", "--client-only"]) == 0
    finally:
        os.chdir(cwd)
    written = sorted(p.name for p in (tmp_path / "notes_client").iterdir())
    assert written == [
        "__init__.py", "_mcpstub.json", "client.py", "models.py", "py.typed", "results.py", "surface.json",
        "tools.py",
    ]  # fmt: skip
    sys.path.insert(0, str(tmp_path))
    try:
        notes_server = __import__("notes_server")
        with imported(tmp_path, "notes_client") as notes_client:

            async def call(target: Any) -> tuple[Any, Any]:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", DriftWarning)
                    async with notes_client.connect(target, strict=True) as client:
                        assert not client.drift
                        return await client.make_note(title="t", body="a b c"), await client.shout(text="hi")

            # In memory (the SDK's server object), over stdio, and over HTTP with a token.
            note, shouted = anyio.run(call, notes_server.server)
            assert (note.title, note.words) == ("t", 3)
            assert type(note).__module__ == "notes_client.models"
            assert shouted.result == "HI"  # the SDK wraps a plain return value as {"result": ...}
            stdio = types_stdio(tmp_path)
            assert anyio.run(call, stdio)[1].result == "HI"
            with http_app(
                notes_server.server._lowlevel_server, token_verifier=StaticTokenVerifier("n0tes")
            ) as url:
                got = anyio.run(functools.partial(call_with_token, notes_client, url, "n0tes"))
                assert got == ("t", 3)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("notes_server", None)


def types_stdio(folder: Path) -> Any:
    return StdioServerParameters(command=sys.executable, args=["notes_server.py"], cwd=str(folder))


async def call_with_token(package: Any, url: str, token: str) -> tuple[str, int]:
    async with package.connect(url, token=token) as client:
        note = await client.make_note(title="t", body="a b c")
        return note.title, note.words


def test_the_page_s_client_only_commands_make_a_client_that_calls_the_server(tmp_path: Path) -> None:
    commands = [line for line in blocks("sh")[1].splitlines() if line.strip()]
    env_before = dict(os.environ)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    os.environ["PYTHONPATH"] = str(EXAMPLE)  # where `python -m weather_tools` finds the server
    try:
        for command in commands:
            words = shlex.split(command.replace('"python ', f'"{sys.executable} '))
            assert words[0] == "mcpstub"
            assert cli.main(words[1:]) == 0, command
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env_before)
    assert not (tmp_path / "weather_client" / "server.py").exists()
    assert not (tmp_path / "weather_client" / "handlers").exists()
    # The server command runs where the page's `python -m weather_tools` finds the server.
    [client_only] = [block for block in blocks("python") if "from weather_client import" in block]
    shown = run_python(client_only, EXAMPLE, {"PYTHONPATH": str(tmp_path)})
    assert shown == "['Lima', 'Oslo']\n"


def test_client_only_is_also_a_pyproject_option(tmp_path: Path) -> None:
    (tmp_path / "tools.yaml").write_text((EXAMPLE / "tools.yaml").read_text("utf-8"), "utf-8")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcpstub]\ntoolset = "tools.yaml"\nout = "weather_client"\nclient_only = true\n', "utf-8"
    )
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert cli.main(["generate"]) == 0
        assert not (tmp_path / "weather_client" / "server.py").exists()
        assert cli.main(["generate", "--check"]) == 0
        assert cli.main(["generate", "--emit-tests"]) == 2
    finally:
        os.chdir(cwd)


def test_a_server_package_made_client_only_says_why_its_server_goes_and_what_its_handlers_lack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tools.yaml").write_text((EXAMPLE / "tools.yaml").read_text("utf-8"), "utf-8")
    out = tmp_path / "weather"
    assert cli.main(["generate", str(tmp_path / "tools.yaml"), "--out", str(out)]) == 0
    # A server deleted by hand, the toolset edited: written again, and not said to serve "again".
    (out / "server.py").unlink()
    toolset = (tmp_path / "tools.yaml").read_text("utf-8")
    (tmp_path / "tools.yaml").write_text(toolset.replace("Daily forecast", "The daily forecast"), "utf-8")
    assert cli.main(["generate", str(tmp_path / "tools.yaml"), "--out", str(out)]) == 0
    assert (out / "server.py").is_file() and "serves again" not in capsys.readouterr().out
    client_only = ["generate", str(tmp_path / "tools.yaml"), "--out", str(out), "--client-only"]
    assert cli.main([*client_only, "--check"]) == 1
    said = capsys.readouterr().err
    assert f"{out / 'server.py'}: obsolete (a client-only package" in said, said
    assert cli.main(client_only) == 0
    written = capsys.readouterr()
    assert f"{out / 'server.py'}: removed (no longer generated: a client-only package" in written.out
    # The handlers stay (they are the user's), importing a server the package no longer has.
    assert "from ..server import ToolContext" in (out / "handlers" / "get_forecast.py").read_text("utf-8")
    assert not (out / "server.py").exists()
    assert f"{out / 'handlers'}: warning: the handlers of a server stay" in written.err, written.err
    assert f"hint: delete {out / 'handlers'} if this package no longer serves" in written.err
    assert "with --no-client-only (or with neither --client-only nor client_only = true)" in written.err
    assert "orphaned" not in written.err
    assert cli.main(client_only) == 0  # up to date: the folder is said again, not each handler
    again = capsys.readouterr().err
    assert "the handlers of a server stay" in again and "orphaned" not in again, again
    for module in (out / "handlers").glob("*.py"):
        if module.name != "__init__.py":
            module.unlink()
    assert cli.main([*client_only, "--force"]) == 0  # nothing of a server's left in the folder
    assert "handlers" not in capsys.readouterr().err
    shutil.rmtree(out / "handlers")
    assert cli.main([*client_only, "--force"]) == 0
    assert "handlers" not in capsys.readouterr().err
    assert cli.main(client_only[:-1]) == 0
    serving = capsys.readouterr().out
    assert f"{out}: serves again: its server files are written (it was client-only)" in serving
    # The client of another server, made over a server package: its handlers are said as a folder,
    # not each as a handler whose tool went (whose hint was to move the code into another).
    other = tmp_path / "other.yaml"
    other.write_text("mcpstub: 1\nserver: {name: other}\ntools: [{name: p, inputSchema: {type: object}}]\n")
    assert cli.main(["generate", str(other), "--out", str(out), "--client-only"]) == 0
    said = capsys.readouterr().err
    assert "the handlers of a server stay" in said, said
    assert "orphaned" not in said and "move what" not in said, said


def test_a_tool_named_like_the_client_s_own_attributes_keeps_both(tmp_path: Path) -> None:
    public = {name for name in dir(ToolsClient) if not name.startswith("_")}
    assert public == CLIENT_RESERVED  # the generator renames exactly what the base class uses
    toolset = """\
        mcpstub: 1
        server: {name: clash}
        tools:
          - name: session
            inputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
            outputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
    """
    write_package(tmp_path, "clash_pkg", textwrap.dedent(toolset))

    async def handler(args: Any, ctx: Any) -> Any:
        return sys.modules["clash_pkg.models"].SessionOutput(n=args.n + 1)

    async def run(package: Any) -> int:
        async with package.client.connect(package.create_server({"session": handler})) as client:
            assert client.session.protocol_version  # the SDK client is still there
            output = await client.session_(n=1)
            return int(output.n)

    with imported(tmp_path, "clash_pkg") as package:
        __import__("clash_pkg.client")
        assert anyio.run(run, package) == 2


def test_what_is_sent_is_json_of_the_wire_names(tmp_path: Path) -> None:
    toolset = """\
        mcpstub: 1
        server: {name: wire}
        tools:
          - name: echo
            inputSchema:
              type: object
              properties: {from: {type: string}, a-b: {type: integer}}
            outputSchema: {type: object, properties: {got: {type: object}}, required: [got]}
    """
    write_package(tmp_path, "wire_pkg", textwrap.dedent(toolset))

    async def handler(args: Any, ctx: Any) -> Any:
        sent = args.model_dump(mode="json", by_alias=True)
        return sys.modules["wire_pkg.models"].EchoOutput(got=sent)

    async def run(package: Any) -> Any:
        async with package.client.connect(package.create_server({"echo": handler})) as client:
            return (await client.echo(from_="x", a_b=2)).got

    with imported(tmp_path, "wire_pkg") as package:
        __import__("wire_pkg.client")
        assert anyio.run(run, package) == {"from": "x", "a-b": 2}


def test_server_logs_reach_the_package_s_client_logger(
    weather: Any, caplog: pytest.LogCaptureFixture
) -> None:
    connect = importlib.import_module("weather_tools.client").connect

    async def logging_forecast(args: Any, ctx: Any) -> Any:
        await ctx.info("looking up Paris")
        await ctx.debug("cache miss")
        await ctx.warning("stale data")
        return await sys.modules["weather_tools.handlers.get_forecast"].get_forecast(args, ctx)

    async def run() -> None:
        __import__("weather_tools.handlers.get_forecast")
        server = weather.create_server({"get_forecast": logging_forecast})
        async with connect(server) as client:
            await client.get_forecast(city="Paris")

    with caplog.at_level("DEBUG", logger="weather_tools.client"):
        anyio.run(run)
    got = [(r.levelname, r.getMessage()) for r in caplog.records if r.name == "weather_tools.client"]
    assert got == [("INFO", "looking up Paris"), ("WARNING", "stale data")]


@pytest.mark.parametrize(
    ("token", "said"), [("", "token is empty"), ("a b", "printable ASCII without spaces")]
)
def test_a_token_that_cannot_be_sent_is_said_before_connecting(weather: Any, token: str, said: str) -> None:
    connect = importlib.import_module("weather_tools.client").connect

    async def run() -> None:
        async with connect("http://127.0.0.1:9/mcp", token=token):
            raise AssertionError("connected")

    with pytest.raises(ValueError, match=said):
        anyio.run(run)


SHARED_SHAPE = """\
mcpstub: 1
server: {name: shapes}
tools:
  - name: first
    inputSchema: &shape
      type: object
      properties:
        where: {type: object, properties: {street: {type: string}, city: {type: string, minLength: 2}}}
  - name: second
    inputSchema: *shape
"""


def test_a_client_imported_with_extract_defs_sees_no_drift_from_the_server_it_was_imported_from(
    tmp_path: Path,
) -> None:
    # The client's schemas refer to shared definitions where the server writes them out: the same
    # schemas, spelled otherwise. A real change inside a definition is still drift.
    (tmp_path / "tools.yaml").write_text(SHARED_SHAPE, "utf-8")
    steps = (("tools.yaml", "fx_shapes", []), ("moved.yaml", "fx_moved", ["--client-only"]))
    for toolset, package, more in steps:
        if toolset == "moved.yaml":
            surface = str(tmp_path / "fx_shapes" / "surface.json")
            assert cli.main(["import", surface, "-o", str(tmp_path / toolset), "--extract-defs"]) == 0
            assert "$ref" in (tmp_path / toolset).read_text("utf-8")
        assert cli.main(["generate", str(tmp_path / toolset), "--out", str(tmp_path / package), *more]) == 0

    async def drift_of(server_package: Any, client_package: Any) -> Any:
        async with client_package.connect(server_package.create_server(), strict=True) as client:
            return client.drift

    with imported(tmp_path, "fx_shapes") as server, imported(tmp_path, "fx_moved") as client:
        with warnings.catch_warnings():
            warnings.simplefilter("error", DriftWarning)
            assert not anyio.run(drift_of, server, client)
    moved = (tmp_path / "moved.yaml").read_text("utf-8")
    (tmp_path / "moved.yaml").write_text(moved.replace("minLength: 2", "minLength: 3"), "utf-8")
    again = ["generate", str(tmp_path / "moved.yaml"), "--out", str(tmp_path / "fx_moved"), "--client-only"]
    assert cli.main(again) == 0
    with imported(tmp_path, "fx_shapes") as server, imported(tmp_path, "fx_moved") as client:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DriftWarning)
            drift = anyio.run(drift_of, server, client)
    assert set(drift.changed) == {"first", "second"} and "minLength" in drift.describe(), drift


WRITTEN_OUT_CASES = [  # (the client's schema, the server's, drift?)
    (  # a definition beside a sibling keyword is compared, not dropped with `$defs`
        {"properties": {"a": {"$ref": "#/$defs/X", "description": "a"}}, "$defs": {"X": {"type": "string"}}},
        {"properties": {"a": {"$ref": "#/$defs/X", "description": "a"}}, "$defs": {"X": {"type": "integer"}}},
        True,
    ),
    ({"properties": {"a": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"type": "string"}}},
     {"properties": {"a": {"type": "string"}}}, False),
    ({"properties": {"a": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"type": "string"}}},
     {"properties": {"a": {"type": "integer"}}}, True),
    (  # a value that looks like a reference is a value
        {"properties": {"a": {"const": {"$ref": "#/$defs/X"}}}, "$defs": {"X": {"type": "string"}}},
        {"properties": {"a": {"const": {"type": "string"}}}},
        True,
    ),
    (  # a property named like a keyword whose value is data is a schema like any
        {"properties": {"default": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"type": "string"}}},
        {"properties": {"default": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"type": "integer"}}},
        True,
    ),
    (  # a reference by an $id, or into a resource of its own: compared as written
        {"properties": {"a": {"$ref": "item"}}, "$defs": {"X": {"$id": "item", "type": "string"}}},
        {"properties": {"a": {"$ref": "item"}}, "$defs": {"X": {"$id": "item", "type": "integer"}}},
        True,
    ),
    (  # a cycle: compared as written
        {"properties": {"a": {"$ref": "#/$defs/X"}}, "$defs": {"X": {"properties": {"n": {"$ref": "#"}}}}},
        {"properties": {"a": {"properties": {"n": {}}}}},
        True,
    ),
]  # fmt: skip


@pytest.mark.parametrize(("ours", "theirs", "drifted"), WRITTEN_OUT_CASES)
def test_only_a_reference_written_out_alone_is_the_same_schema(ours: Any, theirs: Any, drifted: bool) -> None:
    from mcpstub_runtime.drift import compare  # noqa: PLC0415

    def tool(schema: Any) -> dict[str, Any]:
        return {"name": "t", "inputSchema": {"type": "object", **schema}}

    spec = SimpleNamespace(wire=tool(ours), legacy_wire=tool(ours))
    drift = compare({"t": spec}, [tool(theirs)], modern=True)
    assert bool(drift) is drifted, drift.describe()
    if drifted:  # said as the server sends it
        assert drift.describe().startswith("  t: inputSchema /"), drift.describe()


ECMA = """\
mcpstub: 1
server: {name: ecma}
tools:
  - name: pat
    inputSchema: {type: object, properties: {up: {type: string}, year: {type: string}, gap: {type: string}}}
    outputSchema:
      type: object
      properties:
        up: {type: string, pattern: "^\\\\p{Lu}+$"}
        year: {type: string, pattern: "^(?<y>\\\\d{4})$"}
        gap: {type: string, pattern: "^\\\\s$"}
        mail: {type: string, format: email}
"""


def test_outputs_are_checked_with_the_server_s_patterns_not_python_s(tmp_path: Path) -> None:
    # The SDK's client checks structuredContent again with Python's `jsonschema` and `re`: a
    # pattern Python cannot read failed every call ("Invalid schema"), `\s` refused U+FEFF.
    folder, _ = write_package(tmp_path, "fx_ecma", ECMA)
    body = "    return PatOutput.model_validate(args.model_dump(exclude_unset=True))\n"
    handler = f"from ..models import PatOutput\n\n\nasync def pat(args, ctx):\n{body}"
    (folder / "handlers" / "pat.py").write_text(handler)
    # A server not made by mcpstub: it lists the same tool, and sends what its schema refuses.
    sent: dict[str, Any] = {}

    listing: list[dict[str, Any]] = []

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        listed = listing or [tools.TOOLS["pat"].wire]
        return types.ListToolsResult(tools=[types.Tool.model_validate(tool) for tool in listed])

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        return types.CallToolResult(content=[], structured_content=sent)

    other = Server("other", on_list_tools=list_tools, on_call_tool=call_tool)
    with imported(tmp_path, "fx_ecma") as package:
        client = importlib.import_module("fx_ecma.client")
        testing = importlib.import_module("fx_ecma.testing")
        tools = importlib.import_module("fx_ecma.tools")

        async def run(mode: str) -> None:
            async with client.connect(package.create_server(), mode=mode) as connected:
                got = await connected.pat(up="ÉA", year="2026", gap="\ufeff")
                assert (got.up, got.year, got.gap) == ("ÉA", "2026", "\ufeff")
            async with testing.connect(mode=mode) as plain:  # (the package's test helper, alike)
                result = await plain.call_tool("pat", {"up": "ÉA", "year": "2026"})
                testing.assert_conforms(result, "pat", plain.protocol_version)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DriftWarning)
                async with client.connect(other, mode=mode) as theirs:
                    sent.clear()
                    sent.update(up="éa")
                    refused = r"^pat: Invalid structured content .*\n- /up: "
                    with pytest.raises(client.UnexpectedOutput, match=refused):
                        await theirs.pat()
                    # Formats are not asserted, as the SDK asserts none (a server of mcpstub's does).
                    sent.update(up="A", mail="not an email")
                    assert (await theirs.pat()).mail == "not an email"
                    # A listing since connect is followed, and a dialect the validator does not
                    # know is left to the SDK (every call failed: "Unknown meta-schema").
                    wire = tools.TOOLS["pat"].wire
                    integer = {"type": "object", "properties": {"up": {"type": "integer"}}}
                    listing[:] = [{**wire, "outputSchema": integer}]
                    await theirs.session.list_tools()
                    sent.update(up=1, mail="m")
                    called = await theirs.session.call_tool("pat", {})
                    assert called.structured_content == {"up": 1, "mail": "m"}
                    draft03 = {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"}
                    listing[:] = [{**wire, "outputSchema": draft03}]
                    await theirs.session.list_tools()
                    called = await theirs.session.call_tool("pat", {})
                    assert called.structured_content == {"up": 1, "mail": "m"}
                    # A listing without the tool leaves it unchecked, as the SDK leaves it (it was
                    # held to the schema listed on connect); a schema no validator reads fails.
                    listing[:] = [{**wire, "name": "other"}]
                    await theirs.session.list_tools()
                    sent.update(up="lower")
                    called = await theirs.session.call_tool("pat", {})
                    assert called.structured_content == {"up": "lower", "mail": "m"}
                    unread = {"type": "object", "properties": {"up": {"pattern": "a{,3}"}}}
                    listing[:] = [{**wire, "outputSchema": unread}]
                    await theirs.session.list_tools()
                    with pytest.raises(RuntimeError, match=r"^Invalid schema for tool pat: "):
                        await theirs.session.call_tool("pat", {})
                    listing[:] = [wire]

        for mode in ("auto", "legacy"):
            anyio.run(run, mode)
