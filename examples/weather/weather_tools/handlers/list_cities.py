from __future__ import annotations

from ..models import ListCitiesInput, ListCitiesOutput
from ..results import ListCitiesResult
from ..server import ToolContext
from ._data import CITIES


async def list_cities(
    args: ListCitiesInput, ctx: ToolContext
) -> ListCitiesOutput | ListCitiesResult:
    return ListCitiesOutput(cities=sorted(CITIES))
