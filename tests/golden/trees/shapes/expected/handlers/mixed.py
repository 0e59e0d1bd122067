from __future__ import annotations

from ..models import MixedInput, MixedOutput
from ..results import MixedResult
from ..server import ToolContext


async def mixed(args: MixedInput, ctx: ToolContext) -> MixedOutput | MixedResult:
    raise NotImplementedError  # the client gets an isError result: "mixed is not implemented yet"
