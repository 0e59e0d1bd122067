from __future__ import annotations

from ..models import TestErrorHandlingInput
from ..results import ToolError
from ..server import ToolContext


async def test_error_handling(args: TestErrorHandlingInput, ctx: ToolContext) -> str:
    raise ToolError("This tool intentionally returns an error for testing")
