from __future__ import annotations

from mcp import types

from ..models import TestInputRequiredResultSamplingInput
from ..results import TestInputRequiredResultSamplingResult
from ..server import ToolContext


async def test_input_required_result_sampling(
    args: TestInputRequiredResultSamplingInput, ctx: ToolContext
) -> TestInputRequiredResultSamplingResult | str:
    reply = await ctx.sample("What is the capital of France?", max_tokens=100, key="capital_question")
    return reply.content.text if isinstance(reply.content, types.TextContent) else "(no text)"
