"""The home route's answer."""

from pydantic import BaseModel


class Home(BaseModel):
    name: str
    version: str
    docs: str
    redoc: str
    openapi: str
    health: str
