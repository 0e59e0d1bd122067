from __future__ import annotations

from ..models import AnythingInput, AnythingOutput
from ..results import AnythingResult
from ..server import ToolContext


async def anything(
    args: AnythingInput, ctx: ToolContext
) -> AnythingOutput | AnythingResult:
    # Until this is filled in, a call answers isError:
    # "anything is not implemented yet".
    raise NotImplementedError
