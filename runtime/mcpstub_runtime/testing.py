"""Test helpers: call a server in memory and check results against a tool's advertised contract.

For example, in an async test of a generated package:

    async with connect(create_server({"get_forecast": fake_forecast})) as client:
        result = await client.call_tool("get_forecast", {"city": "Paris"})
    assert_conforms(result, TOOLS["get_forecast"], client.protocol_version)

A tool whose output is not a JSON object answers 2026-07-28 clients with the value itself and
2025-11-25 clients (`connect(..., mode="legacy")`) with `{"result": value}`; given the protocol
version, the check holds the result to that generation's form, else to either.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from mcp import Client, types
from mcp.server import Server
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

from ._text import pointer
from .dispatch import validator
from .spec import ToolSpec

__all__ = ["assert_conforms", "conformance_problems", "connect"]


def connect(server: Server[Any], **client_options: Any) -> Client:
    """An `mcp.Client` (use with `async with`) on `server`, in memory. It leaves out the SDK's
    second check of structuredContent, with Python's regular expressions (a pattern only ECMA-262
    reads, `\\p{Lu}`, failed every call): `assert_conforms` checks it as the server does."""
    return _Client(server, **client_options)


class _Client(Client):
    async def __aenter__(self) -> _Client:
        await super().__aenter__()
        self.session.validate_tool_result = _unchecked  # type: ignore[method-assign]
        return self


async def _unchecked(name: str, result: types.CallToolResult) -> None:
    return None


def conformance_problems(
    result: types.CallToolResult, spec: ToolSpec, protocol_version: str | None = None
) -> list[str]:
    """Every way `result` breaks the tool's advertised contract, each naming its path."""
    problems: list[str] = []
    texts = [block.text for block in result.content if isinstance(block, types.TextContent)]
    if result.is_error:
        if result.structured_content is not None:
            problems.append("an isError result carries structuredContent")
        if not any(texts):
            problems.append("an isError result has no text message")
        return problems
    if spec.output_schema is None:
        if result.structured_content is not None:
            problems.append("structuredContent from a tool that declares no outputSchema")
        return problems
    payload = result.structured_content
    # A non-object output may be null: then "structuredContent": null is on the wire.
    sent_null = spec.wraps_output and "structured_content" in result.model_fields_set
    if payload is None and not sent_null:
        return ["structuredContent is missing (the tool declares an outputSchema)"]
    problems.extend(_payload_problems(spec, payload, protocol_version))
    if not texts:
        problems.append("no text block mirrors structuredContent")
    else:
        try:
            mirrored = json.loads(texts[0])
        except ValueError:
            problems.append("the first text block is not JSON")
        else:
            if mirrored != payload:
                problems.append("the first text block's JSON differs from structuredContent")
    return problems


def _payload_problems(spec: ToolSpec, payload: Any, protocol_version: str | None) -> list[str]:
    """How structuredContent breaks the output schema of the given (or the likelier) generation."""
    forms = {"modern": spec.output_schema, "legacy": spec.legacy_output_schema}
    if protocol_version is not None:
        chosen = ["modern" if protocol_version in MODERN_PROTOCOL_VERSIONS else "legacy"]
    elif spec.wraps_output and isinstance(payload, dict) and "result" in payload:
        chosen = ["legacy", "modern"]  # either form may be meant: report the likelier one
    else:
        chosen = ["modern", "legacy"] if spec.wraps_output else ["modern"]
    reports = []
    for form in chosen:
        schema = cast(Mapping[str, Any], forms[form])
        checker = validator(spec, "output" if form == "modern" else "legacy-output", schema)
        problems = [
            f"structuredContent at {pointer(error.instance_path)}: {error.message}"
            for error in checker.iter_errors(payload)
        ]
        if not problems:
            return []
        reports.append(problems)
    if protocol_version is not None and spec.wraps_output:
        shown = "as written" if chosen == ["modern"] else 'wrapped as {"result": value}'
        reports[0].append(f"(protocol {protocol_version} expects the output {shown})")
    return reports[0]


def assert_conforms(
    result: types.CallToolResult, spec: ToolSpec, protocol_version: str | None = None
) -> None:
    """Fail with every problem, by path, unless `result` keeps the tool's advertised contract.

    With `protocol_version` (e.g. `client.protocol_version`) the output must have that
    generation's form; without, either form is accepted.
    """
    problems = conformance_problems(result, spec, protocol_version)
    if problems:
        details = "\n".join(f"- {problem}" for problem in problems)
        raise AssertionError(f"result of tool {spec.name!r} does not conform:\n{details}")
