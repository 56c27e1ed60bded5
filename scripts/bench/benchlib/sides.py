"""How each side is run and fed: the commands and their environment (built from nothing, so no
variable of the calling shell leaks in), the events (the same bytes for both sides), and what
moto holds before a measurement: ours seeded by our own code (`paypulse setup`, `client-id`,
`bench-seed`: the store's own formats), only the peer's token sets written here, through boto3."""

import json, os, subprocess, time, uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import boto3
from botocore.config import Config

# Not the documented development key: a process that believes it runs inside Lambda refuses
# that one, and the warm loop sets AWS_LAMBDA_FUNCTION_NAME.
JWT_KEY = "paypulse-benchmark-jwt-key-not-for-any-deployment"
USERS_TABLE, TOKENS_TABLE = "paypulse-users", "paypulse-gmail-tokens"
CLIENT_ID = "1234567890-bench.apps.googleusercontent.com"
GMAIL_SCOPE = "https://www.googleapis.com/auth/gmail.readonly"
AWS_TEST = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
AGENT = "PayPulse/1.0 CFNetwork/1494.0.7 Darwin/23.4.0"
SCHEDULED = {"version": "0", "id": "bench-0000", "detail-type": "Scheduled Event",
             "source": "aws.events", "account": "123456789012", "time": "2026-01-01T00:00:00Z",
             "region": "us-east-1",
             "resources": ["arn:aws:events:us-east-1:123456789012:rule/paypulse-token-refresh"],
             "detail": {}}


def base_env() -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"),
            "LANG": "C.UTF-8"}


def write(path: str, event) -> str:
    with open(path, "w") as fh:
        json.dump(event, fh)
    return path


def due_user(index: int) -> str:
    return f"bench-{index:06d}"


@dataclass
class Setup:
    swift_bin: str    # folder with store-tokens, user-profile, token-refresh, fresh-token
    cli: str          # our developer CLI, `paypulse` (signs the events, seeds ours): not measured
    floor_bin: str    # the minimal stdin->stdout program
    peer_dir: str     # the Python + boto3 peer (run.py --peer), "" without one
    python: str       # the venv interpreter (the peer's boto3 + PyJWT)
    moto_url: str
    google_url: str
    state_dir: str    # the embedded store's directory
    ca_bundle: str | None = None  # the HTTPS mode's CA (tls.py), for moto and the fake Google
    tokens: dict = field(default_factory=dict)  # user -> signed JWT

    def swift_env(self, store="aws", extra: dict | None = None, key_id=None) -> dict[str, str]:
        """Ours on `store`: aws (Secrets Manager), dynamodb (KMS key `key_id`) or embedded."""
        env = base_env() | {"PAYPULSE_JWT_SECRET": JWT_KEY, "USERS_TABLE": USERS_TABLE,
                            "GOOGLE_TOKEN_ENDPOINT": f"{self.google_url}/token",
                            "PAYPULSE_STORE": store}
        if store == "embedded":
            env["PAYPULSE_STATE_DIR"] = self.state_dir
        else:
            env |= {"AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL": self.moto_url, **AWS_TEST}
        if store == "dynamodb":
            env |= {"TOKENS_TABLE": TOKENS_TABLE, "PAYPULSE_KMS_KEY_ID": key_id}
        if self.ca_bundle:  # the standard variable for AWS (as the AWS SDKs), ours for Google
            env |= {"AWS_CA_BUNDLE": self.ca_bundle, "PAYPULSE_CA_BUNDLE": self.ca_bundle}
        return env | (extra or {})

    def peer_env(self, extra: dict | None = None) -> dict[str, str]:
        # boto3 reads AWS_CA_BUNDLE; the peer's Google calls go through urllib3's default
        # context, which loads OpenSSL's default paths, and so SSL_CERT_FILE.
        trust = {"AWS_CA_BUNDLE": self.ca_bundle, "SSL_CERT_FILE": self.ca_bundle}
        return base_env() | {
            "AWS_ENDPOINT_URL": self.moto_url, "AWS_DEFAULT_REGION": "us-east-1", **AWS_TEST,
            "AWS_EC2_METADATA_DISABLED": "true", "JWT_SECRET": JWT_KEY, "USERS_TABLE": USERS_TABLE,
            "GOOGLE_TOKEN_URL": f"{self.google_url}/token", "PYTHONDONTWRITEBYTECODE": "1",
        } | (trust if self.ca_bundle else {}) | (extra or {})

    def command(self, side: str, function: str) -> list[str]:
        """Ours: the executable; the peer: its own entry point, invoke.py HANDLER < event."""
        if side != "python":
            return [os.path.join(self.swift_bin, function)]
        return [self.python, os.path.join(self.peer_dir, "invoke.py"), function.replace("-", "_")]

    def paypulse(self, *arguments: str, env: dict[str, str] | None = None) -> str:
        """Runs our CLI (on moto unless `env` says otherwise); its standard output."""
        done = subprocess.run([self.cli, *arguments], env=env or self.swift_env(),
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"paypulse {' '.join(arguments[:2])}: exit {done.returncode}: "
                             f"{done.stderr[-2000:]}")
        return done.stdout

    def mint(self, users: list[str]) -> None:
        """Signs a token for each user not signed yet (exp 2100-01-01), in one `paypulse jwt`."""
        if missing := sorted(set(users) - set(self.tokens)):
            out = self.paypulse("jwt", "--expires-at", "2100-01-01T00:00:00Z",
                                *(arg for user in missing for arg in ("--sub", user)),
                                env=self.swift_env("embedded"))
            self.tokens.update(zip(missing, out.split()))

    def event(self, method: str, user: str, access_token: str = "ya29.bench-access") -> dict:
        """store-tokens' request (POST) or user-profile's (GET) from `user`."""
        store = method == "POST"
        path, kind = ("/v1/auth/gmail-tokens", "store") if store else ("/v1/user/me", "profile")
        headers = {"accept": "application/json", "authorization": f"Bearer {self.tokens[user]}",
                   "host": "api.paypulse.example", "user-agent": AGENT}
        body = {"access_token": f"{access_token}-{user}",
                "refresh_token": f"1//bench-refresh-{user}", "expires_in": 3599,
                "scope": [GMAIL_SCOPE, "openid"], "email": f"{user}@gmail.com"}
        http = {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1",
                "userAgent": AGENT}
        event = {"version": "2.0", "routeKey": f"{method} {path}", "rawPath": path,
                 "rawQueryString": "",
                 "headers": headers | ({"content-type": "application/json"} if store else {}),
                 "requestContext": {
                     "accountId": "123456789012", "apiId": "bench",
                     "domainName": "api.paypulse.example", "http": http,
                     "requestId": f"bench-{kind}-{user}", "routeKey": f"{method} {path}",
                     "stage": "$default", "time": "01/Jan/2026:00:00:00 +0000",
                     "timeEpoch": 1767225600000},
                 "isBase64Encoded": False}
        return event | ({"body": json.dumps(body)} if store else {})

    def fixtures(self, users: list[str] = ()) -> None:
        """The users table, the client-ID secret (after a moto reset) and `users`."""
        self.paypulse("setup")
        self.paypulse("client-id", CLIENT_ID)
        if users:
            self.paypulse("bench-seed", "users", *users)

    def due_grants(self, moto: "Moto", count: int, side: str) -> tuple[float, str | None]:
        """`count` due grants of `side`; the seconds it took and, on swift-dynamodb, the KMS key
        made for them. Ours are written now with Google's 3599 s token, as a refresh leaves them
        (a seed cannot backdate the write a grant's expiry is read from), so our runs take them
        with REFRESH_WINDOW_SECONDS=3600: all due, as all of the peer's (expired 10 min ago) are."""
        started, key_id, env = time.perf_counter(), None, None
        if side == "swift-dynamodb":
            key_id = moto.kms.create_key(Description="paypulse bench", KeyUsage="ENCRYPT_DECRYPT",
                                         KeySpec="SYMMETRIC_DEFAULT")["KeyMetadata"]["KeyId"]
            env = self.swift_env("dynamodb", key_id=key_id)
            self.paypulse("setup", "--store", "dynamodb", env=env)
        if side.startswith("swift"):
            self.paypulse("bench-seed", "grants", "--count", str(count), "--prefix", "bench-",
                          env=env)
            return time.perf_counter() - started, key_id
        expired = int(time.time()) - 600

        def create(index: int) -> None:  # a due token set in the peer's own format
            value = {"access_token": "ya29.old", "refresh_token": f"1//rt-bench-{index:06d}",
                     "expires_at": expired, "scope": GMAIL_SCOPE,
                     "google_email": f"bench{index:06d}@gmail.com", "updated_at": expired - 3600}
            try:
                moto.secrets.create_secret(Name=f"gmail/user/{due_user(index)}",
                                           SecretString=json.dumps(value),
                                           ClientRequestToken=str(uuid.UUID(int=index + 1)))
            except moto.secrets.exceptions.ResourceExistsException:  # a retried create had landed
                pass
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(create, range(count)))
        return time.perf_counter() - started, None


class Moto:
    """boto3 clients on moto, for what our CLI does not write or read: the peer's token sets,
    the KMS key, and the checks that a refresh landed. Retries moto's 500s: concurrent
    CreateSecret calls can trip a dictionary resize in its lookups (docs/testing.md)."""

    def __init__(self, url: str):
        config = Config(retries={"mode": "standard", "max_attempts": 8})
        self.secrets, self.dynamodb, self.kms = (
            boto3.client(service, endpoint_url=url, region_name="us-east-1", config=config,
                         aws_access_key_id="test", aws_secret_access_key="test")
            for service in ("secretsmanager", "dynamodb", "kms"))

    def access_token(self, index: int) -> str:
        value = self.secrets.get_secret_value(SecretId=f"gmail/user/{due_user(index)}",
                                              VersionStage="AWSCURRENT")
        return json.loads(value["SecretString"])["access_token"]

    def version(self, index: int) -> int:
        """The version (`v`) of a due user's item: the refresh's write makes it one more."""
        key = {"user_id": {"S": due_user(index)}}
        item = self.dynamodb.get_item(TableName=TOKENS_TABLE, Key=key, ProjectionExpression="v",
                                      ConsistentRead=True).get("Item")
        return int((item or {}).get("v", {}).get("N", "0"))
