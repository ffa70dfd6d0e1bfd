"""Errors of the payments routes: billing off, bad signatures and events, processor failures."""

from plumbline.errors import AppError, BadRequest, Conflict, NotConfigured


class BillingOff(
    NotConfigured,
    code="BILLING_DISABLED",
    message="Billing is off on this server: set PLUMBLINE_BILLING=stripe (with the Stripe "
    "settings) or PLUMBLINE_BILLING=local to turn it on",
):
    """Billing is off (the self-hosted default): answered as an unconfigured cloud connector
    is, a 503 saying how to turn it on."""


class BadSignature(
    BadRequest, code="INVALID_SIGNATURE", message="The webhook signature is not valid"
): ...


class MalformedEvent(BadRequest, message="The webhook body is not a processor event"): ...


class EventNotApplied(
    AppError,
    status=500,
    code="EVENT_NOT_APPLIED",
    message="The event could not be applied; it will be retried",
):
    """A verified event this service cannot apply now (a price it does not know): 500, the
    event id stays unrecorded, so the processor delivers it again."""


class ProviderFailed(
    AppError,
    status=502,
    code="PAYMENT_PROVIDER_ERROR",
    message="The payment provider did not answer as expected",
): ...


class NoSubscription(
    Conflict,
    code="NO_SUBSCRIPTION",
    message="This workspace has no subscription yet: start with a checkout",
): ...
