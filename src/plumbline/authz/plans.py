"""Plan gates (PRODUCT §4). With billing off every module is on and nothing is limited."""

from __future__ import annotations

from enum import StrEnum

from plumbline.config import settings
from plumbline.errors import PaymentRequired
from plumbline.kit import clock
from plumbline.models import Workspace


class Feature(StrEnum):
    RECORDS = "records"
    FILES = "files"
    SCHEDULE = "schedule"
    MATERIALS_READ = "materials:read"
    MATERIALS_WRITE = "materials:write"
    PROPOSALS = "proposals"
    DRAWING_AI = "drawing-ai"
    CLOUD = "cloud"
    OM = "om"


_TEAM = {Feature.RECORDS, Feature.FILES, Feature.SCHEDULE, Feature.MATERIALS_READ}
_PRO = _TEAM | {Feature.PROPOSALS, Feature.MATERIALS_WRITE, Feature.DRAWING_AI, Feature.CLOUD}
_ENTERPRISE = _PRO | {Feature.OM}
PLAN_FEATURES: dict[str, set[Feature]] = {
    "trial": _ENTERPRISE,
    "team": _TEAM,
    "pro": _PRO,
    "enterprise": _ENTERPRISE,
}
PLAN_ORDER = ("team", "pro", "enterprise")
GIB = 1024**3
STORAGE_QUOTA = {"trial": 10 * GIB, "team": 100 * GIB, "pro": 500 * GIB, "enterprise": 2048 * GIB}
SEAT_LIMIT: dict[str, int | None] = {"trial": 10, "team": 5, "pro": 15, "enterprise": None}
TRIAL_DAYS = 14


def billing_enabled() -> bool:
    return settings.billing != "off"


def subscription_active(workspace: Workspace) -> bool:
    if workspace.subscription_status == "trialing":
        return workspace.trial_ends_at is None or workspace.trial_ends_at > clock.now()
    return workspace.subscription_status == "active"


def effective_plan(workspace: Workspace) -> str:
    return workspace.plan if billing_enabled() else "enterprise"


def plan_has(plan: str, feature: Feature) -> bool:
    """Whether a workspace on ``plan`` has ``feature`` (always, with billing off)."""
    return not billing_enabled() or feature in PLAN_FEATURES.get(plan, set())


def require_feature(workspace: Workspace, feature: Feature, *, write: bool) -> None:
    """402 when the plan lacks the feature, or when a write meets a lapsed subscription."""
    if not billing_enabled():
        return
    if feature not in PLAN_FEATURES.get(workspace.plan, set()):
        required = next(p for p in PLAN_ORDER if feature in PLAN_FEATURES[p])
        raise PaymentRequired(
            f"This feature needs the {required} plan", code="PLAN_REQUIRED", requiredPlan=required
        )
    if write and not subscription_active(workspace):
        raise PaymentRequired(
            "The workspace's subscription is not active; data stays readable",
            code="SUBSCRIPTION_INACTIVE",
        )


def storage_quota(workspace: Workspace) -> int | None:
    return STORAGE_QUOTA.get(workspace.plan) if billing_enabled() else None


def seat_limit(workspace: Workspace) -> int | None:
    return SEAT_LIMIT.get(workspace.plan) if billing_enabled() else None
