"""Errors of files, folders and uploads."""

from plumbline.errors import BadRequest, Conflict, Expired, PaymentRequired


class UploadExpired(Expired, message="This upload has expired; request a new upload URL"): ...


class UploadMissing(
    Conflict, code="UPLOAD_MISSING", message="No bytes have been uploaded for this upload yet"
): ...


class SizeMismatch(
    BadRequest, code="SIZE_MISMATCH", message="The uploaded size does not match the declared size"
): ...


class ChecksumMismatch(
    BadRequest,
    code="CHECKSUM_MISMATCH",
    message="The uploaded bytes do not match the given SHA-256",
): ...


class StorageQuotaExceeded(
    PaymentRequired,
    code="STORAGE_QUOTA_EXCEEDED",
    message="The workspace's storage quota would be exceeded",
): ...


class FolderNotEmpty(
    Conflict,
    code="FOLDER_NOT_EMPTY",
    message="The folder is not empty; delete its contents or pass recursive=true",
): ...


class FolderCycle(
    Conflict,
    code="FOLDER_CYCLE",
    message="A folder cannot be moved into itself or one of its subfolders",
): ...


class NameTaken(
    Conflict, code="NAME_TAKEN", message="Another item in this folder already has that name"
): ...


class LimitReached(
    Conflict, code="LIMIT_REACHED", message="No more attachments can be added here"
): ...


class FileLocked(
    Conflict, code="LOCKED", message="This file version is locked by another user"
): ...


class FileDeleted(
    Conflict, code="FILE_DELETED", message="The file was deleted while this upload was in progress"
): ...
