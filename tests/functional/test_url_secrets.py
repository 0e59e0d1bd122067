"""A URL's password never reaches a message: every error path of diff and import, with credentials."""

from __future__ import annotations

import http.server
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcpstub import cli
from mcpstub.server_listing import LiveError, read_live, shown_url

TOOLSET = "mcpstub: 1\nserver: {name: s}\ntools:\n  - {name: t, inputSchema: {type: object}}\n"


class _Refusing(http.server.BaseHTTPRequestHandler):
    """Answers every request with an error status (the client's error names the URL)."""

    def do_GET(self) -> None:
        self.send_error(404)

    def do_POST(self) -> None:
        self.send_error(500, "no")

    def do_DELETE(self) -> None:
        self.send_error(404)

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def refusing() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _urls(port: int) -> list[str]:
    closed = _closed_port()
    return [
        "http://user:secret@example.com/mcp",  # not the loopback
        "HTTP://user:secret@example.com/mcp",  # a scheme in capitals
        "ftp://user:secret@127.0.0.1/mcp",  # not http(s)
        "http://user:secret@[::1/mcp",  # not a valid URL
        "http://user:secret@localhost:99999/mcp",  # a port out of range
        f"http://user:secret@127.0.0.1:{closed}/mcp",  # nothing listening
        f"http://user:x%40secret@127.0.0.1:{closed}/mcp",  # an escaped `@` in the password
        f"http://user:x@secret@127.0.0.1:{closed}/mcp",  # a bare one
        f"http://user:secret@127.0.0.1:{port}/mcp",  # an error status (the client names the URL)
        f"http://user:secret@127.0.0.1:{port}",
        "http:/user:secret@127.0.0.1/mcp",  # one slash: read as a file name
        "http:user:secret@127.0.0.1/mcp",  # none
        "HTTPS:user:secret@example.com/mcp",
        # unencoded `/`, `?`, `#` in a password or user name end the authority early
        f"http://user:pa/secret@127.0.0.1:{closed}/mcp",
        f"http://user:pa?secret@127.0.0.1:{port}/mcp",
        f"http://user:pa#secret@localhost:{closed}/mcp",
        f"http://user:secret/x@[::1]:{closed}/mcp",
        f"http://us/er:secret@127.0.0.1:{closed}/mcp",
        f"http://us#er:pa/secret@127.0.0.1:{closed}/mcp?mail=a@b",
        "http://user:1234/secret@127.0.0.1/mcp",
        "http://user:pa/secret@example.com/mcp",
        f"http://secret/token@127.0.0.1:{closed}/mcp",  # a user name alone
        f"http://user:pa@secret/x@127.0.0.1:{closed}/mcp",  # an `@` and a `/` in the password
    ]


def test_no_error_of_diff_or_import_shows_a_url_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], refusing: int
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("tools.yaml").write_text(TOOLSET, "utf-8")
    for url in _urls(refusing):
        for argv in (
            ["diff", url, "tools.yaml"],
            ["diff", "tools.yaml", url],
            ["diff", url, url, "--format", "json"],
            ["import", url, "-o", "imported.yaml"],
        ):
            code = cli.main(argv)
            out, err = capsys.readouterr()
            assert code != 0, (argv, out, err)
            assert "secret" not in out + err, (argv, out, err)
            assert err.strip() and "Traceback" not in err, (argv, err)
            assert not Path("imported.yaml").exists()


def test_live_errors_never_carry_the_password(refusing: int) -> None:
    for url in _urls(refusing):
        if not url.lower().startswith("http"):
            continue
        with pytest.raises(LiveError) as caught:
            read_live(url=url)
        assert "secret" not in str(caught.value), url
    assert shown_url("see http://a:b@h/x and https://c@h2") == "see http://h/x and https://h2"
    assert shown_url("http://h/x?mail=a@b") == "http://h/x?mail=a@b"  # `@` past the host is no password


def test_a_server_command_holding_a_url_never_shows_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "weather"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(example))
    Path("tools.yaml").write_text(TOOLSET, "utf-8")
    python = sys.executable
    working = f"env UPSTREAM=http://user:secret@127.0.0.1:9/x {python} -m weather_tools"
    failing = f"{python} -c 'import sys; sys.exit(\"cannot reach http://user:secret@127.0.0.1:9/x\")'"
    assert cli.main(["import", "--server-command", working, "-o", "imported.yaml"]) == 0
    assert cli.main(["diff", "--server-command", working, "tools.yaml"]) == 1
    out, err = capsys.readouterr()
    assert "wrote imported.yaml" in out and "secret" not in out + err, (out, err)
    for argv in (
        ["import", "--server-command", failing, "-o", "failed.yaml"],
        ["diff", "--server-command", failing, "tools.yaml"],
        ["diff", "tools.yaml", "--new-server-command", failing],
    ):
        assert cli.main(argv) != 0
        out, err = capsys.readouterr()
        assert "cannot reach http://127.0.0.1:9/x" in err and "secret" not in out + err, (argv, err)


def test_a_password_holding_slash_query_or_fragment_marks_is_hidden_and_explained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`http://u:pa/ss@h/x` reads as host `u`, port `pa`: everything up to the `@` before the
    host is hidden, and the error says to percent-encode; an `@` in the path or query of a URL
    that names a loopback server is no credential."""
    for mark in "/?#":
        for userinfo in (
            f"u:pa{mark}ss", f"u{mark}x:pass", f"u:p{mark}a{mark}s@s", f"u:p@a{mark}ss", f"u:x:y{mark}z"
        ):  # fmt: skip
            url = f"http://{userinfo}@127.0.0.1:1/mcp"
            assert shown_url(url) == "http://127.0.0.1:1/mcp", url
            assert shown_url(f"error: {url!r}: refused") == "error: 'http://127.0.0.1:1/mcp': refused"
    for kept in (
        "http://h/x?mail=a@b",
        "http://127.0.0.1:8000/mcp?mail=a:b@c",
        "http://localhost/x/a:b@c/y",
        "http://[::1]:3/mcp#k:v@w",
    ):
        assert shown_url(kept) == kept
    monkeypatch.chdir(tmp_path)
    Path("tools.yaml").write_text(TOOLSET, "utf-8")
    assert cli.main(["diff", "http://user:pa/secret@127.0.0.1:1/mcp", "tools.yaml"]) == 2
    _, err = capsys.readouterr()
    assert "secret" not in err and "http://127.0.0.1:1/mcp" in err, err
    assert "percent-encode" in err and "%2F" in err, err
    assert cli.main(["diff", "http://user:secret@example.com/mcp", "tools.yaml"]) == 2
    _, err = capsys.readouterr()
    assert "percent-encode" not in err, err  # a URL read as written needs no such advice
