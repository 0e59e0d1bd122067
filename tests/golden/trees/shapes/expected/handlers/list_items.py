from __future__ import annotations

from ..models import ListItemsInput, ListItemsOutput
from ..results import ListItemsResult
from ..server import ToolContext


async def list_items(args: ListItemsInput, ctx: ToolContext) -> ListItemsOutput | ListItemsResult:
    raise NotImplementedError  # the client gets an isError result: "list_items is not implemented yet"
