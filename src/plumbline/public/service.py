"""The public marketing chat: 24 questions per 15 minutes per address, answered from the FAQ."""

from __future__ import annotations

from fastapi import Request

from plumbline.errors import InvalidField
from plumbline.kit import ratelimit
from plumbline.public.chat import faq
from plumbline.public.schemas import MarketingChatRequest

CHAT_LIMIT = 24
CHAT_WINDOW = 15 * 60


async def marketing_reply(
    request: Request, body: MarketingChatRequest
) -> tuple[str, dict[str, str]]:
    """The reply and the rate-limit headers (429 with Retry-After when over the limit)."""
    verdict = await ratelimit.hit(
        ratelimit.per_ip(request, "marketing-chat"), CHAT_LIMIT, CHAT_WINDOW
    )
    last = body.messages[-1]
    if last.role != "user":
        field = f"messages.{len(body.messages) - 1}.role"
        message = "the last message must be the visitor's (role user)"
        raise InvalidField(field, message, error=message)
    return faq().reply(last.content), verdict.headers()
