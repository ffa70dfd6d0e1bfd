"""Response shapes of the public invite routes."""

from plumbline.kit.schema import Schema


class InvitePreview(Schema):
    workspace_name: str
    role: str
    expires_at: str


class EmailInvitePreview(InvitePreview):
    email: str
    kind: str


class InviteAccepted(Schema):
    workspace_id: str
    role: str
