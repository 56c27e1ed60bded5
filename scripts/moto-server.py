#!/usr/bin/env python3
"""moto_server, with each request handled whole before the next one starts.

AWS makes a conditional write atomic per item (DynamoDB's ConditionExpression, Secrets
Manager's version stages): of two writers that read the same version, one wins. moto
checks the condition and applies the write in separate steps, on a thread per request,
so on a loaded machine both can pass: 8 racing UpdateItems on one version had two winners
in 33 of 300 rounds here with other work on both cores, and a soak read a 201's token set
overwritten by a refresh that had read the set before it. The tests' compare-and-swap
proofs need AWS's promise, so every request takes one lock, except SQS's: a long poll
waits up to 20 s and must not hold the others back.

moto also takes writes to a secret scheduled for deletion, which AWS refuses with
InvalidRequestException; they are refused here too (docs/RELIABILITY.md: what a soak saw).

Arguments as moto_server's (-H HOST -p PORT).
"""
import re
import sys
import threading

import moto.server
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
from moto.secretsmanager.exceptions import InvalidRequestException
from moto.secretsmanager.models import SecretsManagerBackend

_one_at_a_time = threading.Lock()
_service = re.compile(r"Credential=[^/]+/[^/]+/[^/]+/([^/]+)/aws4_request")


class OneAtATime(DomainDispatcherApplication):
    def __call__(self, environ, start_response):
        signed = _service.search(environ.get("HTTP_AUTHORIZATION", ""))
        if signed and signed.group(1) == "sqs":
            return super().__call__(environ, start_response)
        with _one_at_a_time:
            # The body is read out under the lock: a lazy one would run after it.
            return [b"".join(super().__call__(environ, start_response))]


def refused_when_deleted(write):
    def guarded(self, secret_id, *arguments, **named):
        if self._is_valid_identifier(secret_id) and self.secrets[secret_id].is_deleted():
            raise InvalidRequestException("You can't perform this operation on the secret because it was marked for deletion.")
        return write(self, secret_id, *arguments, **named)
    return guarded


if __name__ == "__main__":
    for write in ("put_secret_value", "update_secret_version_stage", "tag_resource", "untag_resource"):
        setattr(SecretsManagerBackend, write, refused_when_deleted(getattr(SecretsManagerBackend, write)))
    moto.server.DomainDispatcherApplication = OneAtATime
    moto.server.main(sys.argv[1:])
