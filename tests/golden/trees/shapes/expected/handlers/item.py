from __future__ import annotations

from ..models import ItemInput, ItemOutput
from ..results import ItemResult
from ..server import ToolContext


async def item(args: ItemInput, ctx: ToolContext) -> ItemOutput | ItemResult:
    raise NotImplementedError  # the client gets an isError result: "item is not implemented yet"
