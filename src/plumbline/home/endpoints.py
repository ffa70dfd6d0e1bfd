"""The front door (`/`) and the API docs, served from assets shipped in a Python package."""

from __future__ import annotations

from fastapi import Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from starlette.responses import HTMLResponse, RedirectResponse

from plumbline import __version__
from plumbline.auth.deps import Public
from plumbline.home.schemas import Home
from plumbline.kit.responses import ORJSONResponse
from plumbline.routing import make_router

DOCS = "/api/v1/docs"
REDOC = "/api/v1/redoc"
OAUTH2_REDIRECT = "/api/v1/docs/oauth2-redirect"
OPENAPI = "/api/v1/openapi.json"
HEALTH = "/api/v1/health"
ASSETS = "/api/v1/docs/assets"

# Swagger UI and ReDoc pinned through fastapi-offline's copies (uv.lock), not a CDN, served at
# ASSETS by `home.assets`: the docs open on a machine without Internet access and tell no third
# party who reads them.

router = make_router(tags=["public"], dependencies=[Public])
docs_router = make_router(dependencies=[Public], include_in_schema=False)

# The browser itself refuses any request to another host, should a later copy of the scripts name
# one; inline script and styles are how both pages boot, workers ReDoc's search.
DOCS_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "worker-src 'self' blob:",
        "base-uri 'none'",
        "frame-ancestors 'self'",
    )
)

LINKS = {"docs": DOCS, "redoc": REDOC, "openapi": OPENAPI, "health": HEALTH}


def _wants_json(accept: str) -> bool:
    """JSON when the client names it and not HTML (browsers name both, with HTML first)."""
    return "application/json" in accept and "text/html" not in accept


@router.get(
    "/",
    response_model=Home,
    responses={303: {"description": "A browser: to the web application, `/app/`"}},
)
async def home(request: Request) -> RedirectResponse | ORJSONResponse:
    """The door into the web application (`/app/`: signed in, the last workspace; else sign
    in); name, version and links to the docs for `Accept: application/json`."""
    if _wants_json(request.headers.get("accept", "")):
        return ORJSONResponse({"name": "Plumbline", "version": __version__, **LINKS})
    return RedirectResponse("/app/", status_code=303)


@docs_router.get(DOCS)
async def swagger_ui() -> HTMLResponse:
    """Swagger UI."""
    page = get_swagger_ui_html(
        openapi_url=OPENAPI,
        title="Plumbline - Swagger UI",
        oauth2_redirect_url=OAUTH2_REDIRECT,
        swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
        swagger_css_url=f"{ASSETS}/swagger-ui.css",
        swagger_favicon_url=f"{ASSETS}/favicon.png",
        # Swagger UI would otherwise send the description to validator.swagger.io for a badge.
        swagger_ui_parameters={"validatorUrl": None},
    )
    page.headers["Content-Security-Policy"] = DOCS_POLICY
    return page


@docs_router.get(OAUTH2_REDIRECT)
async def swagger_ui_oauth2_redirect() -> HTMLResponse:
    """Swagger UI's OAuth2 redirect helper (an inline script: the docs' policy)."""
    page = get_swagger_ui_oauth2_redirect_html()
    page.headers["Content-Security-Policy"] = DOCS_POLICY
    return page


@docs_router.get(REDOC)
async def redoc() -> HTMLResponse:
    """ReDoc."""
    page = get_redoc_html(
        openapi_url=OPENAPI,
        title="Plumbline - ReDoc",
        redoc_js_url=f"{ASSETS}/redoc.standalone.js",
        redoc_favicon_url=f"{ASSETS}/favicon.png",
        with_google_fonts=False,
    )
    page.headers["Content-Security-Policy"] = DOCS_POLICY
    return page
