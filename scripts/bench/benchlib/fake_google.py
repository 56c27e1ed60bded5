#!/usr/bin/env python3
"""The bench's stand-in for Google's token endpoint on 127.0.0.1 (--port 0, the default: a free one, announced).
POST /token, a form: 400 invalid_request unless it has client_id, refresh_token and grant_type=refresh_token;
400 invalid_grant for a refresh_token starting "revoked"; else 200, a new access token. GET /stats[?reset=1]:
/token's outcomes so far (then zeroed). HTTP/1.1 kept alive, a thread per connection; TCP_NODELAY and one
write per answer (written whole here, so nothing is logged), or Nagle meets delayed ACKs: ~40 ms a request."""

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

ANSWERS = {"ok": (200, {"access_token": "ya29.new", "expires_in": 3599, "token_type": "Bearer",
                        "scope": "https://www.googleapis.com/auth/gmail.readonly"}),
           "invalid_grant": (400, {"error": "invalid_grant", "error_description": "Token has been expired or revoked."}),
           "bad": (400, {"error": "invalid_request", "error_description": "client_id, refresh_token, grant_type=refresh_token: all required"})}
tally, tally_lock = dict.fromkeys(("requests", *ANSWERS), 0), threading.Lock()


class TokenEndpoint(BaseHTTPRequestHandler):
    protocol_version, disable_nagle_algorithm = "HTTP/1.1", True

    def answer(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.wfile.write(f"HTTP/1.1 {status} {self.responses[status][0]}\r\nContent-Type: application/json; charset=utf-8\r\n"
                         f"Content-Length: {len(body)}\r\n\r\n".encode() + body)

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
        form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode())  # blank: absent
        if urlsplit(self.path).path != "/token":
            return self.answer(404, {"error": "not_found"})
        token = form.get("refresh_token", [""])[-1]
        outcome = ("bad" if form.get("grant_type", [""])[-1] != "refresh_token" or "client_id" not in form or not token
                   else "invalid_grant" if token.startswith("revoked") else "ok")
        with tally_lock:
            tally["requests"], tally[outcome] = tally["requests"] + 1, tally[outcome] + 1
        self.answer(*ANSWERS[outcome])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    server = ThreadingHTTPServer(("127.0.0.1", parser.parse_args().port), TokenEndpoint)
    print(f"Running on http://127.0.0.1:{server.server_port}", flush=True)  # servers.Server reads the port here
    server.serve_forever()
