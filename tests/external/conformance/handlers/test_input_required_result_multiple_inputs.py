from __future__ import annotations

from mcp import types

from mcpstub_runtime import Elicit, ListRoots, Sample

from ..models import TestInputRequiredResultMultipleInputsInput, TestInputRequiredResultMultipleInputsUserName
from ..results import TestInputRequiredResultMultipleInputsResult
from ..server import ToolContext


async def test_input_required_result_multiple_inputs(
    args: TestInputRequiredResultMultipleInputsInput, ctx: ToolContext
) -> TestInputRequiredResultMultipleInputsResult | str:
    name, greeting, roots = await ctx.ask(
        Elicit("What is your name?", TestInputRequiredResultMultipleInputsUserName),
        Sample("Generate a greeting", max_tokens=50, key="greeting"),
        ListRoots(key="client_roots"),
    )
    who = name.data.name if name.action == "accept" else "someone"
    said = greeting.content.text if isinstance(greeting.content, types.TextContent) else "hello"
    return f"{said}, {who} ({len(roots)} roots)"
