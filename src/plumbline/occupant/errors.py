"""Occupant-link errors, each a subclass of the service's errors."""

from plumbline.errors import Conflict, Expired, NotFound


class LinkNotFound(NotFound, message="Occupant link not found"): ...


class LinkExpired(Expired, message="This link has expired: its code would open nothing"): ...


class LinkNotPrintable(
    Conflict,
    code="LINK_NOT_PRINTABLE",
    message="This link was made before links had printable codes: make a new one to print it",
): ...


class AlreadyReported(
    Conflict, message="This form was already sent: the request it made is being followed up"
): ...
