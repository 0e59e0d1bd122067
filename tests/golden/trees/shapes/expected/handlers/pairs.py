from __future__ import annotations

from ..models import PairsInput, PairsOutput
from ..results import PairsResult
from ..server import ToolContext


async def pairs(args: PairsInput, ctx: ToolContext) -> PairsOutput | PairsResult:
    raise NotImplementedError  # the client gets an isError result: "pairs is not implemented yet"
