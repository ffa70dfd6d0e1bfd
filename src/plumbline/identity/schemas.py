"""Request and response shapes of ``/api/auth/*`` (Better Auth's field names) and ``/me``."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from plumbline.kit.schema import EmailAddress, Flag, Schema

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _text(value: str) -> str:
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


def _url(value: str) -> str:
    if _CONTROL.search(value) or " " in value:
        raise ValueError("must not contain spaces or control characters")
    return value


def _image(value: str) -> str:
    if not re.match(r"^https?://[^\s\x00-\x1f\x7f]+$", value):
        raise ValueError("must be an http(s) URL")
    return value


Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=200),
    AfterValidator(_text),
]
# Checked against the password policy by the service (so the message names the rule).
NewPassword = Annotated[str, Field(max_length=1024)]
Password = Annotated[str, Field(min_length=1, max_length=1024)]
Url = Annotated[str, Field(max_length=2000), AfterValidator(_url)]
Image = Annotated[str, Field(max_length=2000), AfterValidator(_image)]
Token = Annotated[str, Field(min_length=1, max_length=200)]
Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class SignUp(Schema):
    name: Name
    email: EmailAddress
    password: NewPassword
    image: Image | None = None
    callback_url: Url | None = Field(default=None, alias="callbackURL")
    remember_me: Flag = True


class SignIn(Schema):
    email: EmailAddress
    password: Password
    remember_me: Flag = True
    callback_url: Url | None = Field(default=None, alias="callbackURL")


class SendVerificationEmail(Schema):
    email: EmailAddress
    callback_url: Url | None = Field(default=None, alias="callbackURL")


class RequestPasswordReset(Schema):
    email: EmailAddress
    redirect_to: Url | None = None


class ResetPassword(Schema):
    new_password: NewPassword
    token: Token


class ChangePassword(Schema):
    current_password: Password
    new_password: NewPassword
    revoke_other_sessions: Flag = False


class UpdateUser(Schema):
    name: Name | None = None
    image: Image | None = None


class RevokeSession(Schema):
    token: Id = Field(description="The session's id, as returned by list-sessions")


class UserRead(Schema):
    id: str
    name: str
    email: str
    email_verified: bool
    image: str | None
    created_at: str
    updated_at: str


class SessionRead(Schema):
    id: str
    user_id: str
    token: str = Field(description="The session's id (a non-secret handle, never the cookie)")
    expires_at: str
    ip_address: str | None
    user_agent: str | None
    created_at: str
    updated_at: str


class TokenAndUser(BaseModel):
    token: str | None = Field(description="The new session's id, or null")
    user: UserRead


class SignedIn(BaseModel):
    redirect: bool
    token: str = Field(description="The session's id (the secret travels only in the cookie)")
    url: str | None
    user: UserRead


class SessionAndUser(BaseModel):
    session: SessionRead
    user: UserRead


class Status(BaseModel):
    status: bool


class Success(BaseModel):
    success: bool


class MeUser(BaseModel):
    id: str
    name: str
    email: str


class MeWorkspace(BaseModel):
    id: str
    name: str
    slug: str
    role: str


class Me(BaseModel):
    user: MeUser
    workspaces: list[MeWorkspace]


class ViewerPresence(BaseModel):
    hidden: Flag
