"""Calendar feed errors."""

from plumbline.errors import Forbidden, NotFound


class FeedNotFound(NotFound, message="This calendar feed does not exist or was revoked"): ...


class ExternalProjectFeed(
    Forbidden,
    message="External collaborators cannot create a project's calendar feed; "
    "subscribe to your own (/me/calendar-feeds)",
): ...
