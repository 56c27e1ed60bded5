#!/usr/bin/env python3
"""A stand-in for Google's OAuth endpoints over HTTPS, for the bundle tests.

Usage: fake-google-tls.py CERT KEY PORT_FILE LOG_FILE [CLIENT_ID]

Listens on a free 127.0.0.1 port (written to PORT_FILE) with the given certificate and
answers as the Swift fake (Sources/FakeGoogle/FakeGoogleGrants.swift) does for the grants
of events/manifest.json (`google_grants`):
  - `POST /token` (form `client_id`, `grant_type=refresh_token`, `refresh_token`): 200
    `{"access_token": "ya29.fake-N", "expires_in", "scope", "token_type": "Bearer"}` plus an
    `id_token` (iss, aud = azp = CLIENT_ID, sub, email, email_verified, iat, exp = iat+3600;
    random signature) when the scope has openid. N counts this process's access tokens from 1.
    An unknown or revoked refresh token gets 400 invalid_grant, another client_id 401
    invalid_client, a grant issued to another client 401 unauthorized_client; a grant's
    `unavailable_for` first refreshes get 503 and after `refreshes_before_revocation`
    refreshes it is revoked.
  - `POST /revoke` with `token`: 200 `{}` and the grant is revoked; an unknown or already
    revoked token gets 400 invalid_token.
CLIENT_ID is the argument, else $FAKE_GOOGLE_CLIENT_ID, else the one the bundle proofs seed.
Each request appends one line "METHOD PATH field,names" to LOG_FILE (no values: they are
tokens). Anything else gets 404.
"""
import base64
import http.server
import json
import os
import secrets
import ssl
import sys
import threading
import time
import urllib.parse

SCRIPTS = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(os.path.dirname(SCRIPTS), "events", "manifest.json")

cert, key, port_file, log_file = sys.argv[1:5]
if len(sys.argv) > 5:
    client_id = sys.argv[5]
elif os.environ.get("FAKE_GOOGLE_CLIENT_ID"):
    client_id = os.environ["FAKE_GOOGLE_CLIENT_ID"]
else:
    client_id = "bundle-test-client.apps.googleusercontent.com"


class Grants:
    """The manifest's grants and Google's rules for them (FakeGoogleGrants.swift)."""

    def __init__(self, grants):
        self.lock = threading.Lock()
        self.grants = []
        self.by_refresh_token = {}
        self.by_access_token = {}
        self.issued = 0
        for grant in grants:
            self.grants.append({**grant, "revoked": False, "refreshes": 0,
                                "unavailable_for": grant.get("unavailable_for") or 0})
            self.by_refresh_token[grant["refresh_token"]] = len(self.grants) - 1

    def token(self, form):
        if form.get("grant_type") != "refresh_token":
            return error(400, "unsupported_grant_type", f"Invalid grant_type: {form.get('grant_type', '')}")
        if form.get("client_id") != client_id:
            return error(401, "invalid_client", "The OAuth client was not found.")
        if "client_secret" in form:
            return error(400, "invalid_request", "client_secret is not allowed for this client type.")
        refresh_token = form.get("refresh_token")
        if not refresh_token:
            return error(400, "invalid_request", "Missing required parameter: refresh_token")
        with self.lock:
            index = self.by_refresh_token.get(refresh_token)
            if index is None:
                return error(400, "invalid_grant", "Token has been expired or revoked.")
            grant = self.grants[index]
            if grant.get("issued_to") not in (None, client_id):
                return error(401, "unauthorized_client", "Unauthorized")
            if grant["unavailable_for"] > 0:
                grant["unavailable_for"] -= 1
                return error(503, "internal_failure", "Backend Error")
            limit = grant.get("refreshes_before_revocation")
            if limit is not None and grant["refreshes"] >= limit:
                grant["revoked"] = True
            if grant["revoked"]:
                return error(400, "invalid_grant", "Token has been expired or revoked.")
            self.issued += 1
            access_token = f"ya29.fake-{self.issued}"
            self.by_access_token[access_token] = index
            grant["refreshes"] += 1
        answer = {"access_token": access_token, "expires_in": grant.get("expires_in", 3599),
                  "scope": grant["scope"], "token_type": "Bearer"}
        if "openid" in grant["scope"].split(" "):
            answer["id_token"] = id_token(grant)
        return 200, answer

    def revoke(self, form):
        token = form.get("token")
        if not token:
            return error(400, "invalid_request", "Bad Request")
        with self.lock:
            index = self.by_refresh_token.get(token, self.by_access_token.get(token))
            if index is None or self.grants[index]["revoked"]:
                return error(400, "invalid_token", "Token expired or revoked")
            self.grants[index]["revoked"] = True
        return 200, {}


def error(status, code, description):
    return status, {"error": code, "error_description": description}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def id_token(grant):
    iat = int(time.time())
    claims = {"iss": "https://accounts.google.com", "aud": client_id, "azp": client_id, "sub": grant["sub"],
              "iat": iat, "exp": iat + 3600}
    if grant.get("email") is not None:
        claims["email"] = grant["email"]
        claims["email_verified"] = grant.get("email_verified", True)
    header = {"alg": "RS256", "kid": "fake-google-key", "typ": "JWT"}
    encode = lambda document: b64url(json.dumps(document, sort_keys=True, separators=(",", ":")).encode())  # noqa: E731
    return f"{encode(header)}.{encode(claims)}.{b64url(secrets.token_bytes(256))}"


with open(MANIFEST) as handle:
    grants = Grants(json.load(handle)["google_grants"])


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode()
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        is_form = content_type == "application/x-www-form-urlencoded"
        form = {name: values[0] for name, values in urllib.parse.parse_qs(raw, keep_blank_values=True).items()} \
            if is_form else {}
        path = urllib.parse.urlsplit(self.path).path
        with open(log_file, "a") as log:
            log.write(f"POST {path} {','.join(sorted(form))}\n")
        if path == "/token":
            status, body = grants.token(form) if is_form else error(
                400, "invalid_request", "Invalid content type; expected application/x-www-form-urlencoded.")
        elif path == "/revoke":
            query = {name: values[0] for name, values in urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).items()}
            status, body = grants.revoke(form if form.get("token") else query)
        else:
            status, body = 404, {}
        data = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Cache-Control", "no-cache, no-store, max-age=0, must-revalidate")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as handle:
    handle.write(str(server.server_address[1]))
# Renamed into place only once listening, so the caller never reads a half-written port.
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
