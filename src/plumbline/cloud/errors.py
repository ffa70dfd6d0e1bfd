"""Errors of the cloud connectors: not configured, not connected, reconnect, provider failures."""

from plumbline.errors import AppError, BadRequest, Conflict, NotConfigured, NotFound


class ProviderNotConfigured(NotConfigured):
    def __init__(self, provider: str) -> None:
        super().__init__(
            f"The {provider} connector is not configured on this server", provider=provider
        )


class NotConnected(NotFound, message="You have not connected this cloud-storage account"): ...


class ReconnectRequired(
    Conflict, code="RECONNECT_REQUIRED", message="The cloud-storage account must be connected again"
):
    """The provider refused the stored tokens (revoked, expired refresh token): the user must
    authorize again; the connection is marked so ``GET /cloud/connections`` says so too."""


class InvalidState(
    BadRequest,
    code="INVALID_STATE",
    message="The authorization state is not valid; start the connection again",
): ...


class StateExpired(
    BadRequest,
    code="STATE_EXPIRED",
    message="The authorization took too long; start the connection again",
): ...


class AuthorizationFailed(
    BadRequest, code="AUTHORIZATION_FAILED", message="The provider did not grant access"
): ...


class ItemNotFound(NotFound, message="Cloud item not found"): ...


class ProviderUnavailable(
    AppError,
    status=502,
    code="PROVIDER_UNAVAILABLE",
    message="The cloud-storage provider could not be reached or answered an error",
): ...
