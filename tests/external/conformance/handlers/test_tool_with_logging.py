from __future__ import annotations

import anyio

from ..models import TestToolWithLoggingInput
from ..results import TestToolWithLoggingResult
from ..server import ToolContext


async def test_tool_with_logging(
    args: TestToolWithLoggingInput, ctx: ToolContext
) -> TestToolWithLoggingResult | str:
    await ctx.info("Tool execution started")
    await anyio.sleep(0.05)
    await ctx.info("Tool processing data")
    await anyio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Logging completed"
