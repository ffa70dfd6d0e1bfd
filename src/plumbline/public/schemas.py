from pydantic import BaseModel


class Health(BaseModel):
    ok: bool
    version: str
    database: str
