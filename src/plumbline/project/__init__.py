"""Projects: creation, settings, session, team."""
