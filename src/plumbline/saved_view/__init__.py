"""Saved views of the app's lists (a list page's query string under a name)."""
