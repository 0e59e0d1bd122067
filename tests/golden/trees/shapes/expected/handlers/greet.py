from __future__ import annotations

from ..models import GreetInput, GreetOutput
from ..results import GreetResult
from ..server import ToolContext


async def greet(args: GreetInput, ctx: ToolContext) -> GreetOutput | GreetResult:
    raise NotImplementedError  # the client gets an isError result: "greet is not implemented yet"
