"""One page of a stored PDF as text phrases with positions and stroked line segments.

pdfplumber (on pdfminer.six) reads the file from a seekable stream: the document's cross
reference, then the page tree up to the requested page, then that page's content stream alone.
Object caching is off, so the content streams of the pages walked past are dropped as soon as
they are passed (a 200-page set's page 150 costs the memory of one page, not of the file).

Coordinates are PDF points with the origin at the page's top-left corner (pdfplumber's ``top``).
"""

from __future__ import annotations

import itertools
import logging
import re
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from plumbline.drawing_ai.errors import (
    NotAPdf,
    PageHasNoContent,
    PageOutOfRange,
    PdfEncrypted,
    PdfUnreadable,
)

if TYPE_CHECKING:
    from pdfplumber.page import Page
    from pdfplumber.pdf import PDF

log = logging.getLogger("plumbline")
PDF_MAGIC = b"%PDF-"
HEADER_BYTES = 1024  # the PDF header may follow a little junk; readers look this far


@dataclass(frozen=True)
class Phrase:
    """Words on one baseline with no wide gap between them (a label, a note line)."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float

    @property
    def size(self) -> float:
        return self.bottom - self.top

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.top + self.bottom) / 2


@dataclass(frozen=True)
class Segment:
    """A stroked straight segment and its line width (points)."""

    x0: float
    y0: float
    x1: float
    y1: float
    width: float


@dataclass(frozen=True)
class Box:
    x0: float
    top: float
    x1: float
    bottom: float

    def contains(self, x: float, y: float, margin: float = 0.0) -> bool:
        return (
            self.x0 - margin <= x <= self.x1 + margin
            and self.top - margin <= y <= self.bottom + margin
        )


@dataclass
class PageContent:
    page_index: int
    page_count: int
    width: float
    height: float
    phrases: list[Phrase] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    rects: list[Box] = field(default_factory=list)
    has_vectors: bool = False


def is_pdf(header: bytes) -> bool:
    return PDF_MAGIC in header[:HEADER_BYTES]


def read_page(stream: IO[bytes], page_index: int) -> PageContent:
    """The content of page ``page_index`` (0-based) of the PDF in ``stream``; refusals are the
    domain's 4xx errors (not a PDF, encrypted, unreadable, out of range, nothing to read).
    The PDF library is imported here, on first use, not when the server starts."""
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.pdfpage import PDFPage
    from pdfplumber.page import Page
    from pdfplumber.pdf import PDF
    from pdfplumber.utils.exceptions import PdfminerException

    stream.seek(0)
    if not is_pdf(stream.read(HEADER_BYTES)):
        raise NotAPdf()
    stream.seek(0)
    try:
        pdf = PDF(stream, stream_is_external=True)  # type: ignore[arg-type]
    except PdfminerException as exc:
        cause = _cause(exc)
        if isinstance(cause, PDFPasswordIncorrect | PDFEncryptionError):
            raise PdfEncrypted() from None
        log.info("drawing-ai: unreadable PDF: %r", cause)
        raise PdfUnreadable() from None
    try:
        pdf.doc.caching = False
        count = _page_count(pdf)
        if not 0 <= page_index < count:
            raise PageOutOfRange(page_index, count)
        page_obj = next(itertools.islice(PDFPage.create_pages(pdf.doc), page_index, None), None)
        if page_obj is None:
            raise PageOutOfRange(page_index, count)
        page = Page(pdf, page_obj, page_number=page_index + 1)
        content = _content(page, page_index, count)
    except (PageOutOfRange, PdfEncrypted):
        raise
    except Exception as exc:  # pdfminer raises many kinds on a damaged file
        _cause(exc)  # a MemoryError is raised again here
        log.info("drawing-ai: unreadable page: %r", exc)
        raise PdfUnreadable() from None
    finally:
        pdf.close()
    if not content.phrases and not content.has_vectors:
        raise PageHasNoContent()
    return content


def _cause(exc: Exception) -> BaseException:
    """What pdfplumber's wrapper holds; a ``MemoryError`` (the reader's ceiling, see
    ``drawing_ai.sandbox``) is raised again, never taken for a damaged file."""
    from pdfplumber.utils.exceptions import PdfminerException

    cause = exc.args[0] if isinstance(exc, PdfminerException) and exc.args else exc
    if isinstance(cause, MemoryError):
        raise MemoryError from None
    return cause


def _page_count(pdf: PDF) -> int:
    """From the page tree's root /Count, without walking the pages."""
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdftypes import resolve1

    try:
        pages = resolve1(pdf.doc.catalog["Pages"])
        return int(resolve1(pages["Count"]))
    except (KeyError, TypeError, ValueError):
        return sum(1 for _ in PDFPage.create_pages(pdf.doc))


def _content(page: Page, page_index: int, count: int) -> PageContent:
    words = page.extract_words(keep_blank_chars=False, use_text_flow=False, x_tolerance=1.5)
    content = PageContent(page_index, count, float(page.width), float(page.height))
    content.phrases = phrases(words)
    for obj in itertools.chain(page.lines, page.rects, page.curves):
        content.has_vectors = True
        if not obj.get("stroke"):
            continue
        points = [(float(x), float(y)) for x, y in obj.get("pts") or ()]
        width = float(obj.get("linewidth") or 0)
        if obj["object_type"] == "rect":
            x0, top, x1, bottom = (float(obj[k]) for k in ("x0", "top", "x1", "bottom"))
            content.rects.append(Box(x0, top, x1, bottom))
            points = [(x0, top), (x1, top), (x1, bottom), (x0, bottom), (x0, top)]
        for (ax, ay), (bx, by) in itertools.pairwise(points):
            content.segments.append(Segment(ax, ay, bx, by, width))
    return content


_SPACES = re.compile(r"\s+")


def phrases(words: list[dict[str, Any]]) -> list[Phrase]:
    """Words grouped into phrases: the same baseline (within a fifth of the text height) and a
    gap no wider than the text height; read top to bottom, left to right."""
    lines: list[list[dict[str, Any]]] = []
    for word in sorted(words, key=lambda w: float(w["bottom"])):
        height = max(float(word["bottom"]) - float(word["top"]), 1.0)
        if lines and abs(float(word["bottom"]) - float(lines[-1][0]["bottom"])) <= height / 5:
            lines[-1].append(word)
        else:
            lines.append([word])
    result: list[Phrase] = []
    for line in lines:
        current: list[dict[str, Any]] = []
        for word in sorted(line, key=lambda w: float(w["x0"])):
            if current:
                last = current[-1]
                height = max(float(last["bottom"]) - float(last["top"]), 1.0)
                if float(word["x0"]) - float(last["x1"]) > height:
                    result.append(_phrase(current))
                    current = []
            current.append(word)
        if current:
            result.append(_phrase(current))
    return sorted(result, key=lambda p: (p.top, p.x0))


def _phrase(words: list[dict[str, Any]]) -> Phrase:
    return Phrase(
        _SPACES.sub(" ", " ".join(str(w["text"]) for w in words)).strip(),
        min(float(w["x0"]) for w in words),
        min(float(w["top"]) for w in words),
        max(float(w["x1"]) for w in words),
        max(float(w["bottom"]) for w in words),
    )
