#!/usr/bin/env python3
"""Seeds an embedded store (the SQLite file an earlier function created) with what no
function writes: the manifest's user (events/manifest.json) and the Google client-ID
secret store-tokens and token-refresh read (`Google-OAuth-Client-ID`, stage AWSCURRENT).

Usage: seed_embedded.py STATE_DIR/paypulse.sqlite3
"""
import json
import os
import sqlite3
import sys
import time
import uuid

MANIFEST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "events", "manifest.json")
CLIENT_ID_SECRET = "Google-OAuth-Client-ID"
# The client ID seeded; scripts/fake-google-tls.py accepts it by default.
CLIENT_ID = "bundle-test-client.apps.googleusercontent.com"


def seed(database):
    with open(MANIFEST) as handle:
        user = json.load(handle)["user"]
    version, now = str(uuid.uuid4()), time.time()
    with sqlite3.connect(database) as db:
        db.execute("INSERT OR REPLACE INTO users (user_id, name, email, created_on) VALUES (?, ?, ?, ?)",
                   (user["user_id"], user["name"], user["email"], user["created_on"]))
        if db.execute("SELECT 1 FROM secrets WHERE name = ?", (CLIENT_ID_SECRET,)).fetchone() is None:
            db.execute("INSERT INTO secrets (name, created_date) VALUES (?, ?)", (CLIENT_ID_SECRET, now))
            db.execute("INSERT INTO secret_versions (secret_name, version_id, value, created_date) VALUES (?, ?, ?, ?)",
                       (CLIENT_ID_SECRET, version, CLIENT_ID, now))
            db.execute("INSERT INTO secret_stages (secret_name, stage, version_id) VALUES (?, 'AWSCURRENT', ?)",
                       (CLIENT_ID_SECRET, version))


if __name__ == "__main__":
    seed(sys.argv[1])
