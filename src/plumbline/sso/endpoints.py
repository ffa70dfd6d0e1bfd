"""``/workspaces/{workspaceId}/sso`` (the provider and its domains) and ``/api/auth/sso/*``
(the sign-in: start, by workspace or e-mail, and the provider's callback)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import RedirectResponse, Response

from plumbline.auth.deps import Public
from plumbline.auth.session import set_session_cookie
from plumbline.db import DB, UoW
from plumbline.identity.endpoints import AuthRoute
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.openapi import errors
from plumbline.routing import make_router
from plumbline.sso import oidc
from plumbline.sso.auth import CanConfigureSso
from plumbline.sso.schemas import SsoConfigPut, SsoConfigRead, SsoDomainRead
from plumbline.sso.service import sso

router = make_router(prefix="/workspaces/{workspaceId}/sso", tags=["sso"])
auth_router = APIRouter(route_class=AuthRoute, default_response_class=ORJSONResponse, tags=["auth"])

REDIRECT: dict[int | str, dict[str, Any]] = {
    302: {"description": "To the identity provider's authorization endpoint"}
}
CallbackURL = Annotated[str | None, Query(alias="callbackURL", max_length=2000)]


@router.get("", response_model=SsoConfigRead, responses=errors(404))
async def read_sso(ctx: CanConfigureSso, db: DB) -> ORJSONResponse:
    """The workspace's identity provider and domains (never the client secret)."""
    return ORJSONResponse(await sso.read(db, ctx))


@router.put("", response_model=SsoConfigRead, responses=errors(400, 409))
async def put_sso(ctx: CanConfigureSso, db: DB, body: SsoConfigPut) -> ORJSONResponse:
    """Set the identity provider (issuer, client id and secret, e-mail domains, required,
    default role); the secret is stored encrypted and never shown again."""
    return ORJSONResponse(await sso.put(db, ctx, body))


@router.delete("", response_model=Ok, responses=errors(404))
async def delete_sso(ctx: CanConfigureSso, db: DB) -> ORJSONResponse:
    """Remove the identity provider and its domains; passwords work again."""
    await sso.delete(db, ctx)
    return ORJSONResponse({"ok": True})


@router.post("/domains/{domain}/verify", response_model=SsoDomainRead, responses=errors(400, 404))
async def verify_domain(ctx: CanConfigureSso, db: DB, domain: str) -> ORJSONResponse:
    """Prove a domain by its TXT record ``_plumbline-verification.<domain>``."""
    return ORJSONResponse(await sso.verify_domain(db, ctx, domain))


def _signed_in(result: oidc.SignedIn) -> Response:
    response = RedirectResponse(result.location, status_code=302)
    set_session_cookie(response, result.token, remember=True)
    return response


# The callback before ``/sso/{workspaceSlug}``, which would take "callback" for a slug.
@auth_router.get(
    "/sso/callback",
    dependencies=[Public],
    status_code=302,
    responses={
        302: {"description": "Signed in: the session cookie is set"},
        **errors(400, 401, 403, 404, 410, 502),
    },
)
async def sso_callback(
    request: Request,
    uow: UoW,
    state: Annotated[str, Query(min_length=1, max_length=200)],
    code: Annotated[str | None, Query(max_length=2000)] = None,
    error: Annotated[str | None, Query(max_length=200)] = None,
) -> Response:
    """The provider's redirect: checks the ID token, signs the user in (created and joined to
    the workspace on the first sign-in) and redirects to the callbackURL given at the start."""
    return _signed_in(await oidc.callback(uow, request, state=state, code=code, error=error))


@auth_router.get(
    "/sso", dependencies=[Public], status_code=302, responses={**REDIRECT, **errors(404, 502)}
)
async def sso_by_email(
    db: DB,
    email: Annotated[str, Query(min_length=3, max_length=320)],
    callback_url: CallbackURL = None,
) -> Response:
    """Start single sign-on with the provider of the workspace that verified the e-mail's
    domain."""
    return RedirectResponse(await oidc.start_by_email(db, email, callback_url), status_code=302)


@auth_router.get(
    "/sso/{workspaceSlug}",
    dependencies=[Public],
    status_code=302,
    responses={**REDIRECT, **errors(404, 502)},
)
async def sso_by_workspace(
    db: DB, workspaceSlug: str, callback_url: CallbackURL = None
) -> Response:
    """Start single sign-on with the workspace's identity provider."""
    location = await oidc.start_by_slug(db, workspaceSlug, callback_url)
    return RedirectResponse(location, status_code=302)
