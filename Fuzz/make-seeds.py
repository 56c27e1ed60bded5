#!/usr/bin/env python3
"""Writes the seed corpora of the event-decoder, store-tokens-body and jwt-front fuzz
targets into Fuzz/corpus/ (aws-error's seeds are captured answers, kept by hand). Needs
`cryptography` (PyPI) for the jwks seeds: scripts/ensure-deps.sh --with-pyjwt.

Seeds are real inputs: every sample and replay event under events/ (except the 64 KiB
one), the store-tokens bodies of those events with their Content-Type, and JWTs minted
with the development key for the fuzz target's fixed clock. Run from the repository
root: python3 Fuzz/make-seeds.py

The JWTs are signed here (`token` below), not by `paypulse jwt`: most of them are tokens the
product must refuse (alg none, HS384 and RS256 headers, a kid or crit, exp as a string, a
numeric or NUL-bearing sub, a payload that is an array) and `paypulse jwt` only mints
well-formed ones with iat at the current time, not at the fuzz target's fixed clock. A
product command that signs any header and claims would be a forger shipped in the CLI.
"""
import base64, glob, hashlib, hmac, json, os

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "corpus")
KEY = b"paypulse-local-development-jwt-key-do-not-deploy"
NOW = 1_767_225_600  # 2026-01-01T00:00:00Z, JWTFront.now
MAX_SEED = 16 * 1024
# The jwks side of jwt-front: the private halves of JWTFront.issuerKeySet, made for the
# fuzzer's seeds alone (nothing else trusts them).
ISSUER, AUDIENCE = "https://issuer.fuzz.test", "paypulse-fuzz"
ISSUER_RSA_PEM = b"""-----BEGIN PRIVATE KEY-----
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQC09rrhIQ8YAr4d
N3ep60epbwNf8mCcNUBkVo7MuhmKDhlGbttIWETWGXYiKNN8eAmfZGTvanbfRTA2
xXKMor+Sg0U9HSGQSGEZW12oFqnZ+8fFrxOaeq/eJA8RYwonqyFcyDOlmfjEZ50I
CUfs+tOoYsNFRlk0P+gkv5SUtAf7ssEMN7fooWgI80JAsHK+pz886MbyUO7ph7Yw
QDuhWRNEmmuSfgdQ+MSNCrLJlnBuIUBIhx+4CWpFuuJF5zyEEKoi5OHZ9DNsw9ob
mtNxVLRufmPMTKJHYs7a1DvW4Y2wwLeqtQm/8FhIMihywvJt+dx1Gz4/D2CY2nEI
2wkKowMxAgMBAAECggEAB0Qm8dY5fG3Tw2mQQP7lBD0kZgxd67fJq528IyVP1DbH
tgfKf0eoD+66yxlXkJZjUIaf9OsR9doZ2wEnndUFGzVxKMiMKfZ2C6YbBx5N2KZe
+aWThG7rs+A/yKNw63HYJ5kUVdBuaDh+2i1BOZdCu26nx5bRCyOLxzn4FdZ6wZT1
AV9efwiAJfUANOmvekdmQFZEY5JrkMZw6b94l/JhOo/gSBsM+jM2QQtn2D8OXZZO
wd8zhuYIa1+JWZvTTHewiJTirRI9IXJ385qvPdQR8uNAVcvxCW1EMjkparkIhbPY
ssSOpsRVa0lUEgYUo8PyhwtXUF98+dcLMH0b1fcJyQKBgQDu6BIRRFGXFjzjmtpX
eYofj2CdwxiuZGqMkSxowhpvdNW+ihg0EnpPzUzxqjVfcBrcTU7cjC+fv9Uei5nh
Wr9pX/XFMOk8BVQmm1Mc0fU1xtCfjvpnqU0fWfj3O0YnM6LMGLuRkVRZ05ueDrDm
qGO6bfuO0OM8ydvJIXHy18o01QKBgQDB6VoM8b/R4FwsKpbiHqZ7+fIg7lnAq9T1
2TcarMHn9sS9YMusHKt0MGEaadvgC4fKvkari9CErtugG6pRpdc2IZkjLrfFFzeH
t3mV+52VOo536pqTNNf/CHuTnOBmE6BWbKRB6lF1CBfw2B1EKYlDWRjwGkj/u7sX
C+lGJuSy7QKBgGzTP6+n3DajhZb0KfNgxL89k3gpr6t4yGRBmOYbTOlqYhcKVp4Z
sKd7UEphCzDvIv0pJfwmy2bMfmsMkkrqCHkaohxx/Dw//SYc6M4fAcC+ULft7Die
EShv1o3f7UPcLJMlzQMxHShR0Pg9nu1i1RLOGKHkmy5MkRZcasiA7XYFAoGAa0A9
5lrv1Y1abbNAsOBzBK9CFKTAT6i6qR/zMnXK6hm6x2P6Qr+4tRLtIkbarhiyipij
Tc6PDlQIdY3XrkEjv3Tl1mfIjOJCfHYmcaYxipBQrFK+HB1mOlDeyM5D7zF7xVFh
qHOJiklntHZT+ZdfrDhjaqmfJpMW77BO3dY1OCECgYAbxe8iLerfJeM3bC4xkEMa
UGx5C2Cez6gn6GPUqZxdF1vv1PstWsLd2kCS2KytUNtRrVY4xFXk2e94Y0FSonIq
XGo+QDK/HNBhHsv2glNnXND027w8MtlSjBY2CWbES8zqEPm962902cFLUuKNsxns
64xIbAD+gjYRhGrsLia8VQ==
-----END PRIVATE KEY-----"""
ISSUER_EC_PEM = b"""-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgOlIbtSpTORQ2Nqw2
1xy/8NPsha1vfB9TEIxY7Njqg7mhRANCAAQcgYyfZQHBGLjnv2stYYZZvQGxLRdg
XogwIr3clz/9qxy5JGI/tLHU/cV6/qsh7rLswVJjUUwHtP31LV6fI5zo
-----END PRIVATE KEY-----"""


def write(target, name, data):
    os.makedirs(os.path.join(CORPUS, target), exist_ok=True)
    with open(os.path.join(CORPUS, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def event_files():
    for path in sorted(glob.glob(os.path.join(ROOT, "events", "**", "*.json"), recursive=True)):
        name = os.path.relpath(path, os.path.join(ROOT, "events"))
        if name.endswith(".expected.json") or name == "manifest.json" or os.path.getsize(path) > MAX_SEED:
            continue
        yield name.replace(os.sep, "--")[:-5], path


def events():
    for name, path in event_files():
        write("event-decoder", name, open(path, "rb").read())
    # Shapes the samples lack: authorizers, a named stage, repeated query keys, null maps.
    extra = {
        "v2-jwt-authorizer-stage-cookies": {
            "version": "2.0", "routeKey": "GET /v1/user/me", "rawPath": "/prod/v1/user/me",
            "rawQueryString": "a=1&a=2&b=%41+", "queryStringParameters": {"a": "1,2", "b": "A+"},
            "cookies": ["s=1", "t=2"], "headers": {"content-type": "application/json"},
            "requestContext": {"stage": "prod", "http": {"method": "get", "path": "/prod/v1/user/me"},
                               "authorizer": {"jwt": {"claims": {"sub": "user-1", "exp": 1767229200, "aud": ["a", "b"]}}}},
            "isBase64Encoded": False,
        },
        "v1-lambda-authorizer-null-maps": {
            "httpMethod": "DELETE", "path": "/v1/auth/gmail-tokens", "headers": None, "multiValueHeaders": None,
            "queryStringParameters": None, "multiValueQueryStringParameters": {"x": ["1", "2"]}, "body": None,
            "requestContext": {"authorizer": {"principalId": "user-1", "integrationLatency": 12, "flag": True}},
        },
        "scheduled-constant-shard": {"shard": 1, "shards": 4},
        "eventbridge-detail-array": {"detail-type": "Scheduled Event", "source": "aws.events", "detail": [1, {"a": None}]},
    }
    for name, event in extra.items():
        write("event-decoder", name, json.dumps(event))


def load_event(path):
    try:
        event = json.load(open(path))
    except ValueError:  # events/user-profile/not-json.json
        return None
    return event if isinstance(event, dict) else None


def header(event, wanted):
    for key, value in (event.get("headers") or {}).items():
        if key.lower() == wanted:
            return value
    return None


def bodies():
    for name, path in event_files():
        event = load_event(path)
        if not event or not event.get("body"):
            continue
        body = event["body"].encode()
        if event.get("isBase64Encoded"):
            try:
                body = base64.b64decode(event["body"], validate=True)
            except ValueError:
                continue
        content_type = header(event, "content-type")
        # Input: Content-Type, newline, body; no newline means no Content-Type at all.
        write("store-tokens-body", name, body if content_type is None else content_type.encode() + b"\n" + body)
    write("store-tokens-body", "form-percent-escapes",
          "application/x-www-form-urlencoded; charset=UTF-8\naccess_token=ya29.a%2Fb%2Bc&refresh_token=1%2F%2F0g&"
          "expires_in=3599&scope[]=openid&scope[]=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fgmail.readonly&email=j%40example.com")
    write("store-tokens-body", "json-charset-latin1", 'application/json; charset="ISO-8859-1"\n{"access_token":"x"}')
    write("store-tokens-body", "json-number-forms",
          'application/json\n{"access_token":"ya29.n","expires_in":3.6e3,"scope":"openid email","token_type":"Bearer","refresh_token":null}')
    write("store-tokens-body", "json-nested", "application/json\n" + '{"access_token":' + "[" * 64 + "]" * 64 + "}")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(header, claims, sign=True):
    signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + b64url(
        json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(KEY, signing_input.encode(), hashlib.sha256).digest() if sign else b""
    return signing_input + "." + b64url(signature)


def jwts():
    hs = {"alg": "HS256", "typ": "JWT"}
    good = {"sub": "user-1", "iss": "paypulse", "aud": "paypulse-api", "iat": NOW - 60, "exp": NOW + 3600,
            "name": "Jane Smith", "email": "jane@example.com"}
    cases = {
        "valid": (hs, good),
        "valid-no-typ-aud-list": ({"alg": "HS256"}, {**good, "aud": ["other", "paypulse-api"]}),
        "expired-beyond-leeway": (hs, {**good, "exp": NOW - 61}),
        "expired-within-leeway": (hs, {**good, "exp": NOW - 30}),
        "not-yet-valid": (hs, {**good, "nbf": NOW + 120}),
        "no-exp": (hs, {k: v for k, v in good.items() if k != "exp"}),
        "wrong-issuer": (hs, {**good, "iss": "evil"}),
        "wrong-audience": (hs, {**good, "aud": "someone-else"}),
        "exp-as-string": (hs, {**good, "exp": str(NOW + 3600)}),
        "sub-missing": (hs, {k: v for k, v in good.items() if k != "sub"}),
        "sub-number": (hs, {**good, "sub": 42}),
        "sub-slash": (hs, {**good, "sub": "../admin/x"}),
        "sub-nul": (hs, {**good, "sub": "user\u00001"}),
        "sub-600": (hs, {**good, "sub": "u" * 600}),
        "alg-none": ({"alg": "none", "typ": "JWT"}, good),
        "alg-hs384": ({"alg": "HS384", "typ": "JWT"}, good),
        "alg-rs256": ({"alg": "RS256", "typ": "JWT"}, good),
        "kid-injection": ({**hs, "kid": "../../dev/null"}, good),
        "typ-jose": ({"alg": "HS256", "typ": "JOSE"}, good),
        "crit": ({**hs, "crit": ["exp"]}, good),
        "payload-array": (hs, [1, 2]),
        "oversized": (hs, {**good, "name": "x" * 6200}),
    }
    for name, (head, claims) in cases.items():
        write("jwt-front", name, token(head, claims, sign=name != "alg-none"))
    forged = token(hs, good)
    write("jwt-front", "bad-signature", forged[:-4] + ("AAAA" if not forged.endswith("AAAA") else "BBBB"))
    write("jwt-front", "two-segments", forged.rsplit(".", 1)[0])
    # Found by the fuzzer: Foundation's String.contains stops at a NUL, so an oracle that
    # asked it whether an error names "S" + 15 NULs saw the "S" of "JWS" and failed.
    write("jwt-front", "nul-padded", b"S" + b"\0" * 15)
    # The tokens the replay events carry (exp 2100-01-01), as the app sends them.
    seen = set()
    for name, path in event_files():
        event = load_event(path)
        value = header(event, "authorization") if event else None
        if value and value.lower().startswith("bearer ") and value not in seen:
            seen.add(value)
            write("jwt-front", "event-" + name, value[7:])


def issuer_token(header, claims, der=False, key=None):
    """`header.claims` signed as the header's alg says, with the fixture's key of that alg
    (or `key`); ES256 as JOSE's r || s unless `der`."""
    signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode()) + "." +
                     b64url(json.dumps(claims, separators=(",", ":")).encode())).encode()
    if header["alg"] == "RS256":
        rsa_key = key or serialization.load_pem_private_key(ISSUER_RSA_PEM, password=None)
        signature = rsa_key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    else:
        ec_key = key or serialization.load_pem_private_key(ISSUER_EC_PEM, password=None)
        der_signature = ec_key.sign(signing_input, ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der_signature)
        signature = der_signature if der else r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return signing_input.decode() + "." + b64url(signature)


def issuer_jwts():
    """Seeds for the jwks side: the provider shapes and the attacks of issue 25."""
    good = {"sub": "user-1", "iss": ISSUER, "aud": AUDIENCE, "iat": NOW - 60, "exp": NOW + 3600}
    rs, es = {"alg": "RS256", "kid": "fuzz-rsa", "typ": "JWT"}, {"alg": "ES256", "kid": "fuzz-ec", "typ": "JWT"}
    cases = {
        "issuer-rs256": (rs, good, {}),
        "issuer-es256": (es, good, {}),
        "issuer-es256-at-jwt": ({**es, "typ": "at+jwt"}, good, {}),
        "issuer-cognito-access": (rs, {**{k: v for k, v in good.items() if k != "aud"}, "client_id": AUDIENCE, "token_use": "access"}, {}),
        "issuer-firebase": (rs, {**good, "auth_time": NOW - 600, "firebase": {"sign_in_provider": "apple.com"}}, {}),
        "issuer-auth-time-ahead": (es, {**good, "auth_time": NOW + 600}, {}),
        "issuer-es256-der": (es, good, {"der": True}),
        "issuer-kid-unknown": ({**rs, "kid": "no-such-key"}, good, {}),
        "issuer-kid-path": ({**rs, "kid": "../../etc/passwd"}, good, {}),
        "issuer-no-kid": ({"alg": "ES256"}, good, {}),
        "issuer-alg-crossed": ({"alg": "ES256", "kid": "fuzz-rsa"}, good, {}),
        "issuer-stranger-key": (es, good, {"key": ec.derive_private_key(20261126, ec.SECP256R1())}),
        "issuer-jku": ({**es, "jku": "https://attacker.example/jwks.json"}, good, {}),
    }
    for name, (head, claims, options) in cases.items():
        write("jwt-front", name, issuer_token(head, claims, **options))
    # HS256 MACed with the RSA public key's PEM: the confusion a jwks verifier must refuse.
    public_pem = serialization.load_pem_private_key(ISSUER_RSA_PEM, password=None).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    signing_input = b64url(json.dumps({"alg": "HS256", "kid": "fuzz-rsa"}, separators=(",", ":")).encode()) + "." + b64url(
        json.dumps(good, separators=(",", ":")).encode())
    write("jwt-front", "issuer-hs256-public-key",
          signing_input + "." + b64url(hmac.new(public_pem, signing_input.encode(), hashlib.sha256).digest()))


if __name__ == "__main__":
    events()
    bodies()
    jwts()
    issuer_jwts()
