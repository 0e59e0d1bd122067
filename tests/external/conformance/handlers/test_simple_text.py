from __future__ import annotations

from ..models import TestSimpleTextInput
from ..results import TestSimpleTextResult
from ..server import ToolContext


async def test_simple_text(args: TestSimpleTextInput, ctx: ToolContext) -> TestSimpleTextResult | str:
    return "This is a simple text response for testing."
