from __future__ import annotations

from ..models import TestInputRequiredResultElicitationInput, TestInputRequiredResultElicitationUserName
from ..results import TestInputRequiredResultElicitationResult
from ..server import ToolContext


async def test_input_required_result_elicitation(
    args: TestInputRequiredResultElicitationInput, ctx: ToolContext
) -> TestInputRequiredResultElicitationResult | str:
    answer = await ctx.elicit("What is your name?", TestInputRequiredResultElicitationUserName)
    return f"Hello, {answer.data.name}!" if answer.action == "accept" else f"No name: {answer.action}"
