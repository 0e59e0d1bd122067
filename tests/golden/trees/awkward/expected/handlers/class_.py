from __future__ import annotations

from ..models import ClassInput, ClassOutput
from ..results import ClassResult
from ..server import ToolContext


async def class_(args: ClassInput, ctx: ToolContext) -> ClassOutput | ClassResult:
    raise NotImplementedError  # the client gets an isError result: "class is not implemented yet"
