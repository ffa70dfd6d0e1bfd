"""``/app/projects/{projectId}/issues...``: issues and work orders. One module per page kind:
``listing.py`` (the list, the board, bulk actions, the create form) and ``record.py`` (an
issue's page: its fields edited in place, status, comments, photos, history, costs)."""
