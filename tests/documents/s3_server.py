"""A tiny S3-compatible object server for tests: path-style PUT/GET/DELETE with SigV4 header auth checked
against the received request (signed headers, payload hash) and the known secret."""

from __future__ import annotations

import hashlib
import re
import socket
import threading
import time
from datetime import UTC, datetime

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from unionflow.documents.storage import sigv4_headers

AUTH = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/s3/aws4_request, "
                  r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})")


class S3Server:
    def __init__(self, access_key: str, secret_key: str, region: str = "us-east-1") -> None:
        self.access_key, self.secret_key, self.region = access_key, secret_key, region
        self.objects: dict[str, tuple[bytes, str]] = {}
        self.requests: list[tuple[str, str, int]] = []
        self.app = Starlette(routes=[Route("/{bucket}/{key}", self.handle, methods=["GET", "PUT", "DELETE"])])
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="error"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> S3Server:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)

    def _authorised(self, request: Request, body: bytes) -> bool:
        match = AUTH.fullmatch(request.headers.get("authorization", ""))
        if not match or match.group(1) != self.access_key or match.group(3) != self.region:
            return False
        payload = request.headers.get("x-amz-content-sha256", "")
        if payload != hashlib.sha256(body).hexdigest():
            return False
        names = match.group(4).split(";")
        if not {"host", "x-amz-date", "x-amz-content-sha256"} <= set(names):
            return False
        signed = {n: request.headers.get(n, "") for n in names if n not in ("host", "x-amz-date",
                                                                           "x-amz-content-sha256")}
        when = datetime.strptime(request.headers["x-amz-date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        expected = sigv4_headers(request.method, request.headers["host"], request.url.path, payload,
                                 access_key=self.access_key, secret_key=self.secret_key, region=self.region,
                                 extra=signed, now=when)["authorization"]
        return expected.rsplit("Signature=", 1)[1] == match.group(5)

    async def handle(self, request: Request) -> Response:
        body = await request.body()
        path = request.url.path
        self.requests.append((request.method, path, len(body)))
        if not self._authorised(request, body):
            return Response("<Error><Code>SignatureDoesNotMatch</Code></Error>", 403, media_type="application/xml")
        if request.method == "PUT":
            if request.headers.get("content-length") != str(len(body)):
                return Response("<Error><Code>MissingContentLength</Code></Error>", 411)
            self.objects[path] = (body, request.headers.get("content-type", ""))
            return Response(status_code=200, headers={"ETag": f'"{hashlib.md5(body).hexdigest()}"'})
        if request.method == "DELETE":
            self.objects.pop(path, None)
            return Response(status_code=204)
        if path not in self.objects:
            return Response("<Error><Code>NoSuchKey</Code></Error>", 404, media_type="application/xml")
        data, content_type = self.objects[path]
        return Response(data, media_type=content_type)
