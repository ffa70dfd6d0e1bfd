"""The ``saved_views`` table: a list page's query string saved under a name, by a person for
themselves or shared with the project's team."""

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import Base, IdMixin, IdType


class SavedView(IdMixin, Base):
    __tablename__ = "saved_views"
    __table_args__ = (Index("ix_saved_views_project_page", "project_id", "page"),)

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(IdType, ForeignKey("users.id", ondelete="CASCADE"))
    # The list it belongs to ("issues", "rfis"...) and its filters, sort and columns.
    page: Mapped[str] = mapped_column(String(40))
    name: Mapped[str] = mapped_column(String(80))
    query: Mapped[str] = mapped_column(String(2000))
    shared: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime]
