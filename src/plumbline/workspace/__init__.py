"""Workspaces: create, read, rename and brand, soft delete and purge, the workspace dashboard."""
