from __future__ import annotations

from ..models import NothingInput, NothingOutput
from ..results import NothingResult
from ..server import ToolContext


async def nothing(args: NothingInput, ctx: ToolContext) -> NothingOutput | NothingResult:
    raise NotImplementedError  # the client gets an isError result: "nothing is not implemented yet"
