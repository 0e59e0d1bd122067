from __future__ import annotations

from ..models import CountInput, CountOutput
from ..results import CountResult
from ..server import ToolContext


async def count(args: CountInput, ctx: ToolContext) -> CountOutput | CountResult:
    # Until this is filled in, a call answers isError: "count is not implemented yet".
    raise NotImplementedError
