"""The demo's schedule (about 15 tasks with dependencies and a milestone) and the workspace's
materials, one of them priced into the demo proposal, each made through its API routes."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import Any

from plumbline.demo.api import Api
from plumbline.kit import clock

# id, name, start (days from today), duration (days), status, progress, parent, predecessors
TASKS: list[tuple[str, str, int, int, str, int, str | None, list[str]]] = [
    ("shell", "Shell and core", -120, 150, "IN_PROGRESS", 70, None, []),
    ("found", "Foundations", -120, 35, "COMPLETED", 100, "shell", []),
    ("frame", "Structural frame", -85, 60, "COMPLETED", 100, "shell", ["found"]),
    ("roof", "Roof and waterproofing", -25, 30, "IN_PROGRESS", 60, "shell", ["frame"]),
    ("facade", "Facade and glazing", -20, 50, "DELAYED", 35, "shell", ["frame"]),
    ("dry-in", "Building dry-in", 30, 0, "NOT_STARTED", 0, "shell", ["roof", "facade"]),
    ("fitout", "Level 3 fit-out", 25, 120, "NOT_STARTED", 0, None, []),
    ("mep-rough", "MEP rough-in", 25, 40, "NOT_STARTED", 0, "fitout", ["dry-in"]),
    ("partitions", "Metal stud partitions", 45, 25, "NOT_STARTED", 0, "fitout", ["mep-rough"]),
    ("board", "Gypsum board and taping", 60, 30, "NOT_STARTED", 0, "fitout", ["partitions"]),
    ("ceilings", "Acoustic ceilings", 85, 20, "NOT_STARTED", 0, "fitout", ["board"]),
    ("tiling", "Washroom tiling", 90, 20, "NOT_STARTED", 0, "fitout", ["board"]),
    ("finishes", "Paint and floor finishes", 105, 25, "NOT_STARTED", 0, "fitout", ["ceilings"]),
    ("commission", "Commissioning", 130, 15, "NOT_STARTED", 0, None, ["finishes"]),
    ("handover", "Handover to tenant", 145, 0, "NOT_STARTED", 0, None, ["commission"]),
]
MATERIALS = [
    ("Metal stud 92mm", "m", "3.85", "STUD-92", "Drywall", "Clarkdietrich"),
    ("Gypsum board 5/8in type X", "sheet", "14.20", "GYP-58X", "Drywall", "USG"),
    ("Joint compound, all purpose", "bucket", "18.50", "JC-AP", "Drywall", "USG"),
    ("Acoustic ceiling tile 2x2", "m2", "11.90", "ACT-22", "Ceilings", "Armstrong"),
    ("Porcelain floor tile 600x600", "m2", "42.00", "TILE-P60", "Tiling", "Daltile"),
    ("Tile adhesive, polymer modified", "bag", "24.75", "ADH-PM", "Tiling", "Mapei"),
    ("Grout, sanded grey", "bag", "16.30", "GRT-SG", "Tiling", "Mapei"),
    ("Interior latex paint", "gal", "38.00", "PNT-LX", "Finishes", "Sherwin-Williams"),
    ("Copper pipe 3/4in type L", "m", "12.60", "CU-34L", "Plumbing", "Mueller"),
    ("THHN wire 12 AWG", "m", "0.62", "WIRE-12", "Electrical", "Southwire"),
]


def _at(days: int) -> str:
    start = datetime.combine(clock.today() + timedelta(days=days), time(7, 0))
    return start.isoformat() + "Z"


async def populate(api: Api, project_id: str) -> None:
    await _schedule(api, project_id)
    materials = await _materials(api, project_id)
    await _priced_from_materials(api, project_id, materials)


async def _schedule(api: Api, project_id: str) -> None:
    tasks = []
    for task_id, name, start, days, status, progress, parent, before in TASKS:
        tasks.append(
            {
                "id": task_id,
                "name": name,
                "startDate": _at(start),
                "endDate": _at(start + days),
                "status": status,
                "progressPercent": progress,
                "parentId": parent,
                "isMilestone": days == 0,
                "dependencies": [{"taskId": b, "type": "FS", "lagDays": 0} for b in before],
            }
        )
    await api("PUT", f"/api/v1/projects/{project_id}/schedule", json={"tasks": tasks})


async def _materials(api: Api, project_id: str) -> dict[str, str]:
    """The workspace's catalogue; ``{sku: material id}``."""
    project = await api("GET", f"/api/v1/projects/{project_id}")
    base = f"/api/v1/workspaces/{project['workspaceId']}/materials"
    made = {}
    for name, unit, price, sku, category, supplier in MATERIALS:
        body = {"name": name, "unit": unit, "unitPrice": price, "sku": sku,
                "category": category, "supplier": supplier}  # fmt: skip
        made[sku] = (await api("POST", base, json=body))["id"]
    return made


async def _priced_from_materials(api: Api, project_id: str, materials: dict[str, str]) -> None:
    """The demo's draft (the one not yet sent) gets washroom tiling lines priced from the
    catalogue."""
    base = f"/api/v1/projects/{project_id}/proposals"
    proposals: list[dict[str, Any]] = await api("GET", base)
    draft = next(p for p in proposals if p["status"] == "DRAFT")
    items = [*draft["items"],
             {"materialId": materials["TILE-P60"], "quantity": "38"},
             {"materialId": materials["ADH-PM"], "quantity": "12"},
             {"materialId": materials["GRT-SG"], "quantity": "4"}]  # fmt: skip
    await api("PATCH", f"{base}/{draft['id']}", json={"items": items})
