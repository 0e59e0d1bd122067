from __future__ import annotations

from ..models import TestElicitationSep1330EnumsChoices, TestElicitationSep1330EnumsInput
from ..results import TestElicitationSep1330EnumsResult
from ..server import ToolContext


async def test_elicitation_sep1330_enums(
    args: TestElicitationSep1330EnumsInput, ctx: ToolContext
) -> TestElicitationSep1330EnumsResult | str:
    answer = await ctx.elicit("Please choose", TestElicitationSep1330EnumsChoices)
    content = answer.data.model_dump_json() if answer.action == "accept" else "{}"
    return f"Elicitation completed: action={answer.action}, content={content}"
