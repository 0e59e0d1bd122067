from __future__ import annotations

from mcp import types

from ..models import TestSamplingInput
from ..results import TestSamplingResult
from ..server import ToolContext


async def test_sampling(args: TestSamplingInput, ctx: ToolContext) -> TestSamplingResult | str:
    reply = await ctx.sample(args.prompt, max_tokens=100)
    text = reply.content.text if isinstance(reply.content, types.TextContent) else ""
    return f"LLM response: {text}"
