#!/usr/bin/env python3
"""A JWT checked by an independent library: PyJWT with `cryptography`.

Reads a JSON request on standard input:
    {"token": "...", "public_key_pem": "-----BEGIN PUBLIC KEY-----...", "audience": "...", "require": [...]}
verifies the token as RS256 only under that key (signature, `exp` when present, `iat`, `aud`;
the claims `require` lists required, by default `exp`, `iat`, `iss` and `sub`; a Security
Event Token has no `exp` nor `sub`), and writes {"header": {...}, "claims": {...}} on standard
output. A token PyJWT refuses exits 1 with PyJWT's reason on standard error. Nothing here
is PayPulse code.
"""
import json
import sys

import jwt


def main():
    request = json.load(sys.stdin)
    try:
        claims = jwt.decode(request["token"], request["public_key_pem"], algorithms=["RS256"], audience=request["audience"],
                            options={"require": request.get("require", ["exp", "iat", "iss", "sub"])})
        header = jwt.get_unverified_header(request["token"])
    except jwt.PyJWTError as error:
        print(f"PyJWT refused the token: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    json.dump({"header": header, "claims": claims}, sys.stdout)


if __name__ == "__main__":
    main()
