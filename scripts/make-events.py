#!/usr/bin/env python3
"""Writes events/<function>/<case>.json and <case>.expected.json, plus events/manifest.json,
from the case table scripts/event-cases.json (its "about" says how a case reads, and
events/README.md what the files hold): raw `sam local generate-event` samples with what a real
request adds, and answers written by hand from the contract, never captured from the code.

The JWTs are signed here, by `forged` below, and not by `paypulse jwt` (the one signer the
other scripts use): these events are the replay tests' oracle, so nothing in them may come
from the code under test. A signer shared with the product would let a fault in its
encoding (claim names, base64url, the signing input) pass as both the token and the check.
Run: python3 scripts/make-events.py
"""
import base64, hashlib, hmac, json, os
from urllib.parse import parse_qs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENTS = os.path.join(ROOT, "events")
TABLE = os.path.join(ROOT, "scripts", "event-cases.json")
DEV_KEY = b"paypulse-local-development-jwt-key-do-not-deploy"
FAR_FUTURE = 4102444800  # 2100-01-01T00:00:00Z
HS256 = {"alg": "HS256", "typ": "JWT"}
USER = {"sub": "user-1", "name": "Jane Smith", "email": "jane@example.com"}  # the manifest's user

# Google's Cross-Account Protection, played here: the replay's fake Google publishes this
# key's JWKS under a RISC discovery document (manifest `risc_keys`), and the security
# events are signed with it (RS256, PKCS#1 v1.5: the same bytes every run). Made for
# these events alone; nothing else trusts it.
RISC_ISSUER = "https://accounts.google.com/"
RISC_KID = "replay-risc"
RISC_KEY_PATH = os.path.join(ROOT, "scripts", "event-risc-key.pem")
RISC_AUDIENCE = "testflight-build.apps.googleusercontent.com"  # our second OAuth client

# Per API function: its SAM sample's route, that route's method, the default type of a
# body, and whether a request carries the user's bearer token unless told otherwise (a
# security event is its own credential).
ROUTES = {
    "store-tokens": ("post-gmail-tokens", "POST", "application/json", True),
    "user-profile": ("get-user-me", "GET", "application/json", True),
    "disconnect": ("delete-gmail-tokens", "DELETE", "application/json", True),
    "security-events": ("post-security-events", "POST", "application/secevent+jwt", False),
}
FIELDS = {"function", "name", "why", "method", "token", "body", "raw_body", "base64_body", "set",
          "content_type", "authorizer", "payload", "scheduled", "answer", "answer_indexed",
          "before", "stored", "exit", "environment"}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def compact(value, **options):
    return json.dumps(value, separators=(",", ":"), **options).encode()


def forged(header, claims=None, key=DEV_KEY, signature=None):
    """A token with any header and claims (a claim set to None is left out), HMAC-SHA256
    signed under `key` unless a literal `signature` is given."""
    body = {"sub": "user-1", "iss": "paypulse", "aud": "paypulse-api", "iat": 1732000000,
            "exp": FAR_FUTURE}
    body = {name: value for name, value in {**body, **(claims or {})}.items() if value is not None}
    signing_input = f"{b64url(compact(header))}.{b64url(compact(body, sort_keys=True))}"
    if signature is None:
        signature = b64url(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())
    return f"{signing_input}.{signature}"


def token(spec):
    """The bearer token a case's `token` describes."""
    key = spec.get("key", DEV_KEY.decode()).encode()
    if "key_file" in spec:
        with open(os.path.join(ROOT, spec["key_file"]), "rb") as f:
            key = f.read()
    jwt = forged(spec.get("header", HS256), spec.get("claims"), key, spec.get("signature"))
    return jwt[:len(jwt) - spec.get("drop_last", 0)]


def risc_key():
    from cryptography.hazmat.primitives import serialization
    with open(RISC_KEY_PATH, "rb") as f:
        return serialization.load_pem_private_key(f.read(), password=None)


def risc_jwks():
    numbers = risc_key().public_key().public_numbers()
    n, e = (b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))
            for value in (numbers.n, numbers.e))
    return {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": RISC_KID, "n": n, "e": e}]}


def security_event(spec):
    """A Security Event Token as Google sends it: one event, iss/aud/iat/jti, no exp; RS256
    under the replay's RISC key, whatever the spec's `header` says."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    event_type = spec["type"]
    body = {"iss": RISC_ISSUER, "aud": RISC_AUDIENCE, "iat": 1732000000,
            "jti": f"replay-{event_type.rsplit('/', 1)[-1]}",
            "events": {event_type: spec["payload"]}, **spec.get("claims", {})}
    header = spec.get("header", {"alg": "RS256", "kid": RISC_KID, "typ": "secevent+jwt"})
    signing_input = f"{b64url(compact(header))}.{b64url(compact(body, sort_keys=True))}"
    signature = risc_key().sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{b64url(signature)}"


def sample(name):
    with open(os.path.join(EVENTS, "samples", name + ".json")) as f:
        return json.load(f)


def api_event(case, version):
    """The SAM sample of the case's route with its request's method, headers and body."""
    route, method, content_type, signed = ROUTES[case["function"]]
    e = sample(f"{version}-{route}")
    method = case.get("method", method)
    headers = {}
    bearer = case.get("token", {"claims": USER} if signed else None)
    if bearer is not None:
        headers["Authorization" if version == "v1" else "authorization"] = f"Bearer {token(bearer)}"
    if "set" in case:
        text = security_event(case["set"])
    else:
        body = case.get("body")
        text = body if isinstance(body, str) else "" if body is None else compact(body).decode()
    has_body = any(key in case for key in ("body", "set", "raw_body"))
    content_type = case.get("content_type", content_type)
    if content_type is not None and has_body:
        headers["Content-Type" if version == "v1" else "content-type"] = content_type
    base64_body = case.get("base64_body", True)
    encoded = base64.b64encode(text.encode()).decode() if base64_body else text
    e["headers"].update(headers)
    if version == "v2":
        e["requestContext"]["http"]["method"] = method
    else:
        e["multiValueHeaders"].update({name: [value] for name, value in headers.items()})
        e["httpMethod"] = e["requestContext"]["httpMethod"] = method
    e["body"], e["isBase64Encoded"] = case.get("raw_body", encoded), base64_body
    if "authorizer" in case:  # as API Gateway's JWT authorizer hands the event on
        claims = case["authorizer"]
        if claims is None:
            e["requestContext"].pop("authorizer", None)
        elif version == "v2":
            e["requestContext"]["authorizer"] = {"jwt": {"claims": claims, "scopes": None}}
        else:
            e["requestContext"]["authorizer"] = {"claims": claims}
    return e


def response(version, answer):
    # A body is JSON; an empty one (RFC 8935's 202) is of no type.
    typed = {"content-type": "application/json"} if answer["body"] else {}
    expected = {"statusCode": answer["status"], "headers": {**typed, **answer.get("headers", {})},
                "body": answer["body"], "isBase64Encoded": False}
    if version == "v1":
        expected["multiValueHeaders"] = {k: [v] for k, v in expected["headers"].items()}
    return expected


def secrets_in(event_json):
    """Every token a case carries (bearer JWT and its signature, access and refresh tokens):
    the replay test checks that none of them appears in any output."""
    if not isinstance(event_json, dict) or "headers" not in event_json:
        return []
    found = []
    for name, value in event_json["headers"].items():
        if name.lower() == "authorization" and value.startswith("Bearer "):
            token = value[len("Bearer "):]
            found += [piece for piece in (token, token.rsplit(".", 1)[-1]) if len(piece) >= 8]
    try:
        body = event_json.get("body") or ""
        if event_json.get("isBase64Encoded"):
            body = base64.b64decode(body, validate=True).decode()
    except Exception:
        return found
    try:
        fields = json.loads(body)
    except ValueError:
        fields = {k: v[0] for k, v in parse_qs(body).items()}
    if isinstance(fields, dict):
        found += [fields[k] for k in ("access_token", "refresh_token")
                  if isinstance(fields.get(k), str) and len(fields[k]) >= 8]
    return found


def resolve(value, shared):
    """`value` with each "@NAME" replaced by shared's NAME and each repeat spelled out."""
    if isinstance(value, str) and value.startswith("@"):
        return resolve(shared[value[1:]], shared)
    if isinstance(value, dict) and "repeat" in value:
        return value.get("prefix", "") + value["repeat"] * value["times"]
    if isinstance(value, dict):
        return {key: resolve(item, shared) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve(item, shared) for item in value]
    return value


def write(path, value, **options):
    """`value` at events/PATH (text as it is, else JSON); returns PATH."""
    with open(os.path.join(EVENTS, path), "w") as f:
        f.write(value if isinstance(value, str) else json.dumps(value, indent=2, **options))
        f.write("\n")
    return path


def write_case(case):
    """Writes the case's event and expected answers; returns its manifest entry."""
    function, name = case["function"], case["name"]
    assert FIELDS >= set(case), f"{name}: unknown fields {sorted(set(case) - FIELDS)}"
    event, expected = case.get("payload"), case["answer"]
    if "scheduled" in case:
        detail = case["scheduled"]
        event = sample("scheduled-event") | ({"detail": detail} if detail else {})
    elif "payload" not in case:
        version = name[:2]
        assert version in ("v1", "v2"), f"{name}: an API event's name starts with v1- or v2-"
        event, expected = api_event(case, version), response(version, expected)
    os.makedirs(os.path.join(EVENTS, function), exist_ok=True)
    path = f"{function}/{name}"
    entry = {"function": function, "name": name, "event": write(path + ".json", event),
             "before": case.get("before", []), "exit": case.get("exit", 0),
             "secrets": secrets_in(event)}
    if "environment" in case:
        entry["environment"] = case["environment"]
    # The answer, and where a store with a due index answers otherwise, that one too.
    if expected is not None:
        entry["expected"] = write(path + ".expected.json", expected, sort_keys=True)
    if "answer_indexed" in case:
        entry["expected_indexed"] = write(path + ".indexed.expected.json", case["answer_indexed"],
                                          sort_keys=True)
    if "stored" in case:
        entry["stored"] = case["stored"]
    return entry


def main():
    with open(TABLE) as f:
        table = json.load(f)
    cases = [write_case(resolve(case, table["shared"]))
             for group in table["groups"] for case in group["cases"]]
    with open(RISC_KEY_PATH) as f:
        risc_pem = f.read().strip()
    seeded = table["manifest"]
    write("manifest.json", {
        "user": seeded["user"], "google_clients": seeded["google_clients"],
        "token_digest_key": seeded["token_digest_key"],
        "google_grants": [{k: v for k, v in grant.items() if k != "why"}
                          for grant in seeded["google_grants"]],
        "risc_keys": {"issuer": RISC_ISSUER, "jwks": risc_jwks(), "private_key_pem": risc_pem},
        "cases": cases})
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main()
