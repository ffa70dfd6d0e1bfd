"""Small deterministic PDF documents (fpdf2, core fonts): title, key-values, paragraphs, tables.

Core fonts only cover Latin-1, so every string goes through ``latin1()``: common typographic
characters become their ASCII look-alikes, accented letters lose their accent when they must,
anything else becomes "?". A document never fails because of its text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from datetime import datetime
from io import BytesIO

from plumbline.kit import clock

_FONT = "helvetica"
_TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2026": "...",
        "\u2022": "\u00b7",
        "\u20ac": "EUR",
        "\u2122": "TM",
        "\u00a0": " ",
        "\u200b": "",
        "\t": "    ",
        "\u0141": "L",
        "\u0142": "l",
        "\u0110": "D",
        "\u0111": "d",
        "\u0131": "i",
        "\u0152": "OE",
        "\u0153": "oe",
    }
)


def latin1(text: object) -> str:
    """``text`` as a string the core fonts can draw."""
    value = "" if text is None else str(text)
    return "".join(_latin1_char(char) for char in value.translate(_TYPOGRAPHY))


def _latin1_char(char: str) -> str:
    if ord(char) < 256:
        return char
    base = unicodedata.normalize("NFKD", char).encode("latin-1", "ignore").decode("latin-1")
    return base if base.strip() else "?"


class PdfDocument:
    """An A4 portrait document built top to bottom; ``output()`` returns the bytes."""

    def __init__(
        self, *, title: str, author: str = "Plumbline", created_at: datetime | None = None
    ) -> None:
        from fpdf import FPDF  # its fonts take a while to import: only when a PDF is made

        self._pdf = FPDF(orientation="portrait", unit="mm", format="A4")
        self._pdf.set_title(latin1(title))
        self._pdf.set_author(latin1(author))
        self._pdf.set_creator("Plumbline")
        # A fixed creation date makes the same input produce the same bytes.
        self._pdf.set_creation_date(created_at or clock.now())
        self._pdf.set_auto_page_break(auto=True, margin=15)
        self._pdf.set_margins(15, 15, 15)
        self._pdf.add_page()
        self._pdf.set_font(_FONT, size=10)

    @property
    def width(self) -> float:
        return float(self._pdf.epw)

    def title(self, text: str, subtitle: str | None = None) -> None:
        self._pdf.set_font(_FONT, style="B", size=16)
        self._write(text, 8)
        if subtitle:
            self._pdf.set_font(_FONT, size=10)
            self._pdf.set_text_color(90, 90, 90)
            self._write(subtitle, 5)
            self._pdf.set_text_color(0, 0, 0)
        self._pdf.ln(4)

    def heading(self, text: str) -> None:
        self._pdf.ln(2)
        self._pdf.set_font(_FONT, style="B", size=12)
        self._write(text, 7)
        self._pdf.set_font(_FONT, size=10)

    def paragraph(self, text: str | None, *, empty: str = "-") -> None:
        self._pdf.set_font(_FONT, size=10)
        self._write(text if text and text.strip() else empty, 5)
        self._pdf.ln(1)

    def key_values(self, pairs: Sequence[tuple[str, object]], *, key_width: float = 45) -> None:
        """A two-column table of labels and values (``None`` shows as "-")."""
        rows = [[label, "-" if value is None or value == "" else value] for label, value in pairs]
        self._table(None, rows, widths=[key_width, self.width - key_width], bold_first_column=True)

    def table(
        self,
        headers: Sequence[str],
        rows: Sequence[Sequence[object]],
        *,
        widths: Sequence[float] | None = None,
        footer: Sequence[object] | None = None,
        align: Sequence[str] | None = None,
    ) -> None:
        """A table with a heading row repeated on each page and an optional bold footer row."""
        body = [list(r) for r in rows]
        if footer is not None:
            body.append(list(footer))
        self._table(headers, body, widths=widths, bold_last_row=footer is not None, align=align)

    def thumbnails(
        self, images: Sequence[tuple[bytes, str]], *, size: float = 40, gap: float = 5
    ) -> None:
        """Images as a grid of ``size`` mm squares (aspect kept), each with its caption below;
        an image the PDF cannot embed shows a framed "no preview" box instead."""
        pdf = self._pdf
        per_row = max(1, int((self.width + gap) // (size + gap)))
        caption_height = 8
        for start in range(0, len(images), per_row):
            if pdf.get_y() + size + caption_height > pdf.h - pdf.b_margin:
                pdf.add_page()
            top = pdf.get_y()
            for column, (data, caption) in enumerate(images[start : start + per_row]):
                left = pdf.l_margin + column * (size + gap)
                try:
                    pdf.image(BytesIO(data), x=left, y=top, w=size, h=size, keep_aspect_ratio=True)
                # any image fpdf2 cannot decode (HEIC, damaged) gets the placeholder
                except Exception:
                    pdf.set_draw_color(160, 160, 160)
                    pdf.rect(left, top, size, size)
                    pdf.set_xy(left, top + size / 2 - 3)
                    pdf.set_font(_FONT, size=8)
                    pdf.cell(size, 6, "no preview", align="C")
                pdf.set_xy(left, top + size + 1)
                pdf.set_font(_FONT, size=7)
                pdf.multi_cell(size, 3, latin1(caption)[:80], align="C")
            pdf.set_xy(pdf.l_margin, top + size + caption_height + 2)
        self._pdf.set_font(_FONT, size=10)

    def output(self) -> bytes:
        return bytes(self._pdf.output())

    def _write(self, text: str, height: float) -> None:
        from fpdf.enums import XPos, YPos

        self._pdf.multi_cell(
            0, height, latin1(text), new_x=XPos.LMARGIN, new_y=YPos.NEXT, align="L"
        )

    def _table(
        self,
        headers: Sequence[str] | None,
        rows: Sequence[Sequence[object]],
        *,
        widths: Sequence[float] | None,
        bold_first_column: bool = False,
        bold_last_row: bool = False,
        align: Sequence[str] | None = None,
    ) -> None:
        from fpdf.enums import TableBordersLayout
        from fpdf.fonts import FontFace

        self._pdf.set_font(_FONT, size=9)
        columns = len(headers) if headers is not None else max((len(r) for r in rows), default=1)
        bold = FontFace(emphasis="BOLD")
        with self._pdf.table(
            col_widths=tuple(widths) if widths else None,
            first_row_as_headings=headers is not None,
            headings_style=FontFace(emphasis="BOLD", fill_color=(235, 235, 235)),
            borders_layout=TableBordersLayout.HORIZONTAL_LINES,
            line_height=5,
            text_align=tuple(align) if align else "LEFT",
            width=self.width,
        ) as table:
            if headers is not None:
                heading = table.row()
                for name in headers:
                    heading.cell(latin1(name))
            for index, values in enumerate(rows):
                last = bold_last_row and index == len(rows) - 1
                row = table.row(style=bold if last else None)
                cells = list(values) + [""] * (columns - len(values))
                for column, value in enumerate(cells[:columns]):
                    style = bold if bold_first_column and column == 0 else None
                    row.cell(latin1("" if value is None else value), style=style)
        self._pdf.set_font(_FONT, size=10)
        self._pdf.ln(2)
