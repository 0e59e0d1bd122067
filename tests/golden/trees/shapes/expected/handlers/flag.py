from __future__ import annotations

from ..models import FlagInput, FlagOutput
from ..results import FlagResult
from ..server import ToolContext


async def flag(args: FlagInput, ctx: ToolContext) -> FlagOutput | FlagResult:
    # Until this is filled in, a call answers isError: "flag is not implemented yet".
    raise NotImplementedError
