"""Benchmark 3: cost per tools/call, in memory, in both protocol generations.

Contenders, all serving the same tool (synthetic tool 0: nested input, five-item nested output)
to the SDK's `Client(server)` (2026-07-28, stateless) and `Client(server, mode="legacy")`:
- mcpstub: the generated server, validating input and output against the advertised schemas;
- low-level: a hand-written `mcp.server.Server` that validates nothing and answers with
  `json.dumps` of a ready payload;
- validating: a hand-written `mcp.server.Server` that does what mcpstub's data path does and
  nothing else: the arguments checked against the input schema (jsonschema-rs) and parsed into
  the input model, the output model dumped once, its JSON text, and the dump checked against the
  output schema (the floor of any server that keeps mcpstub's guarantees);
- MCPServer: the SDK's high-level server with a pydantic-typed function;
- fastmcp: fastmcp 4.x with the same function (only when it is importable).
Every handler returns a payload built once, so the figures are the frameworks' own costs. The
SDK client re-validates every structured result against the output schema with the pure-Python
`jsonschema` package, which costs more than any server here; each mode is therefore measured twice,
as a user's client sees it and with that client-side check turned off (the server's own cost plus
the in-memory transport). The contenders run interleaved: each round times a batch of calls on
each, in rotating order; the figures are medians over rounds, and ratios are medians of same-round
ratios, with their spread (min-max over the rounds).

Run as `python -m benchmarks.bench_calls FOLDER` where FOLDER holds the generated package `stub10`
and the module `mcpserver10`; prints JSON.
"""

from __future__ import annotations

import importlib
import json
import statistics
import sys
import time
from contextlib import AsyncExitStack
from typing import Any

import anyio
import jsonschema_rs
from mcp import Client, types
from mcp.client.session import ClientSession
from mcp.server import Server
from pydantic_core import to_json

from benchmarks.toolset import sample_input, sample_output, tool_name

TOOL = tool_name(0)


def contenders(package: str, module: str) -> dict[str, Any]:
    """name -> server object for `Client(...)`."""
    pkg = importlib.import_module(package)
    spec = pkg.TOOLS[TOOL]
    output = spec.output_model.model_validate(sample_output(0))

    async def handler(args: Any, ctx: Any) -> Any:
        return output

    payload = sample_output(0)
    tool_list = types.ListToolsResult(tools=[spec.tool])

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return tool_list

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": json.dumps(payload)}], "structuredContent": payload,
                "resultType": "complete"}

    input_model = spec.input_model
    check_in, check_out = (
        jsonschema_rs.Draft202012Validator(dict(schema), validate_formats=True, offline=True)
        for schema in (spec.input_schema, spec.output_schema)
    )

    def failed(message: str) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": message}], "isError": True, "resultType": "complete"}

    async def validating(ctx: Any, params: types.CallToolRequestParams) -> dict[str, Any]:
        arguments = params.arguments or {}
        if not check_in.is_valid(arguments):
            return failed("invalid arguments")
        result = await handler(input_model.model_validate(arguments), ctx)
        dumped = result.model_dump(mode="json", by_alias=True, warnings=False)
        text = to_json(dumped).decode()
        if not check_out.is_valid(dumped):
            return failed("output did not match the declared schema")
        content = [{"type": "text", "text": text}]
        return {"content": content, "structuredContent": dumped, "resultType": "complete"}

    servers: dict[str, Any] = {
        "mcpstub": pkg.create_server({TOOL: handler}),
        "low-level": Server("lowlevel", on_list_tools=on_list_tools, on_call_tool=on_call_tool),  # type: ignore[arg-type]
        "validating": Server("validating", on_list_tools=on_list_tools, on_call_tool=validating),  # type: ignore[arg-type]
        "MCPServer": importlib.import_module(module).mcp,
    }
    try:
        from fastmcp import FastMCP  # noqa: PLC0415
    except ImportError:
        pass
    else:
        fast = FastMCP("fastmcp")
        fast.tool(getattr(importlib.import_module(module), TOOL))
        servers["fastmcp"] = fast._mcp_server  # its SDK server: the same client drives every contender
    return servers


async def _no_validation(self: ClientSession, name: str, result: types.CallToolResult) -> None:
    return None


async def run_mode(
    servers: dict[str, Any], mode: str, rounds: int, batch: int, client_validates: bool
) -> dict[str, Any]:
    """Interleaved rounds in one protocol generation."""
    if not client_validates:
        ClientSession.validate_tool_result = _no_validation  # type: ignore[method-assign]
    args = sample_input(0)
    expected = sample_output(0)
    per_call: dict[str, list[float]] = {name: [] for name in servers}
    async with AsyncExitStack() as stack:
        clients = {name: await stack.enter_async_context(Client(s, mode=mode)) for name, s in servers.items()}
        for name, client in clients.items():
            await client.list_tools()
            result = await client.call_tool(TOOL, args)
            assert not result.is_error and result.structured_content == expected, (name, result)
            for _ in range(batch):  # warm-up
                await client.call_tool(TOOL, args)
        names = list(clients)
        for r in range(rounds):
            order = names[r % len(names):] + names[: r % len(names)]
            for name in order:
                client = clients[name]
                start = time.perf_counter()
                for _ in range(batch):
                    await client.call_tool(TOOL, args)
                per_call[name].append((time.perf_counter() - start) / batch)
    medians = {name: statistics.median(values) for name, values in per_call.items()}
    same_round = {
        name: sorted(a / b for a, b in zip(per_call["mcpstub"], values, strict=True))
        for name, values in per_call.items()
        if name != "mcpstub"
    }
    ratios = {name: statistics.median(values) for name, values in same_round.items()}
    spread = {name: (values[0], values[-1]) for name, values in same_round.items()}
    return {"per_call": medians, "ratio": ratios, "spread": spread, "rounds": rounds, "batch": batch}


def main(folder: str, rounds: int, batch: int) -> None:
    sys.path.insert(0, folder)
    servers = contenders("stub10", "mcpserver10")
    results = {
        f"{mode} {'client-validates' if check else 'server-only'}": anyio.run(
            run_mode, servers, mode, rounds, batch, check
        )
        for check in (True, False)  # True first: the patch for False is never undone
        for mode in ("auto", "legacy")
    }
    print(json.dumps(results))


if __name__ == "__main__":
    given = sys.argv[2:4]
    rounds, batch = (int(a) for a in [*given, *["15", "100"][len(given):]])
    main(sys.argv[1], rounds, batch)
