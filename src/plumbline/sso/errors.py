"""SSO refusals; on ``/api/auth`` their bodies also carry ``message``."""

from plumbline.errors import AppError, BadRequest, Conflict, Expired, Forbidden, NotFound


class SsoNotConfigured(
    NotFound, code="SSO_NOT_CONFIGURED", message="Single sign-on is not configured here"
): ...


class DomainTaken(
    Conflict, code="DOMAIN_TAKEN", message="Another workspace signs in this e-mail domain"
): ...


class ClientSecretRequired(
    BadRequest, code="VALIDATION_FAILED", message="clientSecret is required"
): ...


class InvalidState(
    BadRequest, code="INVALID_STATE", message="This sign-in is unknown or was already used"
): ...


class StateExpired(Expired, code="STATE_EXPIRED", message="This sign-in has expired"): ...


class InvalidIdToken(
    AppError, status=401, code="INVALID_ID_TOKEN", message="The provider's ID token is invalid"
): ...


class ProviderError(
    AppError,
    status=502,
    code="SSO_PROVIDER_ERROR",
    message="The identity provider refused or could not be reached",
): ...


class EmailDomainNotAllowed(
    Forbidden,
    code="EMAIL_DOMAIN_NOT_ALLOWED",
    message="This e-mail address is not in the workspace's verified domains",
): ...


class UserDeactivated(
    Forbidden, code="USER_DEACTIVATED", message="This account was deactivated in this workspace"
): ...


class SsoRequired(
    Forbidden,
    code="SSO_REQUIRED",
    message="This workspace signs in with its identity provider: use single sign-on",
): ...


class DomainNotProved(
    BadRequest,
    code="DOMAIN_NOT_VERIFIED",
    message="The domain's TXT record does not carry this workspace's verification value",
): ...


class SsoDenied(
    BadRequest, code="SSO_DENIED", message="The identity provider did not sign you in"
): ...
