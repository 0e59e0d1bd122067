from __future__ import annotations

from ..models import TestElicitationSep1034DefaultsInput, TestElicitationSep1034DefaultsProfile
from ..results import TestElicitationSep1034DefaultsResult
from ..server import ToolContext


async def test_elicitation_sep1034_defaults(
    args: TestElicitationSep1034DefaultsInput, ctx: ToolContext
) -> TestElicitationSep1034DefaultsResult | str:
    answer = await ctx.elicit("Please review your profile", TestElicitationSep1034DefaultsProfile)
    content = answer.data.model_dump_json() if answer.action == "accept" else "{}"
    return f"Elicitation completed: action={answer.action}, content={content}"
