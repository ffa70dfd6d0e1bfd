"""Refusals of the webhook routes."""

from plumbline.errors import Conflict, NotFound


class WebhookNotFound(NotFound, message="Webhook not found"): ...


class DeliveryNotFound(NotFound, message="Delivery not found"): ...


class TooManyWebhooks(Conflict, message="A project has at most 20 webhooks"): ...


class WebhookDisabled(
    Conflict, message="This webhook is disabled; enable it (active: true) to send to it"
): ...


class DeliveryPending(
    Conflict,
    message="This delivery is still being sent; redeliver it once it is delivered or failed",
): ...
