"""A workspace's proposal templates: letter bodies with defaults for new proposals."""
