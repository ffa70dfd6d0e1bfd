"""Occupant portal errors, each a subclass of the service's errors."""

from plumbline.errors import Conflict


class AlreadyReported(
    Conflict, message="This form was already sent: the request it made is being followed up"
): ...
