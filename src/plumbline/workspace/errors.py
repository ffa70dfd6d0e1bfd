"""Errors of workspaces."""

from plumbline.errors import Conflict


class SlugTaken(Conflict, message="This workspace address is already taken"): ...
