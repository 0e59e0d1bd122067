from __future__ import annotations

from mcp import types

from mcpstub_runtime import CannotAsk

from ..models import TestInputRequiredResultCapabilitiesInput, TestInputRequiredResultCapabilitiesUserName
from ..results import TestInputRequiredResultCapabilitiesResult
from ..server import ToolContext


async def test_input_required_result_capabilities(
    args: TestInputRequiredResultCapabilitiesInput, ctx: ToolContext
) -> TestInputRequiredResultCapabilitiesResult | str:
    try:
        answer = await ctx.elicit("What is your name?", TestInputRequiredResultCapabilitiesUserName)
    except CannotAsk:  # this client cannot show a form: its model makes a name up
        reply = await ctx.sample("Make up a name", max_tokens=20, key="made_up_name")
        name = reply.content.text if isinstance(reply.content, types.TextContent) else "someone"
    else:
        name = answer.data.name if answer.action == "accept" else "someone"
    return f"Hello, {name}!"
