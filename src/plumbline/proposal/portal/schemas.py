"""The client's answers through the portal: accept (signed), decline, request changes."""

from typing import Annotated

from pydantic import Field, StringConstraints

from plumbline.kit.schema import Schema
from plumbline.proposal.read import DeclineReason

# 200 KB of PNG is at most 273,068 base64 characters after the data URL's 22-character prefix.
MAX_SIGNATURE_BYTES = 200 * 1024
SIGNATURE_PREFIX = "data:image/png;base64,"
MAX_SIGNATURE_CHARS = len(SIGNATURE_PREFIX) + 4 * ((MAX_SIGNATURE_BYTES + 2) // 3)

SignerName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
Comment = Annotated[str, StringConstraints(max_length=10000)]


class AcceptIn(Schema):
    signer_name: SignerName
    signature: str | None = Field(None, max_length=MAX_SIGNATURE_CHARS)


class DeclineIn(Schema):
    reason: DeclineReason
    comment: Comment | None = None


class RequestChangesIn(Schema):
    comment: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=10000)
    ]
