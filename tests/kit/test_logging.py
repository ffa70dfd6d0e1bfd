import logging

import orjson

from plumbline.kit.logging import JsonFormatter, request_id_var


def test_log_lines_are_json_with_the_request_id() -> None:
    token = request_id_var.set("req-42")
    try:
        record = logging.makeLogRecord({"msg": "hello %s", "args": ("world",), "levelname": "INFO"})
        record.__dict__["path"] = "/api/v1/health"
        line = orjson.loads(JsonFormatter().format(record))
    finally:
        request_id_var.reset(token)
    assert line["message"] == "hello world"
    assert line["requestId"] == "req-42"
    assert line["path"] == "/api/v1/health"
