"""The exchange floor: the CPU a process on this machine cannot go below for a call, because
it is the kernel's and the socket code's share of the call's HTTP exchanges alone. The
`exchanges` program (floor/exchanges.swift) sends prepared requests, with no signing, JSON or
logic, over blocking sockets to the same moto, fake Google and scripted Runtime API, and
reports its own CPU (utime + stime) per call, measured the way both sides are. Its twin
`exchanges-curl` (floor/exchanges_curl.c) sends the same requests through libcurl's easy
interface, the transport this project is built on, and nothing else.

Two sequences per loop: the peer's calls (the AWS and Google exchanges its handler makes: no
implementation of the peer's behaviour, in any language, spends less) and ours (the Runtime
API's next and response, plus every exchange our handler makes), the latter over bare
sockets and through libcurl. Divided by the peer's CPU, they bound the CPU ratio any build
of this code can reach here. The token sets they carry are each side's own: ours as our
code wrote one (seeding.our_grant), the peer's in its format."""

from __future__ import annotations

import json
import os
import subprocess
import urllib.parse

from . import events, seeding
from .runtime_api import PREFIX, ScriptedRuntimeAPI

WARMUP = 3


def _token(kind: str) -> str:
    """A ClientRequestToken (32-64 characters) whose version id the later requests know."""
    return f"floor-{kind}-{{i}}-" + "0" * 24


class Requests:
    """Raw requests for one moto, one fake Google and one Runtime API (ports); `ours` is our
    token set's value and tags, `peers` the peer's value."""

    def __init__(self, setup, runtime_api: str | None, ours: tuple[str, list[dict]]):
        self.moto = urllib.parse.urlsplit(setup.moto_url).port
        self.google = urllib.parse.urlsplit(setup.google_url).port
        self.runtime = int(runtime_api.rsplit(":", 1)[1]) if runtime_api else None
        self.ours, self.peers = ours, seeding._peers(0, 1900000000)

    @staticmethod
    def _one(port: int, head: str, body: str) -> bytes:
        head_bytes, body_bytes = head.encode(), body.encode()
        return f"{port} {len(head_bytes)} {len(body_bytes)}\n".encode() + head_bytes + body_bytes

    def aws(self, service: str, operation: str, payload: dict) -> bytes:
        target = {"secretsmanager": "secretsmanager", "dynamodb": "DynamoDB_20120810"}[service]
        version = "1.1" if service == "secretsmanager" else "1.0"
        head = (f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{self.moto}\r\nContent-Type: application/x-amz-json-{version}\r\n"
                f"X-Amz-Target: {target}.{operation}\r\nX-Amz-Date: 20261125T000000Z\r\n"
                f"Authorization: AWS4-HMAC-SHA256 Credential=test/20261125/us-east-1/{service}/aws4_request, "
                f"SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature={'0' * 64}\r\n")
        return self._one(self.moto, head, json.dumps(payload, separators=(",", ":")))

    def google_refresh(self) -> bytes:
        body = urllib.parse.urlencode({"client_id": seeding.CLIENT_ID, "grant_type": "refresh_token",
                                       "refresh_token": "1//rt-floor-{i}"}).replace("%7Bi%7D", "{i}")
        head = (f"POST /token HTTP/1.1\r\nHost: 127.0.0.1:{self.google}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n")
        return self._one(self.google, head, body)

    def runtime_next(self) -> bytes:
        return self._one(self.runtime, f"GET {PREFIX}/invocation/next HTTP/1.1\r\nHost: 127.0.0.1:{self.runtime}\r\n", "")

    def runtime_response(self, status: int) -> bytes:
        head = (f"POST {PREFIX}/invocation/bench-{{i}}/response HTTP/1.1\r\nHost: 127.0.0.1:{self.runtime}\r\n"
                "Content-Type: application/json\r\n")
        return self._one(self.runtime, head, json.dumps({"statusCode": status, "body": "{}"}))

    # The secrets: floor-<side>-<i>; the first version's id and the second's are known.
    def get(self, side: str) -> bytes:
        return self.aws("secretsmanager", "GetSecretValue", {"SecretId": f"gmail/user/floor-{side}-{{i}}"})

    def _value(self, side: str) -> str:
        return self.peers if "peer" in side else self.ours[0]

    def create(self, side: str, tags: bool) -> bytes:
        payload = {"Name": f"gmail/user/floor-{side}-{{i}}", "SecretString": self._value(side), "ClientRequestToken": _token("first")}
        return self.aws("secretsmanager", "CreateSecret", payload | ({"Tags": self.ours[1]} if tags else {}))

    def put(self, side: str, pending: bool) -> bytes:
        payload = {"SecretId": f"gmail/user/floor-{side}-{{i}}", "SecretString": self._value(side)}
        if pending:
            payload |= {"ClientRequestToken": _token("second"), "VersionStages": ["AWSPENDING"]}
        return self.aws("secretsmanager", "PutSecretValue", payload)

    def move_stage(self, side: str) -> bytes:
        return self.aws("secretsmanager", "UpdateSecretVersionStage", {
            "SecretId": f"gmail/user/floor-{side}-{{i}}", "VersionStage": "AWSCURRENT",
            "MoveToVersionId": _token("second"), "RemoveFromVersionId": _token("first")})

    def tag(self, side: str) -> bytes:
        return self.aws("secretsmanager", "TagResource", {"SecretId": f"gmail/user/floor-{side}-{{i}}", "Tags": self.ours[1]})

    def describe(self, side: str) -> bytes:
        return self.aws("secretsmanager", "DescribeSecret", {"SecretId": f"gmail/user/floor-{side}-{{i}}"})

    def get_user(self) -> bytes:
        return self.aws("dynamodb", "GetItem", {"TableName": seeding.USERS_TABLE, "Key": {"user_id": {"S": "warm-up-0"}}})


def _run(program: str, spec: list[bytes], calls: int, work: str) -> float:
    """CPU ms per call of `spec` run `calls` times after WARMUP (the Runtime API, when the
    spec uses it, must hold WARMUP + calls events)."""
    path = os.path.join(work, "floor.spec")
    with open(path, "wb") as fh:
        fh.write(b"".join(spec))
    done = subprocess.run([program, path, str(calls), str(WARMUP)], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"floor exchanges failed: {done.stderr.strip()[-500:]}")
    cpu_us, _user, _system, server_errors = done.stdout.split()
    if int(server_errors):
        raise SystemExit(f"floor exchanges: {server_errors} answers were 5xx")
    return float(cpu_us) / 1000


def _with_runtime(setup, ours: tuple[str, list[dict]], program: str, spec_of, calls: int, work: str, moto_pid: int,
                  status: int) -> float:
    """Ours: the spec between the Runtime API's next and response."""
    api = ScriptedRuntimeAPI([json.dumps(events.user_profile("warm-up-0")).encode()] * (WARMUP + calls), [], peer_pid=moto_pid)
    try:
        requests = Requests(setup, api.address, ours)
        return _run(program, [requests.runtime_next(), *spec_of(requests), requests.runtime_response(status)], calls, work)
    finally:
        api.stop()


def warm(setup, moto, moto_pid: int, calls: int, work: str) -> dict:
    """Per warm loop: {"peer_calls_cpu_ms", "our_calls_cpu_ms", "our_calls_curl_cpu_ms"}
    (moto freshly reset and seeded). Each sequence writes to its own secrets."""
    grant = seeding.our_grant(moto, setup)
    plain, program = Requests(setup, None, grant), setup.exchanges_bin

    def ours(spec_of, status: int, via: str) -> float:
        return _with_runtime(setup, grant, setup.exchanges_curl_bin if via == "curl" else program, lambda r: spec_of(r, via),
                             calls, work, moto_pid, status)

    result = {}
    for via in ("ours", "curl"):  # the second sequence's secrets are floor-curl-<i>
        result.setdefault("store-tokens, new users", {})[via] = ours(
            lambda r, side: [r.google_refresh(), r.get(side), r.create(side, tags=True)], 201, via)
        result.setdefault("store-tokens, same users", {})[via] = ours(
            lambda r, side: [r.google_refresh(), r.get(side), r.put(side, pending=True), r.move_stage(side), r.tag(side),
                             r.describe(side)], 201, via)
        result.setdefault("user-profile", {})[via] = ours(lambda r, side: [r.get_user(), r.describe(side)], 200, via)
    peer = {"store-tokens, new users": [plain.get("peer"), plain.create("peer", tags=False)],
            "store-tokens, same users": [plain.get("peer"), plain.put("peer", pending=False)],
            "user-profile": [plain.get_user(), plain.describe("peer")]}
    return {loop: {"peer_calls_cpu_ms": _run(program, peer[loop], calls, work), "our_calls_cpu_ms": result[loop]["ours"],
                   "our_calls_curl_cpu_ms": result[loop]["curl"]} for loop in peer}


def refresh(setup, moto, grants: int, work: str) -> dict:
    """Per refreshed grant: the peer's exchanges (read, Google, put) and ours (read, Google,
    put pending, move the stage), after the grants are created (not measured)."""
    r, program, curl_program = Requests(setup, None, seeding.our_grant(moto, setup)), setup.exchanges_bin, setup.exchanges_curl_bin
    _run(program, [r.create("rpeer", tags=False), r.create("rours", tags=True), r.create("rcurl", tags=True)], grants, work)

    def ours(side: str) -> list[bytes]:
        return [r.get(side), r.google_refresh(), r.put(side, pending=True), r.move_stage(side)]

    return {"peer_calls_cpu_ms": _run(program, [r.get("rpeer"), r.google_refresh(), r.put("rpeer", pending=False)], grants, work),
            "our_calls_cpu_ms": _run(program, ours("rours"), grants, work),
            "our_calls_curl_cpu_ms": _run(curl_program, ours("rcurl"), grants, work)}
