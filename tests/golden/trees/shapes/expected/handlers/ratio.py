from __future__ import annotations

from ..models import RatioInput, RatioOutput
from ..results import RatioResult
from ..server import ToolContext


async def ratio(args: RatioInput, ctx: ToolContext) -> RatioOutput | RatioResult:
    # Until this is filled in, a call answers isError: "ratio is not implemented yet".
    raise NotImplementedError
