"""``python -m tests.scale.seed N``: N worlds (a workspace with an owner, a manager and a
member, signed in, and one project in operations mode) in the database of the environment,
printed as JSON for a cluster test, whose own process has another database."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from plumbline.db import database
from tests.factories import Actor, World, om_world


def actor(a: Actor) -> dict[str, Any]:
    return {"id": a.id, "email": a.user.email, "headers": a.headers}


def world_json(world: World) -> dict[str, Any]:
    return {
        "workspaceId": world.workspace.id,
        "projectId": world.project.id,
        "owner": actor(world.owner),
        "admin": actor(world.admin),
        "manager": actor(world.manager),
        "member": actor(world.member),
    }


async def main(count: int) -> list[dict[str, Any]]:
    try:
        return [world_json(await om_world()) for _ in range(count)]
    finally:
        await database.dispose()


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(int(sys.argv[1])))))
