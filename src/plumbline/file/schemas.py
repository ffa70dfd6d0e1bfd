"""Request and response shapes of files, folders, uploads and attachments."""

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from plumbline.kit.clock import iso
from plumbline.kit.schema import ByteCount, Schema

# One rule for the names of files, folders and photos: a name, not a path, and nothing a
# terminal, a header or a listing would act on (control characters, DEL and C1 controls).
FileName = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=255, pattern=r"^[^/\\\x00-\x1f\x7f-\x9f]+$"
    ),
]
FolderName = FileName
ContentType = Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)]
Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Discipline = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Sha256 = Annotated[
    str, StringConstraints(strip_whitespace=True, to_lower=True, pattern=r"^[0-9a-fA-F]{64}$")
]
Template = Literal["construction-standard", "fm-handover", "design-phase"]
SizeBytes = ByteCount


class FolderCreate(Schema):
    name: FolderName
    parent_id: Id | None = None


class FolderUpdate(Schema):
    name: FolderName | None = None
    parent_id: Id | None = Field(default=None, description="null moves the folder to the root")


class ApplyStructure(Schema):
    template: Template
    parent_id: Id | None = Field(default=None, description="Where to create the tree (root)")


class FolderRead(Schema):
    id: str
    project_id: str
    parent_id: str | None
    name: str
    created_at: str
    created_by: str | None
    updated_at: str


class StructureApplied(Schema):
    template: str
    created: list[FolderRead]
    skipped: int = Field(description="Folders of the template that already existed")


class PreviewFile(Schema):
    file_name: FileName
    content_type: ContentType = ""
    size_bytes: SizeBytes


class UploadPreview(Schema):
    folder_id: Id | None = None
    files: list[PreviewFile] = Field(min_length=1, max_length=500)


class Suggestion(Schema):
    file_id: str
    name: str


class PreviewResult(Schema):
    file_name: str
    allowed: bool
    reason: str | None = None
    code: str | None = None
    action: Literal["new_file", "new_version"]
    file_id: str | None = None
    next_version: int | None = None
    content_type: str | None = None
    suggestions: list[Suggestion]


class UploadPreviewRead(Schema):
    folder_id: str | None
    files: list[PreviewResult]
    total_bytes: int
    storage_used_bytes: int
    storage_quota_bytes: int | None
    max_upload_bytes: int


class PresignUpload(Schema):
    file_name: FileName
    content_type: ContentType = ""
    size_bytes: SizeBytes
    project_id: Id
    folder_id: Id | None = None
    file_id: Id | None = Field(default=None, description="Upload a new version of this file")


class FileUploadTarget(Schema):
    upload_url: str
    s3_key: str
    upload_id: str
    method: str
    headers: dict[str, str]
    expires_at: str


class CompleteUpload(Schema):
    upload_id: Id
    sha256: Sha256 | None = Field(default=None, description="Hex SHA-256 of the uploaded bytes")


class UploadResult(Schema):
    id: str
    name: str
    version: int
    file_version_id: str
    folder_id: str | None
    size_bytes: int
    content_type: str


class FileUpdate(Schema):
    name: FileName | None = None
    folder_id: Id | None = Field(default=None, description="null moves the file to the root")
    disciplines: list[Discipline] | None = Field(default=None, max_length=20)


class FileRead(Schema):
    id: str
    project_id: str
    folder_id: str | None
    name: str
    disciplines: list[str]
    version: int
    file_version_id: str | None
    size_bytes: int | None
    content_type: str | None
    created_at: str
    created_by: str | None
    updated_at: str
    last_opened_at: str | None


class OpenedFile(Schema):
    file_id: str
    file_version_id: str
    version: int
    name: str
    content_type: str
    size_bytes: int


class ReadUrl(Schema):
    url: str
    expires_at: str


class VersionRead(Schema):
    id: str
    version: int
    size_bytes: int
    content_type: str
    created_at: str
    created_by: str | None


class ResolvedRevision(Schema):
    file_id: str
    file_version_id: str
    version: int
    versions: list[VersionRead]


class LogoRead(Schema):
    workspace_id: str
    logo: str | None
    logo_content_type: str | None


class AttachmentRead(Schema):
    id: str
    file_name: str
    content_type: str
    size_bytes: int
    created_at: str
    created_by: str | None
    url: str | None = None


def answer(model: type[Schema], row: Any, *left_out: str) -> dict[str, Any]:
    """The response ``model`` from a row or an entity holding its fields (but ``left_out``):
    camelCase keys, ``createdAt`` in ISO."""
    fields = model.model_fields.items()
    body = {f.alias or n: getattr(row, n) for n, f in fields if n not in left_out}
    body["createdAt"] = iso(body["createdAt"])
    if "updatedAt" in body:
        body["updatedAt"] = iso(body["updatedAt"])
    return body
