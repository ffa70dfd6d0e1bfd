"""``ServiceProviderConfig``, ``ResourceTypes`` and ``Schemas``: what this server serves, built
from scim2-models and cut down to the attributes it keeps."""

from __future__ import annotations

from typing import Any

from scim2_models import (
    AuthenticationScheme,
    Bulk,
    ChangePassword,
    Context,
    ETag,
    Filter,
    Group,
    Meta,
    Patch,
    ResourceType,
    Schema,
    ServiceProviderConfig,
    Sort,
    User,
)

MAX_RESULTS = 200
# The User attributes kept (the rest of a provider's User is accepted and not stored).
USER_ATTRIBUTES = ("userName", "name", "displayName", "active", "emails")
NAME_ATTRIBUTES = ("formatted", "familyName", "givenName")
EMAIL_ATTRIBUTES = ("value", "type", "primary")
USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"


def service_provider_config(base: str) -> dict[str, Any]:
    config = ServiceProviderConfig(
        documentation_uri=None,
        patch=Patch(supported=True),
        bulk=Bulk(supported=False, max_operations=0, max_payload_size=0),
        filter=Filter(supported=True, max_results=MAX_RESULTS),
        change_password=ChangePassword(supported=False),
        sort=Sort(supported=False),
        etag=ETag(supported=False),
        authentication_schemes=[
            AuthenticationScheme(
                type="oauthbearertoken",
                name="Bearer token",
                description="A workspace's SCIM token, POST /api/v1/workspaces/{id}/scim-tokens",
                primary=True,
            )
        ],
        meta=Meta(resource_type="ServiceProviderConfig", location=f"{base}/ServiceProviderConfig"),
    )
    return config.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)


def _user_schema() -> Schema:
    schema = User.to_schema()
    kept = []
    for attribute in schema.attributes or []:
        if attribute.name not in USER_ATTRIBUTES:
            continue
        wanted = {"name": NAME_ATTRIBUTES, "emails": EMAIL_ATTRIBUTES}.get(str(attribute.name))
        if wanted is not None:
            attribute.sub_attributes = [
                sub for sub in attribute.sub_attributes or [] if sub.name in wanted
            ]
        kept.append(attribute)
    schema.attributes = kept
    return schema


def schemas(base: str) -> list[dict[str, Any]]:
    found = []
    for schema in (_user_schema(), Group.to_schema()):
        schema.meta = Meta(resource_type="Schema", location=f"{base}/Schemas/{schema.id}")
        found.append(schema.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))
    return found


def resource_types(base: str) -> list[dict[str, Any]]:
    found = []
    for name, endpoint, schema, description in (
        ("User", "/Users", USER_SCHEMA, "A person of the workspace"),
        ("Group", "/Groups", GROUP_SCHEMA, "A group; ADMIN, MANAGER, MEMBER grant that role"),
    ):
        resource_type = ResourceType(
            id=name,
            name=name,
            endpoint=endpoint,
            description=description,
            schema_=schema,
            meta=Meta(resource_type="ResourceType", location=f"{base}/ResourceTypes/{name}"),
        )
        found.append(resource_type.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))
    return found


def list_response(resources: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        "totalResults": len(resources),
        "startIndex": 1,
        "itemsPerPage": len(resources),
        "Resources": resources,
    }
