from plumbline.errors import AppError, Conflict, InvalidField

HEADER = "Idempotency-Key"


class KeyMalformed(InvalidField):
    def __init__(self) -> None:
        super().__init__(HEADER, "send one value of 1 to 255 printable ASCII characters")


class KeyReused(
    AppError,
    status=422,
    code="IDEMPOTENCY_KEY_REUSED",
    message=(
        "This Idempotency-Key was first sent with another request (another body or route);"
        " send a new key for a new request"
    ),
): ...


class AnswerUnreadable(
    Conflict,
    code="IDEMPOTENCY_KEY_UNREADABLE",
    message=(
        "The first answer to this Idempotency-Key can no longer be read (the server's secret"
        " key changed); send a new key"
    ),
): ...
