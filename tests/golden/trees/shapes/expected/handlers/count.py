from __future__ import annotations

from ..models import CountInput, CountOutput
from ..results import CountResult
from ..server import ToolContext


async def count(args: CountInput, ctx: ToolContext) -> CountOutput | CountResult:
    raise NotImplementedError  # the client gets an isError result: "count is not implemented yet"
