from __future__ import annotations

from ..models import PingInput
from ..results import PingResult
from ..server import ToolContext


async def ping(args: PingInput, ctx: ToolContext) -> PingResult | str:
    raise NotImplementedError  # the client gets an isError result: "ping is not implemented yet"
