from __future__ import annotations

from ..models import ItemInput, ItemOutput
from ..results import ItemResult
from ..server import ToolContext


async def item(args: ItemInput, ctx: ToolContext) -> ItemOutput | ItemResult:
    # Until this is filled in, a call answers isError: "item is not implemented yet".
    raise NotImplementedError
