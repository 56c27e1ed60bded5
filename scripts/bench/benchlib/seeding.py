"""What each side needs in moto before a measurement: the users table, the Google client-ID
secret, users, and N due token sets, each side in its own storage format (ours carries the
listing tags the refresh job selects by; the peer's is its plain JSON). Ours on the DynamoDB
token store are seeded through our own code: as secrets first, then copied by
`paypulse migrate --from secretsmanager --to dynamodb` (KMS envelope encryption, the
store's own items)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone

from .moto_calls import MotoCaller, MotoError

USERS_TABLE = "paypulse-users"
CLIENT_ID_SECRET = "Google-OAuth-Client-ID"
CLIENT_ID = "1234567890-bench.apps.googleusercontent.com"
GMAIL_SCOPE = "https://www.googleapis.com/auth/gmail.readonly"


def fixtures(moto: MotoCaller) -> None:
    """The users table and the client-ID secret (after a moto reset)."""
    moto.call("dynamodb", "CreateTable", {
        "TableName": USERS_TABLE, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "user_id", "AttributeType": "S"}],
    })
    moto.call("secretsmanager", "CreateSecret", {"Name": CLIENT_ID_SECRET, "SecretString": CLIENT_ID,
                                                 "ClientRequestToken": str(uuid.uuid4())})


def put_users(moto: MotoCaller, user_ids: list[str]) -> None:
    for user_id in user_ids:
        moto.call("dynamodb", "PutItem", {"TableName": USERS_TABLE, "Item": {
            "user_id": {"S": user_id}, "name": {"S": f"Bench {user_id}"},
            "email": {"S": f"{user_id}@paypulse.example"}, "created_on": {"S": "2024-11-01T10:00:00Z"}}})


def _rfc3339(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _ours(index: int, written_at: int) -> tuple[str, list[dict]]:
    """A grant as our code leaves it after a refresh (the steady state): verified, written
    now with Google's 3599 s token and tagged with that lifetime, so its next refresh writes
    no tags. The listing reads a grant's expiry from when its value was written, which a
    seed cannot backdate: our runs take these with REFRESH_WINDOW_SECONDS=3600 (refresh.py),
    so every one is due, as every expired one of the peer's is."""
    expires_at = written_at + 3599
    value = {
        "version": 2, "access_token": "ya29.old", "refresh_token": f"1//rt-bench-{index:06d}", "token_type": "Bearer",
        "expires_at": _rfc3339(expires_at), "scope": GMAIL_SCOPE, "google_email": f"bench{index:06d}@gmail.com",
        "connected_at": _rfc3339(written_at), "updated_at": _rfc3339(written_at), "status": "active",
        "verified": True, "verified_at": _rfc3339(written_at),
    }
    tags = [{"Key": "paypulse:status", "Value": "active"}, {"Key": "paypulse:expires-at", "Value": str(expires_at)},
            {"Key": "paypulse:refreshable", "Value": "true"}, {"Key": "paypulse:verified", "Value": "true"},
            {"Key": "paypulse:lifetime", "Value": "3599"}]
    return json.dumps(value, sort_keys=True), tags


def _peers(index: int, expired_at: int) -> tuple[str, list[dict]]:
    value = {"access_token": "ya29.old", "refresh_token": f"1//rt-bench-{index:06d}", "expires_at": expired_at,
             "scope": GMAIL_SCOPE, "google_email": f"bench{index:06d}@gmail.com", "updated_at": expired_at - 3600}
    return json.dumps(value), []


def due_secret_name(index: int) -> str:
    return f"gmail/user/bench-{index:06d}"


TOKENS_TABLE = "paypulse-gmail-tokens"


def due_token_sets(moto: MotoCaller, count: int, side: str, threads: int = 3) -> float:
    """Creates `count` due token sets (the peer's expired ten minutes ago; ours, see `_ours`);
    returns the seconds it took."""
    now = int(time.time())

    def create(index: int) -> None:
        value, tags = _ours(index, now) if side == "swift" else _peers(index, now - 600)
        payload = {"Name": due_secret_name(index), "SecretString": value, "ClientRequestToken": str(uuid.UUID(int=index + 1))}
        if tags:
            payload["Tags"] = tags
        try:
            moto.call_retrying("secretsmanager", "CreateSecret", payload)
        except MotoError as error:
            if error.kind != "ResourceExistsException":  # a retried create that had landed
                raise

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(create, range(count)))
    return time.perf_counter() - started


def access_token_of(moto: MotoCaller, name: str) -> str:
    value = moto.call("secretsmanager", "GetSecretValue", {"SecretId": name, "VersionStage": "AWSCURRENT"})
    return json.loads(value["SecretString"])["access_token"]


def embedded_client_id(setup) -> None:
    """The client-ID secret in the embedded store: store-tokens proves the refresh token it
    is sent at the fake Google with it (moto gets it from fixtures())."""
    import subprocess
    from . import sides
    subprocess.run([os.path.join(setup.swift_bin, "paypulse"), "client-id", CLIENT_ID],
                   env=sides.swift_env(setup, store="embedded"), check=True, stdout=subprocess.DEVNULL)


def dynamodb_environment(setup, key_id: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Our functions and CLI on the DynamoDB token store (KMS through the same moto)."""
    from . import sides
    return sides.swift_env(setup, extra={"PAYPULSE_STORE": "dynamodb", "TOKENS_TABLE": TOKENS_TABLE,
                                         "PAYPULSE_KMS_KEY_ID": key_id} | (extra or {}))


def due_dynamodb_grants(moto: MotoCaller, setup, count: int) -> tuple[float, str]:
    """`count` due grants of ours on the DynamoDB token store: seeded as secrets (as ours
    are, see `_ours`), then a KMS key, `paypulse setup --store dynamodb` and `paypulse
    migrate --from secretsmanager --to dynamodb`, which seals each into its item. Returns
    the seconds it all took and the KMS key id."""
    started = time.perf_counter()
    due_token_sets(moto, count, "swift")
    key_id = moto.call("kms", "CreateKey", {"Description": "paypulse bench", "KeyUsage": "ENCRYPT_DECRYPT",
                                            "KeySpec": "SYMMETRIC_DEFAULT"})["KeyMetadata"]["KeyId"]
    env = dynamodb_environment(setup, key_id)
    paypulse = os.path.join(setup.swift_bin, "paypulse")
    for argv in ([paypulse, "setup", "--store", "dynamodb"], [paypulse, "migrate", "--from", "secretsmanager", "--to", "dynamodb"]):
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv[1:])}: exit {done.returncode}: {done.stderr[-2000:]}")
    return time.perf_counter() - started, key_id


def dynamodb_version(moto: MotoCaller, user: str) -> int:
    """The version (`v`) of a user's item: the refresh's write makes it one more. No value is read."""
    item = moto.call("dynamodb", "GetItem", {"TableName": TOKENS_TABLE, "Key": {"user_id": {"S": user}},
                                              "ProjectionExpression": "v", "ConsistentRead": True}).get("Item") or {}
    return int(item.get("v", {}).get("N", "0"))


def due_user(index: int) -> str:
    return due_secret_name(index).rsplit("/", 1)[1]
