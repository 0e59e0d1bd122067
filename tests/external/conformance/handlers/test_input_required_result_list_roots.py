from __future__ import annotations

from ..models import TestInputRequiredResultListRootsInput
from ..results import TestInputRequiredResultListRootsResult
from ..server import ToolContext


async def test_input_required_result_list_roots(
    args: TestInputRequiredResultListRootsInput, ctx: ToolContext
) -> TestInputRequiredResultListRootsResult | str:
    roots = await ctx.list_roots(key="client_roots")
    return "Roots: " + ", ".join(str(root.uri) for root in roots)
