#!/usr/bin/env python3
"""A recording TCP relay for the exchange floor (benchlib/floor.py): each listener on 127.0.0.1
forwards every connection, byte for byte, to its upstream port on 127.0.0.1 and closes its side
when the other closes (a server that closes every connection is still seen to do so), and
writes each HTTP/1.1 request that passes (method, target, headers in order, body) as one JSON
line to --out, with the CLOCK_MONOTONIC time its head arrived, and each answer's status as a
line {"answer": request id, "status"}. Knows nothing of what the requests mean.

    record_relay.py --out FILE aws=PORT google=PORT    # prints "NAME PORT" per listener, then "ready"
"""

import argparse, asyncio, base64, itertools, json, time

CONNECTIONS = itertools.count(1)


class Messages:
    """Splits one direction of a connection into messages (Content-Length or chunked bodies):
    the client's requests, written whole, or (`answers`) the server's answers, whose status is
    written against the request of the same rank on the connection."""

    def __init__(self, name: str, out, connection: int, answers: bool = False):
        self.name, self.out, self.connection, self.answers = name, out, connection, answers
        self.buffer, self.head, self.count, self.done = b"", None, 0, False

    def feed(self, data: bytes) -> None:
        if self.done:
            return
        self.buffer += data
        while not self.done and self._step():
            pass

    def _write(self, record: dict) -> None:
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()
        self.count += 1

    def _step(self) -> bool:
        if self.head is None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return False
            lines = self.buffer[:end].decode("latin-1").split("\r\n")
            self.buffer = self.buffer[end + 4:]
            method, target = (lines[0].split(" ", 2) + ["", ""])[:2]  # an answer's: version, status
            headers = [[name.strip(), value.strip()]
                       for name, value in (line.split(":", 1) for line in lines[1:] if ":" in line)]
            fields = {name.lower(): value for name, value in headers}
            chunked = "chunked" in fields.get("transfer-encoding", "").lower()
            self.head = {"t": time.monotonic(), "endpoint": self.name, "method": method,
                         "target": target, "headers": headers, "chunked": chunked,
                         "length": int(fields.get("content-length") or 0)}
            if self.answers:
                if target.startswith("1"):  # an interim answer: not the request's
                    self.head = None
                    return True
                self._write({"answer": f"{self.connection}.{self.count}", "status": int(target)})
                if "content-length" not in fields and not chunked:
                    self.done = True  # a body to the connection's end (or none): nothing to frame
                    return False
        if self.head["chunked"]:
            body, rest = _dechunk(self.buffer)
            if body is None:
                return False
        elif len(self.buffer) >= self.head["length"]:
            body, rest = self.buffer[:self.head["length"]], self.buffer[self.head["length"]:]
        else:
            return False
        self.buffer, head, self.head = rest, self.head, None
        if not self.answers:
            self._write({**{key: head[key] for key in ("t", "endpoint", "method", "target", "headers")},
                         "id": f"{self.connection}.{self.count}", "body": base64.b64encode(body).decode()})
        return True


def _dechunk(data: bytes) -> tuple[bytes | None, bytes]:
    """A chunked body at the start of `data` and what follows it; (None, data) if incomplete."""
    body, position = b"", 0
    while True:
        end = data.find(b"\r\n", position)
        if end < 0:
            return None, data
        size = int(data[position:end].split(b";")[0], 16)
        if size == 0:  # then the trailers, if any, and an empty line
            finish = data.find(b"\r\n\r\n", end)
            return (None, data) if finish < 0 else (body, data[finish + 4:])
        if len(data) < end + 2 + size + 2:
            return None, data
        body += data[end + 2:end + 2 + size]
        position = end + 2 + size + 2


async def _pump(reader, writer, messages: Messages, to_upstream: bool) -> None:
    try:
        while data := await reader.read(65536):
            messages.feed(data)
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        try:
            if to_upstream and writer.can_write_eof():
                writer.write_eof()  # the client finished sending: tell the upstream
            else:
                writer.close()  # the upstream closed: so does this side
        except (ConnectionError, OSError):
            pass


def _listener(name: str, upstream: int, out):
    async def handle(reader, writer) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            writer.close()
            return
        connection = next(CONNECTIONS)
        await asyncio.gather(_pump(reader, up_writer, Messages(name, out, connection), True),
                             _pump(up_reader, writer, Messages(name, out, connection, True), False))
        writer.close()
        up_writer.close()
    return handle


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("listeners", nargs="+", help="NAME=UPSTREAM_PORT")
    args = parser.parse_args()
    out, servers = open(args.out, "a"), []
    for name, port in (spec.split("=") for spec in args.listeners):
        servers.append(await asyncio.start_server(_listener(name, int(port), out), "127.0.0.1", 0))
        print(name, servers[-1].sockets[0].getsockname()[1], flush=True)
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
