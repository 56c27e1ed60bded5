#!/usr/bin/env python3
"""A recording TCP relay for the exchange floor (benchlib/floor.py, which reads what it wrote back
as requests and answers): each listener on 127.0.0.1 forwards every connection byte for byte to
its upstream port on 127.0.0.1, closing its side when the other closes. It writes a connection's
two directions to DIR/CONNECTION.NAME.in and .out, and per piece read a line
"CONNECTION NAME in|out START END CLOCK_MONOTONIC" to DIR/index.

    record_relay.py DIR aws=PORT google=PORT    # prints "NAME PORT" per listener, then "ready"
"""

import asyncio, itertools, os, sys, time

CONNECTIONS = itertools.count(1)


async def _pump(reader, writer, label: str, directory: str, index, to_upstream: bool) -> None:
    with open(os.path.join(directory, label.replace(" ", ".")), "wb") as out:
        try:
            while data := await reader.read(65536):
                arrived = time.monotonic()
                out.write(data)  # before it passes on: once it has, the bench may read it
                out.flush()
                index.write(f"{label} {out.tell() - len(data)} {out.tell()} {arrived}\n")
                index.flush()
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


def _listener(name: str, upstream: int, directory: str, index):
    async def handle(reader, writer) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            writer.close()
            return
        label = f"{next(CONNECTIONS)} {name}"
        await asyncio.gather(_pump(reader, up_writer, f"{label} in", directory, index, True),
                             _pump(up_reader, writer, f"{label} out", directory, index, False))
        writer.close()
        up_writer.close()
    return handle


async def main(directory: str, listeners: list[str]) -> None:
    index, servers = open(os.path.join(directory, "index"), "a"), []
    for name, port in (spec.split("=") for spec in listeners):
        servers.append(await asyncio.start_server(_listener(name, int(port), directory, index),
                                                  "127.0.0.1", 0))
        print(name, servers[-1].sockets[0].getsockname()[1], flush=True)
    print("ready", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2:]))
    except KeyboardInterrupt:
        pass
