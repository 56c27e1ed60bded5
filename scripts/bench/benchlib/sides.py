"""How each side is started: the commands and the environment (built from nothing, so no
variable of the calling shell leaks in)."""

import os
from dataclasses import dataclass

# Not the documented development key: a process that believes it runs inside Lambda
# refuses that one, and the warm loop sets AWS_LAMBDA_FUNCTION_NAME.
JWT_KEY = "paypulse-benchmark-jwt-key-not-for-any-deployment"
USERS_TABLE = "paypulse-users"


def base_environment() -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}


@dataclass
class Setup:
    """Everything the commands need to know."""
    swift_bin: str      # folder with store-tokens, user-profile, token-refresh, fresh-token
    cli: str            # the developer CLI, `paypulse` (signs the events, seeds ours): a tool, not measured
    floor_bin: str      # the minimal stdin->stdout program
    peer_dir: str       # the Python + boto3 peer (run.py --peer; docs/performance.md), "" without one
    python: str         # the venv interpreter (the peer's boto3 + PyJWT)
    moto_url: str
    google_url: str
    state_dir: str      # the embedded store's directory
    ca_bundle: str | None = None  # the HTTPS mode's CA (tls.py): trusted for moto and the fake Google


def swift_env(setup: Setup, store: str = "aws", extra: dict[str, str] | None = None) -> dict[str, str]:
    env = base_environment() | {"PAYPULSE_JWT_SECRET": JWT_KEY, "USERS_TABLE": USERS_TABLE,
                                "GOOGLE_TOKEN_ENDPOINT": f"{setup.google_url}/token"}
    if store == "aws":
        env |= {"PAYPULSE_STORE": "aws", "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test",
                "AWS_SECRET_ACCESS_KEY": "test", "AWS_ENDPOINT_URL": setup.moto_url}
    else:
        env |= {"PAYPULSE_STORE": "embedded", "PAYPULSE_STATE_DIR": setup.state_dir}
    if setup.ca_bundle:  # the standard settings: AWS_CA_BUNDLE for AWS (as the AWS SDKs), ours for Google
        env |= {"AWS_CA_BUNDLE": setup.ca_bundle, "PAYPULSE_CA_BUNDLE": setup.ca_bundle}
    return env | (extra or {})


def peer_env(setup: Setup, extra: dict[str, str] | None = None) -> dict[str, str]:
    # boto3 reads AWS_CA_BUNDLE; the peer's Google calls go through urllib3's default context,
    # which loads OpenSSL's default paths, and so SSL_CERT_FILE.
    tls_trust = {"AWS_CA_BUNDLE": setup.ca_bundle, "SSL_CERT_FILE": setup.ca_bundle} if setup.ca_bundle else {}
    return base_environment() | {
        "AWS_ENDPOINT_URL": setup.moto_url, "AWS_DEFAULT_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test", "AWS_EC2_METADATA_DISABLED": "true", "JWT_SECRET": JWT_KEY,
        "USERS_TABLE": USERS_TABLE, "GOOGLE_TOKEN_URL": f"{setup.google_url}/token",
        "PYTHONDONTWRITEBYTECODE": "1",
    } | tls_trust | (extra or {})


def swift_cmd(setup: Setup, function: str) -> list[str]:
    return [os.path.join(setup.swift_bin, function)]


def peer_cmd(setup: Setup, handler: str) -> list[str]:
    """The peer's own entry point: invoke.py HANDLER < event."""
    return [setup.python, os.path.join(setup.peer_dir, "invoke.py"), handler]
