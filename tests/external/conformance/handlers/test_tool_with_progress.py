from __future__ import annotations

import anyio

from ..models import TestToolWithProgressInput
from ..results import TestToolWithProgressResult
from ..server import ToolContext


async def test_tool_with_progress(
    args: TestToolWithProgressInput, ctx: ToolContext
) -> TestToolWithProgressResult | str:
    for step in (0, 50, 100):
        await ctx.report_progress(step, 100)
        if step < 100:
            await anyio.sleep(0.05)
    return "Progress completed"
