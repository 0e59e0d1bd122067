from __future__ import annotations

from ..models import GetUserV2Input, GetUserV2Output
from ..results import GetUserV2Result
from ..server import ToolContext


async def get_user_v2(args: GetUserV2Input, ctx: ToolContext) -> GetUserV2Output | GetUserV2Result:
    raise NotImplementedError  # the client gets an isError result: "get-user.v2 is not implemented yet"
