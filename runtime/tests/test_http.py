"""create_app in process (httpx2's ASGI transport): `/healthz` answers behind the same Host
check as `/mcp`, and `app_of` splits app options from server options."""

from __future__ import annotations

import anyio
import httpx2
import pytest
from runtime_fixture import INFO

from mcpstub_runtime import ToolSpec, app_of, create_app, create_server


async def _get(
    tools: dict[str, ToolSpec], where: str, path: str = "/healthz", **options: object
) -> httpx2.Response:
    app = create_app(create_server(tools, INFO), **options)  # type: ignore[arg-type]
    async with app.router.lifespan_context(app):
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url=f"http://{where}") as client:
            return await client.get(path, headers={"accept": "application/json, text/event-stream"})


def test_healthz_answers_a_loopback_host(tools: dict[str, ToolSpec]) -> None:
    response = anyio.run(_get, tools, "127.0.0.1:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "name": "runtime-fixture", "version": "0.0.1", "tools": 3}


@pytest.mark.parametrize("path", ["/healthz", "/mcp"])
def test_a_foreign_host_is_refused_on_every_route(tools: dict[str, ToolSpec], path: str) -> None:
    response = anyio.run(_get, tools, "evil.example.com", path)
    assert response.status_code == 421, response.text
    assert "tools" not in response.text


def test_healthz_takes_the_allowed_hosts_given(tools: dict[str, ToolSpec]) -> None:
    async def both() -> tuple[int, int]:
        ok = await _get(tools, "mcp.example.com", host="0.0.0.0", allowed_hosts=["mcp.example.com"])
        other = await _get(tools, "127.0.0.1", host="0.0.0.0", allowed_hosts=["mcp.example.com"])
        anyone = await _get(tools, "whatever.test", host="0.0.0.0", allowed_hosts=["*"])
        return ok.status_code, other.status_code * 1000 + anyone.status_code

    ok, rest = anyio.run(both)
    assert (ok, rest) == (200, 421_200)


def test_app_of_makes_the_server_from_the_options_create_app_does_not_take(
    tools: dict[str, ToolSpec],
) -> None:
    made: list[dict[str, object]] = []

    def factory(**options: object) -> object:
        made.append(options)
        return create_server(tools, INFO, **options)  # type: ignore[arg-type]

    app_of(None, factory, stateless=True, instructions="other")  # type: ignore[arg-type]
    assert made == [{"instructions": "other"}]
    with pytest.raises(TypeError, match="a server and server options"):
        app_of(create_server(tools, INFO), factory, instructions="x")  # type: ignore[arg-type]
