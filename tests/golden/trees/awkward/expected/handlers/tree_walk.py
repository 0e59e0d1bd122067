from __future__ import annotations

from ..models import TreeWalkInput
from ..results import TreeWalkResult
from ..server import ToolContext


async def tree_walk(args: TreeWalkInput, ctx: ToolContext) -> TreeWalkResult | str:
    raise NotImplementedError  # the client gets an isError result: "tree_walk is not implemented yet"
