#!/usr/bin/env python3
"""What verifying a token costs a cold function, by PAYPULSE_AUTH_MODE (issue 25, point 7).

Runs the built user-profile cold (one process, one event on stdin, the embedded store) with the
same request under hs256 (`paypulse jwt`'s token) and jwks (RS256 and ES256 tokens PyJWT signed,
Tests/Fixtures/pyjwt_issuer.py; the JWKS on a loopback server that counts its fetches). Prints
per mode the instructions of one invocation under callgrind (when valgrind is installed: stable
on a shared machine) and the median wall time of --runs, each against hs256. Asserts only that
every invocation answered 200 and each cold jwks process fetched the keys exactly once.

Usage: scripts/bench/auth_cost.py [--bin-dir DIR] [--cli-dir .build/debug] [--runs 15]
"""
import argparse, http.server, json, os, re, shutil, statistics, subprocess, sys, tempfile
import threading, time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVENT = os.path.join(REPO, "events/user-profile/v2-not-connected.json")
# Symbols of the jwks path: the key set and its cache, the adapter, swift-crypto's RSA and P-256
# verifiers.
JWKS_SYMBOLS = re.compile(
    r"IssuerKey|HTTPIssuerKeySource|_RSA|RSASignature|P256.*Signing|ECDSASignature")


class KeyServer(http.server.BaseHTTPRequestHandler):
    jwks, fetches = b"", 0

    def do_GET(self):
        KeyServer.fetches += 1
        self.send_response(200)
        for name, value in (("Content-Type", "application/json"),
                            ("Cache-Control", "public, max-age=3600"),
                            ("Content-Length", str(len(KeyServer.jwks)))):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(KeyServer.jwks)

    def log_message(self, *args):
        pass


def tokens(cli: str, env: dict) -> tuple[dict, dict]:
    """The modes' tokens (hs256 from `paypulse jwt`, RS256 and ES256 PyJWT signed) and the
    JWKS mode's settings, its key server started."""
    def run(argv, **options) -> str:
        done = subprocess.run(argv, env=env, check=True, capture_output=True, text=True, **options)
        return done.stdout
    run([cli, "users", "put", "--id", "user-1", "--name", "Jane Smith",
         "--email", "jane@example.com", "--created-on", "2024-11-01T10:00:00Z"])
    now = int(time.time())
    claims = {"sub": "user-1", "iss": "https://issuer.bench.test", "aud": "paypulse-bench",
              "iat": now - 60, "exp": now + 3600}
    request = {"tokens": [{"claims": claims, "alg": alg} for alg in ("RS256", "ES256")]}
    issuer = os.path.join(REPO, "Tests/Fixtures/pyjwt_issuer.py")
    signed = json.loads(run([sys.executable, issuer], input=json.dumps(request)))
    KeyServer.jwks = json.dumps(signed["jwks"]).encode()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), KeyServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    jwks = {"PAYPULSE_AUTH_MODE": "jwks", "PAYPULSE_JWT_ISSUER": claims["iss"],
            "PAYPULSE_JWT_AUDIENCE": claims["aud"],
            "PAYPULSE_JWT_JWKS_URL": f"http://127.0.0.1:{server.server_address[1]}/jwks.json"}
    hs256 = run([cli, "jwt", "--sub", "user-1", "--ttl", "3600"]).strip()
    return {"hs256": hs256, "jwks RS256": signed["tokens"][0],
            "jwks ES256": signed["tokens"][1]}, jwks


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin-dir", default=os.path.join(REPO, ".build/debug"))
    parser.add_argument("--cli-dir", default=os.path.join(REPO, ".build/debug"),
                        help="where `paypulse` is (seeding, the HS256 token)")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    binaries = os.path.abspath(args.bin_dir)
    state = tempfile.mkdtemp(prefix="paypulse-auth-cost-")
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": state, "LOG_LEVEL": "error",
            "PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": state}
    try:
        by_mode, jwks = tokens(os.path.join(args.cli_dir, "paypulse"), base)
        with open(EVENT) as fh:
            event = fh.read()
        original = re.search(r"Bearer ([A-Za-z0-9_.-]+)", event).group(1)
        rows = []
        for name, token in by_mode.items():
            request = event.replace(original, token).encode()
            env = base | (jwks if "jwks" in name else {})
            walls = []
            for _ in range(args.runs):
                before, started = KeyServer.fetches, time.perf_counter()
                answer = subprocess.run([os.path.join(binaries, "user-profile")], input=request,
                                        env=env, capture_output=True)
                walls.append((time.perf_counter() - started) * 1000)
                if b'"statusCode":200' not in answer.stdout:
                    sys.exit(f"auth-cost: {name} did not answer 200: {answer.stdout[:300]!r} "
                             f"{answer.stderr[-600:]!r}")
                if (fetched := KeyServer.fetches - before) != (1 if "jwks" in name else 0):
                    sys.exit(f"auth-cost: a cold {name} process fetched the keys {fetched} times")
            rows.append((name, *instructions(binaries, request, env), statistics.median(walls)))
    finally:
        shutil.rmtree(state, ignore_errors=True)

    print(f"Cold user-profile by PAYPULSE_AUTH_MODE ({os.path.relpath(binaries, REPO)}, embedded "
          f"store, loopback JWKS, median of {args.runs} cold runs)\n")
    print("| mode | instructions (callgrind) | vs hs256 | median wall ms | vs hs256 | key-set and "
          "RSA/EC functions run |\n| --- | ---: | ---: | ---: | ---: | ---: |")
    base_ins, base_wall = rows[0][1], rows[0][3]
    for name, ins, ran, wall in rows:
        ratio = f"{ins / base_ins:.2f}" if ins and base_ins else "n/a"
        print(f"| {name} | {f'{ins:,}' if ins else 'n/a'} | {ratio} | {wall:.1f} | "
              f"{wall / base_wall:.2f} | {'n/a' if ran is None else len(ran)} |")
    if rows[0][2]:
        print(f"\nhs256 ran: {', '.join(sorted(rows[0][2]))}")
    print("""
The last column counts the functions callgrind saw run whose names are the key set's or
RSA/EC verification's (IssuerKey*, _RSA, P256 signing, the JWKS fetch; the compiler's
outlined copies and destroys of a stored optional left out): 0 under hs256 means a
function that does not need them pays nothing for them at start.""")


def instructions(binaries: str, request: bytes, env: dict):
    """(Instructions one cold invocation executed, the jwks-path functions it ran) under
    callgrind; (None, None) without valgrind or when it cannot read the build."""
    if not shutil.which("valgrind"):
        return None, None
    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "callgrind.out")
        executable = os.path.join(scratch, "user-profile")
        # A copy without debug info (symbols kept): valgrind 3.19 cannot read the DWARF 5 Swift
        # writes.
        subprocess.run(["strip", "--strip-debug", "-o", executable,
                        os.path.join(binaries, "user-profile")], check=True)
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                              executable], input=request, env=env, capture_output=True)
        if b'"statusCode":200' not in run.stdout:  # a debug build's DWARF 5; a release build works
            print("auth-cost: callgrind could not run this build; wall times only: "
                  f"{run.stderr.decode(errors='replace')[-300:]}", file=sys.stderr)
            return None, None
        total, ran = None, set()
        with open(out) as fh:
            demangled = subprocess.run(["swift", "demangle", "--simplified"], stdin=fh,
                                       capture_output=True, text=True).stdout
        for line in demangled.splitlines():
            if line.startswith(("summary:", "totals:")):
                total = int(line.split()[1])
            elif line.startswith("fn=") and JWKS_SYMBOLS.search(line):
                # Compiler glue for a stored optional (e.g. "outlined destroy of IssuerKeyCache?"
                # releasing hs256's nil cache) is not the key set's code.
                if not (name := line.split(" ", 1)[-1]).startswith("outlined "):
                    ran.add(name)
        return total, ran


if __name__ == "__main__":
    main()
