"""The proposal templates' own refusals."""

from plumbline.errors import Conflict


class TemplateNameTaken(
    Conflict, message="A proposal template with this name already exists in the workspace"
): ...
