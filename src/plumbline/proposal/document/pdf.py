"""The proposal as a PDF a client can read and sign (fpdf2, DejaVu Sans for any Unicode text).

``render(proposal, project_name=..., company_name=...)`` takes the proposal's read dict as the API
answers it. Deterministic: the same proposal gives the same bytes (the document's creation date
and its letter's ``{{today}}`` are the proposal's own dates, never the wall clock).
The acceptance block shows the signer, the date and the signature image once accepted, and
blank lines to sign before.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from fpdf import FPDF
from fpdf.enums import TableBordersLayout, XPos, YPos
from fpdf.errors import FPDFException
from fpdf.fonts import FontFace

from plumbline.proposal.document.letter import as_sent, day, document_date, instant, money, number

FONTS = Path(__file__).parent / "fonts"
FONT = "DejaVu"
MARGIN = 18.0
GREY = (110, 110, 110)
LINE = (200, 200, 200)
ACCENT = (31, 64, 104)
# Item, quantity, unit, rate, line total (mm; the page's text width is 174 mm).
WIDTHS = (76.0, 20.0, 18.0, 28.0, 32.0)


def filename(proposal: Mapping[str, Any]) -> str:
    return f"{proposal['reference']}.pdf"


class _Document(FPDF):
    footer_text = ""

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font(FONT, size=8)
        self.set_text_color(*GREY)
        self.cell(0, 5, self.footer_text, align="L")
        self.set_x(self.l_margin)
        self.cell(0, 5, f"Page {self.page_no()} of {{nb}}", align="R")
        self.set_text_color(0, 0, 0)


def render(
    proposal: Mapping[str, Any],
    *,
    project_name: str,
    company_name: str,
    signature: bytes | None = None,
) -> bytes:
    """The PDF of ``proposal`` (its API read dict). ``signature``: the accepted proposal's
    signature as PNG bytes, drawn in the acceptance block (skipped if it cannot be read)."""
    currency = proposal["currency"]
    pdf = _Document(orientation="portrait", unit="mm", format="A4")
    pdf.add_font(FONT, "", FONTS / "DejaVuSans.ttf")
    pdf.add_font(FONT, "B", FONTS / "DejaVuSans-Bold.ttf")
    pdf.set_creation_date(instant(proposal["createdAt"]))
    pdf.set_title(f"{proposal['reference']} {proposal['title']}")
    pdf.set_author(company_name)
    pdf.set_subject(f"Proposal for {project_name}")
    pdf.set_creator("Plumbline")
    pdf.footer_text = f"{proposal['reference']} · {company_name}"
    pdf.set_margins(MARGIN, MARGIN, MARGIN)
    pdf.set_auto_page_break(auto=True, margin=20)
    pdf.add_page()
    width = pdf.epw

    # Header: the company on the left, the proposal's reference and dates on the right.
    top = pdf.get_y()
    pdf.set_font(FONT, "B", 18)
    pdf.set_text_color(*ACCENT)
    pdf.multi_cell(width * 0.6, 8, company_name, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(0, 0, 0)
    left_bottom = pdf.get_y()
    pdf.set_xy(MARGIN + width * 0.6, top)
    pdf.set_font(FONT, "B", 14)
    pdf.cell(width * 0.4, 8, "PROPOSAL", align="R", new_x=XPos.LEFT, new_y=YPos.NEXT)
    pdf.set_font(FONT, "", 9)
    for label, value in (
        ("Reference", proposal["reference"]),
        ("Date", day(document_date(proposal))),
        ("Valid until", day(proposal["validUntil"])),
    ):
        pdf.set_x(MARGIN + width * 0.6)
        pdf.cell(width * 0.4, 5, f"{label}: {value}", align="R", new_x=XPos.LEFT, new_y=YPos.NEXT)
    pdf.set_y(max(left_bottom, pdf.get_y()) + 3)
    _rule(pdf)

    # Parties.
    pdf.ln(3)
    top = pdf.get_y()
    half = width / 2
    _party(pdf, MARGIN, top, half - 4, "FROM", [company_name, f"Project: {project_name}"])
    left_bottom = pdf.get_y()
    client = [proposal.get(name) for name in ("clientName", "clientCompany", "clientEmail")]
    _party(pdf, MARGIN + half, top, half, "PREPARED FOR", [line for line in client if line])
    pdf.set_y(max(left_bottom, pdf.get_y()) + 4)

    # Title and letter.
    pdf.set_font(FONT, "B", 13)
    _lines(pdf, 7, proposal["title"])
    pdf.ln(2)
    letter = as_sent(proposal, project_name=project_name, company_name=company_name)
    pdf.set_font(FONT, "", 10)
    _lines(pdf, 5, letter.strip() or "-")
    pdf.ln(4)

    # Price table (its heading row is repeated on every page it spans).
    _heading(pdf, "Price")
    pdf.set_font(FONT, "", 9)
    with pdf.table(
        col_widths=WIDTHS,
        width=width,
        line_height=4.6,
        borders_layout=TableBordersLayout.HORIZONTAL_LINES,
        headings_style=FontFace(emphasis="BOLD", fill_color=(236, 240, 245)),
        text_align=("LEFT", "RIGHT", "LEFT", "RIGHT", "RIGHT"),
        padding=1.2,
    ) as table:
        table.row(("Item", "Qty", "Unit", "Rate", "Line total"))
        for item in proposal["items"]:
            row = table.row()
            text = item["name"]
            if item.get("description"):
                text += "\n" + item["description"]
            row.cell(text)
            row.cell(number(item["quantity"]))
            row.cell(item.get("unit") or "")
            row.cell(money(item["rate"], currency))
            row.cell(money(item["lineTotal"], currency))
        if not proposal["items"]:
            table.row().cell("No items yet", colspan=5)
    pdf.ln(2)

    # Totals, right-aligned under the table.
    lines = [("Subtotal", proposal["subtotal"])]
    if proposal["workAmount"] != "0.00" or proposal["workPricePercent"] != "0.00":
        lines.append((f"Work ({proposal['workPricePercent']}%)", proposal["workAmount"]))
    if proposal["taxAmount"] != "0.00" or proposal["taxPercent"] != "0.00":
        lines.append((f"Tax ({proposal['taxPercent']}%)", proposal["taxAmount"]))
    if proposal["discount"] != "0.00":
        lines.append(("Discount", f"-{proposal['discount']}"))
    if pdf.will_page_break(6 * (len(lines) + 1) + 4):
        pdf.add_page()
    label_x, label_w, value_w = MARGIN + width - 95, 60.0, 35.0
    pdf.set_font(FONT, "", 10)
    for label, value in lines:
        pdf.set_x(label_x)
        pdf.cell(label_w, 6, label, align="R")
        pdf.cell(value_w, 6, _signed_money(value, currency), align="R", new_x=XPos.LMARGIN)
        pdf.ln(6)
    pdf.set_draw_color(*LINE)
    pdf.line(label_x + 20, pdf.get_y() + 0.5, MARGIN + width, pdf.get_y() + 0.5)
    pdf.ln(1.5)
    pdf.set_font(FONT, "B", 12)
    pdf.set_x(label_x)
    pdf.cell(label_w, 8, f"Total ({currency})", align="R")
    pdf.cell(value_w, 8, money(proposal["total"], currency), align="R", new_x=XPos.LMARGIN)
    pdf.ln(10)
    pdf.set_font(FONT, "", 9)
    pdf.set_text_color(*GREY)
    valid = day(proposal["validUntil"])
    _lines(pdf, 4.5, f"This proposal is valid until {valid}. Prices are in {currency}.")
    pdf.set_text_color(0, 0, 0)
    pdf.ln(4)

    _acceptance(pdf, proposal, signature)
    return bytes(pdf.output())


def _signed_money(value: str, currency: str) -> str:
    return "-" + money(value[1:], currency) if value.startswith("-") else money(value, currency)


def _rule(pdf: FPDF) -> None:
    pdf.set_draw_color(*LINE)
    pdf.line(pdf.l_margin, pdf.get_y(), pdf.w - pdf.r_margin, pdf.get_y())


def _lines(pdf: FPDF, height: float, text: str) -> None:
    """``text`` across the page, wrapped, lines ``height`` mm apart."""
    pdf.multi_cell(0, height, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)


def _heading(pdf: FPDF, text: str) -> None:
    pdf.set_font(FONT, "B", 11)
    pdf.set_text_color(*ACCENT)
    pdf.cell(0, 7, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(0, 0, 0)


def _party(pdf: FPDF, x: float, y: float, w: float, label: str, lines: list[str]) -> None:
    pdf.set_xy(x, y)
    pdf.set_font(FONT, "B", 8)
    pdf.set_text_color(*GREY)
    pdf.cell(w, 5, label, new_x=XPos.LEFT, new_y=YPos.NEXT)
    pdf.set_text_color(0, 0, 0)
    for index, line in enumerate(lines or ["-"]):
        pdf.set_font(FONT, "B" if index == 0 else "", 10)
        pdf.set_x(x)
        pdf.multi_cell(w, 5, line, new_x=XPos.LEFT, new_y=YPos.NEXT)


def _acceptance(pdf: FPDF, proposal: Mapping[str, Any], signature: bytes | None) -> None:
    if pdf.will_page_break(48):
        pdf.add_page()
    _heading(pdf, "Acceptance")
    pdf.set_font(FONT, "", 9)
    accepted = proposal["status"] == "ACCEPTED" and proposal.get("acceptedAt")
    column = (pdf.epw - 20) / 3
    if not accepted:
        _lines(
            pdf, 4.5, "By signing below, the client accepts this proposal, its price and its terms."
        )
        pdf.ln(16)
        _sign_lines(pdf, pdf.get_y(), column, ("", "", ""))
        return
    signer = proposal.get("signerName") or "the client"
    _lines(pdf, 4.5, f"Accepted online by {signer} on {day(proposal['acceptedAt'])}.")
    pdf.ln(2)
    y = pdf.get_y()
    if signature:
        try:
            image = io.BytesIO(signature)
            pdf.image(image, x=pdf.l_margin, y=y, w=column, h=22, keep_aspect_ratio=True)
        except (FPDFException, OSError, ValueError, SyntaxError):
            pass  # an unreadable image leaves the signature line empty, never the document
    signed = ("", proposal.get("signerName") or "", day(proposal["acceptedAt"]))
    _sign_lines(pdf, y + 24, column, signed)


def _sign_lines(pdf: FPDF, y: float, column: float, values: Sequence[str]) -> None:
    """The signature, name and date lines, each with its label below and its value above."""
    pdf.set_draw_color(120, 120, 120)
    for index, (label, value) in enumerate(zip(("Signature", "Name", "Date"), values, strict=True)):
        x = pdf.l_margin + index * (column + 10)
        if value:
            pdf.set_xy(x, y - 6)
            pdf.set_font(FONT, "", 10)
            pdf.cell(column, 5, value)
        pdf.line(x, y, x + column, y)
        pdf.set_xy(x, y + 1)
        pdf.set_font(FONT, "", 9)
        pdf.set_text_color(*GREY)
        pdf.cell(column, 5, label)
        pdf.set_text_color(0, 0, 0)
    pdf.set_xy(pdf.l_margin, y + 8)
