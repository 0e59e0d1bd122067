from __future__ import annotations

from ..models import NothingInput, NothingOutput
from ..results import NothingResult
from ..server import ToolContext


async def nothing(
    args: NothingInput, ctx: ToolContext
) -> NothingOutput | NothingResult:
    # Until this is filled in, a call answers isError: "nothing is not implemented yet".
    raise NotImplementedError
