from __future__ import annotations

from ..models import GetAlertsInput, GetAlertsOutput, GetAlertsOutputAlert
from ..results import GetAlertsResult
from ..server import ToolContext
from ._data import ALERTS, CITIES

_RANK = {"minor": 0, "moderate": 1, "severe": 2}


async def get_alerts(args: GetAlertsInput, ctx: ToolContext) -> GetAlertsOutput | GetAlertsResult:
    city = args.city
    if city not in CITIES:
        return GetAlertsResult.error(f"no weather station for {city!r}")
    alerts = [
        GetAlertsOutputAlert.model_validate(alert)
        for alert in ALERTS.get(city, [])
        if _RANK[alert["severity"]] >= _RANK[args.severity]
    ]
    return GetAlertsOutput(alerts=alerts)
