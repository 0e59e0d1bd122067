from __future__ import annotations

from ..models import TestElicitationInput, TestElicitationResponse
from ..results import TestElicitationResult
from ..server import ToolContext


async def test_elicitation(args: TestElicitationInput, ctx: ToolContext) -> TestElicitationResult | str:
    answer = await ctx.elicit(args.message, TestElicitationResponse)
    if answer.action != "accept":
        return f"User response: action={answer.action}"
    return f"User response: action=accept, content={answer.data.model_dump_json()}"
