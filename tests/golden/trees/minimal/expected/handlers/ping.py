from __future__ import annotations

from ..models import PingInput
from ..results import PingResult
from ..server import ToolContext


async def ping(args: PingInput, ctx: ToolContext) -> PingResult | str:
    # Until this is filled in, a call answers isError: "ping is not implemented yet".
    raise NotImplementedError
