from __future__ import annotations

from ..models import TestInputRequiredResultTamperedStateConfirm, TestInputRequiredResultTamperedStateInput
from ..results import TestInputRequiredResultTamperedStateResult
from ..server import ToolContext


async def test_input_required_result_tampered_state(
    args: TestInputRequiredResultTamperedStateInput, ctx: ToolContext
) -> TestInputRequiredResultTamperedStateResult | str:
    answer = await ctx.elicit("Please confirm", TestInputRequiredResultTamperedStateConfirm)
    return f"Confirmed: {answer.action}"
