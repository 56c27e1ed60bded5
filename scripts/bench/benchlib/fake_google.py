#!/usr/bin/env python3
"""The bench's stand-in for Google's token endpoint (POST /token) on a free port of 127.0.0.1 it
announces; GET /stats[?reset=1]: /token's outcomes so far (then zeroed). TCP_NODELAY and one
write per answer (written whole here, so nothing is logged), or Nagle meets delayed ACKs: ~40 ms
a request."""

import json, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ANSWERS = {
    "ok": (200, {"access_token": "ya29.new", "expires_in": 3599, "token_type": "Bearer",
                 "scope": "https://www.googleapis.com/auth/gmail.readonly"}),
    "invalid_grant": (400, {"error": "invalid_grant",
                            "error_description": "Token has been expired or revoked."}),
    "bad": (400, {"error": "invalid_request", "error_description":
                  "client_id, refresh_token, grant_type=refresh_token: all required"})}
tally, tally_lock = dict.fromkeys(("requests", *ANSWERS), 0), threading.Lock()


class TokenEndpoint(BaseHTTPRequestHandler):
    protocol_version, disable_nagle_algorithm = "HTTP/1.1", True

    def answer(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.wfile.write(f"HTTP/1.1 {status} {self.responses[status][0]}\r\nContent-Type: "
                         f"application/json; charset=utf-8\r\nContent-Length: {len(body)}\r\n\r\n"
                         .encode() + body)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        if url.path != "/stats":
            return self.answer(404, {"error": "not_found"})
        with tally_lock:
            snapshot = dict(tally)
            if parse_qs(url.query).get("reset") == ["1"]:
                tally.update(dict.fromkeys(tally, 0))
        self.answer(200, snapshot)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        form = parse_qs(self.rfile.read(length).decode())  # a blank value counts as absent
        if urlsplit(self.path).path != "/token":
            return self.answer(404, {"error": "not_found"})
        token = form.get("refresh_token", [""])[-1]
        grant = form.get("grant_type", [""])[-1]
        valid = grant == "refresh_token" and "client_id" in form and token
        outcome = "bad" if not valid else "invalid_grant" if token.startswith("revoked") else "ok"
        with tally_lock:
            tally["requests"], tally[outcome] = tally["requests"] + 1, tally[outcome] + 1
        self.answer(*ANSWERS[outcome])


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), TokenEndpoint)
    print(f"Running on http://127.0.0.1:{server.server_port}", flush=True)  # procs.Server reads it
    server.serve_forever()
