"""Cold invocations: a fresh process per event, the cases run round-robin so that drift on a
shared machine hits every case alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from . import events, seeding, sides
from .procstat import run_child
from .stats import summary

SWIFT_USER, PEER_USER = "bench-cold-swift", "bench-cold-python"
FLOOR_SECRET = "bench-cold-floor/secret"


def _curl_floor(setup: sides.Setup) -> list[str]:
    """curl's command-line tool, one fresh process, making a SigV4-signed GetSecretValue and
    then PutSecretValue on the same moto (through the same TLS front and CA in the HTTPS
    mode): what a cold store-tokens' AWS exchanges cost at the least, start-up included."""
    env = sides.swift_env(setup)
    signing = ["--aws-sigv4", "aws:amz:us-east-1:secretsmanager", "--user", f"{env['AWS_ACCESS_KEY_ID']}:{env['AWS_SECRET_ACCESS_KEY']}"]
    trust = ["--cacert", env["AWS_CA_BUNDLE"]] if "AWS_CA_BUNDLE" in env else []

    def call(target: str, body: dict) -> list[str]:
        return ["-s", "-f", "-o", "/dev/null", *trust, *signing, "-H", f"X-Amz-Target: secretsmanager.{target}",
                "-H", "Content-Type: application/x-amz-json-1.1", "--data", json.dumps(body), env["AWS_ENDPOINT_URL"] + "/"]

    subprocess.run(["curl", *call("CreateSecret", {"Name": FLOOR_SECRET, "SecretString": "x" * 900})], check=True)
    return ["curl", *call("GetSecretValue", {"SecretId": FLOOR_SECRET}), "--next",
            *call("PutSecretValue", {"SecretId": FLOOR_SECRET, "SecretString": "y" * 900})]


def _cases(setup: sides.Setup, work: str) -> list[dict]:
    def event(name: str, data: dict) -> str:
        return events.write(os.path.join(work, name), data)

    events.mint(setup, [SWIFT_USER, PEER_USER])

    swift_store, peer_store = event("cold-store-swift.json", events.store_tokens(SWIFT_USER)), event("cold-store-peer.json", events.store_tokens(PEER_USER))
    swift_profile, peer_profile = event("cold-profile-swift.json", events.user_profile(SWIFT_USER)), event("cold-profile-peer.json", events.user_profile(PEER_USER))
    cases = [
        {"id": "floor", "label": "minimal Swift stdin->stdout", "argv": [setup.floor_bin], "stdin": swift_store,
         "env": sides.base_environment(), "expect": None},
        {"id": "swift-store-moto", "label": "store-tokens (Swift, moto)", "argv": sides.swift_cmd(setup, "store-tokens"),
         "stdin": swift_store, "env": sides.swift_env(setup), "expect": 201},
        {"id": "peer-store-moto", "label": "store_tokens (Python, moto)", "argv": sides.peer_cmd(setup, "store_tokens"),
         "stdin": peer_store, "env": sides.peer_env(setup), "expect": 201},
        {"id": "swift-profile-moto", "label": "user-profile (Swift, moto)", "argv": sides.swift_cmd(setup, "user-profile"),
         "stdin": swift_profile, "env": sides.swift_env(setup), "expect": 200},
        {"id": "peer-profile-moto", "label": "user_profile (Python, moto)", "argv": sides.peer_cmd(setup, "user_profile"),
         "stdin": peer_profile, "env": sides.peer_env(setup), "expect": 200},
        {"id": "swift-store-embedded", "label": "store-tokens (Swift, embedded)", "argv": sides.swift_cmd(setup, "store-tokens"),
         "stdin": swift_store, "env": sides.swift_env(setup, store="embedded"), "expect": 201},
        {"id": "curl-floor", "label": "curl floor (curl's CLI: signed GetSecretValue, PutSecretValue)", "argv": _curl_floor(setup),
         "stdin": swift_store, "env": sides.base_environment(), "expect": None},
    ]
    return [case for case in cases if setup.peer_dir or not case["id"].startswith("peer-")]  # no peer: ours and the floors


def _status(stdout: bytes) -> int | None:
    lines = [line for line in stdout.decode(errors="replace").splitlines() if line.strip()]
    try:
        return json.loads(lines[-1]).get("statusCode")
    except (IndexError, ValueError, AttributeError):
        return None


def run(setup: sides.Setup, runs: int, warmup: int, work: str) -> dict:
    seeding.put_users(setup, [SWIFT_USER, PEER_USER])
    seeding.embedded_client_id(setup)
    cases = _cases(setup, work)
    samples = {case["id"]: {"first_ms": [], "exit_ms": [], "rss_mib": [], "cpu_ms": []} for case in cases}
    for round_index in range(warmup + runs):
        for case in cases:
            child = run_child(case["argv"], case["stdin"], case["env"], cwd=work, keep_stderr=True)
            status = _status(child.stdout)
            if child.returncode != 0 or (case["expect"] is not None and status != case["expect"]):
                sys.stderr.write(child.stderr.decode(errors="replace")[-2000:])
                raise SystemExit(f"cold {case['id']}: exit {child.returncode}, statusCode {status}, expected {case['expect']}")
            if round_index < warmup:
                continue
            bucket = samples[case["id"]]
            bucket["exit_ms"].append(child.exit_s * 1000)
            bucket["first_ms"].append((child.first_line_s or child.exit_s) * 1000)
            bucket["rss_mib"].append(child.max_rss_kib / 1024)
            bucket["cpu_ms"].append(child.cpu_s * 1000)
        print(f"  cold round {round_index + 1}/{warmup + runs}{' (warm-up)' if round_index < warmup else ''}", file=sys.stderr, flush=True)
    return {case["id"]: {"label": case["label"], "runs": runs,
                         **{key: summary(values) for key, values in samples[case["id"]].items()},
                         "samples": samples[case["id"]]}
            for case in cases}
