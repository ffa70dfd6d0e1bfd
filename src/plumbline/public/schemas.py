"""Request and response shapes of the public routes."""

from typing import Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints

from plumbline.kit.schema import Schema


class Health(BaseModel):
    ok: bool
    version: str
    database: str


class Ready(BaseModel):
    ok: bool
    checks: dict[str, str] = Field(
        description="database, migrations, redis, storage: `ok`, `not configured` (redis) or "
        "what is wrong"
    )


MAX_MESSAGES = 20


class MarketingChatMessage(Schema):
    role: Literal["user", "assistant"]
    content: Annotated[str, StringConstraints(min_length=1, max_length=2000)]


class MarketingChatRequest(Schema):
    """The conversation so far, oldest first; the last message is the visitor's question."""

    messages: list[MarketingChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)


class MarketingChatReply(BaseModel):
    reply: str
