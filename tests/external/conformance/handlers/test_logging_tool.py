from __future__ import annotations

from ..models import TestLoggingToolInput
from ..results import TestLoggingToolResult
from ..server import ToolContext


async def test_logging_tool(args: TestLoggingToolInput, ctx: ToolContext) -> TestLoggingToolResult | str:
    await ctx.info("Tool ran")
    return "Logged"
