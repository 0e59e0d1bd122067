from __future__ import annotations

from ..models import MixedInput, MixedOutput
from ..results import MixedResult
from ..server import ToolContext


async def mixed(args: MixedInput, ctx: ToolContext) -> MixedOutput | MixedResult:
    # Until this is filled in, a call answers isError: "mixed is not implemented yet".
    raise NotImplementedError
