"""SCIM documents: the resources as JSON, requests parsed and patched with scim2-models,
lists filtered and paged."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from scim2_models import (
    Context,
    EnterpriseUser,
    PatchOp,
    Path,
    ResponseParameters,
    ScimFilter,
    User,
)
from scim2_models.path import CompareOperator, Comparison, FilterNode, LogicalExpr, LogicalOperator
from sqlalchemy import ColumnElement, and_, or_

from plumbline.config import settings
from plumbline.kit import clock
from plumbline.models import ScimGroup, ScimUser
from plumbline.scim.discovery import MAX_RESULTS
from plumbline.scim.errors import ScimError, from_validation, invalid_value

# Requests may carry Entra's and Okta's enterprise attributes: accepted, not kept.
FullUser = User[EnterpriseUser]
ROLE_GROUPS = {"ADMIN": 3, "MANAGER": 2, "MEMBER": 1}
ACTOR = "scim"
USER_NAME: Any = Path[User[Any]]("userName").resolve()


def user_name_key(user_name: str) -> str:
    """``userName`` as SCIM compares it (case-insensitive: NFC, lower case), the library's own
    comparison key, so that a stored key compares as its filters match (``ScimUser.user_name_key``;
    the migration that filled it in writes the same, tests/scim pins the two together)."""
    return str(USER_NAME.comparable(user_name))


def base_url(workspace_id: str) -> str:
    return f"{settings.public_url.rstrip('/')}/scim/v2/{workspace_id}"


def kept(model: User[Any]) -> dict[str, Any]:
    dumped = model.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)
    names = ("name", "displayName", "emails", "active")
    return {k: dumped[k] for k in names if dumped.get(k) is not None}


def user_doc(row: ScimUser, base: str) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
        "id": row.id,
        "externalId": row.external_id,
        "userName": row.user_name,
        **row.attributes,  # "active" as the provider sent it (absent: active)
        "meta": {
            "resourceType": "User",
            "created": clock.iso(row.created_at),
            "lastModified": clock.iso(row.updated_at),
            "location": f"{base}/Users/{row.id}",
        },
    }


def group_doc(row: ScimGroup, base: str) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
        "id": row.id,
        "externalId": row.external_id,
        "displayName": row.display_name,
        "members": [{**m, "$ref": f"{base}/{m['type']}s/{m['value']}"} for m in row.members],
        "meta": {
            "resourceType": "Group",
            "created": clock.iso(row.created_at),
            "lastModified": clock.iso(row.updated_at),
            "location": f"{base}/Groups/{row.id}",
        },
    }


def parse(model: Any, body: Any, context: Context) -> Any:
    if not isinstance(body, dict):
        raise ScimError(400, "The body must be a JSON object", "invalidSyntax")
    try:
        return model.model_validate(body, scim_ctx=context)
    except ValidationError as exc:
        raise from_validation(exc) from exc


def patched(model_type: Any, current: dict[str, Any], body: Any) -> Any:
    resource = model_type.model_validate(current)
    patch = parse(PatchOp[model_type], body, Context.RESOURCE_PATCH_REQUEST)
    try:
        patch.patch(resource)
    except ValidationError as exc:
        raise from_validation(exc) from exc
    except Exception as exc:  # scim2-models' SCIMException family names its scimType
        scim_type = getattr(exc, "scim_type", None)
        if scim_type is None:
            raise
        raise ScimError(400, str(exc), str(scim_type)) from exc
    return resource


def dump(
    resource_type: Any, doc: dict[str, Any], params: ResponseParameters[Any] | None
) -> dict[str, Any]:
    """The resource with the ``attributes``/``excludedAttributes`` the client asked for."""
    if params is None or not (params.attributes or params.excluded_attributes):
        return {k: v for k, v in doc.items() if v is not None}
    model = resource_type.model_validate(doc)
    return dict(
        model.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE, response_parameters=params)
    )


def response_parameters(
    resource_type: Any, query: dict[str, str]
) -> ResponseParameters[Any] | None:
    raw = {k: query[k] for k in ("attributes", "excludedAttributes") if query.get(k)}
    if not raw:
        return None
    try:
        return ResponseParameters[resource_type].model_validate(raw)
    except ValidationError as exc:
        raise from_validation(exc) from exc


def page(query: dict[str, str]) -> tuple[int, int]:
    """``startIndex`` (1-based, below 1 counts as 1) and ``count`` (0 to the maximum)."""
    try:
        start = max(1, int(query.get("startIndex", "1")))
        count = min(MAX_RESULTS, max(0, int(query.get("count", str(MAX_RESULTS)))))
    except ValueError as exc:
        raise invalid_value("startIndex and count are integers") from exc
    return start, count


def listed(resource_type: Any, docs: list[dict[str, Any]], query: dict[str, str]) -> dict[str, Any]:
    """A ListResponse of the documents matching ``filter``, one page of them."""
    return listed_typed([(resource_type, d) for d in docs], query, (resource_type,))


def listed_typed(
    docs: list[tuple[Any, dict[str, Any]]], query: dict[str, str], kinds: tuple[Any, ...]
) -> dict[str, Any]:
    """``listed`` over documents of several resource types (a search at the root)."""
    text = query.get("filter")
    if text:
        matching = []
        try:
            expressions = {kind: _filter(kind, text) for kind in kinds}
            for kind, doc in docs:
                if expressions[kind].match(kind.model_validate(doc)):
                    matching.append((kind, doc))
        except Exception as exc:
            raise ScimError(400, f"Invalid filter: {exc}", "invalidFilter") from exc
        docs = matching
    start, count = page(query)
    return list_response(docs[start - 1 : start - 1 + count], len(docs), start, query)


def list_response(
    chosen: list[tuple[Any, dict[str, Any]]], total: int, start: int, query: dict[str, str]
) -> dict[str, Any]:
    """The ListResponse of one page, ``chosen`` (from the ``start``-th), of ``total`` results."""
    return {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        "totalResults": total,
        "startIndex": start,
        "itemsPerPage": len(chosen),
        "Resources": [dump(kind, d, response_parameters(kind, query)) for kind, d in chosen],
    }


def users_meeting(text: str) -> ColumnElement[bool] | None:
    """A condition every User matching the filter ``text`` meets, for the statement to read
    only those (the providers look each person up with ``userName eq "..."`` before
    provisioning them): a ``userName``, ``externalId`` (case-exact) or ``id`` equality, and
    what ``and`` and ``or`` make of them. None when the filter names nothing indexed, or is
    malformed (``listed`` refuses it). ``listed`` still matches each User read: the condition
    only leaves out Users that cannot."""
    try:
        found = _filter(User, text)
        return _meeting(found, found.ast)
    except Exception:
        return None


def _meeting(found: Any, node: FilterNode) -> ColumnElement[bool] | None:
    if isinstance(node, LogicalExpr):
        terms = [_meeting(found, term) for term in node.terms]
        kept = [term for term in terms if term is not None]
        if node.op == LogicalOperator.and_:
            return and_(*kept) if kept else None
        return or_(*kept) if len(kept) == len(terms) else None  # `or`: only when every term is
    if not (
        isinstance(node, Comparison)
        and node.op == CompareOperator.eq
        and isinstance(node.value, str)
    ):
        return None
    binding = found.resolve_comparison(node.attr_path)
    if binding is None or binding.sub_field_name is not None:
        return None
    value = str(binding.comparable(node.value))
    if binding.field_name == "user_name":
        return ScimUser.user_name_key == value
    if binding.field_name == "external_id":
        return ScimUser.external_id == value
    if binding.field_name == "id":
        return ScimUser.id == value
    return None


def _filter(resource_type: Any, text: str) -> Any:
    return ScimFilter[resource_type](text)


def search_query(body: Any) -> dict[str, str]:
    """A SearchRequest body (``POST .search``) as the query parameters of a GET."""
    if not isinstance(body, dict):
        raise ScimError(400, "The body must be a JSON object", "invalidSyntax")
    query = {}
    for name in ("filter", "startIndex", "count", "attributes", "excludedAttributes"):
        value = body.get(name)
        if isinstance(value, list):
            value = ",".join(str(v) for v in value)
        if value is not None:
            query[name] = str(value)
    return query


def display_name(model: Any, email: str | None) -> str | None:
    name = model.display_name or (model.name.formatted if model.name else None)
    if not name and model.name:
        name = " ".join(p for p in (model.name.given_name, model.name.family_name) if p)
    if not name and email:
        name = email.split("@", 1)[0]
    return name.strip()[:200] if name else None
