#!/usr/bin/env python3
"""A recording TCP relay for the exchange floor (benchlib/floor.py): each listener on
127.0.0.1 forwards every connection, byte for byte, to its upstream port on 127.0.0.1 and
closes its side when the other closes (a server that closes every connection is still seen
to do so), and writes each HTTP/1.1 request that passes (method, target, headers in order,
body) as one JSON line to --out, with the CLOCK_MONOTONIC time its head arrived, and each
answer's status as a line {"answer": request id, "status"}. Knows nothing of what the
requests mean.

    record_relay.py --out FILE aws=PORT google=PORT    # prints "NAME PORT" per listener, then "ready"
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import sys
import time


_connections = 0


class RequestParser:
    """Splits one connection's bytes into messages (Content-Length or chunked bodies): the
    client's requests, written whole, or (`answers`) the server's answers, whose status is
    written against the request of the same rank on the connection."""

    def __init__(self, name: str, out, connection: int, answers: bool = False):
        self.name, self.out, self.connection, self.answers = name, out, connection, answers
        self.buffer = b""
        self.head: dict | None = None
        self.count = 0
        self.done = False

    def feed(self, data: bytes) -> None:
        if self.done:
            return
        self.buffer += data
        while not self.done and self._step():
            pass

    def _step(self) -> bool:
        if self.head is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return False
            lines = self.buffer[:end].decode("latin-1").split("\r\n")
            self.buffer = self.buffer[end + 4:]
            first, second, third = (lines[0].split(" ", 2) + ["", ""])[:3]
            headers = [[name.strip(), value.strip()] for name, value in (line.split(":", 1) for line in lines[1:] if ":" in line)]
            fields = {name.lower(): value for name, value in headers}
            self.head = {"t": time.monotonic(), "endpoint": self.name, "method": first, "target": second,
                         "headers": headers, "chunked": "chunked" in fields.get("transfer-encoding", "").lower(),
                         "length": int(fields.get("content-length", "0") or 0)}
            if self.answers:
                if second.startswith("1"):  # an interim answer: not the request's
                    self.head = None
                    return True
                self.out.write(json.dumps({"answer": f"{self.connection}.{self.count}", "status": int(second)}) + "\n")
                self.out.flush()
                self.count += 1
                if "content-length" not in fields and not self.head["chunked"]:
                    self.done = True  # a body to the connection's end (or none): nothing more to frame
                    return False
        head = self.head
        if head["chunked"]:
            body, rest = _dechunk(self.buffer)
            if body is None:
                return False
            self.buffer = rest
        else:
            if len(self.buffer) < head["length"]:
                return False
            body, self.buffer = self.buffer[:head["length"]], self.buffer[head["length"]:]
        if not self.answers:
            record = {key: head[key] for key in ("t", "endpoint", "method", "target", "headers")}
            record["id"] = f"{self.connection}.{self.count}"
            record["body"] = base64.b64encode(body).decode()
            self.out.write(json.dumps(record) + "\n")
            self.out.flush()
            self.count += 1
        self.head = None
        return True


def _dechunk(data: bytes) -> tuple[bytes | None, bytes]:
    body, position = b"", 0
    while True:
        end = data.find(b"\r\n", position)
        if end < 0:
            return None, data
        size = int(data[position:end].split(b";")[0], 16)
        if size == 0:
            trailer_end = data.find(b"\r\n\r\n", end)
            if trailer_end < 0 and data[end + 2:end + 4] != b"\r\n":
                return None, data
            finish = end + 4 if data[end + 2:end + 4] == b"\r\n" else trailer_end + 4
            return body, data[finish:]
        if len(data) < end + 2 + size + 2:
            return None, data
        body += data[end + 2:end + 2 + size]
        position = end + 2 + size + 2


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, parser: RequestParser, upstream: bool) -> None:
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            parser.feed(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            if upstream and writer.can_write_eof():
                writer.write_eof()  # the client finished sending: tell the upstream
            else:
                writer.close()  # the upstream closed: so does this side
        except (ConnectionError, OSError):
            pass


def _listener(name: str, upstream: int, out):
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            writer.close()
            return
        global _connections
        _connections += 1
        await asyncio.gather(_pump(reader, up_writer, RequestParser(name, out, _connections), True),
                             _pump(up_reader, writer, RequestParser(name, out, _connections, answers=True), False))
        for w in (writer, up_writer):
            w.close()
    return handle


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("listeners", nargs="+", help="NAME=UPSTREAM_PORT")
    args = parser.parse_args()
    out = open(args.out, "a")
    servers = []
    for spec in args.listeners:
        name, port = spec.split("=")
        server = await asyncio.start_server(_listener(name, int(port), out), "127.0.0.1", 0)
        servers.append(server)
        print(name, server.sockets[0].getsockname()[1], flush=True)
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
