"""Cold invocations: a fresh process per event, the cases run round-robin so that drift on a
shared machine hits every case alike."""

import json
import os
import subprocess
import sys
from functools import partial

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
    events.mint(setup, [SWIFT_USER, PEER_USER])
    files = {f"{kind}-{side}": events.write(os.path.join(work, f"cold-{kind}-{side}.json"), make(user))
             for kind, make in (("store", events.store_tokens), ("profile", events.user_profile))
             for side, user in (("swift", SWIFT_USER), ("peer", PEER_USER))}
    swift, peer = partial(sides.swift_cmd, setup), partial(sides.peer_cmd, setup)
    moto, python, plain = sides.swift_env(setup), sides.peer_env(setup), sides.base_environment()
    cases = [  # (id, label, argv, stdin, env, statusCode expected)
        ("floor", "minimal Swift stdin->stdout", [setup.floor_bin], "store-swift", plain, None),
        ("swift-store-moto", "store-tokens (Swift, moto)", swift("store-tokens"), "store-swift", moto, 201),
        ("peer-store-moto", "store_tokens (Python, moto)", peer("store_tokens"), "store-peer", python, 201),
        ("swift-profile-moto", "user-profile (Swift, moto)", swift("user-profile"), "profile-swift", moto,
         200),
        ("peer-profile-moto", "user_profile (Python, moto)", peer("user_profile"), "profile-peer", python,
         200),
        ("swift-store-embedded", "store-tokens (Swift, embedded)", swift("store-tokens"), "store-swift",
         sides.swift_env(setup, store="embedded"), 201),
        ("curl-floor", "curl floor (curl's CLI: signed GetSecretValue, PutSecretValue)", _curl_floor(setup),
         "store-swift", plain, None),
    ]
    return [{"id": id, "label": label, "argv": argv, "stdin": files[stdin], "env": env, "expect": expect}
            for id, label, argv, stdin, env, expect in cases
            if setup.peer_dir or not id.startswith("peer-")]  # no peer: ours and the floors


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
            child = run_child(case["argv"], case["stdin"], case["env"], work)
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
