#!/usr/bin/env python3
"""moto_server as AWS behaves where the tests' proofs need it: each request whole before the next
(a conditional write atomic per item; SQS's long polls exempt), writes to a secret scheduled for
deletion refused, and PutEvents quick (moto built eight JSONPath grammars an event: 7-12 s a put of
ten, loaded). Why: docs/testing.md, docs/RELIABILITY.md. Arguments as moto_server's (-H HOST -p PORT)."""
import functools
import re
import sys
import threading

import jsonpath_ng.ext
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
    jsonpath_ng.ext.parse = functools.lru_cache(maxsize=None)(jsonpath_ng.ext.parse)
    moto.server.DomainDispatcherApplication = OneAtATime
    moto.server.main(sys.argv[1:])
