from __future__ import annotations

from ..models import JsonSchema202012ToolInput
from ..results import JsonSchema202012ToolResult
from ..server import ToolContext


async def json_schema_2020_12_tool(
    args: JsonSchema202012ToolInput, ctx: ToolContext
) -> JsonSchema202012ToolResult | str:
    return "Schema features kept"
