"""PLUMBLINE_TELEMETRY: FastAPI's native OpenTelemetry runs only when it is switched on."""

from __future__ import annotations

import httpx
import pytest
from opentelemetry import trace

from plumbline.app import create_app
from plumbline.config import settings


@pytest.mark.parametrize(("enabled", "asks"), [(False, 0), (True, 1)])
async def test_telemetry_switch(monkeypatch: pytest.MonkeyPatch, enabled: bool, asks: int) -> None:
    """Off (the default), a request never asks OpenTelemetry for its tracer provider; on,
    FastAPI asks on every request and would trace through a configured one."""
    asked = []
    provider = trace.get_tracer_provider()

    def tracer_provider() -> trace.TracerProvider:
        asked.append(True)
        return provider

    monkeypatch.setattr(settings, "telemetry", enabled)
    app = create_app()
    monkeypatch.setattr(trace, "get_tracer_provider", tracer_provider)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        answer = await client.get("/api/v1/openapi.json")
    assert answer.status_code == 200
    assert len(asked) == asks
