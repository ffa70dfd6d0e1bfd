"""Entity tags (RFC 9110 §8.8.3) and the ``If-Match`` / ``If-None-Match`` preconditions
(§13.1.1, §13.1.2), evaluated in the order of §13.2.2."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from enum import Enum

# One element of a field's list: an entity tag (``"x"`` or ``W/"x"``; a comma may sit inside the
# quotes) or nothing (empty elements are allowed), between optional spaces, then a comma or the end.
_ELEMENT = re.compile(r'[ \t]*(?:(W/)?("[\x21\x23-\x7e\x80-\xff]*"))?[ \t]*(?:,|\Z)')


def of(body: bytes) -> str:
    """The strong entity tag of a representation: a 128-bit hash of its bytes, quoted."""
    digest = hashlib.blake2b(body, digest_size=16).digest()
    return '"' + base64.urlsafe_b64encode(digest).rstrip(b"=").decode() + '"'


class Malformed(ValueError):
    """A field that is neither ``*`` nor a list of entity tags."""


@dataclass(frozen=True, slots=True)
class Condition:
    """A parsed ``If-Match`` or ``If-None-Match``: ``*`` (any), or its entity tags, each
    ``(weak, '"opaque"')``."""

    any: bool
    tags: tuple[tuple[bool, str], ...] = ()

    @classmethod
    def parse(cls, value: str) -> Condition:
        if value.strip(" \t") == "*":
            return cls(any=True)
        tags, position = [], 0
        while position < len(value):
            element = _ELEMENT.match(value, position)
            if element is None:
                raise Malformed(value)
            if element[2] is not None:
                tags.append((element[1] is not None, element[2]))
            position = element.end()
        if not tags:
            raise Malformed(value)
        return cls(any=False, tags=tuple(tags))

    def strong_match(self, etag: str) -> bool:
        """``If-Match``: a weak tag never matches."""
        return self.any or any(not weak and tag == etag for weak, tag in self.tags)

    def weak_match(self, etag: str) -> bool:
        """``If-None-Match``: ``W/"x"`` matches ``"x"``."""
        return self.any or any(tag == etag for _, tag in self.tags)


class Outcome(Enum):
    PROCEED = "proceed"
    NOT_MODIFIED = "304"
    FAILED = "412"


def evaluate(
    if_match: Condition | None,
    if_none_match: Condition | None,
    current: str | None,
    *,
    safe: bool,
) -> Outcome:
    """The preconditions against ``current``, the entity tag of the resource's representation
    (None when it has none). ``safe``: a GET, which answers 304 where a write answers 412."""
    if if_match is not None and (current is None or not if_match.strong_match(current)):
        return Outcome.FAILED
    if if_none_match is not None and current is not None and if_none_match.weak_match(current):
        return Outcome.NOT_MODIFIED if safe else Outcome.FAILED
    return Outcome.PROCEED
