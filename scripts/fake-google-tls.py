#!/usr/bin/env python3
"""A stand-in for Google's revoke endpoint over HTTPS, for the bundle tests.

Usage: fake-google-tls.py CERT KEY PORT_FILE LOG_FILE

Listens on a free 127.0.0.1 port (written to PORT_FILE) with the given certificate and
answers `POST /revoke` with 200 `{}`, as Google does. Each request appends one line
"METHOD PATH field,names" to LOG_FILE (no values: they are tokens). Anything else gets 404.
"""
import http.server
import os
import ssl
import sys
import urllib.parse

cert, key, port_file, log_file = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        with open(log_file, "a") as log:
            log.write(f"POST {self.path} {','.join(sorted(form))}\n")
        status, body = (200, b"{}") if self.path == "/revoke" and form.get("token") else (404, b"{}")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as handle:
    handle.write(str(server.server_address[1]))
# Renamed into place only once listening, so the caller never reads a half-written port.
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
