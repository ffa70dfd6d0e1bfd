"""moto's S3 server with its buckets made at every start.

The stand-in keeps everything in memory: a bucket made once by hand (or by a one-shot service)
would be gone after a restart of this container, leaving the apps a store they cannot write to.
S3_BUCKETS (comma-separated, default `plumbline`) names them, PORT (default 9000) the port;
made with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY when set, as the apps connect."""

from __future__ import annotations

import os
import signal
import sys
import threading
import traceback

import boto3
from moto.server import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
from werkzeug.serving import make_server


def make_buckets(port: int, buckets: list[str]) -> None:
    s3 = boto3.client(
        "s3",
        endpoint_url=f"http://127.0.0.1:{port}",
        region_name="us-east-1",
        # moto takes any credentials; the apps' own (compose passes them) own the buckets.
        aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "stand-in"),
        aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "stand-in"),
    )
    try:
        for bucket in buckets:
            s3.create_bucket(Bucket=bucket)
    except Exception:
        traceback.print_exc()
        os._exit(1)  # a store without its bucket is no use: the container restarts
    print(f"S3 stand-in on port {port}, buckets: {', '.join(buckets)}", flush=True)


def main() -> None:
    port = int(os.environ.get("PORT", "9000"))
    buckets = [b.strip() for b in os.environ.get("S3_BUCKETS", "plumbline").split(",") if b.strip()]
    app = DomainDispatcherApplication(create_backend_app)
    # Bound here, in the main thread: a port already taken ends the process at once.
    server = make_server(
        "0.0.0.0",  # noqa: S104 - the container's published port
        port,
        app,
        threaded=True,
        request_handler=MotoRequestHandler,
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Made through the listening socket, served once serve_forever runs below.
    threading.Thread(target=make_buckets, args=(port, buckets), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
