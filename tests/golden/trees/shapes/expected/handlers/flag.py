from __future__ import annotations

from ..models import FlagInput, FlagOutput
from ..results import FlagResult
from ..server import ToolContext


async def flag(args: FlagInput, ctx: ToolContext) -> FlagOutput | FlagResult:
    raise NotImplementedError  # the client gets an isError result: "flag is not implemented yet"
