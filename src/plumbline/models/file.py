"""Folders, files, versions, uploads, attachments, locks and viewer states."""

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, ForeignKey, Index, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from plumbline.db import LIVE, Base, IdMixin, IdType, JSONType, ProjectRecordMixin, TimestampMixin
from plumbline.kit import search


class Folder(IdMixin, TimestampMixin, Base):
    __tablename__ = "folders"
    __table_args__ = (
        Index("ix_folders_project_id_id", "project_id", "id"),
        Index("ix_folders_project_parent_id", "project_id", "parent_id", "id"),
        Index("ix_folders_project_updated_id", "project_id", "updated_at", "id"),
    )

    project_id: Mapped[str] = mapped_column(IdType, ForeignKey("projects.id", ondelete="CASCADE"))
    workspace_id: Mapped[str] = mapped_column(IdType)
    parent_id: Mapped[str | None] = mapped_column(
        IdType, ForeignKey("folders.id", ondelete="CASCADE")
    )
    name: Mapped[str] = mapped_column(String(255))
    created_by: Mapped[str | None] = mapped_column(IdType)


class File(IdMixin, ProjectRecordMixin, TimestampMixin, Base):
    """A named document in a project folder; its bytes live in numbered FileVersions."""

    __tablename__ = "files"
    __table_args__ = (
        Index("ix_files_project_folder_name", "project_id", "folder_id", "normalized_name"),
        Index("ix_files_project_updated_id", "project_id", "updated_at", "id"),
        Index(
            "ix_files_project_id_id", "project_id", "id", sqlite_where=LIVE, postgresql_where=LIVE
        ),
        *search.indexes("files", "normalized_name"),
    )

    folder_id: Mapped[str | None] = mapped_column(
        IdType, ForeignKey("folders.id", ondelete="SET NULL")
    )
    name: Mapped[str] = mapped_column(String(255))
    normalized_name: Mapped[str] = mapped_column(String(255))
    disciplines: Mapped[list[str]] = mapped_column(JSONType, default=list)
    current_version: Mapped[int] = mapped_column(default=0)
    version_seq: Mapped[int] = mapped_column(default=0)
    latest_version_id: Mapped[str | None] = mapped_column(IdType)
    last_opened_at: Mapped[datetime | None]


class FileVersion(IdMixin, Base):
    __tablename__ = "file_versions"
    __table_args__ = (UniqueConstraint("file_id", "version"),)

    file_id: Mapped[str] = mapped_column(IdType, ForeignKey("files.id", ondelete="CASCADE"))
    project_id: Mapped[str] = mapped_column(IdType, index=True)
    workspace_id: Mapped[str] = mapped_column(IdType)
    version: Mapped[int]
    storage_key: Mapped[str] = mapped_column(String(1000))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    content_type: Mapped[str] = mapped_column(String(200))
    sha256: Mapped[str | None] = mapped_column(String(64))
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]


class Upload(IdMixin, Base):
    """A presigned upload in flight; completing it records a file version or an attachment.

    ``purpose`` is "file", "attachment" or "logo"; ``result`` keeps the completion answer so
    completing twice returns the same thing."""

    __tablename__ = "uploads"

    workspace_id: Mapped[str] = mapped_column(IdType, index=True)
    project_id: Mapped[str | None] = mapped_column(IdType)
    purpose: Mapped[str] = mapped_column(String(20))
    entity_type: Mapped[str | None] = mapped_column(String(40))
    entity_id: Mapped[str | None] = mapped_column(IdType)
    folder_id: Mapped[str | None] = mapped_column(IdType)
    file_id: Mapped[str | None] = mapped_column(IdType)
    file_name: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(200))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    storage_key: Mapped[str] = mapped_column(String(1000))
    status: Mapped[str] = mapped_column(String(20), default="PENDING")
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONType)
    expires_at: Mapped[datetime]
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_key_id: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]


class Attachment(IdMixin, Base):
    """A photo or document attached to a record (issue, RFI, punch item, inspection run...)."""

    __tablename__ = "attachments"
    __table_args__ = (Index("ix_attachments_entity", "entity_type", "entity_id"),)

    workspace_id: Mapped[str] = mapped_column(IdType)
    project_id: Mapped[str | None] = mapped_column(IdType)
    entity_type: Mapped[str] = mapped_column(String(40))
    entity_id: Mapped[str] = mapped_column(IdType)
    upload_id: Mapped[str] = mapped_column(IdType, unique=True)
    file_name: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(200))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    storage_key: Mapped[str] = mapped_column(String(1000))
    created_by: Mapped[str | None] = mapped_column(IdType)
    created_at: Mapped[datetime]
    deleted_at: Mapped[datetime | None]


class FileLock(Base):
    __tablename__ = "file_locks"

    file_version_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("file_versions.id", ondelete="CASCADE"), primary_key=True
    )
    locked_by: Mapped[str] = mapped_column(IdType)
    locked_at: Mapped[datetime]
    expires_at: Mapped[datetime]


class ViewerState(Base):
    """Markups of one file version, with a revision for optimistic concurrency."""

    __tablename__ = "viewer_states"

    file_version_id: Mapped[str] = mapped_column(
        IdType, ForeignKey("file_versions.id", ondelete="CASCADE"), primary_key=True
    )
    state: Mapped[dict[str, Any]] = mapped_column(JSONType, default=dict)
    revision: Mapped[int] = mapped_column(default=0)
    updated_by: Mapped[str | None] = mapped_column(IdType)
    updated_at: Mapped[datetime]
