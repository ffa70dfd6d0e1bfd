"""Plan gates (PRODUCT §4). With billing off every module is on and nothing is limited."""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

from plumbline.config import settings
from plumbline.errors import PaymentRequired
from plumbline.kit import clock
from plumbline.models import Workspace

F = TypeVar("F", bound=Callable[..., Any])


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
    SSO = "sso"


_TEAM = {Feature.RECORDS, Feature.FILES, Feature.SCHEDULE, Feature.MATERIALS_READ}
_PRO = _TEAM | {Feature.PROPOSALS, Feature.MATERIALS_WRITE, Feature.DRAWING_AI, Feature.CLOUD}
_ENTERPRISE = _PRO | {Feature.OM, Feature.SSO}
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

# THE table of plan gates: every router's OpenAPI tag -> the feature its routes need, or None
# for a router deliberately open on every plan (account, workspace administration, billing,
# public and token routes). A module adds one line here and passes the same feature to its
# access dependency (``project_access(..., feature=...)``, ``workspace_access(..., feature=...)``,
# ``record_access``, ``files_access``...). tests/billing/test_route_features.py walks the app's
# routes and fails on a tag missing here, or on a gated route whose access check does not apply
# its feature. Writes of a module whose reads are on a lower plan declare the stronger feature on
# their dependency (materials: MATERIALS_READ here, MATERIALS_WRITE on the write routes).
ROUTE_FEATURES: dict[str, Feature | None] = {
    "issues": Feature.RECORDS,
    "rfi": Feature.RECORDS,
    "punch": Feature.RECORDS,
    "field-reports": Feature.RECORDS,
    "proposals": Feature.PROPOSALS,
    "files": Feature.FILES,
    "viewer": Feature.FILES,
    "proposal-templates": Feature.PROPOSALS,
    "om": Feature.OM,
    "schedule": Feature.SCHEDULE,
    "materials": Feature.MATERIALS_READ,
    "drawing-ai": Feature.DRAWING_AI,
    "cloud": Feature.CLOUD,
    # Enterprise sign-in: the provider, its domains and SCIM tokens (docs/sso.md).
    "sso": Feature.SSO,
    "scim": Feature.SSO,  # the SCIM token carries the check (scim.auth)
    # Every plan: a lapsed subscription still reads its webhooks but changes none.
    "webhooks": Feature.RECORDS,
    # Open on every plan: counts, administration and the caller's own things. Project writes
    # still need a live subscription (project service).
    "dashboard": None,
    "projects": None,
    "audit": None,
    "changes": None,  # each resource's changes follow its own plan gate (events.feed)
    "api-keys": None,
    "calendar-feeds": None,  # each feed shows only the modules its owner reads
    "workspaces": None,
    "members": None,
    "invites": None,
    "me": None,
    "notifications": None,
    "auth": None,
    "payments": None,
    "public": None,
    "proposal portal": None,
    "occupant portal": None,
    "pages": None,  # each page applies the rules of the JSON route it stands for
    "storage": None,
    "internal": None,
}


def gated(dependency: F, feature: Feature | None) -> F:
    """Marks an access dependency with the plan feature it applies (read by the route test)."""
    if feature is not None:
        dependency.__plumbline_feature__ = feature  # type: ignore[attr-defined]
    return dependency


def implies(stronger: Feature, feature: Feature) -> bool:
    """True when every plan with ``stronger`` also has ``feature``."""
    return all(feature in features for features in PLAN_FEATURES.values() if stronger in features)


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
