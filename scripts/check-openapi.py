#!/usr/bin/env python3
"""Keeps openapi.yaml and the API's real answers from drifting apart.

1. The document validates as OpenAPI 3.1 (openapi-spec-validator).
2. Every expected response of an API event under events/ (store-tokens, user-profile,
   disconnect) is documented: its status is listed for the event's route and method, its
   body conforms to that response's JSON schema (Draft 2020-12), and each header the
   document names for it (WWW-Authenticate, Allow, Retry-After) is sent.
   Placeholders of the expected files ("<rfc3339>", "<any>") stand for strings.

Usage: check-openapi.py [--self-test]
  --self-test  plants faults in a copy of the document (a removed status, property, enum
               value, required header) and fails unless each one is reported.
"""
import copy, functools, json, pathlib, sys

import jsonschema
import yaml
from openapi_spec_validator import validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = pathlib.Path(__file__).resolve().parent.parent
EVENTS = ROOT / "events"
API_FUNCTIONS = ("store-tokens", "user-profile", "disconnect")


def request_of(event_path: pathlib.Path):
    """(method, path) of an API Gateway event, or None when it is not one."""
    try:
        event = json.loads(event_path.read_bytes())
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(event, dict) or not isinstance(event.get("requestContext"), dict):
        return None
    context = event["requestContext"]
    if isinstance(context.get("http"), dict):
        method, path = context["http"].get("method", ""), event.get("rawPath", "")
        stage = context.get("stage")
        if stage and stage != "$default" and path.startswith(f"/{stage}/"):
            path = path[len(stage) + 1:]
    else:
        method, path = event.get("httpMethod", ""), event.get("path", "")
    return method.lower(), path


def resolve(document, node):
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


PLACEHOLDERS = {"<rfc3339>": "2026-01-01T00:00:00Z", "<any>": "any"}


def substitute_placeholders(value):
    if isinstance(value, dict):
        return {key: substitute_placeholders(item) for key, item in value.items()}
    if isinstance(value, list):
        return [substitute_placeholders(item) for item in value]
    return PLACEHOLDERS.get(value, value) if isinstance(value, str) else value


def check(document):
    """(problems, checked, skipped) for the document against every expected response."""
    problems, checked, skipped = [], 0, []
    try:
        validate(copy.deepcopy(document))
    except Exception as error:  # the validator's own exception types vary by version
        return [f"openapi.yaml is not valid OpenAPI 3.1: {str(error).splitlines()[0]}"], 0, []
    registry = Registry().with_resource("urn:openapi", Resource(contents=document, specification=DRAFT202012))
    for function in API_FUNCTIONS:
        for expected_path in sorted((EVENTS / function).glob("*.expected.json")):
            name = f"{function}/{expected_path.name[: -len('.expected.json')]}"
            request = request_of(expected_path.with_name(expected_path.name.replace(".expected.json", ".json")))
            if request is None:
                skipped.append(f"{name} (not an API Gateway request)")
                continue
            method, path = request
            expected = json.loads(expected_path.read_text())
            status = str(expected["statusCode"])
            operation = document.get("paths", {}).get(path, {}).get(method)
            if operation is None:
                # A function answering a method its route does not have (API Gateway would
                # not route it; the function still refuses it): documented as the route's 405.
                operation = next(iter(document.get("paths", {}).get(path, {}).values()), None)
                if operation is None or status != "405":
                    problems.append(f"{name}: {method.upper()} {path} is not in the document")
                    continue
            response = resolve(document, operation.get("responses", {}).get(status))
            if response is None:
                problems.append(f"{name}: {method.upper()} {path} does not document status {status}")
                continue
            checked += 1
            headers = {key.lower(): value for key, value in expected.get("headers", {}).items()}
            for header in response.get("headers", {}):
                if header.lower() not in headers:
                    problems.append(f"{name}: the document says a {status} sends {header}; the response has none")
            media = response.get("content", {})
            content_type = headers.get("content-type", "").split(";")[0].strip()
            if content_type not in media:
                problems.append(f"{name}: {status} is documented as {sorted(media)}, answered as {content_type or 'nothing'}")
                continue
            schema = media[content_type].get("schema", {})
            body = substitute_placeholders(expected.get("body"))
            validator = jsonschema.Draft202012Validator(
                {"$ref": "urn:openapi#/" + schema["$ref"].lstrip("#/")} if "$ref" in schema else schema, registry=registry
            )
            for error in validator.iter_errors(body):
                where = "/".join(str(part) for part in error.absolute_path) or "body"
                problems.append(f"{name}: {where}: {error.message}")
    return problems, checked, skipped


def self_test(document) -> int:
    """Each planted fault must be reported."""
    def data_of(schema):
        return ["components", "schemas", schema, "properties", "data", "properties"]
    faults = [  # (what is planted, where, the change there, what must be reported)
        ("a removed status", ["paths", "/v1/user/me", "get", "responses"], lambda at: at.pop("404"),
         "does not document status 404"),
        ("a removed property", data_of("StoreTokensResponse"), lambda at: at.pop("account_switch"),
         "'account_switch' was unexpected"),
        ("a removed error code", ["components", "schemas", "StoreTokensBadRequest", "properties", "error"],
         lambda at: at["enum"].remove("invalid_grant"), "'invalid_grant' is not one of"),
        ("a header never sent", ["components", "responses", "Unavailable", "headers"],
         lambda at: at.update({"X-Missing": {"schema": {"type": "string"}}}), "sends X-Missing"),
        ("a wrong type", data_of("UserProfileResponse") + ["gmail_account_connected"],
         lambda at: at.update(type="string"), "is not of type 'string'"),
        ("an invalid document", ["paths", "/v1/user/me", "get", "responses", "200"],
         lambda at: at.update(description=None), "is not valid OpenAPI 3.1"),
    ]
    for label, path, change, marker in faults:
        broken = copy.deepcopy(document)
        change(functools.reduce(lambda node, key: node[key], path, broken))
        problems, _, _ = check(broken)
        if not any(marker in problem for problem in problems):
            print(f"check-openapi self-test: {label} was not reported (looked for {marker!r}); "
                  f"got {problems[:3]}", file=sys.stderr)
            return 1
    problems, _, _ = check(document)
    if problems:
        print("check-openapi self-test: the document itself fails; run without --self-test", file=sys.stderr)
        return 1
    print(f"check-openapi: self-test passed ({len(faults)} planted faults reported)")
    return 0


def main() -> int:
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    if sys.argv[1:] == ["--self-test"]:
        return self_test(document)
    problems, checked, skipped = check(document)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"check-openapi: {len(problems)} problem(s) between openapi.yaml and events/", file=sys.stderr)
        return 1
    print(f"openapi: document valid; {checked} expected responses conform" + (f"; skipped: {', '.join(skipped)}" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
