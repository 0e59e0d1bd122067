from __future__ import annotations

from ..models import ClassInput, ClassOutput
from ..results import ClassResult
from ..server import ToolContext


async def class_(args: ClassInput, ctx: ToolContext) -> ClassOutput | ClassResult:
    # Until this is filled in, a call answers isError: "class is not implemented yet".
    raise NotImplementedError
