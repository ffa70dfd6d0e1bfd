"""A project's schedule: tasks with dependencies, replaced whole and exported as CSV."""
