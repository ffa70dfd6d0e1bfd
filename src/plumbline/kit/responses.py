"""orjson responses: list endpoints hand pre-built dicts straight to orjson."""

from typing import Any, Self

from starlette.responses import JSONResponse

from plumbline.kit import encoding


class ORJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return encoding.dumps(content)

    @classmethod
    def page(cls, page: tuple[Any, dict[str, str]]) -> Self:
        """A list endpoint's answer: the page's rows and their pagination headers."""
        rows, headers = page
        return cls(rows, headers=headers)
