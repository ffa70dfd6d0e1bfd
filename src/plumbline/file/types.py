"""What may be uploaded (PRODUCT §7) and how file names are compared.

A file is accepted when its extension is one of ``ALLOWED`` and its declared content type is one
of that extension's types, or a generic one browsers send for unknown binaries (then the stored
content type is the extension's canonical one).

Names: ``normalize`` decides "the same file" (a new version): Unicode NFKC, case-folded,
whitespace collapsed, extension kept. ``near_key`` decides "probably the same drawing" (a
suggestion only): the normalised name without its extension, without revision suffixes such as
`` rev B``, ``_v2``, ``-R3``, `` (1)``, `` copy``, and without punctuation.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})

_PDF = ("application/pdf", "application/x-pdf")
_DWG = (
    "image/vnd.dwg",
    "application/acad",
    "application/x-acad",
    "application/autocad_dwg",
    "application/dwg",
    "application/x-dwg",
    "image/x-dwg",
    "drawing/x-dwg",
)
_DXF = ("image/vnd.dxf", "application/dxf", "application/x-dxf", "image/x-dxf", "drawing/x-dxf")
_IFC = (
    "application/x-step",
    "model/ifc",
    "application/ifc",
    "application/x-ifc",
    "application/p21",
)
_OOXML = "application/vnd.openxmlformats-officedocument"
_HEIC = ("image/heic", "image/heif", "image/heic-sequence", "image/heif-sequence")
_ZIP = ("application/zip", "application/x-zip-compressed", "application/x-zip", "multipart/x-zip")

# extension -> accepted content types, the first being the canonical one.
ALLOWED: dict[str, tuple[str, ...]] = {
    "pdf": _PDF,
    "png": ("image/png",),
    "jpg": ("image/jpeg", "image/pjpeg"),
    "jpeg": ("image/jpeg", "image/pjpeg"),
    "webp": ("image/webp",),
    "gif": ("image/gif",),
    "tif": ("image/tiff",),
    "tiff": ("image/tiff",),
    "heic": _HEIC,
    "heif": ("image/heif", *_HEIC),
    "ifc": _IFC,
    "dwg": _DWG,
    "dxf": _DXF,
    "doc": ("application/msword",),
    "docx": (f"{_OOXML}.wordprocessingml.document",),
    "xls": ("application/vnd.ms-excel",),
    "xlsx": (f"{_OOXML}.spreadsheetml.sheet",),
    "ppt": ("application/vnd.ms-powerpoint",),
    "pptx": (f"{_OOXML}.presentationml.presentation",),
    "odt": ("application/vnd.oasis.opendocument.text",),
    "ods": ("application/vnd.oasis.opendocument.spreadsheet",),
    "odp": ("application/vnd.oasis.opendocument.presentation",),
    "rtf": ("application/rtf", "text/rtf"),
    "csv": (
        "text/csv",
        "application/csv",
        "text/comma-separated-values",
        "application/vnd.ms-excel",
        "text/plain",
    ),
    "txt": ("text/plain",),
    "zip": _ZIP,
}
IMAGE_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/webp", "image/gif", "image/tiff", *_HEIC}
)

_SPACES = re.compile(r"\s+")
_REVISION = re.compile(
    r"(?:[\s_.\-]+(?:rev(?:ision)?|ver(?:sion)?)[\s_.\-]*[0-9a-z]{1,3}"
    r"|[\s_.\-]+[rv]\d{1,3}"
    r"|\s*\(\d{1,3}\)"
    r"|[\s_.\-]+copy)$"
)
_PUNCTUATION = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class TypeCheck:
    content_type: str | None
    reason: str | None


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def extension(file_name: str) -> str:
    stem, dot, ext = file_name.rpartition(".")
    return ext.lower() if dot and stem else ""


def check_type(file_name: str, content_type: str) -> TypeCheck:
    """The content type to store, or why the file is refused."""
    ext = extension(file_name)
    declared = media_type(content_type)
    accepted = ALLOWED.get(ext)
    if accepted is None:
        label = f".{ext} files" if ext else "Files without an extension"
        return TypeCheck(None, f"{label} are not accepted")
    if declared in GENERIC_TYPES:
        return TypeCheck(accepted[0], None)
    if declared not in accepted:
        return TypeCheck(None, f"Content type {declared} does not match a .{ext} file")
    return TypeCheck(declared, None)


# ISO-BMFF brands of HEIC/HEIF still images (the ``ftyp`` box at byte 4).
_HEIF_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1"})


def image_type(data: bytes) -> str | None:
    """The image type ``data`` starts as (its magic bytes): PNG, JPEG, WebP or HEIC; None for
    anything else, whatever its name or declared type says."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "image/heic"
    return None


def clean_name(file_name: str) -> str:
    """The display name: the last path component, whitespace collapsed and trimmed."""
    base = file_name.replace("\\", "/").rsplit("/", 1)[-1]
    return _SPACES.sub(" ", unicodedata.normalize("NFC", base)).strip()


def normalize(file_name: str) -> str:
    return _SPACES.sub(" ", folded(file_name)).strip()[:255]


def folded(text: str) -> str:
    """``text`` as names are compared (a name's search matches its normalized name)."""
    return unicodedata.normalize("NFKC", text).casefold()


def near_key(file_name: str) -> str:
    name = normalize(file_name)
    stem, dot, _ = name.rpartition(".")
    name = stem if dot and stem else name
    while True:
        stripped = _REVISION.sub("", name)
        if stripped == name or not stripped:
            break
        name = stripped
    return _PUNCTUATION.sub("", name)
