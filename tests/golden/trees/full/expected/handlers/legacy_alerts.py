from __future__ import annotations

from ..models import LegacyAlertsInput
from ..results import LegacyAlertsResult
from ..server import ToolContext


async def legacy_alerts(
    args: LegacyAlertsInput, ctx: ToolContext
) -> LegacyAlertsResult | str:
    # Until this is filled in, a call answers isError:
    # "legacy_alerts is not implemented yet".
    raise NotImplementedError
