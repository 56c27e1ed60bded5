#!/usr/bin/env python3
"""Cold store-tokens on moto against the curl floor (issue 26, point 4): wall time from
spawn to the response line and to exit, median and p90 of RUNS after 2 warm-ups, the cases
run round-robin so that a shared machine's drift hits each alike. Each case runs
events/store-tokens/v1-json-first-connection.json on Secrets Manager (PAYPULSE_STORE=aws) on
a private moto_server, with the Swift stand-in for Google (plain HTTP) proving the refresh
token: the first run connects, the others store for the same user. The floor is curl's
command-line tool in one fresh process making a SigV4-signed GetSecretValue then
PutSecretValue on the same moto (to exit).

Run from the repository root. Usage:
  python3 scripts/bundle-cold.py PAYPULSE_CLI RUNS NAME=EXECUTABLE...
e.g.  ... .build/debug/paypulse 20 after=.build-lambda/bundles/store-tokens/bootstrap
(a bundle's bootstrap runs it through the bundle's loader and libraries, as Lambda does).
"""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time

cli, runs = sys.argv[1], int(sys.argv[2])
cases = [arg.split("=", 1) for arg in sys.argv[3:]]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


work = tempfile.mkdtemp(prefix="bundle-cold.")
port = free_port()
moto = subprocess.Popen(["moto_server", "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
endpoint = f"http://127.0.0.1:{port}"
for _ in range(300):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close(); break
    except OSError:
        time.sleep(0.1)
aws = {"PATH": "/usr/bin:/bin", "HOME": work, "PAYPULSE_STORE": "aws", "AWS_REGION": "us-east-1",
       "AWS_ACCESS_KEY_ID": "AKIDPAYPULSETEST", "AWS_SECRET_ACCESS_KEY": "paypulse-test-secret-key", "AWS_ENDPOINT_URL": endpoint}
client = "cold-client.apps.googleusercontent.com"
subprocess.run([cli, "setup"], env=aws, check=True, stdout=subprocess.DEVNULL)
subprocess.run([cli, "seed", "--manifest", "events/manifest.json", "--client-id", client], env=aws, check=True, stdout=subprocess.DEVNULL)
google = subprocess.Popen([cli, "fake-google", "--client-id", client, "--port-file", f"{work}/gport", "--log", f"{work}/glog"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(300):
    if os.path.exists(f"{work}/gport") and open(f"{work}/gport").read().strip(): break
    time.sleep(0.1)
gurl = f"http://127.0.0.1:{open(f'{work}/gport').read().strip()}"
env = {**aws, "GOOGLE_TOKEN_ENDPOINT": f"{gurl}/token", "GOOGLE_REVOKE_ENDPOINT": f"{gurl}/revoke"}
event = open("events/store-tokens/v1-json-first-connection.json", "rb").read()

# The curl floor's secret.
sigv4 = ["--aws-sigv4", "aws:amz:us-east-1:secretsmanager", "--user", "AKIDPAYPULSETEST:paypulse-test-secret-key"]
def curl_call(target, body):
    return ["-s", "-o", "/dev/null", *sigv4, "-H", f"X-Amz-Target: secretsmanager.{target}",
            "-H", "Content-Type: application/x-amz-json-1.1", "--data", json.dumps(body), endpoint + "/"]
subprocess.run(["curl", *curl_call("CreateSecret", {"Name": "floor/secret", "SecretString": "x" * 900})], check=True)
floor = ["curl", *curl_call("GetSecretValue", {"SecretId": "floor/secret"}), "--next",
         *curl_call("PutSecretValue", {"SecretId": "floor/secret", "SecretString": "y" * 900})]


def once(argv, stdin):
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdin.write(stdin); p.stdin.close()
    line = p.stdout.readline()
    first = time.perf_counter() - start
    rest = p.stdout.read(); err = p.stderr.read(); p.wait()
    end = time.perf_counter() - start
    return first, end, line + rest, err, p.returncode


samples = {name: ([], []) for name, _ in cases}
samples["curl floor"] = ([], [])
try:
    for r in range(runs + 2):
        for name, command in cases:
            first, end, out, err, code = once([command], event)
            status = json.loads(out.decode().strip().splitlines()[-1]).get("statusCode") if out.strip() else None
            if code != 0 or status not in (200, 201):
                sys.exit(f"{name}: exit {code}, status {status}\n{err.decode()[-1500:]}")
            if r >= 2: samples[name][0].append(first * 1000); samples[name][1].append(end * 1000)
        first, end, out, err, code = once(floor, b"")
        if code != 0: sys.exit(f"curl floor: exit {code}")
        if r >= 2: samples["curl floor"][0].append(end * 1000); samples["curl floor"][1].append(end * 1000)
finally:
    google.terminate(); moto.terminate(); google.wait(); moto.wait()
    shutil.rmtree(work, ignore_errors=True)
floor_ms = statistics.median(samples["curl floor"][1])
print(f"{'case':<28} {'runs':>4} {'to response ms (median/p90)':>28} {'to exit ms':>12} {'/ curl floor':>12}")
for name, (first, end) in samples.items():
    q = statistics.quantiles(first, n=10)[-1] if len(first) > 2 else first[0]
    print(f"{name:<28} {len(first):>4} {statistics.median(first):>20.1f} / {q:5.1f} {statistics.median(end):>12.1f} {statistics.median(first) / floor_ms:>12.2f}")
