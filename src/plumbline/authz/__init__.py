"""What a caller may do: permissions, roles, API-key scopes, plan gates, project access."""
