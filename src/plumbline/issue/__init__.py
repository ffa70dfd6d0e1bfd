"""Issues and work orders: assignees, comments, reference photos, filters and CSV export."""
