from __future__ import annotations

from ..models import RatioInput, RatioOutput
from ..results import RatioResult
from ..server import ToolContext


async def ratio(args: RatioInput, ctx: ToolContext) -> RatioOutput | RatioResult:
    raise NotImplementedError  # the client gets an isError result: "ratio is not implemented yet"
