from __future__ import annotations

from ..models import GreetInput, GreetOutput
from ..results import GreetResult
from ..server import ToolContext


async def greet(args: GreetInput, ctx: ToolContext) -> GreetOutput | GreetResult:
    # Until this is filled in, a call answers isError: "greet is not implemented yet".
    raise NotImplementedError
