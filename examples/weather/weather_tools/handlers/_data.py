"""A tiny in-memory weather service standing in for a real backend."""

from __future__ import annotations

CITIES: dict[str, tuple[float, float]] = {
    "Paris": (48.8566, 2.3522),
    "Oslo": (59.9139, 10.7522),
    "Lima": (-12.0464, -77.0428),
    "Tokyo": (35.6762, 139.6503),
}

ALERTS: dict[str, list[dict[str, str]]] = {
    "Oslo": [
        {
            "id": "6f1c2a7e-0d1b-4c55-9a57-3c1b0f9b2d11",
            "headline": "Heavy snow expected overnight",
            "severity": "moderate",
            "expires": "2026-12-01T06:00:00Z",
        }
    ],
}
