"""Project API keys: create (shown once), list, revoke."""
