#!/usr/bin/env python3
"""An identity provider played by an independent JWT library: PyJWT with `cryptography`.

Reads a JSON request on standard input:
    {"tokens": [{"claims": {...}, "alg": "RS256" | "ES256", "kid": "...", "typ": "JWT"}, ...],
     "resign": {"key": "HS256 key", "tokens": [{"token": "...", "alg": "RS256" | "ES256"}, ...]}}
makes a fresh RSA-2048 key (kid "pyjwt-rsa") and a fresh P-256 key (kid "pyjwt-ec"), signs
each token with the key of its algorithm (`kid` defaults to that key's; "typ" optional),
and writes {"jwks": {"keys": [...]}, "tokens": ["...", ...], "resigned": ["...", ...]} on
standard output. "resign" takes tokens an HS256 key signed: each whose signature PyJWT
verifies under that key (its claims are not checked: an expired token stays expired) is
signed again, same claims, with the asymmetric key; any other token comes back unchanged,
so a forgery stays a forgery. The JWKS comes from PyJWT's own JWK export; nothing here is
PayPulse code.
"""
import json
import sys

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm


def main():
    request = json.load(sys.stdin)
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    keys = {"RS256": (rsa_key, "pyjwt-rsa"), "ES256": (ec_key, "pyjwt-ec")}
    published = []
    for algorithm, (key, kid) in keys.items():
        exporter = RSAAlgorithm if algorithm == "RS256" else ECAlgorithm
        jwk = exporter.to_jwk(key.public_key(), as_dict=True)
        jwk.update({"kid": kid, "use": "sig", "alg": algorithm})
        published.append(jwk)
    tokens = []
    for wanted in request["tokens"]:
        key, kid = keys[wanted["alg"]]
        headers = {"kid": wanted.get("kid", kid)}
        if "typ" in wanted:
            headers["typ"] = wanted["typ"]
        tokens.append(jwt.encode(wanted["claims"], key, algorithm=wanted["alg"], headers=headers))
    resign = request.get("resign", {"key": "", "tokens": []})
    resigned = []
    for wanted in resign["tokens"]:
        try:
            header = jwt.get_unverified_header(wanted["token"])
            claims = jwt.decode(wanted["token"], resign["key"], algorithms=["HS256"], options=UNCHECKED_CLAIMS)
        except jwt.PyJWTError:
            resigned.append(wanted["token"])
            continue
        if header != {"alg": "HS256", "typ": "JWT"}:
            resigned.append(wanted["token"])
            continue
        key, kid = keys[wanted["alg"]]
        resigned.append(jwt.encode(claims, key, algorithm=wanted["alg"], headers={"kid": kid}))
    json.dump({"jwks": {"keys": published}, "tokens": tokens, "resigned": resigned}, sys.stdout)


# The signature alone: the claims are what the replayed case tests, good or bad.
UNCHECKED_CLAIMS = {"verify_signature": True, "verify_exp": False, "verify_nbf": False, "verify_iat": False,
                    "verify_aud": False, "verify_iss": False, "verify_sub": False, "verify_jti": False}


if __name__ == "__main__":
    main()
