from __future__ import annotations

from mcp import types

from ..models import TestMissingCapabilityInput
from ..results import TestMissingCapabilityResult
from ..server import ToolContext


async def test_missing_capability(
    args: TestMissingCapabilityInput, ctx: ToolContext
) -> TestMissingCapabilityResult | str:
    # Not caught: a client without sampling gets the protocol's error naming it.
    reply = await ctx.sample("Say something", max_tokens=20)
    return reply.content.text if isinstance(reply.content, types.TextContent) else "(no text)"
