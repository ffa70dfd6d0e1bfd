"""SCIM 2.0 provisioning (RFC 7643, 7644) at ``/scim/v2/{workspaceId}/``."""
