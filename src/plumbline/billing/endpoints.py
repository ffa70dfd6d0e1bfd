"""``/api/payments``: checkout, portal, the processor's webhook and the local processor's pages."""

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse

from plumbline.auth.deps import CurrentUser, Public
from plumbline.billing import local
from plumbline.billing.auth import BillingOn
from plumbline.billing.schemas import CheckoutCreate, PortalCreate, Url
from plumbline.billing.service import billing as billing_service
from plumbline.billing.signature import HEADER
from plumbline.db import DB
from plumbline.kit.responses import ORJSONResponse
from plumbline.kit.schema import Ok
from plumbline.openapi import errors
from plumbline.routing import make_router

OFF = "BILLING_DISABLED: billing is off on this server (PLUMBLINE_BILLING=off)"
router = make_router(
    tags=["payments"],
    dependencies=[BillingOn],
    responses=errors(texts={503: OFF}),
)

PROVIDER_ERRORS = errors(
    texts={
        502: "The payment provider failed",
        503: f"{OFF}, or NOT_CONFIGURED: the provider is not configured",
    }
)
HTML = {"text/html": {"schema": {"type": "string"}}}
PAGE_ERRORS = errors(texts={410: "The session has expired"})
EVENT_BODY = {
    "requestBody": {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
        "description": "A processor event, signed in the Stripe-Signature header",
    }
}


@router.post("/checkout", response_model=Url, responses=PROVIDER_ERRORS)
async def checkout(body: CheckoutCreate, principal: CurrentUser, db: DB) -> ORJSONResponse:
    """A checkout URL for a paid plan (SUPER_ADMIN of the workspace)."""
    return ORJSONResponse({"url": await billing_service.checkout(db, principal, body)})


@router.post("/portal", response_model=Url, responses=PROVIDER_ERRORS)
async def portal(body: PortalCreate, principal: CurrentUser, db: DB) -> ORJSONResponse:
    """A billing portal URL: payment method, invoices, plan changes (SUPER_ADMIN)."""
    return ORJSONResponse({"url": await billing_service.portal(db, principal, body)})


@router.post(
    "/webhook",
    response_model=Ok,
    dependencies=[Public],
    openapi_extra=EVENT_BODY,
    responses=errors(texts={503: f"{OFF}, or NOT_CONFIGURED: no webhook secret"}),
)
async def webhook(request: Request, db: DB) -> ORJSONResponse:
    """The payment processor's events, verified by signature and applied once each."""
    await billing_service.receive(db, await request.body(), request.headers.get(HEADER))
    return ORJSONResponse({"ok": True})


@router.get(
    "/local/checkout/{token}",
    response_class=HTMLResponse,
    dependencies=[Public],
    responses={200: {"content": HTML, "description": "The page"}, **PAGE_ERRORS},
)
async def local_checkout_page(token: str, db: DB) -> HTMLResponse:
    """The local processor's checkout page (PLUMBLINE_BILLING=local)."""
    return HTMLResponse(await local.checkout_page(db, token))


@router.post(
    "/local/checkout/{token}",
    response_class=RedirectResponse,
    status_code=303,
    dependencies=[Public],
    responses={303: {"description": "Paid: on to the success page"}, **PAGE_ERRORS},
)
async def local_pay(token: str, request: Request) -> RedirectResponse:
    """Pay: the app sends its webhook a signed checkout.session.completed."""
    return RedirectResponse(await local.pay(request, token), status_code=303)


@router.get(
    "/local/portal/{token}",
    response_class=HTMLResponse,
    dependencies=[Public],
    responses={200: {"content": HTML, "description": "The page"}, **PAGE_ERRORS},
)
async def local_portal_page(token: str, db: DB) -> HTMLResponse:
    """The local processor's billing portal page (PLUMBLINE_BILLING=local)."""
    return HTMLResponse(await local.portal_page(db, token))


@router.post(
    "/local/portal/{token}",
    response_class=RedirectResponse,
    status_code=303,
    dependencies=[Public],
    responses={303: {"description": "Canceled: back to the workspace"}, **PAGE_ERRORS},
)
async def local_cancel(token: str, request: Request) -> RedirectResponse:
    """Cancel the subscription: the app sends its webhook a signed subscription deletion."""
    return RedirectResponse(await local.cancel(request, token), status_code=303)
