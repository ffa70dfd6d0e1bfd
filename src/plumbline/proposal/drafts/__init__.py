"""A proposal while the contractor prepares it: create, read, edit, delete, list, figures."""
