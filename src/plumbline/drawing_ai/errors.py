"""What the drawing AI could not read, each a clear 4xx naming the reason: 415 for a file that
is not a PDF, 400 with its own code for a PDF that cannot be read (the house answers no 422)."""

from plumbline.errors import BadRequest, Forbidden, UnsupportedMediaType, ValidationFailed


class NotAPdf(
    UnsupportedMediaType,
    code="NOT_A_PDF",
    message="Drawing AI reads PDF files only; this file version is not a PDF",
): ...


class PdfEncrypted(
    BadRequest,
    code="PDF_ENCRYPTED",
    message="This PDF is encrypted with a password; upload an unprotected copy",
): ...


class PdfUnreadable(
    BadRequest,
    code="PDF_UNREADABLE",
    message="This PDF is damaged or not a valid PDF and could not be read",
): ...


class PageHasNoContent(
    BadRequest,
    code="PAGE_HAS_NO_TEXT",
    message="This page has no text and no vector drawing (a scanned or raster-only page); "
    "there is nothing to read on it",
): ...


class PageTooComplex(
    BadRequest,
    code="PAGE_TOO_COMPLEX",
    message="This page needs more memory or time to read than the drawing AI allows (its content "
    "inflates beyond the limit); it was not read",
): ...


class PageOutOfRange(ValidationFailed):
    def __init__(self, page_index: int, page_count: int) -> None:
        message = (
            f"pageIndex {page_index} is out of range: this PDF has {page_count} "
            f"page{'s' if page_count != 1 else ''} (pageIndex counts from 0)"
        )
        super().__init__(
            message,
            details=[{"field": "pageIndex", "message": message}],
            pageCount=page_count,
        )


class ClientsCannotRunDrawingAI(
    Forbidden, message="Clients read the shared drawings but do not run the drawing AI on them"
): ...
