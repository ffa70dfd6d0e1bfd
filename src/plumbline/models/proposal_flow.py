"""A proposal after the draft: revisions sent, comments, the client thread, reminders sent."""

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType, JSONType


class ProposalRevision(IdMixin, Base):
    """The whole proposal as it was sent, once per send (``number`` counts from 1)."""

    __tablename__ = "proposal_revisions"
    __table_args__ = (
        Index("ix_proposal_revisions_proposal_id_id", "proposal_id", "id"),
        Index("ix_proposal_revisions_proposal_created_id", "proposal_id", "created_at", "id"),
    )

    proposal_id: Mapped[str] = mapped_column(IdType, ForeignKey("proposals.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSONType)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]


class ProposalComment(IdMixin, Base):
    """An internal note on a proposal; never shown to the client."""

    __tablename__ = "proposal_comments"
    __table_args__ = (
        Index("ix_proposal_comments_proposal_id_id", "proposal_id", "id"),
        Index("ix_proposal_comments_proposal_created_id", "proposal_id", "created_at", "id"),
    )

    proposal_id: Mapped[str] = mapped_column(IdType, ForeignKey("proposals.id", ondelete="CASCADE"))
    body: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]


class ProposalMessage(IdMixin, Base):
    """One message of the thread between the client (portal) and the contractor."""

    __tablename__ = "proposal_messages"
    __table_args__ = (
        Index("ix_proposal_messages_proposal_id_id", "proposal_id", "id"),
        Index("ix_proposal_messages_proposal_created_id", "proposal_id", "created_at", "id"),
    )

    proposal_id: Mapped[str] = mapped_column(IdType, ForeignKey("proposals.id", ondelete="CASCADE"))
    author: Mapped[str] = mapped_column(String(20))  # CLIENT | CONTRACTOR
    author_name: Mapped[str | None] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]


class ProposalReminder(Base):
    """A reminder sent about a proposal: the primary key makes each kind go out once, however
    many reminder runs overlap."""

    __tablename__ = "proposal_reminders"

    proposal_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("proposals.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    created_at: Mapped[datetime]
