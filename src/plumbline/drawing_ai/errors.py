"""What the drawing AI could not read, each a clear 4xx naming the reason."""

from plumbline.errors import UnprocessableContent, UnsupportedMediaType, ValidationFailed


class NotAPdf(UnsupportedMediaType):
    code = "NOT_A_PDF"
    message = "Drawing AI reads PDF files only; this file version is not a PDF"


class PdfEncrypted(UnprocessableContent):
    code = "PDF_ENCRYPTED"
    message = "This PDF is encrypted with a password; upload an unprotected copy"


class PdfUnreadable(UnprocessableContent):
    code = "PDF_UNREADABLE"
    message = "This PDF is damaged or not a valid PDF and could not be read"


class PageHasNoContent(UnprocessableContent):
    code = "PAGE_HAS_NO_TEXT"
    message = (
        "This page has no text and no vector drawing (a scanned or raster-only page); "
        "there is nothing to read on it"
    )


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
