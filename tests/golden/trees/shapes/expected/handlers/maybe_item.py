from __future__ import annotations

from ..models import MaybeItemInput, MaybeItemOutput
from ..results import MaybeItemResult
from ..server import ToolContext


async def maybe_item(args: MaybeItemInput, ctx: ToolContext) -> MaybeItemOutput | MaybeItemResult:
    raise NotImplementedError  # the client gets an isError result: "maybe_item is not implemented yet"
