"""The ``demo_links`` table: the links `plumbline demo` printed, for later runs to print again."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType


class DemoLink(IdMixin, Base):
    """One link the demo printed when it seeded its project. The routes that made it keep only
    its token's hash, so the demo keeps its own copy: the path encrypted (the token in it is a
    credential), the token's hash and the table it was made in, to tell whether it still opens."""

    __tablename__ = "demo_links"
    __table_args__ = (Index("ix_demo_links_project_id", "project_id", "position"),)

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("workspaces.id", ondelete="CASCADE")
    )
    position: Mapped[int]
    label: Mapped[str] = mapped_column(String(200))
    path: Mapped[str] = mapped_column(Text)  # encrypted: the link without the public URL
    kind: Mapped[str | None] = mapped_column(String(40))  # the token's table, None: no token
    token_hash: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime]
