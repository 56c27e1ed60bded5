"""Cold invocations: a fresh process per event, the cases run round-robin so that drift on a
shared machine hits every case alike."""

import json, os, subprocess, sys

from . import procs, sides

USERS = {"swift": "bench-cold-swift", "python": "bench-cold-python"}
SECRET = "bench-cold-floor/secret"
FIGURES = ("first_ms", "exit_ms", "rss_mib", "cpu_ms")


def _curl_floor(setup: sides.Setup) -> list[str]:
    """curl's command-line tool, one fresh process, making a SigV4-signed GetSecretValue and
    then PutSecretValue on the same moto (through the same TLS front and CA in the HTTPS mode):
    what a cold store-tokens' AWS exchanges cost at the least, start-up included."""
    env = setup.swift_env()
    trust = ["--cacert", env["AWS_CA_BUNDLE"]] if "AWS_CA_BUNDLE" in env else []

    def call(target: str, body: dict) -> list[str]:
        return ["-s", "-f", "-o", "/dev/null", *trust,
                "--aws-sigv4", "aws:amz:us-east-1:secretsmanager",
                "--user", f"{env['AWS_ACCESS_KEY_ID']}:{env['AWS_SECRET_ACCESS_KEY']}",
                "-H", f"X-Amz-Target: secretsmanager.{target}",
                "-H", "Content-Type: application/x-amz-json-1.1", "--data", json.dumps(body),
                env["AWS_ENDPOINT_URL"] + "/"]
    create = call("CreateSecret", {"Name": SECRET, "SecretString": "x" * 900})
    subprocess.run(["curl", *create], check=True)
    return ["curl", *call("GetSecretValue", {"SecretId": SECRET}), "--next",
            *call("PutSecretValue", {"SecretId": SECRET, "SecretString": "y" * 900})]


def _cases(setup: sides.Setup, work: str) -> list[tuple]:
    """(id, label, argv, event file, env, statusCode expected); no peer: ours and the floors."""
    setup.mint(list(USERS.values()))
    event = {(method, side): sides.write(os.path.join(work, f"cold-{method}-{side}.json"),
                                         setup.event(method, user))
             for method in ("POST", "GET") for side, user in USERS.items()}
    store = event["POST", "swift"]
    cases = [("floor", "minimal Swift stdin->stdout", [setup.floor_bin], store, sides.base_env(),
              None)]
    for method, function, kind, status in (("POST", "store-tokens", "store", 201),
                                           ("GET", "user-profile", "profile", 200)):
        cases.append((f"swift-{kind}-moto", f"{function} (Swift, moto)",
                      setup.command("swift", function), event[method, "swift"], setup.swift_env(),
                      status))
        if setup.peer_dir:
            cases.append((f"peer-{kind}-moto", f"{function.replace('-', '_')} (Python, moto)",
                           setup.command("python", function), event[method, "python"],
                           setup.peer_env(), status))
    return cases + [
        ("swift-store-embedded", "store-tokens (Swift, embedded)",
         setup.command("swift", "store-tokens"), store, setup.swift_env("embedded"), 201),
        ("curl-floor", "curl floor (curl's CLI: signed GetSecretValue, PutSecretValue)",
         _curl_floor(setup), store, sides.base_env(), None)]


def run(setup: sides.Setup, runs: int, warmup: int, work: str) -> dict:
    setup.fixtures(list(USERS.values()))
    # The client-ID secret in the embedded store too: store-tokens proves the refresh token it
    # is sent at the fake Google with it.
    setup.paypulse("client-id", sides.CLIENT_ID, env=setup.swift_env("embedded"))
    cases = _cases(setup, work)
    samples = {case[0]: {figure: [] for figure in FIGURES} for case in cases}
    for round_index in range(warmup + runs):
        for id, _, argv, stdin, env, expect in cases:
            child = procs.Timed(argv).run(stdin, env, work)
            try:
                status = procs.last_json(child.stdout).get("statusCode")
            except (IndexError, ValueError, AttributeError):
                status = None
            if child.returncode != 0 or (expect is not None and status != expect):
                sys.stderr.write(child.stderr.decode(errors="replace")[-2000:])
                raise SystemExit(f"cold {id}: exit {child.returncode}, statusCode {status}, "
                                 f"expected {expect}")
            if round_index >= warmup:  # curl prints nothing: its "response" is its exit
                first = child.first_line_s or child.exit_s
                for figure, value in zip(FIGURES, (first * 1000, child.exit_s * 1000,
                                                   child.max_rss_kib / 1024, child.cpu_s * 1000)):
                    samples[id][figure].append(value)
        procs.say(f"  cold round {round_index + 1}/{warmup + runs}"
                  f"{' (warm-up)' if round_index < warmup else ''}")
    return {id: {"label": label, "runs": runs, "samples": samples[id],
                 **{figure: procs.summary(values) for figure, values in samples[id].items()}}
            for id, label, *_ in cases}
