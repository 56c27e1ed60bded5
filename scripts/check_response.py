#!/usr/bin/env python3
"""Compares a function's answer with an expected file from events/.

Usage: check_response.py EXPECTED.json ACTUAL.json

The same rule as Tests/ReplayTests/JSONMatching.swift: the response's `body` (a JSON
string) is compared as JSON; an expected string "<rfc3339>" matches any RFC 3339 time and
"<any>" anything; every other value must be equal. Exits 0 on a match, 1 with both sides
printed otherwise.
"""
import datetime
import json
import sys


def is_rfc3339(value):
    try:
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return "T" in value
    except ValueError:
        return False


def substitute(expected, actual):
    if expected == "<rfc3339>" and isinstance(actual, str):
        return expected if is_rfc3339(actual) else actual
    if expected == "<any>":
        return expected
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {key: substitute(expected[key], value) if key in expected else value for key, value in actual.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [substitute(e, a) for e, a in zip(expected, actual)]
    return actual


def mismatch(expected, text):
    """None when `text` (a response as printed or returned) matches `expected` (parsed)."""
    try:
        actual = json.loads(text)
    except ValueError:
        return f"not one JSON document: {text[:300]!r}"
    if isinstance(actual, dict) and isinstance(actual.get("body"), str):
        try:
            actual["body"] = json.loads(actual["body"])
        except ValueError:
            return f"the body is not JSON: {actual['body'][:300]!r}"
    left = json.dumps(expected, sort_keys=True)
    right = json.dumps(substitute(expected, actual), sort_keys=True)
    return None if left == right else f"expected {left}\n     got {right}"


def main():
    with open(sys.argv[1]) as handle:
        expected = json.load(handle)
    with open(sys.argv[2]) as handle:
        problem = mismatch(expected, handle.read())
    if problem:
        print(problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
