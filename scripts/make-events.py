#!/usr/bin/env python3
"""Writes events/<function>/<case>.json and <case>.expected.json, plus events/manifest.json.

Each event starts from a raw `sam local generate-event` sample in events/samples/ (payload
2.0 `http-api-proxy` or 1.0 `aws-proxy`) and only gets what a real request adds: the
method, the Authorization and Content-Type headers, and a base64 body. JWTs are HS256,
signed with the documented development key, with exp 2100-01-01.

The JWTs are signed here, by `forged` below, and not by `paypulse jwt` (the one signer the
other scripts use): these events are the replay tests' oracle, so nothing in them may come
from the code under test. A signer shared with the product would let a fault in its
encoding (claim names, base64url, the signing input) pass as both the token and the check.

The expected responses are written here by hand from the contract (openapi.yaml and
docs/functions.md), never captured from the code under test. Run: python3 scripts/make-events.py
"""
import base64, copy, hashlib, hmac, json, os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "events", "samples")
DEV_KEY = b"paypulse-local-development-jwt-key-do-not-deploy"
GMAIL = "https://www.googleapis.com/auth/gmail.readonly"
EMAIL_SCOPE = "https://www.googleapis.com/auth/userinfo.email"
FAR_FUTURE = 4102444800  # 2100-01-01T00:00:00Z


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def compact(value, **options):
    return json.dumps(value, separators=(",", ":"), **options).encode()


def forged(header, claims=None, key=DEV_KEY, signature=None):
    """A token with any header and claims (a claim set to None is left out), HMAC-SHA256
    signed under `key` unless a literal `signature` is given."""
    body = {"sub": "user-1", "iss": "paypulse", "aud": "paypulse-api", "iat": 1732000000, "exp": FAR_FUTURE}
    body = {name: value for name, value in {**body, **(claims or {})}.items() if value is not None}
    signing_input = f"{b64url(compact(header))}.{b64url(compact(body, sort_keys=True))}"
    if signature is None:
        signature = b64url(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())
    return f"{signing_input}.{signature}"


HS256 = {"alg": "HS256", "typ": "JWT"}


def jwt(sub, key=DEV_KEY, **extra):
    """A well-formed token for `sub`."""
    return forged(HS256, {"sub": sub, **extra}, key)


# Google's Cross-Account Protection, played here: the replay's fake Google publishes this
# key's JWKS under a RISC discovery document (manifest `risc_keys`), and the security
# events below are signed with it (RS256, PKCS#1 v1.5: the same bytes every run). Made for
# these events alone; nothing else trusts it.
RISC_ISSUER = "https://accounts.google.com/"
RISC_KID = "replay-risc"
RISC_PEM = b"""-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQC5cPrWO502Qfd7
0IwMqzhj7YopmzuAaBgCRrNCODNjTShlZmT2F+QkGc1efcqwilUIHwI/SO/HHwar
oI1Dj0q/zEyffXtqKPSlwPvSUEFLEUey77vtdk3tr9tJRwvArSc0M+/jEdwgJagG
XGBIjSiy1H381pP/CMctmfxMWu5m3nPYXWdz/4YUy+I8E4Tvy/4B2wmSwBGqad6k
iswPxZ7bwD5dxz/891EGzi+JerNTLWItVokk3ZvT9Yuw2L07FTlZqGLq2ILHUHCJ
eaHYjgAwBOx0zU1AOM4PL8lMV+jvzah0azbK9NzfUwB5DhqNC4cYryZcS2MPkps6
rfDk0vifAgMBAAECggEAITNinXeH4p515jOE14HSM0XkniVeRlOctM+eqYTxYl5+
lIT8H3lQjcwW0kuYPfpOVgljOBxhXZem9JRmpklh2ywDLezj6zJQ9tox28olnoCG
AznbvhyXwC3jh1+ScZkuszB3SwK4FANZ7WWdkW/AcSANPHbYgWk7a+UtYChJlZ4B
BWb4N5wja853XrY+0tTRcS0mEuLmw+4COBbRrllchVxKG5hsyowZdM2lUnpvEnis
W3+eA9w88rHGfS4v15jgwcx8vtyHfxSDOyIDESPTaroGlkDP1KAFWfwPJm9EDtoO
0PqjzXB4x1/NG7Oabp4nJcILuPcWw9oRAd+u6OoC6QKBgQDrL88sqVqVKkxJv7UK
V8LHJRPcesLxLUPg0oO9zcTNY8v2jMrVv8FX2q2Aymyb+grSZbvKLma2HsORH+RQ
j+dqgPKiDtCu7wLxAHxtJoQe8fFwCCvEO3AaHPD271704dk+WVYj0ahad5aAUDuP
eiJWtwRcSlJ3RfR7SBCkxD+H6QKBgQDJ2i43rkjCiExzYXF7QfYeIck17d6y1f7m
yh4k3k41hT7VOHIUzQlgpVAURefdfT/Hjaghg7rJrF1yZuALzVGwz3QwjzQvtOn4
G8Cq9Ldinw7MnB6reHGbQlzRgGJ8jjKaR2JsWViXfBGfmVUkYhugSY3ew6OvO71e
/ePfO2yvRwKBgQDD7lKEfJowRsrDbeifMznbunHvbn5VekZgWEDUsUZRbeCQB/87
T8L9M/rznrAYyZiWa5ak+z8qXjrC/nSxARHj0oVQqVMFSa2DpcoDDOFo/lsL4GLF
2lasCoxczFKpZDYeEUMIGDRPGe3R/AWCpFdTMql5UZmeMDNbOVBUVAIxcQKBgQCi
d/inXKK34ZkXbaE3wpnlGvCndbTAYTpwbNLifgSZU4yFdo9sarRXk/fmuXWtczi4
2C4x+6OG3DPC90byeOp91B0DUOCCXa3MxBnKAHry6G+zBR4yihl3DG1FO38KHjJg
t4BjEW8bTwOoYHSFemoeE9YbLYE8dGsyYEzfyybp1QKBgGYjYEXq16NeRQznCypx
GnvZWjei3sqOVfgI+9e5nvUYt+da9IujmRt3j/U1HePrO74mEwtmcnpIRXCyCj7J
qHKB9u/5KZE169C1I/9RUxIh8oF5rj7J64xFks5R39CIZEmiBPHhO2Qt1p0bnhop
wddLfFu2Jp0dKtRecDHUu3GK
-----END PRIVATE KEY-----"""


def risc_key():
    from cryptography.hazmat.primitives import serialization
    return serialization.load_pem_private_key(RISC_PEM, password=None)


def risc_jwks():
    numbers = risc_key().public_key().public_numbers()
    n, e = (b64url(value.to_bytes((value.bit_length() + 7) // 8, "big")) for value in (numbers.n, numbers.e))
    return {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": RISC_KID, "n": n, "e": e}]}


def security_event(event_type, payload, header=None, **claims):
    """A Security Event Token as Google sends it: one event, iss/aud/iat/jti, no exp; RS256
    under the replay's RISC key unless `header` says otherwise (then unsigned bytes follow)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    body = {"iss": RISC_ISSUER, "aud": SECOND_CLIENT, "iat": 1732000000,
            "jti": f"replay-{event_type.rsplit('/', 1)[-1]}", "events": {event_type: payload}, **claims}
    header = header or {"alg": "RS256", "kid": RISC_KID, "typ": "secevent+jwt"}
    signing_input = f"{b64url(compact(header))}.{b64url(compact(body, sort_keys=True))}"
    signature = risc_key().sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{b64url(signature)}"


USER_JWT = jwt("user-1", name="Jane Smith", email="jane@example.com")
UNKNOWN_JWT = jwt("unknown-user")
FORGED_JWT = jwt("user-1", key=b"an-attacker-key-that-is-long-enough-0123456789")


def sample(name):
    with open(os.path.join(SAMPLES, name + ".json")) as f:
        return json.load(f)


# The grants the fake Google knows (any other refresh token gets invalid_grant): each
# names the account its id_token carries (Google Sign-In always asks for openid), the
# scopes Google granted, and scripted events in its life.
JANE_SUB = "108234567890123456789"
JANE = "jane.smith@gmail.com"
WORK, WORK_SUB = "jane.work@gmail.com", "117000000000000000042"  # another account of Jane's
SIGN_IN = f"{GMAIL} {EMAIL_SCOPE} openid"
DEBUG_CLIENT = "debug-build.apps.googleusercontent.com"
# The functions' OAuth clients (the client-ID secret's list), both known to the fake Google:
# the App Store build's (the default) and a TestFlight build's. DEBUG_CLIENT is neither.
STORE_CLIENT = "replay-ios-client.apps.googleusercontent.com"
SECOND_CLIENT = "testflight-build.apps.googleusercontent.com"
GOOGLE_CLIENTS = [STORE_CLIENT, SECOND_CLIENT]
# The deployment's key in the client-ID secret (manifest `token_digest_key`): grants list
# their refresh token's digests under it, which Google's token-revoked is matched against.
TOKEN_DIGEST_KEY = "replay-token-digest-key-0123456789abcdef"


def google_token_hash(refresh_token):
    """token-revoked's `hash_base64_sha512_sha512` identifier, as Google makes it."""
    return base64.b64encode(hashlib.sha512(hashlib.sha512(refresh_token.encode()).digest()).digest()).decode()


def grant(refresh_token, sub=JANE_SUB, email=JANE, scope=SIGN_IN, **extra):
    return {"refresh_token": refresh_token, "sub": sub, "email": email, "scope": scope, **extra}


GOOGLE_GRANTS = [
    grant("1//0gABC-first-refresh"),
    grant("1//0gABC-expiring-refresh", expires_in=300),
    grant("1//again-refresh"),
    grant("1//form-refresh", scope=f"{GMAIL} openid"),
    # The same account under a renamed address, and another account of Jane's.
    grant("1//0gABC-renamed-refresh", email="jane.s@gmail.com"),
    grant("1//0gWORK-refresh", sub=WORK_SUB, email=WORK),
    # Scopes Google granted without Gmail, whatever the body claims.
    grant("1//0gABC-no-gmail-refresh", scope=f"{EMAIL_SCOPE} openid"),
    # Issued to a debug build's OAuth client, not ours: Google refuses it as unauthorized_client.
    grant("1//0gDEBUG-build-refresh", issued_to=DEBUG_CLIENT),
    # Issued to our second client: proved, refreshed and revoked with it alone.
    grant("1//0gTESTFLIGHT-build-refresh", issued_to=SECOND_CLIENT, expires_in=300),
    # Live at connect, then the user removes access in their Google account.
    grant("1//0gABC-revoked-later-refresh", expires_in=60, refreshes_before_revocation=1),
    # Google answers 503 to the connect's three attempts, then serves it.
    grant("1//0gABC-google-blinked-refresh", expires_in=300, unavailable_for=3),
]


def event(version, method, route, body=None, content_type="application/json", token=USER_JWT, raw_body=None,
          base64_body=True):
    """A sam sample (events/samples/VERSION-ROUTE.json) with this request's method, headers and
    base64 body (or, with `base64_body=False`, the body as text with `isBase64Encoded: false`)."""
    e = sample(f"{version}-{route}")
    headers = {}
    if token is not None:
        headers["Authorization" if version == "v1" else "authorization"] = f"Bearer {token}"
    if content_type is not None and (body is not None or raw_body is not None):
        headers["Content-Type" if version == "v1" else "content-type"] = content_type
    if raw_body is None:
        text = body if isinstance(body, (str, bytes)) else "" if body is None else compact(body).decode()
        data = text if isinstance(text, bytes) else text.encode()
        raw_body = base64.b64encode(data).decode() if base64_body else text
    e["headers"].update(headers)
    if version == "v2":
        e["requestContext"]["http"]["method"] = method
    else:
        e["multiValueHeaders"].update({name: [value] for name, value in headers.items()})
        e["httpMethod"] = e["requestContext"]["httpMethod"] = method
    e["body"], e["isBase64Encoded"] = raw_body, base64_body
    return e


def post(version, body=None, **options):
    return event(version, "POST", "post-gmail-tokens", body, **options)


def get_me(version, method="GET", body=None, **options):
    return event(version, method, "get-user-me", body, **options)


def delete(version, method="DELETE", **options):
    return event(version, method, "delete-gmail-tokens", **options)


def response(version, status, body, headers=None):
    # A body is JSON; an empty one (RFC 8935's 202) is of no type.
    typed = {"content-type": "application/json"} if body else {}
    expected = {"statusCode": status, "headers": {**typed, **(headers or {})}, "body": body, "isBase64Encoded": False}
    if version == "v1":
        expected["multiValueHeaders"] = {k: [v] for k, v in expected["headers"].items()}
    return expected


def stored(version, message="First Gmail connection", email=JANE, scope=SIGN_IN, switch=False):
    """store-tokens' 201."""
    return response(version, 201, {"message": "Gmail OAuth tokens stored successfully!", "data": {
        "google_email": email, "scope": scope, "account_switch": switch, "message": message}})


def error(code, message):
    return {"error": code, "message": message}


def refused(version, status, message, code="invalid_request"):
    return response(version, status, error(code, message))


def unauthorized(version):
    return response(version, 401, error("unauthorized", "Missing or invalid bearer token."),
                    {"www-authenticate": "Bearer"})


def wrong_method(version, allowed):
    return response(version, 405, error("method_not_allowed", f"Use {allowed} on this route."),
                    {"allow": allowed})


def disconnected(version, revoked_at_google=True):
    return response(version, 200, {"message": "Gmail account disconnected",
                                   "data": {"google_email": JANE, "revoked_at_google": revoked_at_google}})


FORM = "application/x-www-form-urlencoded"
FIRST = {"access_token": "ya29.a0AfB_first-access", "refresh_token": "1//0gABC-first-refresh", "expires_in": 3600,
         "scope": [GMAIL, EMAIL_SCOPE], "email": JANE}

CASES = []
# What cases run after (their `before`), by the state they need.
CONNECTED = ["v2-json-first-connection"]
EXPIRING_SOON = ["v2-json-expiring-soon"]
DISCONNECTED = ["v2-json-expiring-soon", "v2-disconnect"]
GRANT_REVOKED = ["v2-json-connection-revoked-later", "scheduled-revoked-grant"]
ACCOUNT_DISABLED = ["v2-json-first-connection", "v2-account-disabled"]


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
        raw = event_json.get("body") or ""
        body = base64.b64decode(raw, validate=True).decode() if event_json.get("isBase64Encoded") else raw
    except Exception:
        return found
    try:
        fields = json.loads(body)
    except ValueError:
        from urllib.parse import parse_qs
        fields = {k: v[0] for k, v in parse_qs(body).items()}
    if isinstance(fields, dict):
        found += [fields[k] for k in ("access_token", "refresh_token") if isinstance(fields.get(k), str) and len(fields[k]) >= 8]
    return found


def case(function, name, event_json, expected, before=(), stored=None, exit_code=0, environment=None,
         expected_indexed=None):
    """`environment: "unreachable-aws"` runs the case against AWS endpoints where nothing
    listens, whatever the backend under test, to see the 503 a store outage gives.
    `expected_indexed`: the answer on a store with a due index (DynamoDB), where it differs:
    a refresh run there lists only what may be due, so `scanned` counts those."""
    CASES.append({"function": function, "name": name, "event": event_json, "expected": expected,
                  "before": list(before), "stored": stored, "exit": exit_code, "secrets": secrets_in(event_json),
                  "environment": environment, "expected_indexed": expected_indexed})


# store-tokens: successes. A refresh token in the body is proven at the fake Google first:
# what is stored and answered (account, scopes, expiry) is Google's word; the body's
# email and scope are hints. Google's first access token in a fresh fake is ya29.fake-1.
case("store-tokens", "v2-json-first-connection", post("v2", FIRST), stored("v2"),
     stored={"access_token": "ya29.fake-1", "refresh_token": FIRST["refresh_token"], "token_type": "Bearer",
             "scope": SIGN_IN, "google_email": JANE, "google_sub": JANE_SUB, "verified": True,
             "status": "active", "version": 2, "expires_in": 3599,
             "tags": {"paypulse:status": "active", "paypulse:refreshable": "true", "paypulse:verified": "true"}})
case("store-tokens", "v1-json-first-connection", post("v1", FIRST), stored("v1"),
     stored={"access_token": "ya29.fake-1", "refresh_token": FIRST["refresh_token"], "expires_in": 3599, "status": "active"})
case("store-tokens", "v2-json-verified-identity-overrides-hints",
     post("v2", {"access_token": "ya29.app-claimed-access", "refresh_token": FIRST["refresh_token"],
                 "expires_in": 86400, "scope": ["openid"], "email": "mallory@example.com"}), stored("v2"),
     stored={"access_token": "ya29.fake-1", "google_email": JANE, "google_sub": JANE_SUB,
             "scope": SIGN_IN, "expires_in": 3599, "verified": True})
form_repeated = "access_token=ya29.form-access&refresh_token=1%2F%2Fform-refresh&expires_in=1800" \
                f"&scope={GMAIL.replace(':', '%3A').replace('/', '%2F')}&scope=openid&email=jane.smith%40gmail.com"
case("store-tokens", "v2-form-repeated-scope",
     post("v2", form_repeated, content_type="application/x-www-form-urlencoded; charset=UTF-8"),
     stored("v2", scope=f"{GMAIL} openid"),
     stored={"access_token": "ya29.fake-1", "refresh_token": "1//form-refresh", "expires_in": 3599,
             "scope": f"{GMAIL} openid", "google_email": JANE})
case("store-tokens", "v1-form-space-separated-scope",
     post("v1", f"access_token=ya29.form2&scope=openid+{GMAIL}", content_type=FORM),
     stored("v1", email=None, scope=f"openid {GMAIL}"),
     stored={"access_token": "ya29.form2", "refresh_token": None, "expires_in": 3600, "google_email": None,
             "verified": False, "tags": {"paypulse:refreshable": "false", "paypulse:verified": "false"}})
# Without a refresh token nothing is asked of Google: the app's word, compared by email.
case("store-tokens", "v2-json-same-account-update",
     post("v2", {"access_token": "ya29.second-access", "expires_in": 3599, "scope": [GMAIL], "email": JANE}),
     stored("v2", "Gmail tokens updated", scope=GMAIL), before=CONNECTED,
     stored={"access_token": "ya29.second-access", "refresh_token": FIRST["refresh_token"], "expires_in": 3599,
             "google_sub": JANE_SUB, "verified": True})
case("store-tokens", "v2-json-account-switch-without-refresh-token",
     post("v2", {"access_token": "ya29.other-access", "scope": [GMAIL], "email": WORK}),
     stored("v2", "Gmail account switched", WORK, GMAIL, switch=True), before=CONNECTED,
     stored={"access_token": "ya29.other-access", "refresh_token": None,
             "google_email": WORK, "verified": False,
             "tags": {"paypulse:refreshable": "false", "paypulse:status": "active", "paypulse:verified": "false"}})
# The account is Google's sub: another sub is a switch even under a claimed address; the
# same sub under a renamed address is not.
case("store-tokens", "v2-json-account-switch-by-google-subject",
     post("v2", {"access_token": "ya29.work-access", "refresh_token": "1//0gWORK-refresh", "email": JANE}),
     stored("v2", "Gmail account switched", WORK, switch=True), before=CONNECTED,
     stored={"refresh_token": "1//0gWORK-refresh", "google_email": WORK, "google_sub": WORK_SUB})
case("store-tokens", "v2-json-renamed-address-same-account",
     post("v2", {"access_token": "ya29.renamed-access", "refresh_token": "1//0gABC-renamed-refresh"}),
     stored("v2", "Gmail tokens updated", "jane.s@gmail.com"), before=CONNECTED,
     stored={"refresh_token": "1//0gABC-renamed-refresh", "google_email": "jane.s@gmail.com",
             "google_sub": JANE_SUB})
# Google unreachable (503 to every attempt): stored as sent, unverified, and still 201.
BLINKED = {"access_token": "ya29.a0AfB_blinked-access", "refresh_token": "1//0gABC-google-blinked-refresh",
           "expires_in": 3600, "scope": [GMAIL], "email": JANE}
case("store-tokens", "v2-json-google-unavailable-stored-unverified", post("v2", BLINKED),
     stored("v2", scope=GMAIL),
     stored={"access_token": BLINKED["access_token"], "refresh_token": BLINKED["refresh_token"], "expires_in": 3600,
             "google_email": JANE, "google_sub": None, "verified": False, "status": "active",
             "tags": {"paypulse:verified": "false", "paypulse:status": "active", "paypulse:refreshable": "true"}})

# store-tokens: refusals (nothing stored)
MISSING_SCOPE = f"The Google grant lacks the scope {GMAIL}; request it and send the tokens again."
WHOLE_SECONDS = "expires_in must be a whole number of seconds from 1 to 86400."
REFUSALS = [  # (name, body, answer)
    ("v2-missing-gmail-scope", {"access_token": "ya29.x", "scope": [EMAIL_SCOPE]},
     (403, MISSING_SCOPE, "missing_scope")),
    # Google's granted scopes decide, whatever the body claims.
    ("v2-google-grants-no-gmail-scope",
     {"access_token": "ya29.x", "refresh_token": "1//0gABC-no-gmail-refresh", "scope": [GMAIL, EMAIL_SCOPE]},
     (403, MISSING_SCOPE, "missing_scope")),
    ("v2-invalid-grant", {"access_token": "ya29.x", "refresh_token": "1//0gABC-unknown-to-google",
                          "scope": [GMAIL], "email": JANE},
     (400, "Google no longer accepts this grant (revoked or expired); sign in with Google again and send the "
           "new tokens.", "invalid_grant")),
    ("v1-foreign-client", {"access_token": "ya29.x", "refresh_token": "1//0gDEBUG-build-refresh",
                           "scope": [GMAIL], "email": JANE},
     (400, "These tokens were issued to another OAuth client; sign in with Google from the PayPulse app and "
           "send those tokens.", "foreign_client")),
    ("v2-invalid-json", '{"access_token": "ya29.x",', (400, "The body is not valid JSON.")),
    ("v2-missing-access-token", {"refresh_token": "1//x"}, (400, "access_token is required.")),
    ("v1-expires-in-as-string", {"access_token": "ya29.x", "expires_in": "3600"},
     (400, "expires_in must be an integer, not a string.")),
    ("v2-expires-in-over-a-day", {"access_token": "ya29.x", "expires_in": 86401}, (400, WHOLE_SECONDS)),
    ("v2-scope-not-a-list", {"access_token": "ya29.x", "scope": {"gmail": True}},
     (400, "scope must be a list of strings, not an object.")),
]
for name, body, answer in REFUSALS:
    case("store-tokens", name, post(name[:2], body), refused(name[:2], *answer))
case("store-tokens", "v2-invalid-base64-body", post("v2", raw_body="not base64!!"),
     refused("v2", 400, "the request body is not valid base64"))
case("store-tokens", "v2-unsupported-content-type",
     post("v2", "access_token=ya29.x", content_type="text/plain"),
     refused("v2", 415, f"Send application/json or {FORM}.", "unsupported_media_type"))
case("store-tokens", "v2-body-over-64-kib", post("v2", {"access_token": "ya29." + "x" * 70000}),
     refused("v2", 413, "The request body is larger than 64 KiB.", "payload_too_large"))
case("store-tokens", "v2-missing-bearer-token", post("v2", FIRST, token=None), unauthorized("v2"))
case("store-tokens", "v1-forged-bearer-token", post("v1", FIRST, token=FORGED_JWT), unauthorized("v1"))
case("store-tokens", "v2-wrong-method", event("v2", "PUT", "post-gmail-tokens", FIRST),
     wrong_method("v2", "POST"))



def unavailable(version):
    return response(version, 503, error("upstream_unavailable", "Storage is unavailable right now; nothing "
                                        "was changed. Try again."), {"retry-after": "1"})


case("store-tokens", "v2-store-unavailable", post("v2", FIRST), unavailable("v2"),
     environment="unreachable-aws")

# user-profile
PROFILE = {"message": "User profile retrieved successfully",
           "data": {"name": "Jane Smith", "email": "jane@example.com", "created_on": "2024-11-01T10:00:00Z",
                    "gmail_account_connected": True}}
NOT_CONNECTED = copy.deepcopy(PROFILE)
NOT_CONNECTED["data"]["gmail_account_connected"] = False
case("user-profile", "v2-connected", get_me("v2"), response("v2", 200, PROFILE), before=CONNECTED)
case("user-profile", "v1-connected", get_me("v1"), response("v1", 200, PROFILE),
     before=["v1-form-space-separated-scope"])
case("user-profile", "v2-not-connected", get_me("v2"), response("v2", 200, NOT_CONNECTED))
case("user-profile", "v2-unknown-user", get_me("v2", token=UNKNOWN_JWT),
     refused("v2", 404, "No PayPulse user with this id.", "not_found"))
case("user-profile", "v2-missing-bearer-token", get_me("v2", token=None), unauthorized("v2"))
case("user-profile", "v1-wrong-method", get_me("v1", "POST", {}), wrong_method("v1", "GET"))

case("user-profile", "v1-store-unavailable", get_me("v1"), unavailable("v1"), environment="unreachable-aws")

# disconnect (the replay test runs a fake Google whose client knows the case's refresh tokens)
EXPIRING = {"access_token": "ya29.a0AfB_expiring-access", "refresh_token": "1//0gABC-expiring-refresh", "expires_in": 300,
            "scope": [GMAIL], "email": JANE}
NOTHING_CONNECTED = refused("v2", 404, "No Gmail account is connected.", "not_found")
case("store-tokens", "v2-json-expiring-soon", post("v2", EXPIRING), stored("v2"),
     stored={"access_token": "ya29.fake-1", "refresh_token": EXPIRING["refresh_token"], "expires_in": 300})
case("disconnect", "v2-disconnect", delete("v2"), disconnected("v2"), before=EXPIRING_SOON)
case("disconnect", "v1-disconnect", delete("v1"), disconnected("v1"), before=EXPIRING_SOON)
case("disconnect", "v2-nothing-connected", delete("v2"), NOTHING_CONNECTED)
case("disconnect", "v2-twice", delete("v2"), NOTHING_CONNECTED, before=DISCONNECTED)
case("disconnect", "v2-google-does-not-know-the-grant", delete("v2"), disconnected("v2", False),
     before=GRANT_REVOKED)
case("disconnect", "v2-missing-bearer-token", delete("v2", token=None), unauthorized("v2"))
case("disconnect", "v2-wrong-method", delete("v2", "GET"), wrong_method("v2", "DELETE"))
case("user-profile", "v2-after-disconnect", get_me("v2"), response("v2", 200, NOT_CONNECTED),
     before=DISCONNECTED)
case("store-tokens", "v2-reconnect-after-disconnect",
     post("v2", {"access_token": "ya29.again-access", "refresh_token": "1//again-refresh", "scope": [GMAIL],
                 "email": JANE}),
     stored("v2"), before=DISCONNECTED,
     stored={"refresh_token": "1//again-refresh", "status": "active", "verified": True,
             "tags": {"paypulse:status": "active"}})


# token-refresh: EventBridge scheduled events; the summary's duration is volatile
def summary(**counts):
    return {"scanned": 0, "due": 0, "refreshed": 0, "conflicts": 0, "revoked": 0, "rejected": 0,
            "transient_failures": 0, "skipped": 0, "remaining": 0, "duration_ms": "<any>"} | counts


def scheduled(**detail):
    return sample("scheduled-event") | ({"detail": detail} if detail else {})


REFRESHED = summary(scanned=1, due=1, refreshed=1)
case("token-refresh", "scheduled-nothing-stored", scheduled(), summary())
case("token-refresh", "scheduled-refreshes-expiring-grant", scheduled(), REFRESHED, before=EXPIRING_SOON,
     stored={"access_token": "ya29.fake-2", "refresh_token": EXPIRING["refresh_token"], "expires_in": 300,
             "status": "active", "google_sub": JANE_SUB, "verified": True,
             "tags": {"paypulse:status": "active", "paypulse:refreshable": "true"}})
case("token-refresh", "scheduled-not-yet-due", scheduled(), summary(scanned=1),
     expected_indexed=summary(scanned=0), before=CONNECTED,
     stored={"access_token": "ya29.fake-1", "expires_in": 3599})
case("token-refresh", "scheduled-sharded-input", scheduled(shard=0, shards=1), REFRESHED,
     before=EXPIRING_SOON)
case("token-refresh", "constant-input-shard", {"shard": 0, "shards": 1}, REFRESHED, before=EXPIRING_SOON)
case("token-refresh", "scheduled-revoked-grant", scheduled(), summary(scanned=1, due=1, revoked=1),
     before=["v2-json-connection-revoked-later"],
     stored={"status": "revoked", "refresh_token": "1//0gABC-revoked-later-refresh",
             "tags": {"paypulse:status": "revoked", "paypulse:refreshable": "false"}})
case("user-profile", "v2-after-grant-revoked", get_me("v2"), response("v2", 200, NOT_CONNECTED),
     before=GRANT_REVOKED)
case("store-tokens", "v2-json-connection-revoked-later",
     post("v2", {"access_token": "ya29.revoked-later-access",
                 "refresh_token": "1//0gABC-revoked-later-refresh", "scope": [GMAIL]}), stored("v2"),
     stored={"refresh_token": "1//0gABC-revoked-later-refresh", "expires_in": 60, "verified": True})
# A set stored unverified is taken by the next run whatever its expiry, and verified.
case("token-refresh", "scheduled-verifies-unverified-grant", scheduled(), REFRESHED,
     before=["v2-json-google-unavailable-stored-unverified"],
     stored={"refresh_token": BLINKED["refresh_token"], "google_email": JANE, "google_sub": JANE_SUB,
             "verified": True, "scope": SIGN_IN, "expires_in": 300,
             "tags": {"paypulse:verified": "true", "paypulse:status": "active"}})
case("token-refresh", "scheduled-invalid-shard", scheduled(shard=3, shards=2), None, exit_code=1)
# Keys are case-checked: "Shard" is not "shard", and a detail the run does not know fails it
# (read as no shard, this schedule would refresh every user).
case("token-refresh", "scheduled-miscased-shard", scheduled(Shard=1, Shards=2), None, exit_code=1)

# Several clients of ours: a grant of the second is proved by trying the default first (refused
# as another client's, our client probed healthy), then the second; the app may name it.
SECOND = {"access_token": "ya29.testflight", "refresh_token": "1//0gTESTFLIGHT-build-refresh", "scope": [GMAIL],
          "email": JANE}
SECOND_STORED = {"access_token": "ya29.fake-1", "refresh_token": SECOND["refresh_token"], "google_sub": JANE_SUB,
                 "verified": True, "expires_in": 300, "tags": {"paypulse:client": SECOND_CLIENT, "paypulse:verified": "true"}}
case("store-tokens", "v2-second-client-first-connection", post("v2", SECOND), stored("v2"),
     stored=SECOND_STORED)
case("store-tokens", "v1-second-client-named-by-app", post("v1", {**SECOND, "client_id": SECOND_CLIENT}),
     stored("v1"), stored=SECOND_STORED)
case("token-refresh", "scheduled-refreshes-second-client-grant", scheduled(), REFRESHED,
     before=["v2-second-client-first-connection"], stored={**SECOND_STORED, "access_token": "ya29.fake-2"})
case("disconnect", "v2-second-client-disconnect", delete("v2"), disconnected("v2"),
     before=["v2-second-client-first-connection"])

# fresh-token: a direct invocation (Lambda Invoke API) with {"user_id"}; what it cannot serve
# is an error code in the answer, and the invocation succeeds (exit 0). The token it serves
# is its product, which the replay's secret scan would rightly call a leak anywhere else:
# serving is proven in-process (Tests/RefreshTests/FreshTokenTests) and by the bundle proofs.
case("fresh-token", "not-connected", {"user_id": "user-1"}, error("not_connected", "No Gmail account is connected for this user."))
case("fresh-token", "invalid-user-id", {"user_id": "../user-1"}, error("invalid_request", "\"user_id\" is not a valid user id."))
case("fresh-token", "not-a-user-payload", {"userId": "user-1"},
     error("invalid_request", "The payload must be a JSON object with a string \"user_id\"."))
case("fresh-token", "revoked-grant", {"user_id": "user-1"},
     error("revoked", "The user's Gmail grant was revoked; they must connect again."),
     before=GRANT_REVOKED)

# security-events: Google's Cross-Account Protection pushes, signed with the replay's RISC
# key for our second client. The token is the credential: no Authorization header. A valid
# token is 202 with no body (RFC 8935); an invalid one 400 with {"err", "description"}.
JANE_SUBJECT = {"subject": {"subject_type": "iss-sub", "iss": RISC_ISSUER, "sub": JANE_SUB}}
RISC = "https://schemas.openid.net/secevent/risc/event-type/"
OAUTH = "https://schemas.openid.net/secevent/oauth/event-type/"


def pushed(version, token, method="POST"):
    return event(version, method, "post-security-events", token, content_type="application/secevent+jwt", token=None)


def set_refused(err, description):
    """RFC 8935's 400 for an invalid Security Event Token."""
    return response("v2", 400, {"err": err, "description": description})


ACCEPTED = {"v1": response("v1", 202, ""), "v2": response("v2", 202, "")}
ACTIVE = {"status": "active", "tags": {"paypulse:status": "active"}}
REVOKED = {"status": "revoked", "refresh_token": FIRST["refresh_token"],
           "tags": {"paypulse:status": "revoked"}}
case("security-events", "v2-account-disabled",
     pushed("v2", security_event(RISC + "account-disabled", {**JANE_SUBJECT, "reason": "hijacking"})),
     ACCEPTED["v2"],
     before=CONNECTED,
     stored={"status": "disabled", "refresh_token": FIRST["refresh_token"], "google_sub": JANE_SUB,
             "tags": {"paypulse:status": "disabled", "paypulse:refreshable": "false"}})
case("user-profile", "v2-after-account-disabled", get_me("v2"), response("v2", 200, NOT_CONNECTED),
     before=ACCOUNT_DISABLED)
case("security-events", "v2-account-enabled",
     pushed("v2", security_event(RISC + "account-enabled", JANE_SUBJECT)),
     ACCEPTED["v2"], before=ACCOUNT_DISABLED,
     stored={"status": "disabled", "verified": False, "tags": {"paypulse:status": "disabled", "paypulse:verified": "false"}})
case("security-events", "v1-tokens-revoked",
     pushed("v1", security_event(OAUTH + "tokens-revoked", JANE_SUBJECT)),
     ACCEPTED["v1"], before=CONNECTED, stored=REVOKED)
case("security-events", "v2-token-revoked", pushed("v2", security_event(OAUTH + "token-revoked", {
     "subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "hash_base64_sha512_sha512",
     "token": google_token_hash(FIRST["refresh_token"])})), ACCEPTED["v2"],
     before=CONNECTED, stored=REVOKED)
case("security-events", "v1-token-revoked-another-token", pushed("v1", security_event(OAUTH + "token-revoked", {
     "subject": {"subject_type": "oauth_token", "token_type": "refresh_token", "token_identifier_alg": "prefix",
                 "token": "1//0gABC-another"}}, jti="replay-token-revoked-another")), ACCEPTED["v1"],
     before=CONNECTED, stored=ACTIVE)
case("security-events", "v2-another-account", pushed("v2", security_event(
     OAUTH + "tokens-revoked", {"subject": {"subject_type": "iss-sub", "iss": RISC_ISSUER, "sub": "117999999999999999999"}})),
     ACCEPTED["v2"], before=CONNECTED, stored=ACTIVE)
case("security-events", "v2-verification", pushed("v2", security_event(RISC + "verification", {"state": "replay-check"})),
     ACCEPTED["v2"], before=CONNECTED, stored={"status": "active"})
case("security-events", "v2-not-a-jwt", pushed("v2", "hello"),
     set_refused("invalid_request", "the body is not a signed JWT (three non-empty base64url segments)"))
case("security-events", "v2-wrong-audience",
     pushed("v2", security_event(OAUTH + "tokens-revoked", JANE_SUBJECT,
                                 aud="someone-elses.apps.googleusercontent.com")),
     set_refused("invalid_audience", "aud names none of our OAuth client IDs"),
     before=CONNECTED, stored={"status": "active"})
case("security-events", "v2-unknown-kid",
     pushed("v2", security_event(OAUTH + "tokens-revoked", JANE_SUBJECT,
                                 header={"alg": "RS256", "kid": "rotated-away"})),
     set_refused("invalid_key",
                 "kid names no key of the RISC key set (or is missing where the set has several)"),
     before=CONNECTED, stored={"status": "active"})
case("security-events", "v1-wrong-method", pushed("v1", "hello", method="GET"), wrong_method("v1", "POST"))
case("fresh-token", "disabled-grant", {"user_id": "user-1"},
     error("disabled", "Google has disabled the user's Google account; no token until Google enables it."),
     before=ACCOUNT_DISABLED)
case("token-refresh", "scheduled-renews-enabled-account", scheduled(), REFRESHED,
     before=ACCOUNT_DISABLED + ["v2-account-enabled"],
     stored={"status": "active", "verified": True, "tags": {"paypulse:status": "active", "paypulse:verified": "true"}})

# Token attacks through the built executables (issue 6, part 4; the full catalogue runs
# in-process in Tests/AuthTests/HandlerAttackTests): each is the one generic 401, and
# nothing is stored.
# A throwaway RSA public key (shared with Tests/AuthTests/Fixtures/RSAFixture.swift): the
# HS/RS confusion attack signs HS256 with the server's public key as the HMAC secret.
with open(os.path.join(ROOT, "Tests", "Fixtures", "rsa-public-key.pem"), "rb") as _pem:
    RSA_PUBLIC_KEY_PEM = _pem.read()
ATTACKER_KEY = b"attacker-chosen-secret-0123456789-abcdef"
ATTACKS = [
    ("store-tokens", "v2-attack-alg-none", forged({"alg": "none", "typ": "JWT"}, signature="")),
    ("store-tokens", "v2-attack-alg-none-capitalised", forged({"alg": "None", "typ": "JWT"}, signature="c2ln")),
    ("store-tokens", "v2-attack-hs256-with-rsa-public-key", forged(HS256, key=RSA_PUBLIC_KEY_PEM)),
    ("store-tokens", "v1-attack-rs256-header-with-hmac", forged({"alg": "RS256", "typ": "JWT"})),
    ("store-tokens", "v2-attack-kid-path-traversal", forged({"alg": "HS256", "kid": "../../../../dev/null"}, key=b"")),
    ("store-tokens", "v2-attack-kid-sql-injection", forged({"alg": "HS256", "kid": "' OR '1'='1"})),
    ("store-tokens", "v2-attack-jku-header",
     forged({"alg": "HS256", "jku": "https://attacker.example/jwks.json"}, key=ATTACKER_KEY)),
    ("store-tokens", "v2-attack-embedded-jwk",
     forged({"alg": "HS256", "jwk": {"kty": "oct", "k": b64url(ATTACKER_KEY)}}, key=ATTACKER_KEY)),
    ("store-tokens", "v2-attack-wrong-issuer", forged(HS256, {"iss": "someone-else"})),
    ("store-tokens", "v2-attack-wrong-audience", forged(HS256, {"aud": "other-api"})),
    ("store-tokens", "v2-attack-expired", forged(HS256, {"exp": 1732000600})),
    ("store-tokens", "v2-attack-not-yet-valid", forged(HS256, {"nbf": FAR_FUTURE - 3600})),
    ("store-tokens", "v2-attack-oversized-token", forged(HS256, {"pad": "x" * 16384})),
    ("user-profile", "v2-attack-sub-path-traversal", forged(HS256, {"sub": "../user-1"})),
    ("user-profile", "v1-attack-sub-not-a-string", forged(HS256, {"sub": 42})),
    ("user-profile", "v2-attack-sub-600-characters", forged(HS256, {"sub": "u" * 600})),
    ("disconnect", "v2-attack-sub-with-nul", forged(HS256, {"sub": "user-1\u0000"})),
    ("disconnect", "v2-attack-sub-missing", forged(HS256, {"sub": None})),
    ("disconnect", "v2-attack-truncated-token", USER_JWT[:-6]),
]
ROUTES = {"store-tokens": lambda version, **options: post(version, FIRST, **options), "user-profile": get_me,
          "disconnect": delete}
for function, name, token in ATTACKS:
    case(function, name, ROUTES[function](name[:2], token=token), unauthorized(name[:2]))

# Input limits (issue 6, part 6): clear 400s with the stable code invalid_request, 413
# for size. Duplicate keys are refused, not resolved: JSONDecoder keeps the first value,
# JavaScript and Python the last, so a repeated key could mean two tokens to two readers.
# Larger inputs (a 1 MiB body, 100k nested brackets, a 1 MB header, bytes that are not
# UTF-8 in the event itself) are generated by Tests/ReplayTests/InputLimitTests.
LIMITS = [  # (name, body, invalid_request's message[, content type])
    ("v2-limit-duplicate-json-key",
     '{"access_token":"ya29.first-of-two","access_token":"ya29.second-of-two"}',
     "The body repeats a key; send each field once."),
    ("v2-limit-duplicate-form-field", "access_token=ya29.first-of-two&access_token=ya29.second-of-two",
     "The form body repeats a field; only scope may repeat.", FORM),
    ("v2-limit-expires-in-negative", '{"access_token":"ya29.x","expires_in":-1}', WHOLE_SECONDS),
    ("v2-limit-expires-in-zero", '{"access_token":"ya29.x","expires_in":0}', WHOLE_SECONDS),
    ("v2-limit-expires-in-fractional", '{"access_token":"ya29.x","expires_in":1.5}', WHOLE_SECONDS),
    ("v2-limit-expires-in-1e308", '{"access_token":"ya29.x","expires_in":1e308}', WHOLE_SECONDS),
    ("v2-limit-expires-in-2-pow-63", '{"access_token":"ya29.x","expires_in":9223372036854775808}',
     WHOLE_SECONDS),
    ("v2-limit-expires-in-beyond-double", '{"access_token":"ya29.x","expires_in":1e400}',
     "The body holds a number too large to represent."),
    ("v2-limit-expires-in-form-fraction", "access_token=ya29.x&expires_in=1.5",
     "expires_in must be an integer number of seconds.", FORM),
    ("v2-limit-access-token-as-number", '{"access_token":12345}',
     "access_token must be a string, not a number."),
    ("v2-limit-nested-too-deep", '{"access_token":"ya29.x","extra":' + "[" * 40 + "]" * 40 + "}",
     "The body nests deeper than 32 levels."),
    ("v2-limit-body-not-utf8", b'{"access_token":"ya29.\xff\xfe"}', "The body is not valid UTF-8."),
    ("v2-limit-lone-surrogate-escape", '{"access_token":"ya29.\\ud800"}', "The body is not valid JSON."),
]
for name, body, message, *content_type in LIMITS:
    case("store-tokens", name, post("v2", body, content_type=(content_type or ["application/json"])[0]),
         refused("v2", 400, message))
case("store-tokens", "v1-limit-text-body-over-64-kib",
     post("v1", {"access_token": "ya29." + "y" * 66000}, base64_body=False),
     refused("v1", 413, "The request body is larger than 64 KiB.", "payload_too_large"))

# PAYPULSE_AUTH_MODE=apigateway (environment "apigateway"): API Gateway's JWT authorizer
# verified the identity provider's token and hands the function its claims, every value a
# string (payload 2.0: requestContext.authorizer.jwt.claims; 1.0: .authorizer.claims). The
# provider's token still travels in the Authorization header; it is not ours (another
# issuer's key), and the function does not verify it again. An event without claims (a
# route deployed without the authorizer) is refused, whatever its header holds.
COGNITO_CLAIMS = {"sub": "user-1", "iss": "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_EXAMPLE",
                  "aud": "4example0client0id", "token_use": "id", "auth_time": "1732000000", "iat": "1732000000",
                  "exp": str(FAR_FUTURE), "email": "jane@example.com", "cognito:username": "jane"}
PROVIDER_JWT = jwt("user-1", key=b"an-identity-providers-key-not-ours-0123456789")


def authorized(e, claims=COGNITO_CLAIMS):
    """`e` as API Gateway's JWT authorizer hands it on: its claims, or (None) none at all."""
    if claims is None:
        e["requestContext"].pop("authorizer", None)
    elif "http" in e["requestContext"]:  # payload 2.0
        e["requestContext"]["authorizer"] = {"jwt": {"claims": claims, "scopes": None}}
    else:
        e["requestContext"]["authorizer"] = {"claims": claims}
    return e


for version in ("v2", "v1"):
    case("store-tokens", f"{version}-apigateway-first-connection",
         authorized(post(version, FIRST, token=PROVIDER_JWT)), stored(version), environment="apigateway",
         stored={"access_token": "ya29.fake-1", "refresh_token": FIRST["refresh_token"], "expires_in": 3599,
                 "status": "active"})
case("user-profile", "v2-apigateway-connected", authorized(get_me("v2", token=PROVIDER_JWT)),
     response("v2", 200, PROFILE),
     before=CONNECTED, environment="apigateway")
case("user-profile", "v1-apigateway-claims-without-header", authorized(get_me("v1", token=None)),
     response("v1", 200, NOT_CONNECTED), environment="apigateway")
case("disconnect", "v2-apigateway-disconnect", authorized(delete("v2", token=PROVIDER_JWT)),
     disconnected("v2"),
     before=EXPIRING_SOON, environment="apigateway")
# Our own valid token, but no authorizer on the route: refused.
case("store-tokens", "v2-apigateway-no-authorizer", authorized(post("v2", FIRST), None), unauthorized("v2"),
     environment="apigateway")
case("user-profile", "v1-apigateway-no-authorizer", authorized(get_me("v1"), None), unauthorized("v1"),
     environment="apigateway")
# The SAM sample's own claims (claim1, claim2): no sub, so no user.
case("disconnect", "v2-apigateway-claims-without-sub", delete("v2", token=PROVIDER_JWT), unauthorized("v2"),
     environment="apigateway")

# not an API Gateway event at all: a clear error on stderr, nothing on stdout, exit 2
case("store-tokens", "not-an-api-gateway-event", {"hello": "world"}, None, exit_code=2)
case("user-profile", "not-json", "this is not json", None, exit_code=2)


def write(path, value, **options):
    """`value` at events/PATH (text as it is, else JSON); returns PATH."""
    with open(os.path.join(ROOT, "events", path), "w") as f:
        f.write(value if isinstance(value, str) else json.dumps(value, indent=2, **options))
        f.write("\n")
    return path


def main():
    manifest = []
    for c in CASES:
        os.makedirs(os.path.join(ROOT, "events", c["function"]), exist_ok=True)
        path = f"{c['function']}/{c['name']}"
        entry = {"function": c["function"], "name": c["name"], "event": write(path + ".json", c["event"]),
                 "before": c["before"], "exit": c["exit"], "secrets": c["secrets"]}
        if c["environment"]:
            entry["environment"] = c["environment"]
        # The answer, and where a store with a due index answers otherwise, that one too.
        for key, suffix in (("expected", ".expected.json"), ("expected_indexed", ".indexed.expected.json")):
            if c[key] is not None:
                entry[key] = write(path + suffix, c[key], sort_keys=True)
        if c["stored"] is not None:
            entry["stored"] = c["stored"]
        manifest.append(entry)
    write("manifest.json", {"user": {"user_id": "user-1", "name": "Jane Smith", "email": "jane@example.com",
                                     "created_on": "2024-11-01T10:00:00Z"},
                            "google_clients": GOOGLE_CLIENTS, "token_digest_key": TOKEN_DIGEST_KEY,
                            "google_grants": GOOGLE_GRANTS,
                            "risc_keys": {"issuer": RISC_ISSUER, "jwks": risc_jwks(), "private_key_pem": RISC_PEM.decode()},
                            "cases": manifest})
    print(f"wrote {len(manifest)} cases")


if __name__ == "__main__":
    main()
