"""The project dashboard: counts and recent activity of one project."""
