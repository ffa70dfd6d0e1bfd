"""Workspace members, project access, link invites and e-mail invites (management routes)."""
