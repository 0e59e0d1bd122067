from __future__ import annotations

from ..models import GetUserV2Input, GetUserV2Output
from ..results import GetUserV2Result
from ..server import ToolContext


async def get_user_v2(
    args: GetUserV2Input, ctx: ToolContext
) -> GetUserV2Output | GetUserV2Result:
    # Until this is filled in, a call answers isError:
    # "get-user.v2 is not implemented yet".
    raise NotImplementedError
