from __future__ import annotations

from datetime import date, timedelta
from typing import Literal

from ..models import (
    Coordinates,
    GetForecastInput,
    GetForecastOutput,
    GetForecastOutputDay,
    GetForecastOutputDayWind,
)
from ..server import ToolContext
from ..results import GetForecastResult, ToolError
from ._data import CITIES

_CONDITIONS: list[Literal["sunny", "cloudy", "rain", "snow", "storm"]] = [
    "sunny",
    "cloudy",
    "rain",
    "snow",
    "storm",
]
_DIRECTIONS: list[Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]] = [
    "N",
    "NE",
    "E",
    "SE",
    "S",
    "SW",
    "W",
    "NW",
]


async def get_forecast(
    args: GetForecastInput, ctx: ToolContext
) -> GetForecastOutput | GetForecastResult:
    city = args.city
    if city not in CITIES:
        raise ToolError(f"unknown city {city!r}; try one of: {', '.join(sorted(CITIES))}")
    lat, lon = CITIES[city]
    start = date(2026, 1, 1)
    days = []
    for i in range(args.days):
        high = 5.0 + (i * 1.5) + lat % 3
        if args.units == "imperial":
            high = high * 9 / 5 + 32
        days.append(
            GetForecastOutputDay(
                date=(start + timedelta(days=i)).isoformat(),
                high=round(high, 1),
                low=round(high - 6.0, 1),
                conditions=_CONDITIONS[i % len(_CONDITIONS)],
                wind=GetForecastOutputDayWind(
                    speed=10.0 + i, direction=_DIRECTIONS[i % len(_DIRECTIONS)]
                ),
            )
        )
    await ctx.report_progress(1, 1, "forecast ready")
    return GetForecastOutput(
        city=city,
        location=Coordinates(lat=lat, lon=lon),
        issued_at="2026-01-01T00:00:00Z",
        days=days,
        advisory=None,
    )
