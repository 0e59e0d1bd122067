from __future__ import annotations

from ..models import ListItemsInput, ListItemsOutput
from ..results import ListItemsResult
from ..server import ToolContext


async def list_items(
    args: ListItemsInput, ctx: ToolContext
) -> ListItemsOutput | ListItemsResult:
    # Until this is filled in, a call answers isError:
    # "list_items is not implemented yet".
    raise NotImplementedError
