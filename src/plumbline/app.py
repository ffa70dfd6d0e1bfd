"""create_app(): middleware, error handlers, routers.

Importing this module is cheap: the app's modules (every router, its schemas and what they use)
are imported by ``create_app``, so a command or a test that only names the factory does not pay
for them (issue 40, item 7)."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI
    from fastapi.telemetry import TelemetryConfig

if TYPE_CHECKING:
    from collections.abc import Callable

MiB = 1024 * 1024
# FastAPI's native OpenTelemetry, unless PLUMBLINE_TELEMETRY is set: even with no provider
# configured it asks for the three global providers on every request (benchmarks/README.md).
TELEMETRY_OFF: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def body_limits(report_form_bytes: int) -> Callable[[str], int | None]:
    """The body limit of a path: ``report_form_bytes`` for the occupant reporting page (its
    photos), as ``body_limit`` says for the others."""

    def limit_for(path: str) -> int | None:
        if path.startswith("/portal/occupant/"):
            return report_form_bytes
        return body_limit(path)

    return limit_for


def body_limit(path: str) -> int | None:
    """1 MiB JSON bodies, 8 MiB viewer state, 4 MiB schedules and bulk upserts, 2 MiB logos;
    storage uploads enforce their own."""
    if path.startswith("/api/v1/storage/"):
        return None
    if path.endswith("/viewer-state"):
        return 8 * MiB
    if path.endswith("/logo"):
        return 2 * MiB
    if path.endswith("/schedule"):  # a whole schedule of up to 5,000 tasks
        return 4 * MiB
    if path.endswith("/bulk"):  # up to 1,000 records of a bulk upsert
        return 4 * MiB
    return MiB


@asynccontextmanager
async def lifespan(_: FastAPI) -> AsyncIterator[None]:
    from plumbline.config import settings
    from plumbline.db import database
    from plumbline.digest.scheduler import scheduler
    from plumbline.drawing_ai import sandbox
    from plumbline.jobs.runner import work
    from plumbline.kit import pubsub, stopping

    # The modules, routes and schemas built at startup live as long as the process: moved out of
    # the collector's reach, they are no longer traversed by every full collection (a 1,000-row
    # list page triggers several).
    gc.collect()
    gc.freeze()
    stop = asyncio.Event()
    daily = asyncio.create_task(scheduler(stop)) if settings.scheduler == "on" else None
    # In the embedded default the server runs the jobs whose (re)try time has come itself
    # (webhook retries, e-mails refused for now): nothing waits for a cron or a worker.
    due = asyncio.create_task(work(stop)) if settings.jobs == "inline" else None
    with stopping.noticed(asyncio.get_running_loop()):  # SSE streams end when asked to stop
        yield
    stop.set()
    for loop in (daily, due):
        if loop is not None:
            await loop  # each finishes what it has in hand
    await pubsub.broker().close()
    await asyncio.to_thread(sandbox.shutdown)
    await database.dispose()


def create_app() -> FastAPI:
    from fastapi import FastAPI
    from starlette.middleware.cors import CORSMiddleware

    from plumbline import wiring
    from plumbline.api import ROUTERS
    from plumbline.config import settings
    from plumbline.errors import ErrorAnswer, install_error_handlers
    from plumbline.home.assets import assets
    from plumbline.home.endpoints import ASSETS
    from plumbline.kit.logging import configure_logging
    from plumbline.kit.middleware import BodyLimitMiddleware, RequestContextMiddleware
    from plumbline.kit.responses import ORJSONResponse
    from plumbline.openapi import build_openapi
    from plumbline.pages.kit import error_page
    from plumbline.pages.occupant import FORM_BYTES
    from plumbline.webhook.dispatch import SkipWebhooksMiddleware

    configure_logging(settings.log_level)
    app = FastAPI(
        title="Plumbline",
        version="1.0.0",
        openapi_url="/api/v1/openapi.json",
        docs_url=None,  # home.endpoints serves the docs from local assets
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
        default_response_class=ORJSONResponse,
        lifespan=lifespan,
        telemetry=None if settings.telemetry else TELEMETRY_OFF,
    )
    answer = ErrorAnswer(error_page)  # the pages' refusals as pages, the API's as JSON
    install_error_handlers(app, answer)
    wiring.connect()
    for prefix, router in ROUTERS:
        app.include_router(router, prefix=prefix)
    app.mount(ASSETS, assets, name="docs-assets")
    app.openapi = lambda: build_openapi(app)  # type: ignore[method-assign]
    app.add_middleware(BodyLimitMiddleware, limit_for=body_limits(FORM_BYTES), answer=answer)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.origins,
        allow_credentials=True,
        allow_methods=["*"],
        allow_headers=["*"],
        expose_headers=[
            "X-Request-Id",
            "Link",
            "ETag",
            "X-Next-Updated-Since",
            "RateLimit-Limit",
            "RateLimit-Remaining",
            "RateLimit-Reset",
            "Idempotent-Replayed",
        ],
    )
    app.add_middleware(SkipWebhooksMiddleware)
    app.add_middleware(RequestContextMiddleware, answer=answer)
    return app
