from __future__ import annotations

from ..models import AnyTrueInput, AnyTrueOutput
from ..results import AnyTrueResult
from ..server import ToolContext


async def any_true(args: AnyTrueInput, ctx: ToolContext) -> AnyTrueOutput | AnyTrueResult:
    raise NotImplementedError  # the client gets an isError result: "any_true is not implemented yet"
