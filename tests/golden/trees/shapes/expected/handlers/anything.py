from __future__ import annotations

from ..models import AnythingInput, AnythingOutput
from ..results import AnythingResult
from ..server import ToolContext


async def anything(args: AnythingInput, ctx: ToolContext) -> AnythingOutput | AnythingResult:
    raise NotImplementedError  # the client gets an isError result: "anything is not implemented yet"
