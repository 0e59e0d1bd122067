from __future__ import annotations

from ..models import TreeWalkInput
from ..results import TreeWalkResult
from ..server import ToolContext


async def tree_walk(args: TreeWalkInput, ctx: ToolContext) -> TreeWalkResult | str:
    # Until this is filled in, a call answers isError:
    # "tree_walk is not implemented yet".
    raise NotImplementedError
