"""Every route names who may call it: a principal dependency, or Public on a listed public route."""

import re

from fastapi import routing
from fastapi.routing import APIRoute

from plumbline.auth.deps import public_caller
from plumbline.routing import dependency_calls

# Routes whose credential is an opaque token in the path, a signature, or nothing at all.
PUBLIC = [
    r"/",
    r"/api/v1/docs",
    r"/api/v1/docs/oauth2-redirect",
    r"/api/v1/redoc",
    r"/api/v1/health",
    r"/api/v1/ready",
    r"/api/v1/public/.*",
    r"/api/v1/invites/\{token\}",
    r"/api/v1/email-invites/\{token\}",
    r"/api/v1/occupant/\{token\}/.*",
    r"/api/v1/occupant/requests/\{token\}",
    r"/api/v1/storage/.*",
    r"/api/v1/calendar/\{token\}\.ics",
    r"/api/v1/cloud/\{provider\}/callback",
    r"/api/auth/.*",
    r"/api/payments/webhook",
    r"/api/payments/local/(checkout|portal)/\{token\}",
    r"/portal/.*",  # the pages on top of the public token routes (plumbline.pages)
    r"/account/.*",
    r"/static/.*",  # the pages' stylesheets, scripts and images
    r"/app/?",  # the door: it reads the session itself, and sends a visitor to sign in
    r"/app/language",  # a preference cookie of this browser, the sign-in page's too
]


class _Route:
    def __init__(self, path: str, route: APIRoute) -> None:
        self.path, self.methods, self.dependant = path, route.methods, route.dependant


def _api_routes(app) -> list[_Route]:  # type: ignore[no-untyped-def]
    """Every API route with its full path (FastAPI keeps included routers unflattened)."""
    return [
        _Route(str(ctx.path), ctx.original_route)
        for ctx in routing.iter_route_contexts(app.routes)
        if isinstance(ctx.original_route, APIRoute)
    ]


def test_every_route_declares_a_principal(app) -> None:  # type: ignore[no-untyped-def]
    missing = [
        f"{sorted(r.methods)} {r.path}"
        for r in _api_routes(app)
        if not any(
            getattr(c, "__plumbline_principal__", False) for c in dependency_calls(r.dependant)
        )
    ]
    assert missing == []


def test_only_listed_routes_are_public(app) -> None:  # type: ignore[no-untyped-def]
    public = [
        r.path for r in _api_routes(app) if public_caller in set(dependency_calls(r.dependant))
    ]
    unlisted = [p for p in public if not any(re.fullmatch(pattern, p) for pattern in PUBLIC)]
    assert unlisted == []
    assert "/api/v1/health" in public
    assert len(_api_routes(app)) > len(public)


def test_no_route_answers_422_in_the_openapi(app) -> None:  # type: ignore[no-untyped-def]
    """Validation is 400; the one 422 is a reused ``Idempotency-Key`` (issue 27), declared on
    every POST under /api/v1 with the header."""
    schema = app.openapi()
    assert schema["openapi"] == "3.1.0"
    assert schema["info"]["version"] == "1.0.0"
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            keyed = method == "post" and path.startswith("/api/v1/")
            headers = [p["name"] for p in operation.get("parameters", ()) if p["in"] == "header"]
            assert ("Idempotency-Key" in headers) is keyed, f"{method} {path}"
            assert ("422" in operation["responses"]) is keyed, f"{method} {path}"
            if keyed:
                assert "IDEMPOTENCY_KEY_REUSED" in operation["responses"]["422"]["description"]
            assert "400" in operation["responses"], f"{method} {path}"
