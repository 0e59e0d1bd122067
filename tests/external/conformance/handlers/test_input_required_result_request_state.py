from __future__ import annotations

from ..models import TestInputRequiredResultRequestStateConfirm, TestInputRequiredResultRequestStateInput
from ..results import TestInputRequiredResultRequestStateResult
from ..server import ToolContext


async def test_input_required_result_request_state(
    args: TestInputRequiredResultRequestStateInput, ctx: ToolContext
) -> TestInputRequiredResultRequestStateResult | str:
    # The request state is sealed and checked before this runs: an answer here passed it.
    answer = await ctx.elicit("Please confirm", TestInputRequiredResultRequestStateConfirm)
    return f"state-ok: {answer.action}"
