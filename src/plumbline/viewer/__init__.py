"""File-version locks, viewer state (markups) and live co-viewing over Server-Sent Events."""
