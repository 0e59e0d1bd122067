from __future__ import annotations

from ..models import GetForecastInput, GetForecastOutput
from ..results import GetForecastResult
from ..server import ToolContext


async def get_forecast(
    args: GetForecastInput, ctx: ToolContext
) -> GetForecastOutput | GetForecastResult:
    raise NotImplementedError  # the client gets an isError result: "get_forecast is not implemented yet"
