from __future__ import annotations

from ..models import TestStreamingElicitationInput, TestStreamingElicitationUserName
from ..results import TestStreamingElicitationResult
from ..server import ToolContext


async def test_streaming_elicitation(
    args: TestStreamingElicitationInput, ctx: ToolContext
) -> TestStreamingElicitationResult | str:
    answer = await ctx.elicit("What is your name?", TestStreamingElicitationUserName)
    return f"Hello, {answer.data.name}!" if answer.action == "accept" else answer.action
