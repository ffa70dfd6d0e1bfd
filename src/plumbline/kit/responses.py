"""orjson responses: list endpoints hand pre-built dicts straight to orjson."""

from typing import Any

from starlette.responses import JSONResponse

from plumbline.kit import encoding


class ORJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return encoding.dumps(content)
