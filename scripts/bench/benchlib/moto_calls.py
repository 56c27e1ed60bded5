"""AWS JSON calls straight to moto, for seeding only: no SDK and no real signature (moto
routes a request by the service named in its Authorization header and checks no signature
unless told to), so seeding 10,000 secrets costs moto's time, not a client's."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse

REGION = "us-east-1"
_TARGETS = {"secretsmanager": "secretsmanager", "dynamodb": "DynamoDB_20120810", "kms": "TrentService"}


class MotoError(Exception):
    def __init__(self, status: int, kind: str, body: bytes):
        super().__init__(f"{status} {kind}: {body[:300]!r}")
        self.status, self.kind = status, kind


class MotoCaller:
    """One connection per thread to moto; call(service, operation, payload) -> dict."""

    def __init__(self, endpoint: str):
        parsed = urllib.parse.urlsplit(endpoint)
        self.host, self.port = parsed.hostname, parsed.port
        self._local = threading.local()

    def _connection(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
        return conn

    def call(self, service: str, operation: str, payload: dict) -> dict:
        day = time.strftime("%Y%m%d", time.gmtime())
        headers = {
            "Content-Type": "application/x-amz-json-1.0" if service == "dynamodb" else "application/x-amz-json-1.1",
            "X-Amz-Target": f"{_TARGETS[service]}.{operation}",
            "Authorization": f"AWS4-HMAC-SHA256 Credential=test/{day}/{REGION}/{service}/aws4_request, "
                             "SignedHeaders=host;x-amz-target, Signature=0",
        }
        body = json.dumps(payload).encode()
        for attempt in range(2):
            conn = self._connection()
            try:
                conn.request("POST", "/", body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
                    self._local.conn = None
                break
            except (http.client.HTTPException, OSError):
                conn.close()
                self._local.conn = None
                if attempt:
                    raise
        if response.status >= 300:
            kind = response.getheader("X-Amzn-ErrorType", "") or (json.loads(data).get("__type", "") if data.startswith(b"{") else "")
            raise MotoError(response.status, kind.split(":")[0], data)
        return json.loads(data) if data else {}

    def call_retrying(self, service: str, operation: str, payload: dict) -> dict:
        """Retries moto's 500s: concurrent CreateSecret calls can trip a dictionary resize
        in its lookups (see docs/testing.md's note on moto)."""
        for attempt in range(8):
            try:
                return self.call(service, operation, payload)
            except MotoError as error:
                if error.status < 500 or attempt == 7:
                    raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")
