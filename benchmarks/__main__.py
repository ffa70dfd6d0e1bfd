"""``make bench``: every benchmark in turn."""

import importlib

for name in (
    "projects",
    "issues",
    "bulk",
    "floor",
    "cpu",
    "instructions",
    "access",
    "files_transfer",
    "sse_fanout",
    "drawing_ai_sandbox",
    "conditional",
    "webhooks",
    "changes",
    "soak",
    "lists",
    "scale",
    "scim",
):
    try:
        module = importlib.import_module(f"benchmarks.{name}")
    except ModuleNotFoundError as exc:
        print(f"benchmarks.{name}: not available ({exc})")
        continue
    module.main()
