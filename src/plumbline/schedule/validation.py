"""The rules a whole schedule must keep, each refusal naming the task (400)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plumbline.errors import ValidationFailed
from plumbline.schedule.schemas import TaskIn

MAX_DETAILS = 20  # a payload with thousands of faults answers the first ones


class Faults:
    def __init__(self) -> None:
        self.details: list[dict[str, Any]] = []

    def add(self, field: str, task_id: str, message: str) -> None:
        if len(self.details) < MAX_DETAILS:
            self.details.append({"field": field, "message": f"task {task_id!r}: {message}"})

    def raise_any(self) -> None:
        if self.details:
            first = self.details[0]["message"]
            raise ValidationFailed(f"Invalid schedule: {first}", details=self.details)


def _cycle_member(edges: dict[str, list[str]]) -> str | None:
    """A task on a cycle of ``edges`` (task -> the tasks it points at), or None.
    Iterative depth-first search: no schedule can exhaust the interpreter's stack."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for root in edges:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(edges[root]))]
        while stack:
            node, children = stack[-1]
            for child in children:
                seen = state.get(child)
                if seen == 1:
                    return child
                if seen is None:
                    state[child] = 1
                    stack.append((child, iter(edges.get(child, ()))))
                    break
            else:
                state[node] = 2
                stack.pop()
    return None


def check(tasks: Sequence[TaskIn]) -> None:
    """Unique ids, end not before start, known parents and dependencies, no task depending on
    itself, and neither the parents nor the dependencies forming a cycle."""
    faults = Faults()
    index: dict[str, int] = {}
    for i, task in enumerate(tasks):
        if task.id in index:
            faults.add(f"tasks.{i}.id", task.id, "duplicate task id")
        index.setdefault(task.id, i)
        if task.end_date < task.start_date:
            faults.add(f"tasks.{i}.endDate", task.id, "ends before it starts")
    faults.raise_any()
    parents: dict[str, list[str]] = {}
    depends: dict[str, list[str]] = {}
    for i, task in enumerate(tasks):
        if task.parent_id is not None:
            if task.parent_id == task.id:
                faults.add(f"tasks.{i}.parentId", task.id, "is its own parent")
            elif task.parent_id not in index:
                faults.add(f"tasks.{i}.parentId", task.id, f"unknown parent {task.parent_id!r}")
            else:
                parents[task.id] = [task.parent_id]
        named: set[str] = set()
        for j, dependency in enumerate(task.dependencies):
            field = f"tasks.{i}.dependencies.{j}.taskId"
            if dependency.task_id == task.id:
                faults.add(field, task.id, "depends on itself")
            elif dependency.task_id not in index:
                faults.add(field, task.id, f"unknown dependency {dependency.task_id!r}")
            elif dependency.task_id in named:
                faults.add(field, task.id, f"depends on {dependency.task_id!r} twice")
            named.add(dependency.task_id)
        depends[task.id] = [d.task_id for d in task.dependencies if d.task_id in index]
    faults.raise_any()
    looped = _cycle_member(parents)
    if looped is not None:
        faults.add(f"tasks.{index[looped]}.parentId", looped, "its parents form a cycle")
    looped = _cycle_member(depends)
    if looped is not None:
        i = index[looped]
        faults.add(f"tasks.{i}.dependencies", looped, "its dependencies form a cycle")
    faults.raise_any()


def check_assignees(tasks: Sequence[TaskIn], members: set[str]) -> None:
    faults = Faults()
    for i, task in enumerate(tasks):
        if task.assignee_id is not None and task.assignee_id not in members:
            faults.add(f"tasks.{i}.assigneeId", task.id, "the assignee is not a project member")
    faults.raise_any()
