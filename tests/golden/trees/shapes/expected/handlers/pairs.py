from __future__ import annotations

from ..models import PairsInput, PairsOutput
from ..results import PairsResult
from ..server import ToolContext


async def pairs(args: PairsInput, ctx: ToolContext) -> PairsOutput | PairsResult:
    # Until this is filled in, a call answers isError: "pairs is not implemented yet".
    raise NotImplementedError
