#!/usr/bin/env python3
"""Runs every Lambda bundle under the real AWS Lambda Runtime Interface Emulator.

Usage: bundle_rie_test.py RIE_BINARY BUNDLES_DIR PAYPULSE   (scripts/test-bundles-rie.sh finds them)

For each function, the bundle's zip is unpacked into a fresh directory and its `bootstrap`
runs under `aws-lambda-rie` on two free loopback ports; events are POSTed to
/2015-03-31/functions/function/invocations. Checked, per function:
  - several invocations, good and bad, are served by ONE runtime process (the same pid,
    still alive at the end);
  - a malformed event (`"hello"`, `{}`) comes back as `Runtime.InvalidEvent` through /error,
    and the next good invocation still works;
  - token-refresh's failing handler (an invalid shard) comes back as `Runtime.HandlerFailed`;
  - every good answer equals its expected file from events/ (`paypulse match-response`,
    the replay tests' matcher; the bearer token is minted by `paypulse jwt` with a per-run
    key, since inside Lambda the development key is refused);
  - the logs are JSON lines carrying the request id.
And a start-up failure (PAYPULSE_STORE=bogus) is reported through /runtime/init/error.
The functions share one embedded store, in order: store-tokens, user-profile,
token-refresh, disconnect. Google is the Swift stand-in over HTTPS (scripts/fake-google-tls.sh,
the manifest's grants, trusted through PAYPULSE_CA_BUNDLE): store-tokens proves the refresh
token of the first connection there, disconnect revokes there. What no function writes
(the user, the Google client-ID secret) is seeded (`paypulse seed`, the embedded adapter
itself) once store-tokens' first invocation has created the store, before the first connection.
"""
import glob, json, os, secrets, shutil, signal, socket, subprocess, sys, tempfile, time, zipfile
import urllib.error, urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENTS = os.path.join(REPO, "events")
JWT_KEY = secrets.token_urlsafe(48)
BEARER = None  # this run's token for the events' user, set by main()
# The client ID seeded, which the stand-in for Google accepts.
CLIENT_ID = "bundle-test-client.apps.googleusercontent.com"


class Failure(Exception):
    pass


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def event(path):
    """An event from events/, with any bearer token replaced by this run's (BEARER)."""
    with open(os.path.join(EVENTS, path)) as handle:
        document = json.load(handle)
    headers = document.get("headers") or {}
    for name, value in list(headers.items()):
        if name.lower() == "authorization" and value.startswith("Bearer "):
            headers[name] = f"Bearer {BEARER}"
    return json.dumps(document).encode()


class Emulator:
    """One aws-lambda-rie process running one unpacked bundle."""

    def __init__(self, rie, zip_path, directory, environment):
        os.makedirs(directory)
        with zipfile.ZipFile(zip_path) as archive:
            for info in archive.infolist():
                os.chmod(archive.extract(info, directory), (info.external_attr >> 16) & 0o777)
        self.log_path = os.path.join(directory, "rie.log")
        self.runtime_pids_seen = set()
        self.invocations = 0
        # The emulator cannot be told to pick its own ports and say which: a port found free
        # here may be taken by a parallel test before it binds. It then exits at once
        # ("address already in use"), so that start is retried on new ports.
        for attempt in range(5):
            self.port = free_port()
            self.log = open(self.log_path, "wb")
            self.process = subprocess.Popen(
                [rie, "--runtime-interface-emulator-address", f"127.0.0.1:{self.port}",
                 "--runtime-api-address", f"127.0.0.1:{free_port()}", os.path.join(directory, "bootstrap")],
                cwd=directory, env=environment, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
            if self._listening():
                return
            if self.process.poll() is None:
                self.process.kill()
            if "address already in use" not in self.log_text() or attempt == 4:
                raise Failure(f"the emulator did not listen; its log:\n{self.log_text()}")
            self.log.close()

    def _listening(self):
        """Whether this emulator listens: a connection succeeds and it is still running a
        moment later (one that lost its port exits; the listener was then another's)."""
        deadline = time.monotonic() + 60
        while self.process.poll() is None and time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                time.sleep(0.3)
                return self.process.poll() is None
            except OSError:
                time.sleep(0.1)
        return False

    def log_text(self):
        self.log.flush()
        with open(self.log_path, "rb") as handle:
            return handle.read().decode(errors="replace")

    def invoke(self, payload):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/2015-03-31/functions/function/invocations", data=payload, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                status, body = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read().decode()
        self.invocations += 1
        self.runtime_pids_seen |= self.runtime_pids()
        return status, body

    def runtime_pids(self):
        """The emulator's child processes: the runtime (bootstrap exec'd into the loader)."""
        pids = set()
        for path in glob.glob(f"/proc/{self.process.pid}/task/*/children"):
            try:
                with open(path) as handle:
                    pids |= {int(pid) for pid in handle.read().split()}
            except OSError:
                pass
        return pids

    def close(self):
        # Stop the emulator, then any runtime it started that outlived it.
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for pid in self.runtime_pids_seen:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.log.close()


def mismatch(paypulse, expected_path, body):
    """None when `body` matches the expected file, else why not (paypulse match-response)."""
    check = subprocess.run([paypulse, "match-response", expected_path, "-"], input=body.encode(), capture_output=True)
    return None if check.returncode == 0 else check.stderr.decode(errors="replace").strip() or f"exit {check.returncode}"


def check_answer(paypulse, emulator, label, case):
    """events/CASE.json answered as events/CASE.expected.json says."""
    status, body = emulator.invoke(event(case + ".json"))
    expected = os.path.join(EVENTS, case + ".expected.json")
    problem = f"HTTP {status}" if status != 200 else mismatch(paypulse, expected, body)
    if problem:
        raise Failure(f"{label}: {problem}\n{body[:500]}\nemulator log:\n{emulator.log_text()[-3000:]}")


def check_error(emulator, label, payload, error_type):
    status, body = emulator.invoke(payload)
    if status != 200 or json_object(body).get("errorType") != error_type:
        raise Failure(f"{label}: expected {error_type} through /error, got HTTP {status}: {body[:500]}\n"
                      f"emulator log:\n{emulator.log_text()[-3000:]}")


def json_object(line):
    try:
        document = json.loads(line)
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def check_one_process(emulator, function):
    invocations = emulator.invocations
    alive = emulator.runtime_pids()
    if len(emulator.runtime_pids_seen) != 1 or alive != emulator.runtime_pids_seen:
        raise Failure(f"{function}: expected one runtime process serving all {invocations} invocations, "
                      f"saw {sorted(emulator.runtime_pids_seen)}, alive now {sorted(alive)}")
    log = emulator.log_text()
    # The emulator logs one "INIT START" per runtime start and one "INVOKE START" per event.
    if log.count("INIT START") != 1 or log.count("INVOKE START") != invocations:
        raise Failure(f"{function}: expected 1 init and {invocations} invokes in the emulator's log:\n{log[-3000:]}")
    tagged = [line for line in map(json_object, log.splitlines())
              if line.get("requestId") and line.get("level") and line.get("message")]
    if not tagged:
        raise Failure(f"{function}: no JSON log line with a requestId; log:\n{log[-3000:]}")
    return emulator.runtime_pids_seen.pop(), len(tagged)


def main():
    rie, bundles, paypulse = sys.argv[1], sys.argv[2], sys.argv[3]
    work = tempfile.mkdtemp(prefix="paypulse-rie.")
    state = os.path.join(work, "state")
    base = {
        "PATH": "/usr/bin:/bin", "HOME": work, "PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": state,
        "PAYPULSE_JWT_SECRET": JWT_KEY,
    }
    # This run's token for the events' user, signed by the product (`paypulse jwt`) with this
    # run's key; minted on a state directory of its own, so the functions create theirs.
    global BEARER
    BEARER = subprocess.run([paypulse, "jwt", "--sub", "user-1", "--name", "Jane Smith", "--email", "jane@example.com",
                             "--ttl", "7200"], env={**base, "PAYPULSE_STATE_DIR": os.path.join(work, "jwt-state")},
                            check=True, capture_output=True, text=True).stdout.strip()
    google = None
    try:
        def run(function, plan, extra=None):
            emulator = Emulator(rie, os.path.join(bundles, f"{function}.zip"), os.path.join(work, function),
                                {**base, **(extra or {})})
            try:
                for step in plan:
                    step(emulator)
                pid, tagged = check_one_process(emulator, function)
                print(f"rie {function:<13} ok  {emulator.invocations} invocations by runtime pid {pid}, "
                      f"{tagged} JSON log lines with a requestId")
            finally:
                emulator.close()

        def answer(label, case):
            return lambda emulator: check_answer(paypulse, emulator, label, case)

        def error(label, payload, kind="Runtime.InvalidEvent"):
            return lambda emulator: check_error(emulator, label, payload, kind)

        # Google: the Swift stand-in over HTTPS, knowing the manifest's grants, accepting the seeded client ID.
        tls = os.path.join(work, "tls")
        google = subprocess.Popen([os.path.join(REPO, "scripts/fake-google-tls.sh"), paypulse, tls, CLIENT_ID])
        for _ in range(600):
            if os.path.exists(f"{tls}/url") or google.poll() is not None:
                break
            time.sleep(0.1)
        if not os.path.exists(f"{tls}/url"):
            raise Failure("the HTTPS stand-in for Google did not start")
        with open(f"{tls}/url") as handle:
            google_url = handle.read().strip()
        trust = {"PAYPULSE_CA_BUNDLE": f"{tls}/cert.pem"}

        def google_requests(line):
            if not os.path.exists(f"{tls}/requests.log"):
                return 0
            with open(f"{tls}/requests.log") as handle:
                return handle.read().splitlines().count(line)

        token_request = "POST /token client_id,grant_type,refresh_token"

        def seed_store(_emulator):
            # The first invocation created the store; the seed goes in before the first connection.
            database = os.path.join(state, "paypulse.sqlite3")
            if not os.path.exists(database):
                raise Failure("store-tokens: its first invocation did not create the embedded store")
            subprocess.run([paypulse, "seed", "--manifest", os.path.join(EVENTS, "manifest.json"), "--client-id", CLIENT_ID],
                           env=base, check=True, stdout=subprocess.DEVNULL)

        run("store-tokens", [
            answer("no JWT", "store-tokens/v2-missing-bearer-token"),
            seed_store,
            error("a JSON string as event", b'"hello"'),
            answer("first connection", "store-tokens/v2-json-first-connection"),
            error("an empty object as event", b"{}"),
            answer("no JWT again", "store-tokens/v2-missing-bearer-token"),
        ], {"GOOGLE_TOKEN_ENDPOINT": f"{google_url}/token", **trust})
        if google_requests(token_request) != 1:
            raise Failure("store-tokens: expected one refresh at the HTTPS stand-in for Google")

        run("user-profile", [
            answer("connected", "user-profile/v2-connected"),
            error("not JSON", b"hello"),
            error("a scheduled event", event("token-refresh/scheduled-not-yet-due.json")),
            answer("connected again", "user-profile/v2-connected"),
        ])

        run("token-refresh", [
            answer("scheduled", "token-refresh/scheduled-not-yet-due"),
            error("an invalid shard", event("token-refresh/scheduled-invalid-shard.json"), "Runtime.HandlerFailed"),
            error("an empty object as event", b"{}"),
            answer("scheduled again", "token-refresh/scheduled-not-yet-due"),
        ], {"GOOGLE_TOKEN_ENDPOINT": f"{google_url}/token", **trust})
        if google_requests(token_request) != 1:
            raise Failure("token-refresh: refreshed a grant that was not due")

        run("disconnect", [
            answer("disconnect", "disconnect/v2-disconnect"),
            error("not JSON", b"hello"),
            answer("disconnect twice", "disconnect/v2-twice"),
        ], {"GOOGLE_REVOKE_ENDPOINT": f"{google_url}/revoke", **trust})
        if google_requests("POST /revoke token") != 1:
            raise Failure("disconnect: expected one revocation at the HTTPS stand-in for Google")

        # A start-up failure goes to /runtime/init/error, which the emulator reports.
        emulator = Emulator(rie, os.path.join(bundles, "user-profile.zip"), os.path.join(work, "init-error"),
                            {**base, "PAYPULSE_STORE": "bogus"})
        try:
            # The emulator answers 502 with the error the runtime posted to /runtime/init/error.
            status, body = emulator.invoke(event("user-profile/v2-connected.json"))
            document = json_object(body)
            if status != 502 or document.get("errorType") != "Runtime.InitError" \
                    or "PAYPULSE_STORE" not in document.get("errorMessage", ""):
                raise Failure(f"init error: expected 502 with Runtime.InitError naming PAYPULSE_STORE, got HTTP {status}: "
                              f"{body[:500]}\nemulator log:\n{emulator.log_text()[-3000:]}")
            print("rie init-error    ok  PAYPULSE_STORE=bogus -> HTTP 502, Runtime.InitError naming PAYPULSE_STORE")
        finally:
            emulator.close()
    except Failure as failure:
        print(f"test-bundles-rie: FAIL: {failure}", file=sys.stderr)
        return 1
    finally:
        if google is not None:
            google.terminate()
            google.wait()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
