"""Structured JSON logs carrying the request id, with credentials in URLs redacted.

Redacted: signed storage links, public tokens, query tokens.
"""

from __future__ import annotations

import logging
import re
import sys
from contextvars import ContextVar
from typing import Any

import orjson

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)
client_ip_var: ContextVar[str | None] = ContextVar("client_ip", default=None)

# uvicorn's "color_message" repeats the message with terminal colours.
_RESERVED = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}
# The loggers whose lines are ours to format: the app's and the server's.
LOGGERS = ("plumbline", "uvicorn", "uvicorn.access")
REDACTED = "[redacted]"

_SECRET_PARAM = re.compile(
    r"(?i)([?&;][\w.-]*(?:token|signature|secret|credential|sig|code|password)[\w.-]*=)"
    r"[^&;#\s\"'<>]*"
)
_SEGMENT = re.compile(r"(?<=/)[A-Za-z0-9_~%.=-]{20,}")
_IDENTIFIER = re.compile(r"[0-9a-f]{32}")
_FILE_NAME = re.compile(r"\.[A-Za-z]{2,4}$")
_MIXED = re.compile(r"[0-9A-Z]")


def _segment(match: re.Match[str]) -> str:
    segment = match.group(0)
    if _IDENTIFIER.fullmatch(segment) or _FILE_NAME.search(segment) or not _MIXED.search(segment):
        return segment
    return REDACTED


def redact(text: str) -> str:
    """``text`` with the secrets of any URL or path in it replaced by ``[redacted]``.

    Query parameters named like a credential (``token``, ``X-Amz-Signature``, ``code``...) lose
    their value; a path segment of 20+ URL-safe characters mixing digits or capitals (a public
    token, a signed storage link) is replaced, except identifiers (32 hex digits), file names
    and lower-case words. Redacting too much here only costs a log reader a detail; too little
    leaves a working link in every log archive."""
    if "/" not in text and "=" not in text:
        return text
    return _SEGMENT.sub(_segment, _SECRET_PARAM.sub(rf"\1{REDACTED}", text))


def _clean(value: Any) -> Any:
    return redact(value) if isinstance(value, str) else value


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": redact(record.getMessage()),
            "requestId": request_id_var.get(),
        }
        entry.update({k: _clean(v) for k, v in record.__dict__.items() if k not in _RESERVED})
        if record.exc_info:
            entry["exception"] = redact(self.formatException(record.exc_info))
        return orjson.dumps(entry, default=str).decode()


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stderr for the app's loggers, and for the server's that write anywhere (the
    server keeps its levels, and its access log stays off when it is off)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if name == "plumbline" or logger.handlers:
            logger.handlers[:] = [handler]
            logger.propagate = False
    logging.getLogger("plumbline").setLevel(level.upper())


def server_log_config(level: str = "INFO") -> dict[str, Any]:
    """uvicorn's ``log_config``: its lines are JSON from the first one, before the app loads."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        # By name, not the stream itself: `--workers N` hands this to worker processes (pickled).
        "handlers": {
            "json": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            name: {"handlers": ["json"], "level": level.upper(), "propagate": False}
            for name in LOGGERS
        },
    }
