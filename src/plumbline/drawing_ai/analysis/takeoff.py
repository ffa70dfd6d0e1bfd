"""A sheet's takeoff: doors, windows, rooms and fixtures counted, and wall lengths measured."""

from __future__ import annotations

from typing import Any

from plumbline.drawing_ai.analysis.labels import (
    DOOR_TAG,
    WINDOW_TAG,
    drawing_phrases,
    fixture,
    is_room,
)
from plumbline.drawing_ai.analysis.regions import box_of, norm, regions
from plumbline.drawing_ai.analysis.scale import (
    FEET_PER_METRE,
    POINTS_PER_MM,
    parse_scale,
    real_length,
)
from plumbline.drawing_ai.analysis.title_block import read_title_block
from plumbline.drawing_ai.analysis.walls import merged_runs, wall_segments
from plumbline.drawing_ai.extract import PageContent

CATEGORIES = ("doors", "windows", "rooms", "walls", "fixtures")


def read_takeoff(page: PageContent) -> dict[str, Any]:
    """Every category; the route answers the ones asked for. Each drawing-area phrase counts
    once: a door tag, else a window tag, else a fixture, else a room. Each merged wall run is
    an item; real lengths only at the title block's readable scale (feet when imperial)."""
    reg = regions(page)
    tb = read_title_block(page, reg.title_block)
    items: list[dict[str, Any]] = []
    for phrase in drawing_phrases(page, reg):
        text = phrase.text.upper()
        bbox = norm(page, box_of(phrase))
        if DOOR_TAG.match(text):
            items.append({"category": "doors", "label": text, "bbox": bbox})
        elif WINDOW_TAG.match(text):
            items.append({"category": "windows", "label": text, "bbox": bbox})
        elif named := fixture(text):
            items.append({"category": "fixtures", "label": named, "bbox": bbox})
        elif is_room(text):
            items.append({"category": "rooms", "label": phrase.text, "bbox": bbox})
    runs = merged_runs(wall_segments(page, reg))
    points = sum(length for length, _ in runs)
    scale = parse_scale(tb.scale)
    for length, box in runs:
        real = real_length(length, scale)
        label = f"wall {real}" if real else f"wall {length / POINTS_PER_MM:.0f} mm on paper"
        items.append({"category": "walls", "label": label, "bbox": norm(page, box)})
    metres = round(points * scale.metres_per_point, 3) if scale else None
    wall_length = {
        "paperMm": round(points / POINTS_PER_MM, 1),
        "metres": metres,
        "feet": round(metres * FEET_PER_METRE, 2) if scale and scale.imperial and metres else None,
        "runs": len(runs),
        "scale": scale.text if scale else None,
    }
    counts = {c: sum(1 for i in items if i["category"] == c) for c in CATEGORIES}
    return {"counts": counts, "items": items, "lengths": {"walls": wall_length}}


def select(result: dict[str, Any], categories: list[str]) -> dict[str, Any]:
    """The cached full takeoff narrowed to the categories asked for."""
    wanted = set(categories)
    return {
        "counts": {c: n for c, n in result["counts"].items() if c in wanted},
        "items": [i for i in result["items"] if i["category"] in wanted],
        "lengths": {k: v for k, v in result["lengths"].items() if k in wanted},
    }
