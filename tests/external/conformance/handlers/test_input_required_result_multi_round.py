from __future__ import annotations

from ..models import (
    TestInputRequiredResultMultiRoundInput,
    TestInputRequiredResultMultiRoundStep1,
    TestInputRequiredResultMultiRoundStep2,
)
from ..results import TestInputRequiredResultMultiRoundResult
from ..server import ToolContext


async def test_input_required_result_multi_round(
    args: TestInputRequiredResultMultiRoundInput, ctx: ToolContext
) -> TestInputRequiredResultMultiRoundResult | str:
    name = await ctx.elicit("Step 1: What is your name?", TestInputRequiredResultMultiRoundStep1)
    color = await ctx.elicit("Step 2: What is your favorite color?", TestInputRequiredResultMultiRoundStep2)
    if name.action != "accept" or color.action != "accept":
        return "Not answered"
    return f"{name.data.name} likes {color.data.color}"
