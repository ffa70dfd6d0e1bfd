"""The public-token principals of the portal routes (``plumbline.auth.public_token``)."""

from typing import Annotated

from fastapi import Depends

from plumbline.auth.principal import Principal
from plumbline.auth.public_token import public_token
from plumbline.member.invite_tokens import EMAIL_INVITE, INVITE_LINK

InviteLinkToken = Annotated[Principal, Depends(public_token(INVITE_LINK))]
EmailInviteToken = Annotated[Principal, Depends(public_token(EMAIL_INVITE))]
