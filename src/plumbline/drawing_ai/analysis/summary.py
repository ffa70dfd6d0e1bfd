"""A sheet's summary: its title-block fields, notes, rooms and table of contents in Markdown."""

from __future__ import annotations

from typing import Any

from plumbline.drawing_ai.analysis.labels import rooms
from plumbline.drawing_ai.analysis.regions import box_of, norm, regions
from plumbline.drawing_ai.analysis.title_block import discipline, read_title_block
from plumbline.drawing_ai.analysis.walls import drawing_extent
from plumbline.drawing_ai.extract import PageContent


def read_summary(page: PageContent) -> dict[str, Any]:
    """The fields read; the table of contents lists the title block, the notes block, the
    drawing (its walls' extent) and each room label, each with its box."""
    reg = regions(page)
    tb = read_title_block(page, reg.title_block)
    room_phrases = rooms(page, reg)
    room_names = list(dict.fromkeys(p.text for p in room_phrases))  # once each, in order
    notes = [text for text, _ in reg.notes]
    toc: list[dict[str, Any]] = []
    if reg.title_block:
        toc.append({"title": "Title block", "bbox": norm(page, reg.title_block)})
    if reg.notes_box and reg.notes_heading:
        toc.append({"title": reg.notes_heading.text.title(), "bbox": norm(page, reg.notes_box)})
    area = drawing_extent(page, reg)
    if area is not None:
        toc.append({"title": "Drawing", "bbox": norm(page, area)})
    toc.extend({"title": f"Room: {p.text}", "bbox": norm(page, box_of(p))} for p in room_phrases)
    result = {
        "sheetNumber": tb.number,
        "sheetTitle": tb.title,
        "discipline": discipline(tb.number),
        "scale": tb.scale,
        "revision": tb.revision,
        "date": tb.date,
        "summaryMarkdown": "",
        "notes": notes,
        "rooms": room_names,
        "tableOfContents": toc,
    }
    result["summaryMarkdown"] = summary_markdown(result, page)
    return result


def summary_markdown(s: dict[str, Any], page: PageContent) -> str:
    """The local wording (an LLM, when configured, words it instead): the fields found, the
    rooms and the numbered notes, or a line saying nothing was found."""
    heading = " - ".join(x for x in (s["sheetNumber"], s["sheetTitle"]) if x) or (
        f"Page {page.page_index + 1}"
    )
    lines = [f"### {heading}"]
    lines.extend(
        f"- **{k.title()}:** {s[k]}" for k in ("discipline", "scale", "revision", "date") if s[k]
    )
    if s["rooms"]:
        lines.append(f"- **Rooms ({len(s['rooms'])}):** {', '.join(s['rooms'])}")
    if s["notes"]:
        lines.append(f"- **Notes ({len(s['notes'])}):**")
        lines.extend(f"  {i}. {note}" for i, note in enumerate(s["notes"], 1))
    if len(lines) == 1:
        lines.append("- No title block, notes or room labels were found on this page.")
    lines.append(f"\n_Page {page.page_index + 1} of {page.page_count}._")
    return "\n".join(lines)
