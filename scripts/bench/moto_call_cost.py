#!/usr/bin/env python3
"""moto's own CPU per call, for the calls one refresh makes on each token store: where a
refresh run on moto spends the server's time (the refresh benchmark is moto-bound).

Seeds N grants of ours as secrets and copies them to the DynamoDB token store with our
`paypulse migrate` (so the items and wrapped keys are our store's), then times moto's
utime + stime over N calls of each kind, one at a time on one connection:

    Secrets Manager: GetSecretValue, PutSecretValue, UpdateSecretVersionStage
    DynamoDB + KMS:  GetItem (consistent), KMS Decrypt of the item's data key,
                     UpdateItem (conditional, every attribute set, due-index key moved),
                     and a run's listing (Query pages over the due index's buckets)

    .build-bench/venv/bin/python scripts/bench/moto_call_cost.py --bin-dir .build-lambda/release [--count 500]

Prints a table; asserts nothing. No token is read or printed (a Decrypt returns a data key,
which is dropped)."""

from __future__ import annotations

import argparse
import base64
import os
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import seeding, servers, sides  # noqa: E402
from benchlib.moto_calls import MotoCaller  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(moto_server: servers.Server, calls) -> float:
    """moto's CPU ms per call over `calls` (a list of zero-argument functions)."""
    before = moto_server.cpu_seconds()
    for call in calls:
        call()
    return (moto_server.cpu_seconds() - before) * 1000 / len(calls)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=os.path.join(ROOT, ".build-lambda", "release"))
    parser.add_argument("--count", type=int, default=500)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="paypulse-moto-cost-")
    moto_server = servers.start_moto(work)
    try:
        moto = MotoCaller(moto_server.url)
        setup = sides.Setup(swift_bin=os.path.abspath(args.bin_dir), floor_bin="", exchanges_bin="", exchanges_curl_bin="",
                            peer_dir="", python=sys.executable, moto_url=moto_server.url, google_url="http://127.0.0.1:9",
                            state_dir=os.path.join(work, "state"))
        seeding.fixtures(moto)
        n = args.count
        _, key_id = seeding.due_dynamodb_grants(moto, setup, n)
        names = [seeding.due_secret_name(i) for i in range(n)]
        users = [seeding.due_user(i) for i in range(n)]
        rows: list[tuple[str, str, float]] = []

        # Secrets Manager, as our refresh writes a secret: read, put a pending version, move the stage.
        versions: dict[str, tuple[str, str]] = {}

        def get_secret(name: str):
            def call():
                current = moto.call("secretsmanager", "GetSecretValue", {"SecretId": name})
                versions[name] = (current["VersionId"], str(uuid.uuid4()))
            return call

        rows.append(("Secrets Manager", "GetSecretValue", timed(moto_server, [get_secret(name) for name in names])))
        rows.append(("Secrets Manager", "PutSecretValue (pending)", timed(moto_server, [
            (lambda name=name: moto.call("secretsmanager", "PutSecretValue", {
                "SecretId": name, "SecretString": "{}", "ClientRequestToken": versions[name][1], "VersionStages": ["AWSPENDING"]}))
            for name in names])))
        rows.append(("Secrets Manager", "UpdateSecretVersionStage", timed(moto_server, [
            (lambda name=name: moto.call("secretsmanager", "UpdateSecretVersionStage", {
                "SecretId": name, "VersionStage": "AWSCURRENT", "MoveToVersionId": versions[name][1],
                "RemoveFromVersionId": versions[name][0]}))
            for name in names])))

        # DynamoDB + KMS, as our refresh on that store: read the item, unwrap its data key, update it.
        items: dict[str, dict] = {}

        def get_item(user: str):
            def call():
                items[user] = moto.call("dynamodb", "GetItem", {"TableName": seeding.TOKENS_TABLE, "Key": {"user_id": {"S": user}},
                                                                "ConsistentRead": True})["Item"]
            return call

        def listing():  # one run's listing: every bucket of the due index, pages of 100, as the job reads it
            pages = 0
            buckets = {item["due_bucket"]["S"] for item in moto.call("dynamodb", "Scan", {"TableName": seeding.TOKENS_TABLE})["Items"]}
            before = moto_server.cpu_seconds()
            for bucket in sorted(buckets):
                start = None
                while True:
                    query = {"TableName": seeding.TOKENS_TABLE, "IndexName": "due-index", "Limit": 100,
                             "KeyConditionExpression": "#b = :b AND #d <= :by", "ExpressionAttributeNames": {"#b": "due_bucket", "#d": "due_at"},
                             "ExpressionAttributeValues": {":b": {"S": bucket}, ":by": {"N": str(int(time.time()) + 3600)}}}
                    if start:
                        query["ExclusiveStartKey"] = start
                    page = moto.call("dynamodb", "Query", query)
                    pages += 1
                    start = page.get("LastEvaluatedKey")
                    if not start:
                        break
            return (moto_server.cpu_seconds() - before) * 1000 / n, pages

        listing_ms, pages = listing()
        rows.append(("DynamoDB + KMS", f"Query, a run's listing ({pages} pages), per grant", listing_ms))
        rows.append(("DynamoDB + KMS", "GetItem", timed(moto_server, [get_item(user) for user in users])))
        rows.append(("DynamoDB + KMS", "KMS Decrypt", timed(moto_server, [
            (lambda user=user: moto.call("kms", "Decrypt", {
                "CiphertextBlob": items[user]["dk"]["B"], "EncryptionContext": {"user_id": user}, "KeyId": key_id}) and None)
            for user in users])))
        later = int(time.time()) + 7200

        def update_item(user: str):
            """Our refresh's UpdateItem: every attribute of the item set again (value, data key,
            listing attributes, the due-index key moved), the version one more, conditional."""
            item = items[user]
            names, values, clauses = {"#user": "user_id", "#purge": "purge_at", "#v": "v"}, {}, ["#v = :next"]
            for index, (name, value) in enumerate(sorted((k, v) for k, v in item.items() if k not in ("user_id", "v"))):
                if name == "ct":
                    value = {"B": base64.b64encode(os.urandom(len(base64.b64decode(value["B"])))).decode()}
                elif name == "due_at":
                    value = {"N": str(later)}
                names[f"#a{index}"], values[f":a{index}"] = name, value
                clauses.append(f"#a{index} = :a{index}")
            values[":next"], values[":expected"] = {"N": str(int(item["v"]["N"]) + 1)}, {"N": item["v"]["N"]}
            return lambda: moto.call("dynamodb", "UpdateItem", {
                "TableName": seeding.TOKENS_TABLE, "Key": {"user_id": {"S": user}}, "UpdateExpression": "SET " + ", ".join(clauses),
                "ConditionExpression": "attribute_exists(#user) AND (#v = :expected AND attribute_not_exists(#purge))",
                "ExpressionAttributeNames": names, "ExpressionAttributeValues": values})

        attributes = len(items[users[0]]) - 1
        rows.append(("DynamoDB + KMS", f"UpdateItem (conditional, {attributes} attributes set, due key moved)",
                     timed(moto_server, [update_item(user) for user in users])))
    finally:
        moto_server.stop()

    print(f"moto's CPU per call, {n} calls each, one at a time ({n} grants in each store)\n")
    print("| store | call | moto CPU ms / call |\n| --- | --- | ---: |")
    for store, call, ms in rows:
        print(f"| {store} | {call} | {ms:.2f} |")
    for store, note in (("Secrets Manager", ""), ("DynamoDB + KMS", " (listing included)")):
        print(f"| {store} | a refresh's calls together{note} | {sum(ms for s, _, ms in rows if s == store):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
