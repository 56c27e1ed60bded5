"""What each side needs in moto before a measurement: the users table, the Google client-ID
secret, users, and N due token sets. Ours are all written by our own code (`paypulse setup`,
`client-id`, `bench-seed users|grants`: the store's adapters, its document and listing tags,
KMS envelope encryption on the DynamoDB token store); only the peer's token sets, in the
peer's own plain JSON, are written here, through boto3 (the peer's SDK, in the bench's venv)."""

import json
import os
import subprocess
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import boto3
from botocore.config import Config

from . import sides

TOKENS_TABLE = "paypulse-gmail-tokens"
CLIENT_ID = "1234567890-bench.apps.googleusercontent.com"
GMAIL_SCOPE = "https://www.googleapis.com/auth/gmail.readonly"


class Moto:
    """boto3 clients on moto, for what our CLI does not write or read: the peer's token sets,
    the KMS key, and the checks that a refresh landed. Retries moto's 500s: concurrent
    CreateSecret calls can trip a dictionary resize in its lookups (docs/testing.md)."""

    def __init__(self, url: str):
        config = Config(retries={"mode": "standard", "max_attempts": 8})
        self.secrets, self.dynamodb, self.kms = (
            boto3.client(service, endpoint_url=url, region_name="us-east-1", aws_access_key_id="test",
                         aws_secret_access_key="test", config=config) for service in ("secretsmanager", "dynamodb", "kms"))


def paypulse(setup, *arguments: str, env: dict[str, str] | None = None) -> str:
    """Runs our CLI (on moto unless `env` says otherwise); its standard output."""
    argv = [setup.cli, *arguments]
    done = subprocess.run(argv, env=env or sides.swift_env(setup), capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"paypulse {' '.join(arguments[:2])}: exit {done.returncode}: {done.stderr[-2000:]}")
    return done.stdout


def fixtures(setup) -> None:
    """The users table and the client-ID secret (after a moto reset)."""
    paypulse(setup, "setup")
    paypulse(setup, "client-id", CLIENT_ID)


def put_users(setup, user_ids: list[str]) -> None:
    paypulse(setup, "bench-seed", "users", *user_ids)


def _peers(index: int, expired_at: int) -> str:
    """A due token set in the peer's own format."""
    return json.dumps({"access_token": "ya29.old", "refresh_token": f"1//rt-bench-{index:06d}", "expires_at": expired_at,
                       "scope": GMAIL_SCOPE, "google_email": f"bench{index:06d}@gmail.com", "updated_at": expired_at - 3600})


def due_secret_name(index: int) -> str:
    return f"gmail/user/{due_user(index)}"


def due_user(index: int) -> str:
    return f"bench-{index:06d}"


def due_token_sets(moto: Moto, setup, count: int, side: str, threads: int = 3) -> float:
    """Creates `count` due token sets, returns the seconds it took. Ours (`paypulse
    bench-seed grants`) are written now with Google's 3599 s token, as a refresh leaves them:
    the listing reads a grant's expiry from when its value was written, which a seed cannot
    backdate, so our runs take them with REFRESH_WINDOW_SECONDS=3600 (refresh.py) and every
    one is due, as every one of the peer's (expired ten minutes ago) is."""
    started = time.perf_counter()
    if side == "swift":
        paypulse(setup, "bench-seed", "grants", "--count", str(count), "--prefix", "bench-")
        return time.perf_counter() - started
    now = int(time.time())

    def create(index: int) -> None:
        try:
            moto.secrets.create_secret(Name=due_secret_name(index), SecretString=_peers(index, now - 600),
                                       ClientRequestToken=str(uuid.UUID(int=index + 1)))
        except moto.secrets.exceptions.ResourceExistsException:  # a retried create that had landed
            pass

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(create, range(count)))
    return time.perf_counter() - started


def access_token_of(moto: Moto, name: str) -> str:
    value = moto.secrets.get_secret_value(SecretId=name, VersionStage="AWSCURRENT")
    return json.loads(value["SecretString"])["access_token"]


def embedded_client_id(setup) -> None:
    """The client-ID secret in the embedded store: store-tokens proves the refresh token it
    is sent at the fake Google with it (moto gets it from fixtures())."""
    paypulse(setup, "client-id", CLIENT_ID, env=sides.swift_env(setup, store="embedded"))


def dynamodb_environment(setup, key_id: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Our functions and CLI on the DynamoDB token store (KMS through the same moto)."""
    return sides.swift_env(setup, extra={"PAYPULSE_STORE": "dynamodb", "TOKENS_TABLE": TOKENS_TABLE,
                                         "PAYPULSE_KMS_KEY_ID": key_id} | (extra or {}))


def due_dynamodb_grants(moto: Moto, setup, count: int) -> tuple[float, str]:
    """`count` due grants of ours on the DynamoDB token store (as `due_token_sets`): a KMS
    key, `paypulse setup --store dynamodb`, then `paypulse bench-seed grants` on that store,
    which seals each into its item. Returns the seconds it all took and the KMS key id."""
    started = time.perf_counter()
    key = moto.kms.create_key(Description="paypulse bench", KeyUsage="ENCRYPT_DECRYPT",
                              KeySpec="SYMMETRIC_DEFAULT")
    key_id = key["KeyMetadata"]["KeyId"]
    env = dynamodb_environment(setup, key_id)
    paypulse(setup, "setup", "--store", "dynamodb", env=env)
    paypulse(setup, "bench-seed", "grants", "--count", str(count), "--prefix", "bench-", env=env)
    return time.perf_counter() - started, key_id


def dynamodb_version(moto: Moto, user: str) -> int:
    """The version (`v`) of a user's item: the refresh's write makes it one more. No value is read."""
    item = moto.dynamodb.get_item(TableName=TOKENS_TABLE, Key={"user_id": {"S": user}}, ProjectionExpression="v",
                                  ConsistentRead=True).get("Item") or {}
    return int(item.get("v", {}).get("N", "0"))
