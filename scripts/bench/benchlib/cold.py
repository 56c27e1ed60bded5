"""Cold invocations: a fresh process per event, the cases run round-robin so that drift on a
shared machine hits every case alike."""

import json, os, subprocess, sys

from . import procs, sides

SWIFT_USER, PEER_USER = "bench-cold-swift", "bench-cold-python"
FLOOR_SECRET = "bench-cold-floor/secret"


def _curl_floor(setup: sides.Setup) -> list[str]:
    """curl's command-line tool, one fresh process, making a SigV4-signed GetSecretValue and
    then PutSecretValue on the same moto (through the same TLS front and CA in the HTTPS
    mode): what a cold store-tokens' AWS exchanges cost at the least, start-up included."""
    env = sides.swift_env(setup)
    trust = ["--cacert", env["AWS_CA_BUNDLE"]] if "AWS_CA_BUNDLE" in env else []

    def call(target: str, body: dict) -> list[str]:
        return ["-s", "-f", "-o", "/dev/null", *trust, "--aws-sigv4", "aws:amz:us-east-1:secretsmanager",
                "--user", f"{env['AWS_ACCESS_KEY_ID']}:{env['AWS_SECRET_ACCESS_KEY']}", "-H", f"X-Amz-Target: secretsmanager.{target}",
                "-H", "Content-Type: application/x-amz-json-1.1", "--data", json.dumps(body),
                env["AWS_ENDPOINT_URL"] + "/"]

    subprocess.run(["curl", *call("CreateSecret", {"Name": FLOOR_SECRET, "SecretString": "x" * 900})],
                   check=True)
    return ["curl", *call("GetSecretValue", {"SecretId": FLOOR_SECRET}), "--next",
            *call("PutSecretValue", {"SecretId": FLOOR_SECRET, "SecretString": "y" * 900})]


def _cases(setup: sides.Setup, work: str) -> list[tuple]:
    """(id, label, argv, stdin, env, statusCode expected); no peer: ours and the floors."""
    sides.mint(setup, [SWIFT_USER, PEER_USER])
    event = {f"{kind}-{side}": sides.write(os.path.join(work, f"cold-{kind}-{side}.json"), make(user))
             for kind, make in (("store", sides.store_tokens), ("profile", sides.user_profile))
             for side, user in (("swift", SWIFT_USER), ("peer", PEER_USER))}
    ours, peer = sides.swift_env(setup), sides.peer_env(setup)
    plain, swift = sides.base_environment(), lambda function: sides.swift_cmd(setup, function)
    cases = [
        ("floor", "minimal Swift stdin->stdout", [setup.floor_bin], "store-swift", plain, None),
        ("swift-store-moto", "store-tokens (Swift, moto)", swift("store-tokens"), "store-swift",
         ours, 201),
        ("peer-store-moto", "store_tokens (Python, moto)", sides.peer_cmd(setup, "store_tokens"),
         "store-peer", peer, 201),
        ("swift-profile-moto", "user-profile (Swift, moto)", swift("user-profile"),
         "profile-swift", ours, 200),
        ("peer-profile-moto", "user_profile (Python, moto)", sides.peer_cmd(setup, "user_profile"),
         "profile-peer", peer, 200),
        ("swift-store-embedded", "store-tokens (Swift, embedded)", swift("store-tokens"),
         "store-swift", sides.swift_env(setup, store="embedded"), 201),
        ("curl-floor", "curl floor (curl's CLI: signed GetSecretValue, PutSecretValue)",
         _curl_floor(setup), "store-swift", plain, None)]
    return [(id, label, argv, event[stdin], env, expect) for id, label, argv, stdin, env, expect
            in cases if setup.peer_dir or not id.startswith("peer-")]


def _status(stdout: bytes) -> int | None:
    try:
        return procs.last_json(stdout).get("statusCode")
    except (IndexError, ValueError, AttributeError):
        return None


def run(setup: sides.Setup, runs: int, warmup: int, work: str) -> dict:
    sides.put_users(setup, [SWIFT_USER, PEER_USER])
    sides.embedded_client_id(setup)
    cases = _cases(setup, work)
    samples = {case[0]: {"first_ms": [], "exit_ms": [], "rss_mib": [], "cpu_ms": []} for case in cases}
    for round_index in range(warmup + runs):
        for id, _, argv, stdin, env, expect in cases:
            child = procs.run_child(argv, stdin, env, work)
            status = _status(child.stdout)
            if child.returncode != 0 or (expect is not None and status != expect):
                sys.stderr.write(child.stderr.decode(errors="replace")[-2000:])
                raise SystemExit(f"cold {id}: exit {child.returncode}, statusCode {status}, expected {expect}")
            if round_index >= warmup:
                for key, value in (("exit_ms", child.exit_s * 1000), ("rss_mib", child.max_rss_kib / 1024),
                                   ("first_ms", (child.first_line_s or child.exit_s) * 1000),
                                   ("cpu_ms", child.cpu_s * 1000)):
                    samples[id][key].append(value)
        print(f"  cold round {round_index + 1}/{warmup + runs}{' (warm-up)' if round_index < warmup else ''}",
              file=sys.stderr, flush=True)
    return {id: {"label": label, "runs": runs, **{k: procs.summary(v) for k, v in samples[id].items()},
                 "samples": samples[id]} for id, label, *_ in cases}
