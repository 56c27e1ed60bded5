"""The events both sides get, byte for byte the same: API Gateway HTTP API (payload 2.0)
requests with an HS256 JWT (signed by our CLI, `paypulse jwt`), and an EventBridge
scheduled event."""

import json
import os
import subprocess

from . import sides

_tokens: dict[str, str] = {}


def mint(setup, user_ids: list[str]) -> None:
    """Signs a token for each user not signed yet (sub, iss, aud, iat, exp 2100-01-01), all
    in one `paypulse jwt` process: the events of these users can then be made."""
    missing = sorted(set(user_ids) - set(_tokens))
    if not missing:
        return
    argv = [setup.cli, "jwt", "--expires-at", "2100-01-01T00:00:00Z"]
    done = subprocess.run(argv + [arg for user in missing for arg in ("--sub", user)],
                          env=sides.swift_env(setup, store="embedded"), capture_output=True, text=True,
                          check=True)
    _tokens.update(zip(missing, done.stdout.split()))


def _http(method: str, path: str, token: str, body: dict | None, request_id: str) -> dict:
    headers = {"accept": "application/json", "authorization": f"Bearer {token}", "host": "api.paypulse.example",
               "user-agent": "PayPulse/1.0 CFNetwork/1494.0.7 Darwin/23.4.0"}
    if body is not None:
        headers["content-type"] = "application/json"
    event = {
        "version": "2.0", "routeKey": f"{method} {path}", "rawPath": path, "rawQueryString": "", "headers": headers,
        "requestContext": {"accountId": "123456789012", "apiId": "bench", "domainName": "api.paypulse.example",
                           "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1",
                                    "userAgent": headers["user-agent"]},
                           "requestId": request_id, "routeKey": f"{method} {path}", "stage": "$default",
                           "time": "01/Jan/2026:00:00:00 +0000", "timeEpoch": 1767225600000},
        "isBase64Encoded": False,
    }
    if body is not None:
        event["body"] = json.dumps(body)
    return event


def store_tokens(user_id: str, access_token: str = "ya29.bench-access") -> dict:
    body = {"access_token": f"{access_token}-{user_id}", "refresh_token": f"1//bench-refresh-{user_id}", "expires_in": 3599,
            "scope": ["https://www.googleapis.com/auth/gmail.readonly", "openid"], "email": f"{user_id}@gmail.com"}
    return _http("POST", "/v1/auth/gmail-tokens", _tokens[user_id], body, f"bench-store-{user_id}")


def user_profile(user_id: str) -> dict:
    return _http("GET", "/v1/user/me", _tokens[user_id], None, f"bench-profile-{user_id}")


def scheduled() -> dict:
    return {"version": "0", "id": "bench-0000", "detail-type": "Scheduled Event", "source": "aws.events",
            "account": "123456789012", "time": "2026-01-01T00:00:00Z", "region": "us-east-1",
            "resources": ["arn:aws:events:us-east-1:123456789012:rule/paypulse-token-refresh"], "detail": {}}


def write(path: str, event: dict) -> str:
    with open(path, "w") as fh:
        json.dump(event, fh)
    return path
