from __future__ import annotations

from ..models import AnyTrueInput, AnyTrueOutput
from ..results import AnyTrueResult
from ..server import ToolContext


async def any_true(
    args: AnyTrueInput, ctx: ToolContext
) -> AnyTrueOutput | AnyTrueResult:
    # Until this is filled in, a call answers isError:
    # "any_true is not implemented yet".
    raise NotImplementedError
