"""Identity errors; on ``/api/auth`` their bodies also carry ``message`` (see endpoints)."""

from plumbline.errors import BadRequest, Conflict, Expired, Unauthorized


class InvalidCredentials(
    Unauthorized, code="INVALID_EMAIL_OR_PASSWORD", message="Invalid email or password"
): ...


class UserAlreadyExists(Conflict, code="USER_ALREADY_EXISTS", message="User already exists"): ...


class InvalidToken(BadRequest, code="INVALID_TOKEN", message="Invalid or already used token"): ...


class TokenUsed(InvalidToken):
    """Same answer as an unknown token on the JSON route; the account pages say which."""


class TokenExpired(Expired, message="This link has expired"): ...


class InvalidPassword(BadRequest, code="INVALID_PASSWORD", message="Invalid password"): ...
