"""Harbor View Tower's issues and work orders, raised over the last two weeks by the team and
worked on by the people they are assigned to (so the homes show a fortnight's activity, overdue
items and what each person has on their plate), then today's round of updates."""

from __future__ import annotations

from typing import Any

from plumbline.demo.api import back, day
from plumbline.demo.people import Team

ISSUES = [  # title, kind, status, priority, location, due in days, work order type,
            # raised by, assigned to, raised days ago
    ("Water staining on ceiling near grid C-3", "CONSTRUCTION", "IN_PROGRESS", "HIGH",
     "Level 3, open office 301", 3, None, "dana", "dana", 12.8),
    ("Missing firestopping at riser penetrations", "CONSTRUCTION", "OPEN", "URGENT",
     "Level 5, riser room", 2, None, "dana", "dana", 12.5),
    ("Damaged curtain wall mullion, east elevation", "CONSTRUCTION", "RESOLVED", "MEDIUM",
     "East elevation, level 8", -4, None, "dana", "dana", 12),
    ("Stair 2 handrail below required height", "CONSTRUCTION", "CLOSED", "HIGH",
     "Stair 2, levels 1-3", -12, None, "dana", "dana", 11.5),
    ("Replace AHU-2 supply fan belt", "WORK_ORDER", "OPEN", "HIGH",
     "Roof, mechanical yard", 1, "CORRECTIVE", "dana", "dana", 11),
    ("Quarterly fire pump test", "WORK_ORDER", "IN_PROGRESS", "MEDIUM",
     "Basement, fire pump room", 0, "PREVENTIVE", "dana", "dana", 10.5),
    ("Adjust lobby entrance door closer", "WORK_ORDER", "CLOSED", "LOW",
     "Ground floor lobby", -6, "CORRECTIVE", "dana", "dana", 10),
    ("Cracked storefront glass at retail unit B", "CONSTRUCTION", "RESOLVED", "LOW",
     "Ground floor, retail unit B", -5, None, "ben", "ben", 9),
    ("Temporary power panel cover left open", "CONSTRUCTION", "CLOSED", "URGENT",
     "Level 9 deck", -8, None, "tomas", "tomas", 8),
    ("Efflorescence on podium planter wall, north side", "CONSTRUCTION", "OPEN", "MEDIUM",
     "Podium level, north planter", -3, None, "grace", "grace", 7),
    ("Level 6 corridor ceiling grid out of level", "CONSTRUCTION", "IN_PROGRESS", "MEDIUM",
     "Level 6, east corridor", 4, None, "tomas", "tomas", 6),
    ("Exposed rebar at elevator pit 2 wall", "CONSTRUCTION", "OPEN", "HIGH",
     "Elevator pit 2", -1, None, "tomas", "tomas", 5),
    ("Replace failed exit sign battery, stair 1", "WORK_ORDER", "OPEN", "MEDIUM",
     "Stair 1, level 2", -1, "CORRECTIVE", "aisha", "aisha", 4),
    ("GFCI receptacles missing at level 4 wet bar", "CONSTRUCTION", "OPEN", "MEDIUM",
     "Level 4, amenity lounge", 5, None, "grace", "luis", 3),
    ("Sprinkler head obstructed by duct at level 7", "CONSTRUCTION", "OPEN", "HIGH",
     "Level 7, east corridor", -2, None, "tomas", "dana", 2),
    ("Roof drain strainer missing at RD-4", "CONSTRUCTION", "OPEN", "MEDIUM",
     "Roof, drain RD-4", 7, None, "ben", "grace", 1),
]  # fmt: skip


async def populate(team: Team, base: str, drawing: dict[str, Any]) -> list[str]:
    """Each issue raised on its day and moved on by its assignee a few hours later; the first
    pinned on sheet A-201 with a comment. The issues' ids, in the order above."""
    ids = []
    for row in ISSUES:
        title, kind, status, priority, location, due, order_type, by, to, ago = row
        body: dict[str, Any] = {
            "title": title,
            "description": f"Observed during the site walk: {title.lower()}.",
            "issueKind": kind,
            "priority": priority,
            "location": location,
            "dueDate": day(due),
            "assigneeId": team.id(to),
        }
        if order_type:
            body["workOrderType"] = order_type
        with back(ago):
            issue = await team[by]("POST", f"{base}/issues", json=body)
        if status != "OPEN":  # raised open, then worked on (kept in its history)
            mover = "tomas" if to == "luis" else to
            with back(ago - 0.2):
                await team[mover]("PATCH", f"{base}/issues/{issue['id']}", json={"status": status})
        ids.append(issue["id"])
    with back(12):
        await team.me(
            "PATCH",
            f"{base}/issues/{ids[0]}",
            json={
                "fileId": drawing["id"],
                "fileVersionId": drawing["fileVersionId"],
                "pageNumber": 1,
                "pin": {"x": 0.42, "y": 0.31},
            },
        )
        await team["tomas"](
            "POST",
            f"{base}/issues/{ids[0]}/comments",
            json={"body": "Plumber found a weeping joint on the level 4 branch; repair scheduled."},
        )
    return ids


def _named(ids: list[str], title: str) -> str:
    return ids[[row[0] for row in ISSUES].index(title)]


async def todays_round(team: Team, base: str, ids: list[str]) -> None:
    """This morning on site: the latest entries of the project's activity."""
    rebar = _named(ids, "Exposed rebar at elevator pit 2 wall")
    await team["tomas"]("PATCH", f"{base}/issues/{rebar}", json={"status": "IN_PROGRESS"})
    wall = _named(ids, "Efflorescence on podium planter wall, north side")
    await team["grace"](
        "POST",
        f"{base}/issues/{wall}/comments",
        json={"body": "Mason will clean and seal the wall on Thursday, weather permitting."},
    )
    glass = _named(ids, "Cracked storefront glass at retail unit B")
    await team["ben"]("PATCH", f"{base}/issues/{glass}", json={"status": "CLOSED"})
    await team["grace"](
        "POST",
        f"{base}/issues",
        json={
            "title": "Protect finished flooring in the level 3 lobby",
            "description": "Drywall carts are crossing the new LVT; lay hardboard before Monday.",
            "issueKind": "CONSTRUCTION",
            "priority": "MEDIUM",
            "location": "Level 3, elevator lobby",
            "dueDate": day(2),
            "assigneeId": team.id("tomas"),
        },
    )
    sprinkler = _named(ids, "Sprinkler head obstructed by duct at level 7")
    await team["tomas"](
        "POST",
        f"{base}/issues/{sprinkler}/comments",
        json={"body": "Sound Mechanical can drop the duct 4 in. Need your OK on the change order."},
    )
