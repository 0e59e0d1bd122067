from __future__ import annotations

from ..models import GetForecastInput, GetForecastOutput
from ..results import GetForecastResult
from ..server import ToolContext


async def get_forecast(
    args: GetForecastInput, ctx: ToolContext
) -> GetForecastOutput | GetForecastResult:
    # Until this is filled in, a call answers isError:
    # "get_forecast is not implemented yet".
    raise NotImplementedError
