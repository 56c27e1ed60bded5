#!/usr/bin/env python3
"""Checks template.yaml for what cfn-lint and `sam validate --lint` do not catch.

    check_template.py TEMPLATE [--build-dir .aws-sam/build] [--sources Sources]
    check_template.py .aws-sam/build/template.yaml --built --build-dir .aws-sam/build
    check_template.py TEMPLATE --self-test   # each check must flag a broken copy
    (needs the built CLI, .build/debug/paypulse, or --paypulse PATH)

Checks: the five functions (Runtime provided.al2023, Handler bootstrap, makefile build,
the Architecture parameter); least privilege under each TokenStore choice (SecretsManager,
the migration window SecretsManagerWithTable, DynamoDB), the template's !If and conditions
resolved for it (each function's statements are exactly those `paypulse iam FUNCTION
--store aws|dynamodb` derives from the code's declared AWS operations, conditions included;
user-profile reads no token value: no GetSecretValue on a token set, no KMS action at all;
no wildcard action); the tokens
table, its KMS key and their outputs under SecretsManagerWithTable and DynamoDB only (the
table, as each deploys it, has the keys, index, billing and TTL attribute of
deploy/tokens-table.json, which `paypulse setup --store dynamodb` sends; retained, with
SSE and point-in-time recovery; the key rotated and retained) and each function's
PAYPULSE_STORE, TOKENS_TABLE and PAYPULSE_KMS_KEY_ID under each choice, and under DynamoDB
token-refresh's REFRESH_MODE and KEEPALIVE_SECONDS on every function (the due index is keyed
by them at every write); SecretsManagerWithTable deploys exactly what SecretsManager does
(every function, environment, policy, the schedule) plus the table, key and two outputs;
exactly the three routes on the one HTTP API; the refresh schedule (the default rate is a
valid EventBridge rate shorter than the refresh window, and for every allowed shard count
the rule has one target per shard with input {"shard": i, "shards": n}; under each
TokenStore choice the shards' total REFRESH_MAX_WRITES_PER_SECOND is within what the code
accepts and, with the token sets in Secrets Manager, under its write quota; with DynamoDB,
at the permits a refresh takes (read from TokenRefresher) over the due index's buckets
(read from DynamoDBDueIndex), under 80 % of a bucket's partition write units, a tenth of
KMS's request quota and what a new on-demand table and index are warm for, yet at least
the 351 refreshes/s a million eager grants need); every environment variable is one the
sources read; the alarms and the dashboard name only metrics that exist (the EMF metrics
the refresh code emits, in its namespace and dimension; the Lambda and API Gateway metrics
of this stack's own function and API) and every alarm notifies the AlarmTopicArn parameter
when set; each built artifact directory holds an executable bootstrap.
"""
import argparse
import copy
import fnmatch
import json
import os
import re
import sys

import yaml

SECRET_ARN = "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:"
JWT_KEY = SECRET_ARN + "${JwtKeySecretName}-??????"
TOKEN_SETS = SECRET_ARN + "gmail/user/*"
DUE_INDEX = "${TokensTable.Arn}/index/due-index"
PAYPULSE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "debug", "paypulse")
# The TokenStore choices: SecretsManagerWithTable is the migration window (the tokens table
# and key exist for `paypulse migrate` while every function still runs on Secrets Manager,
# exactly as with SecretsManager); DynamoDB switches the functions to the table.
# The store the functions run on under each choice, as `paypulse iam --store` names it.
STORE_OF_CHOICE = {"SecretsManager": "aws", "SecretsManagerWithTable": "aws", "DynamoDB": "dynamodb"}
FUNCTIONS = ("StoreTokensFunction", "UserProfileFunction", "DisconnectFunction", "FreshTokenFunction", "TokenRefreshFunction")
# The choices under which the stack creates the tokens table, its key and their outputs.
TABLE_CHOICES = {"SecretsManagerWithTable", "DynamoDB"}
# The choices under which the functions use Secrets Manager for the token sets.
SECRETS_MANAGER_CHOICES = {"SecretsManager", "SecretsManagerWithTable"}
# What the migration window adds to the SecretsManager stack, and nothing else.
TABLE_RESOURCES = {"TokensTable", "TokensKey"}
TABLE_OUTPUTS = {"TokenStoreTable": {"Ref": "TokensTable"}, "TokenStoreKeyArn": {"Fn::GetAtt": ["TokensKey", "Arn"]}}
TABLE_DEFINITION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "deploy", "tokens-table.json")
EXPECTED_ROUTES = {
    ("POST", "/v1/auth/gmail-tokens"): "StoreTokensFunction",
    ("GET", "/v1/user/me"): "UserProfileFunction",
    ("DELETE", "/v1/auth/gmail-tokens"): "DisconnectFunction",
}
# Secrets Manager: PutSecretValue + UpdateSecretVersionStage (+ UpdateSecret) share 50/s per region.
SECRETS_MANAGER_WRITE_QUOTA = 50
# One refresh on the DynamoDB token store, as `make capacity` counts it (docs/perf/capacity.md;
# a grant at the token lengths seen in practice is a 1,207-byte item): one UpdateItem (2 write
# units on the table), its due-index entry deleted and put (projection ALL: 2 + 2 units, in
# its user's bucket) and one KMS Decrypt (the data key cache seals with the key it unwrapped).
TABLE_UNITS_PER_REFRESH = 2
INDEX_UNITS_PER_REFRESH = 4
KMS_REQUESTS_PER_REFRESH = 1
# A partition key (one due-index bucket) takes 1,000 write units/s; the refresh job may use 80 %
# of it, the rest is left to fresh-token, store-tokens and disconnect.
PARTITION_WRITE_UNITS = 1000
REFRESH_PARTITION_SHARE = 0.8
# KMS cryptographic requests: 10,000/s (50,000 in us-east-1: the conservative bound); the job
# stays far under it, at a tenth at most.
KMS_REQUEST_QUOTA = 10000
REFRESH_KMS_SHARE = 0.1
# What a new on-demand table and its index are warm for (write units/s): the first runs after
# the switch must not need the table to scale.
NEW_ON_DEMAND_WRITE_UNITS = 4000
# What the pace must reach: a million eager grants (30.3 refreshes a day each) need about 351
# refreshes/s (docs/perf/capacity.md); the DynamoDB store is what serves that many.
REQUIRED_REFRESHES_PER_SECOND = 351
REFRESH_WINDOW_SECONDS = 900  # REFRESH_WINDOW_SECONDS' default (Sources/App/Configuration)
RATE = re.compile(r"^rate\(([1-9]\d*) (minute|minutes|hour|hours|day|days)\)$")
UNIT_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}


class CloudFormationLoader(yaml.SafeLoader):
    """Reads short-form intrinsics (!Ref, !Sub, !If, ...) as their long form."""


def _intrinsic(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix == "Ref":
        return {"Ref": value}
    if suffix == "Condition":
        return {"Condition": value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {"Fn::" + suffix: value}


CloudFormationLoader.add_multi_constructor("!", _intrinsic)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=CloudFormationLoader)


def functions(template):
    return {name: resource for name, resource in template["Resources"].items()
            if resource.get("Type") == "AWS::Serverless::Function"}


def effective(template, resource, key):
    """A function property, falling back to Globals.Function."""
    properties = resource.get("Properties", {})
    if key in properties:
        return properties[key]
    return template.get("Globals", {}).get("Function", {}).get(key)


def resource_text(resource):
    """A resource as Sub text: !GetAtt R.A is ${R.A}, !Ref X is ${X}."""
    if isinstance(resource, str):
        return resource
    if isinstance(resource, dict) and "Fn::Sub" in resource:
        sub = resource["Fn::Sub"]
        return sub if isinstance(sub, str) else sub[0]
    if isinstance(resource, dict) and list(resource) == ["Fn::GetAtt"]:
        return "${" + ".".join(resource["Fn::GetAtt"]) + "}"
    if isinstance(resource, dict) and list(resource) == ["Ref"]:
        return "${" + resource["Ref"] + "}"
    return json.dumps(resource, sort_keys=True)


def statements(resource):
    """(statement, problem) pairs: only inline policy documents are allowed."""
    found = []
    for policy in resource.get("Properties", {}).get("Policies", []) or []:
        if not isinstance(policy, dict) or "Statement" not in policy:
            found.append((None, f"policy {policy!r} is not an inline statement list (managed or SAM template policies hide what is allowed)"))
            continue
        for statement in policy["Statement"]:
            found.append((statement, None))
    return found


def as_list(value):
    return value if isinstance(value, list) else [value]


def check_functions(template, errors, built=False):
    found = functions(template)
    if set(found) != set(FUNCTIONS):
        errors.append(f"functions are {sorted(found)}, expected {sorted(FUNCTIONS)}")
    for name, resource in found.items():
        if effective(template, resource, "Runtime") != "provided.al2023":
            errors.append(f"{name}: Runtime must be provided.al2023")
        if effective(template, resource, "Handler") != "bootstrap":
            errors.append(f"{name}: Handler must be bootstrap")
        if effective(template, resource, "Architectures") != [{"Ref": "Architecture"}]:
            errors.append(f"{name}: Architectures must be [!Ref Architecture]")
        if resource.get("Metadata", {}).get("BuildMethod") != "makefile":
            errors.append(f"{name}: Metadata.BuildMethod must be makefile")
        # `sam build` points each function at its artifact directory, named after it.
        code_uri = name if built else "."
        if effective(template, resource, "CodeUri") != code_uri:
            errors.append(f"{name}: CodeUri must be {code_uri}" + ("" if built else " (the Makefile's build targets live there)"))


def token_store_choices(template):
    """{choice: the template as deployed with TokenStore=choice}, every other parameter at its default."""
    parameter = template.get("Parameters", {}).get("TokenStore")
    if not parameter:
        return {}
    return {choice: resolve_choice(template, choice) for choice in parameter.get("AllowedValues", [])}


def resolve_choice(template, choice):
    """The template with every Fn::If decided and AWS::NoValue dropped for TokenStore=choice
    (other parameters at their defaults), and the resources and outputs whose Condition is
    false left out."""
    parameters = {name: spec.get("Default") for name, spec in template.get("Parameters", {}).items()}
    parameters["TokenStore"] = choice

    def decide(node):
        if isinstance(node, list):
            items = [decide(item) for item in node]
            return [item for item in items if item is not NO_VALUE]
        if not isinstance(node, dict):
            return node
        if node == {"Ref": "AWS::NoValue"}:
            return NO_VALUE
        if list(node) == ["Fn::If"]:
            condition, then, otherwise = node["Fn::If"]
            return decide(then if evaluate(template["Conditions"][condition], template, parameters) else otherwise)
        decided = {key: decide(value) for key, value in node.items()}
        return {key: value for key, value in decided.items() if value is not NO_VALUE}

    resolved = {key: (value if key == "Conditions" else decide(value)) for key, value in template.items()}
    for section in ("Resources", "Outputs"):
        resolved[section] = {name: item for name, item in resolved.get(section, {}).items()
                             if "Condition" not in item or evaluate({"Condition": item["Condition"]}, template, parameters)}
    return resolved


def executable(function):
    """StoreTokensFunction -> store-tokens: the executable (and `paypulse iam` argument) a function runs."""
    words, word = [], ""
    for character in function[:-len("Function")]:
        if character.isupper() and word:
            words.append(word)
            word = ""
        word += character.lower()
    return "-".join(words + [word])


def code_access(paypulse=PAYPULSE):
    """{(function, store): {resource text: statement}} as `paypulse iam` prints them from the code."""
    import subprocess
    access = {}
    for function in FUNCTIONS:
        for store in sorted(set(STORE_OF_CHOICE.values())):
            output = subprocess.run([paypulse, "iam", executable(function), "--store", store], check=True, capture_output=True, text=True).stdout
            access[(function, store)] = {statement["Resource"]: statement for statement in json.loads(output)["Statement"]}
    return access


def normalized_condition(condition):
    """A Condition block with single values as one-item lists and values as strings."""
    if not isinstance(condition, dict):
        return condition
    return {operator: {key: sorted(str(value).lower() if isinstance(value, bool) else str(value) for value in as_list(values))
                       for key, values in block.items()} if isinstance(block, dict) else block
            for operator, block in condition.items()}


def check_policies(template, errors, access=None):
    choices = token_store_choices(template)
    if set(choices) != set(STORE_OF_CHOICE):
        errors.append(f"TokenStore allows {sorted(choices)}, expected {sorted(STORE_OF_CHOICE)}")
    if choices and template["Parameters"]["TokenStore"].get("Default") != "SecretsManager":
        errors.append("TokenStore must default to SecretsManager (today's store)")
    access = access if access is not None else code_access()
    for choice, resolved in choices.items():
        if choice in STORE_OF_CHOICE:
            check_choice_policies(resolved, choice, access, errors)


def check_choice_policies(template, choice, access, errors):
    """One TokenStore choice: each function's grants are exactly the statements `paypulse iam`
    derives from its code: the same actions on the same resources, the same conditions."""
    for name, resource in functions(template).items():
        label = f"TokenStore={choice}: {name}"
        expected = access.get((name, STORE_OF_CHOICE[choice]), {})
        granted, conditions = {}, {}
        for statement, problem in statements(resource):
            if problem:
                errors.append(f"{label}: {problem}")
                continue
            if statement.get("Effect") != "Allow" or "NotAction" in statement or "NotResource" in statement:
                errors.append(f"{label}: only plain Allow statements with Action and Resource are expected")
                continue
            actions = [str(action) for action in as_list(statement.get("Action", []))]
            for action in actions:
                if "*" in action or "?" in action:
                    errors.append(f"{label}: wildcard action {action}")
            for resource_arn in as_list(statement.get("Resource", [])):
                text = resource_text(resource_arn)
                granted.setdefault(text, set()).update(actions)
                conditions.setdefault(text, []).append(normalized_condition(statement.get("Condition")))
        if name == "UserProfileFunction":
            # Spelled out, though the comparison below implies them: the profile reads no token value.
            for text, actions in granted.items():
                if "secretsmanager:GetSecretValue" in actions and text != JWT_KEY:
                    errors.append(f"{label}: GetSecretValue on {text}: user-profile must not read token values")
                for action in sorted(action for action in actions if action.startswith("kms:")):
                    errors.append(f"{label}: {action} on {text}: user-profile must not open token values")
        wanted = {text: set(statement["Action"]) for text, statement in expected.items()}
        if granted != wanted:
            errors.append(f"{label}: grants {json.dumps({k: sorted(v) for k, v in granted.items()}, sort_keys=True)}, "
                          f"its code (`paypulse iam {executable(name)} --store {STORE_OF_CHOICE[choice]}`) needs "
                          f"{json.dumps({k: sorted(v) for k, v in wanted.items()}, sort_keys=True)}")
        for text, found in conditions.items():
            condition = normalized_condition(expected.get(text, {}).get("Condition"))
            if any(item != condition for item in found):
                errors.append(f"{label}: statements on {text} must carry the condition the code needs: {json.dumps(condition, sort_keys=True)}")


def load_table_definition(path=TABLE_DEFINITION):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def by_name(items, key):
    return {item.get(key): item for item in items or []}


# What the template may declare beyond the definition: protection and recovery, no data shape.
TABLE_ONLY_PROPERTIES = {"TableName", "SSESpecification", "PointInTimeRecoverySpecification", "Tags", "DeletionProtectionEnabled"}


def check_token_table(template, errors, definition=None, sources=None):
    """The tokens table, its key and their outputs exist under TokenStore=SecretsManagerWithTable
    and DynamoDB only, and the table is, under each, the one deploy/tokens-table.json
    describes: what `paypulse setup --store dynamodb` creates."""
    resources = template["Resources"]
    table, key = resources.get("TokensTable"), resources.get("TokensKey")
    if not table or table.get("Type") != "AWS::DynamoDB::Table":
        errors.append("no AWS::DynamoDB::Table TokensTable")
        return
    if not key or key.get("Type") != "AWS::KMS::Key":
        errors.append("no AWS::KMS::Key TokensKey")
        return
    for name, resource in (("TokensTable", table), ("TokensKey", key)):
        if resource.get("Condition") != "TokensTableCreated":
            errors.append(f"{name} must have Condition TokensTableCreated (it exists with TokenStore={' and '.join(sorted(TABLE_CHOICES))})")
        if resource.get("DeletionPolicy") != "Retain" or resource.get("UpdateReplacePolicy") != "Retain":
            errors.append(f"{name} must be kept (DeletionPolicy and UpdateReplacePolicy Retain): it holds or opens the users' grants")
    for choice, resolved in token_store_choices(template).items():
        present = TABLE_RESOURCES & set(resolved["Resources"])
        if present != (TABLE_RESOURCES if choice in TABLE_CHOICES else set()):
            errors.append(f"TokenStore={choice}: the stack creates {sorted(present) or 'neither'} of TokensTable and TokensKey")
        outputs = {name: resolved.get("Outputs", {})[name].get("Value") for name in TABLE_OUTPUTS if name in resolved.get("Outputs", {})}
        if outputs != (TABLE_OUTPUTS if choice in TABLE_CHOICES else {}):
            errors.append(f"TokenStore={choice}: outputs {outputs}, expected {TABLE_OUTPUTS if choice in TABLE_CHOICES else {}} "
                          f"(what `paypulse migrate` needs: TOKENS_TABLE and PAYPULSE_KMS_KEY_ID)")
        if "TokensTable" in present:
            # The table as this choice deploys it: an !If in its properties must not make it another table.
            check_table_definition(resolved["Resources"]["TokensTable"], template, f"TokenStore={choice}: ", errors, definition, sources)

    key_properties = key.get("Properties", {})
    if key_properties.get("EnableKeyRotation") is not True:
        errors.append("TokensKey must rotate (EnableKeyRotation: true)")
    if key_properties.get("KeySpec", "SYMMETRIC_DEFAULT") != "SYMMETRIC_DEFAULT" or key_properties.get("KeyUsage", "ENCRYPT_DECRYPT") != "ENCRYPT_DECRYPT":
        errors.append("TokensKey must be a symmetric encryption key (GenerateDataKey and Decrypt)")
    root = {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}
    for statement in key_properties.get("KeyPolicy", {}).get("Statement", []):
        if statement.get("Principal") != {"AWS": root}:
            errors.append(f"TokensKey's key policy names {statement.get('Principal')}: only the account (whose IAM policies "
                          f"then grant each role exactly its actions) is expected")


def check_table_definition(table, template, label, errors, definition=None, sources=None):
    """The table, as one TokenStore choice deploys it, is deploy/tokens-table.json's."""
    definition = definition or load_table_definition()
    create, ttl = definition["CreateTable"], definition["UpdateTimeToLive"]
    properties = table.get("Properties", {})
    extra = set(properties) - TABLE_ONLY_PROPERTIES - {"AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes",
                                                        "BillingMode", "TimeToLiveSpecification"}
    if extra:
        errors.append(label + f"TokensTable declares {sorted(extra)}, which deploy/tokens-table.json (and so `paypulse setup`) does not")
    if properties.get("TableName") != {"Ref": "TokensTableName"}:
        errors.append(label + "TokensTable must be named by the TokensTableName parameter")
    default = template.get("Parameters", {}).get("TokensTableName", {}).get("Default")
    code_default = None
    with open(os.path.join(sources or REPOSITORY_SOURCES, "App", "Configuration", "TokenTableConfiguration.swift"), encoding="utf-8") as handle:
        match = re.search(r'static let defaultTable = "([^"]+)"', handle.read())
        code_default = match and match.group(1)
    if not default or default != create.get("TableName") or default != code_default or ttl.get("TableName") != default:
        errors.append(label + f"TokensTableName defaults to {default!r}; deploy/tokens-table.json names {create.get('TableName')!r} and "
                      f"{ttl.get('TableName')!r}, TOKENS_TABLE defaults to {code_default!r}: all must agree")
    if properties.get("KeySchema") != create["KeySchema"]:
        errors.append(label + f"TokensTable KeySchema {properties.get('KeySchema')} is not setup's {create['KeySchema']}")
    if by_name(properties.get("AttributeDefinitions"), "AttributeName") != by_name(create["AttributeDefinitions"], "AttributeName"):
        errors.append(label + f"TokensTable AttributeDefinitions {properties.get('AttributeDefinitions')} are not setup's {create['AttributeDefinitions']}")
    if by_name(properties.get("GlobalSecondaryIndexes"), "IndexName") != by_name(create.get("GlobalSecondaryIndexes"), "IndexName"):
        errors.append(label + f"TokensTable GlobalSecondaryIndexes {properties.get('GlobalSecondaryIndexes')} are not setup's "
                      f"{create.get('GlobalSecondaryIndexes')}")
    if properties.get("BillingMode") != create["BillingMode"]:
        errors.append(label + f"TokensTable BillingMode {properties.get('BillingMode')} is not setup's {create['BillingMode']}")
    if properties.get("TimeToLiveSpecification") != ttl["TimeToLiveSpecification"]:
        errors.append(label + f"TokensTable TimeToLiveSpecification {properties.get('TimeToLiveSpecification')} is not setup's "
                      f"{ttl['TimeToLiveSpecification']}")
    if DUE_INDEX.rsplit("/", 1)[1] not in by_name(create.get("GlobalSecondaryIndexes"), "IndexName"):
        errors.append(label + f"token-refresh queries {DUE_INDEX}, an index deploy/tokens-table.json does not define")
    if properties.get("SSESpecification", {}).get("SSEEnabled") is not True:
        errors.append(label + "TokensTable must have server-side encryption on (SSESpecification.SSEEnabled: true)")
    if properties.get("PointInTimeRecoverySpecification", {}).get("PointInTimeRecoveryEnabled") is not True:
        errors.append(label + "TokensTable must have point-in-time recovery on")


# What GrantDuePolicy.refresh(settings) depends on (RefreshSettings.mode and keepAlive): the
# DynamoDB store keys its due index by it at every write, so every writer needs token-refresh's.
DUE_POLICY_VARIABLES = ("REFRESH_MODE", "KEEPALIVE_SECONDS")


def check_token_store_environment(template, errors, sources=None):
    """Under each choice every function gets the store the code knows by that name, and the
    table and key variables exactly when the DynamoDB store reads them; under DynamoDB every
    function runs with token-refresh's refresh mode, which keys the due index at each write."""
    with open(os.path.join(sources or REPOSITORY_SOURCES, "App", "Configuration", "AppConfiguration.swift"), encoding="utf-8") as handle:
        backends = set(re.findall(r"^\s*case (\w+)\s*$", handle.read(), re.MULTILINE))
    wanted = {
        "SecretsManager": {"PAYPULSE_STORE": "aws"},
        "SecretsManagerWithTable": {"PAYPULSE_STORE": "aws"},
        "DynamoDB": {"PAYPULSE_STORE": "dynamodb", "TOKENS_TABLE": {"Ref": "TokensTable"},
                     "PAYPULSE_KMS_KEY_ID": {"Fn::GetAtt": ["TokensKey", "Arn"]}},
    }
    for choice, resolved in token_store_choices(template).items():
        def variables_of(resource):
            variables = dict(resolved.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {}))
            variables.update(resource.get("Properties", {}).get("Environment", {}).get("Variables", {}))
            return variables

        refresh = variables_of(resolved["Resources"].get("TokenRefreshFunction", {}))
        for name, resource in functions(resolved).items():
            variables = variables_of(resource)
            if choice == "DynamoDB":
                for variable in DUE_POLICY_VARIABLES:
                    if variable not in refresh or variables.get(variable) != refresh[variable]:
                        errors.append(f"TokenStore=DynamoDB: {name} has {variable}={variables.get(variable)}, token-refresh "
                                      f"{refresh.get(variable)}: the due index is keyed by the refresh mode at every write")
            found = {variable: variables[variable] for variable in ("PAYPULSE_STORE", "TOKENS_TABLE", "PAYPULSE_KMS_KEY_ID")
                     if variable in variables}
            if found != wanted.get(choice):
                errors.append(f"TokenStore={choice}: {name} has {found}, expected {wanted.get(choice)}")
            if found.get("PAYPULSE_STORE") not in backends:
                errors.append(f"TokenStore={choice}: {name}: PAYPULSE_STORE={found.get('PAYPULSE_STORE')} is not one of the "
                              f"code's stores {sorted(backends)}")


def check_migration_window(template, errors):
    """TokenStore=SecretsManagerWithTable deploys the SecretsManager stack exactly, plus the
    tokens table, its key and their two outputs: every function with its environment,
    policies and pace, the schedule, the alarms, all unchanged, so that `paypulse migrate`
    can fill the table while the functions still run on Secrets Manager."""
    choices = token_store_choices(template)
    today, window = choices.get("SecretsManager"), choices.get("SecretsManagerWithTable")
    if today is None or window is None:
        return  # check_policies reports the choices
    adds = f"the migration window adds {', '.join(sorted(TABLE_RESOURCES))} and outputs {', '.join(sorted(TABLE_OUTPUTS))}, nothing else"
    for section in sorted((set(today) | set(window)) - {"Parameters", "Conditions"}):
        before, after = today.get(section), window.get(section)
        added = TABLE_RESOURCES if section == "Resources" else set(TABLE_OUTPUTS) if section == "Outputs" else set()
        if isinstance(after, dict) and added:
            after = {name: item for name, item in after.items() if name not in added}
        if before == after:
            continue
        if isinstance(before, dict) and isinstance(after, dict):
            names = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
            errors.append(f"TokenStore=SecretsManagerWithTable: {section} {', '.join(names)} differ from TokenStore=SecretsManager's: {adds}")
        else:
            errors.append(f"TokenStore=SecretsManagerWithTable: {section} differs from TokenStore=SecretsManager's: {adds}")


def check_routes(template, errors):
    routes = {}
    for name, resource in functions(template).items():
        for event_name, event in (resource.get("Properties", {}).get("Events") or {}).items():
            if event.get("Type") != "HttpApi":
                errors.append(f"{name}.{event_name}: event type {event.get('Type')}, only HttpApi routes are expected")
                continue
            properties = event.get("Properties", {})
            if properties.get("ApiId") != {"Ref": "HttpApi"}:
                errors.append(f"{name}.{event_name}: the route must be on !Ref HttpApi")
            key = (str(properties.get("Method", "")).upper(), properties.get("Path"))
            if key in routes:
                errors.append(f"route {key} is declared twice")
            routes[key] = name
    if routes != EXPECTED_ROUTES:
        errors.append(f"routes are {sorted(routes.items())}, expected exactly {sorted(EXPECTED_ROUTES.items())}")


def rate_seconds(expression):
    match = RATE.match(expression)
    if not match:
        return None
    count, unit = int(match.group(1)), match.group(2)
    singular = unit.rstrip("s")
    # EventBridge: the singular unit for 1, the plural for anything larger; 0 is refused.
    if count == 0 or (count == 1) != (unit == singular):
        return None
    return count * UNIT_SECONDS[singular]


def check_rate(template, errors):
    parameter = template["Parameters"]["RefreshSchedule"]
    default = parameter["Default"]
    seconds = rate_seconds(default)
    if seconds is None:
        errors.append(f"RefreshSchedule default {default!r} is not a valid EventBridge rate expression")
    elif seconds * 2 > REFRESH_WINDOW_SECONDS:
        errors.append(f"RefreshSchedule default {default!r} runs less than twice per {REFRESH_WINDOW_SECONDS} s refresh window")
    pattern = parameter.get("AllowedPattern")
    if not pattern:
        errors.append("RefreshSchedule has no AllowedPattern")
        return
    # CloudFormation matches the whole value; the pattern must agree with EventBridge's syntax.
    samples = [default, "rate(1 minute)", "rate(5 minutes)", "rate(1 hour)", "rate(12 hours)", "rate(1 day)", "rate(10 minutes)",
               "rate(0 minutes)", "rate(1 minutes)", "rate(5 minute)", "rate(5 mins)", "rate(5minutes)", "rate(05 minutes)",
               "cron(0 * * * ? *)", "rate(5 minutes) ", ""]
    for sample in samples:
        accepted = re.fullmatch(pattern, sample) is not None
        if accepted != (rate_seconds(sample) is not None):
            errors.append(f"RefreshSchedule AllowedPattern {'accepts' if accepted else 'refuses'} {sample!r}")


class Unresolvable(Exception):
    pass


def evaluate(node, template, parameters):
    """Resolves the intrinsics the schedule and its conditions use, for given parameter values."""
    if isinstance(node, list):
        items = [evaluate(item, template, parameters) for item in node]
        return [item for item in items if item is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        (key, value), = node.items()
        if key == "Ref":
            if value == "AWS::NoValue":
                return NO_VALUE
            if value in parameters:
                return parameters[value]
            raise Unresolvable(value)
        if key == "Condition":
            return evaluate(template["Conditions"][value], template, parameters)
        if key == "Fn::Equals":
            left, right = (evaluate(item, template, parameters) for item in value)
            return str(left) == str(right)
        if key == "Fn::Not":
            return not evaluate(value[0], template, parameters)
        if key == "Fn::And":
            return all(evaluate(item, template, parameters) for item in value)
        if key == "Fn::Or":
            return any(evaluate(item, template, parameters) for item in value)
        if key == "Fn::If":
            condition, then, otherwise = value
            chosen = then if evaluate(template["Conditions"][condition], template, parameters) else otherwise
            return evaluate(chosen, template, parameters)
        if key == "Fn::Sub" and isinstance(value, str):
            def substitute(match):
                name = match.group(1)
                if name in parameters:
                    return str(parameters[name])
                raise Unresolvable(name)
            return re.sub(r"\$\{([A-Za-z0-9:.]+)\}", substitute, value)
        if key == "Fn::GetAtt":
            return "GetAtt:" + ".".join(value)
        if key == "Fn::FindInMap":
            mapping, top, second = (str(evaluate(item, template, parameters)) for item in value)
            try:
                return template["Mappings"][mapping][top][second]
            except KeyError:
                raise Unresolvable(f"{mapping}.{top}.{second}") from None
    return {key: evaluate(value, template, parameters) for key, value in node.items()}


NO_VALUE = object()


PACE_SOURCES = {"refresher": os.path.join("Domain", "Refresh", "TokenRefresher.swift"),
                "index": os.path.join("Adapters", "AWS", "DynamoDBDueIndex.swift"),
                "configuration": os.path.join("App", "Configuration", "AppConfiguration+Reading.swift")}


def pace_texts(sources):
    texts = {}
    for name, path in PACE_SOURCES.items():
        with open(os.path.join(sources or REPOSITORY_SOURCES, path), encoding="utf-8") as handle:
            texts[name] = handle.read()
    return texts


def pace_model(sources=None, texts=None):
    """What the write pace means in the code: permits a refresh takes (TokenRefresher's
    `limiter?.acquire(n)`), the due index's buckets (DynamoDBDueIndex.buckets), and the most
    REFRESH_MAX_WRITES_PER_SECOND the configuration accepts."""
    texts = texts if texts is not None else pace_texts(sources)
    permits = re.findall(r"\blimiter\?\.acquire\((\d+)\)", texts["refresher"])
    buckets = re.search(r"static let buckets = (\d+)", texts["index"])
    accepted = re.search(r'"REFRESH_MAX_WRITES_PER_SECOND",[^)]*range: (\d+)\.\.\.([\d_]+)', texts["configuration"])
    return {"permits": [int(n) for n in permits], "buckets": int(buckets.group(1)) if buckets else None,
            "range": (int(accepted.group(1)), int(accepted.group(2).replace("_", ""))) if accepted else None}


def check_pace(label, choice, pace, n, model, errors):
    """One shard count's REFRESH_MAX_WRITES_PER_SECOND under one TokenStore choice: every run
    of the n shards at that pace at once (the limiter spaces permits evenly)."""
    if not model["range"]:
        errors.append(f"{label}: cannot tell the REFRESH_MAX_WRITES_PER_SECOND range the configuration accepts from the sources")
        return
    low, high = model["range"]
    if not low <= pace <= high:
        errors.append(f"{label}: REFRESH_MAX_WRITES_PER_SECOND={pace}, the code accepts {low} to {high}")
    if choice in SECRETS_MANAGER_CHOICES:
        if pace * n >= SECRETS_MANAGER_WRITE_QUOTA:
            errors.append(f"{label}: {n} runs at {pace} writes/s reach the {SECRETS_MANAGER_WRITE_QUOTA}/s Secrets Manager quota")
        return
    if len(set(model["permits"])) != 1 or not model["buckets"]:
        errors.append(f"{label}: cannot tell the permits per refresh (TokenRefresher: {model['permits']}) or the due-index "
                      f"buckets ({model['buckets']}) from the sources")
        return
    refreshes = pace * n / model["permits"][0]
    bucket = refreshes * INDEX_UNITS_PER_REFRESH / model["buckets"]
    bounds = [
        ("write units/s on each due-index bucket", bucket, REFRESH_PARTITION_SHARE * PARTITION_WRITE_UNITS,
         f"{REFRESH_PARTITION_SHARE:.0%} of a partition key's {PARTITION_WRITE_UNITS}"),
        ("KMS requests/s", refreshes * KMS_REQUESTS_PER_REFRESH, REFRESH_KMS_SHARE * KMS_REQUEST_QUOTA,
         f"{REFRESH_KMS_SHARE:.0%} of KMS's {KMS_REQUEST_QUOTA}"),
        ("table write units/s", refreshes * TABLE_UNITS_PER_REFRESH, NEW_ON_DEMAND_WRITE_UNITS, "what a new on-demand table is warm for"),
        ("due-index write units/s", refreshes * INDEX_UNITS_PER_REFRESH, NEW_ON_DEMAND_WRITE_UNITS, "what a new on-demand index is warm for"),
    ]
    for what, value, bound, why in bounds:
        if value > bound:
            errors.append(f"{label}: {n} runs at {pace} permits/s ({refreshes:g} refreshes/s) make {value:g} {what}, over {bound:g} ({why})")
    if refreshes < REQUIRED_REFRESHES_PER_SECOND:
        errors.append(f"{label}: {n} runs at {pace} permits/s refresh {refreshes:g} grants/s, under the "
                      f"{REQUIRED_REFRESHES_PER_SECOND}/s a million eager grants need: size the DynamoDB pace for DynamoDB")


def check_schedule(template, errors, sources=None, model=None):
    model = model or pace_model(sources)
    resources = template["Resources"]
    rules = {name: resource for name, resource in resources.items() if resource.get("Type") == "AWS::Events::Rule"}
    if list(rules) != ["TokenRefreshSchedule"]:
        errors.append(f"expected one schedule rule TokenRefreshSchedule, found {sorted(rules)}")
        return
    rule = rules["TokenRefreshSchedule"]
    if rule["Properties"].get("ScheduleExpression") != {"Ref": "RefreshSchedule"}:
        errors.append("TokenRefreshSchedule must use !Ref RefreshSchedule")
    permissions = [resource["Properties"] for resource in resources.values() if resource.get("Type") == "AWS::Lambda::Permission"]
    if not any(p.get("SourceArn") == {"Fn::GetAtt": ["TokenRefreshSchedule", "Arn"]} and p.get("Principal") == "events.amazonaws.com"
               and p.get("FunctionName") == {"Ref": "TokenRefreshFunction"} for p in permissions):
        errors.append("no Lambda permission lets TokenRefreshSchedule invoke TokenRefreshFunction")
    counts = template["Parameters"]["RefreshShardCount"].get("AllowedValues", [])
    if not counts:
        errors.append("RefreshShardCount needs AllowedValues")
    refresh = resources["TokenRefreshFunction"]["Properties"]
    pace_node = refresh.get("Environment", {}).get("Variables", {}).get("REFRESH_MAX_WRITES_PER_SECOND")
    defaults = {name: spec.get("Default") for name, spec in template.get("Parameters", {}).items()}
    for count in counts:
        parameters = {"RefreshShardCount": count}
        try:
            targets = evaluate(rule["Properties"]["Targets"], template, parameters)
        except Unresolvable as error:
            errors.append(f"schedule targets use {error} beyond the shard count")
            continue
        n = int(count)
        if len(targets) != n:
            errors.append(f"RefreshShardCount={count}: {len(targets)} targets, expected {n}")
        if len(targets) > 5:
            errors.append(f"RefreshShardCount={count}: an EventBridge rule takes at most 5 targets")
        if len({target.get("Id") for target in targets}) != len(targets):
            errors.append(f"RefreshShardCount={count}: target ids repeat")
        inputs = []
        for target in targets:
            if target.get("Arn") != "GetAtt:TokenRefreshFunction.Arn":
                errors.append(f"RefreshShardCount={count}: target {target.get('Id')} is not TokenRefreshFunction")
            try:
                inputs.append(json.loads(target.get("Input", "")))
            except ValueError:
                errors.append(f"RefreshShardCount={count}: target {target.get('Id')} input is not JSON")
        if sorted(inputs, key=lambda spec: spec.get("shard", -1)) != [{"shard": i, "shards": n} for i in range(n)]:
            errors.append(f"RefreshShardCount={count}: inputs {inputs}, expected shard 0..{n - 1} of {n}")
        if pace_node is None:
            errors.append("TokenRefreshFunction sets no REFRESH_MAX_WRITES_PER_SECOND for its shard count")
            continue
        choices = template["Parameters"].get("TokenStore", {}).get("AllowedValues", ["SecretsManager"])
        for choice in choices:
            label = f"TokenStore={choice}, RefreshShardCount={count}"
            try:
                pace = int(evaluate(pace_node, template, {**defaults, "RefreshShardCount": count, "TokenStore": choice}))
            except (Unresolvable, TypeError, ValueError) as error:
                errors.append(f"{label}: REFRESH_MAX_WRITES_PER_SECOND does not resolve to a number ({error})")
                continue
            check_pace(label, choice, pace, n, model, errors)


def check_environment(template, sources, errors):
    names = set(template.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {}))
    for resource in functions(template).values():
        names.update(resource.get("Properties", {}).get("Environment", {}).get("Variables", {}))
    text = []
    for root, _, files in os.walk(sources):
        for file in files:
            if file.endswith(".swift"):
                with open(os.path.join(root, file), encoding="utf-8") as handle:
                    text.append(handle.read())
    text = "\n".join(text)
    for name in sorted(names):
        if f'"{name}"' not in text:
            errors.append(f"environment variable {name} is read nowhere in {sources}")
    for required in ("PAYPULSE_STORE", "USERS_TABLE", "PAYPULSE_JWT_SECRET_ID", "GOOGLE_CLIENT_ID_SECRET_ID"):
        if required not in names:
            errors.append(f"environment variable {required} is not set")


REPOSITORY_SOURCES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
EMF_SOURCE = os.path.join("Domain", "Refresh", "RefreshSummary.swift")
# Metrics the platform emits for the resources this template creates.
PLATFORM_METRICS = {
    "AWS/Lambda": ("FunctionName", {"Errors", "Throttles", "Duration", "Invocations"}),
    "AWS/ApiGateway": ("ApiId", {"5xx", "4xx", "Latency", "IntegrationLatency", "Count"}),
}


def emitted_metrics(sources):
    """(namespace, dimension name, dimension value, metric names) of the code's EMF line."""
    with open(os.path.join(sources, EMF_SOURCE), encoding="utf-8") as handle:
        text = handle.read()
    namespace = re.search(r'\\?"Namespace\\?":\\?"([^"\\]+)', text).group(1)
    dimension = re.search(r'"Dimensions\\?":\[\[\\?"(\w+)', text).group(1)
    names = set(re.findall(r'\("(\w+)", \w+\)', text)) | set(re.findall(r'"Name\\?":\\?"(\w+)', text))
    with open(os.path.join(sources, "Handlers", "TokenRefreshHandler.swift"), encoding="utf-8") as handle:
        value = re.search(r'functionName: String = "([^"]+)"', handle.read()).group(1)
    return namespace, dimension, value, names


def check_metric(label, namespace, metric, dimensions, template, emitted, errors):
    """One alarm's or dashboard line's metric must exist: the code's or the platform's."""
    code_namespace, code_dimension, code_value, code_names = emitted
    if namespace == code_namespace:
        if metric not in code_names:
            errors.append(f"{label}: {namespace} {metric} is not a metric the code emits ({', '.join(sorted(code_names))})")
        if dimensions != {code_dimension: code_value}:
            errors.append(f"{label}: dimensions {dimensions} are not the code's {{{code_dimension}: {code_value}}}")
        return
    if namespace not in PLATFORM_METRICS:
        errors.append(f"{label}: namespace {namespace} is neither the code's nor the platform's")
        return
    dimension, names = PLATFORM_METRICS[namespace]
    if metric not in names:
        errors.append(f"{label}: {namespace} has no metric {metric}")
    target = dimensions.get(dimension)
    resource = target.get("Ref") if isinstance(target, dict) else target
    if resource not in template["Resources"] or set(dimensions) != {dimension}:
        errors.append(f"{label}: {namespace} {metric} must be measured on this stack's resource by {dimension}, not {dimensions}")


def check_alarms(template, sources, errors):
    emitted = emitted_metrics(sources or REPOSITORY_SOURCES)
    alarms = {name: r for name, r in template["Resources"].items() if r.get("Type") == "AWS::CloudWatch::Alarm"}
    required = {"Remaining", "Revoked", "Rejected", ("AWS/Lambda", "Errors"), ("AWS/ApiGateway", "5xx")}
    seen = set()
    for name, alarm in alarms.items():
        props = alarm["Properties"]
        dimensions = {d["Name"]: d["Value"] for d in props.get("Dimensions", [])}
        check_metric(f"alarm {name}", props.get("Namespace"), props.get("MetricName"), dimensions, template, emitted, errors)
        seen.add(props.get("MetricName") if props.get("Namespace") == emitted[0] else (props.get("Namespace"), props.get("MetricName")))
        if props.get("AlarmActions") != {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}:
            errors.append(f"alarm {name}: AlarmActions must notify the AlarmTopicArn parameter when it is set")
        if props.get("TreatMissingData") != "notBreaching":
            errors.append(f"alarm {name}: a period without runs or requests must not alarm (TreatMissingData: notBreaching)")
    for missing in sorted(map(str, required - seen)):
        errors.append(f"no alarm on {missing}")
    dashboards = [r for r in template["Resources"].values() if r.get("Type") == "AWS::CloudWatch::Dashboard"]
    if len(dashboards) != 1:
        errors.append(f"expected one dashboard, found {len(dashboards)}")
        return
    body, variables = dashboards[0]["Properties"]["DashboardBody"]["Fn::Sub"]
    for widget in json.loads(re.sub(r"\$\{AWS::Region\}", "us-east-1", body))["widgets"]:
        for line in widget["properties"]["metrics"]:
            namespace, metric, dimension, value = line[:4]
            match = re.fullmatch(r"\$\{(\w+)\}", value)
            resolved = variables.get(match.group(1)) if match else value
            check_metric(f"dashboard '{widget['properties']['title']}'", namespace, metric, {dimension: resolved}, template, emitted, errors)


def check_artifacts(template, build_dir, errors):
    for name in functions(template):
        bootstrap = os.path.join(build_dir, name, "bootstrap")
        if not os.path.isfile(bootstrap) or not os.access(bootstrap, os.X_OK):
            errors.append(f"{bootstrap}: missing or not executable")


def run_checks(template, sources=None, build_dir=None, built=False, access=None):
    errors = []
    check_functions(template, errors, built)
    check_policies(template, errors, access)
    check_token_table(template, errors, sources=sources)
    check_token_store_environment(template, errors, sources)
    check_migration_window(template, errors)
    check_routes(template, errors)
    check_rate(template, errors)
    check_schedule(template, errors, sources)
    check_alarms(template, sources, errors)
    if sources:
        check_environment(template, sources, errors)
    if build_dir:
        check_artifacts(template, build_dir, errors)
    return errors


def self_test(template, access):
    """Each breakage must be reported: a check that cannot fail proves nothing."""
    def mutated(change):
        broken = copy.deepcopy(template)
        change(broken)
        return broken

    def policies(t, function):
        return t["Resources"][function]["Properties"]["Policies"]

    def token_statements(t, function, choice):
        """The statements of the function's token-store policy (its !If) under `choice`."""
        branch = next(policy["Fn::If"] for policy in policies(t, function) if isinstance(policy, dict) and "Fn::If" in policy)
        return branch[1 if choice == "DynamoDB" else 2]["Statement"]

    def shared_statements(t, function):
        return next(policy for policy in policies(t, function) if isinstance(policy, dict) and "Statement" in policy)["Statement"]

    def statement(t, function, choice, sid):
        return next(item for item in token_statements(t, function, choice) if item.get("Sid") == sid)

    def table(t):
        return t["Resources"]["TokensTable"]["Properties"]

    def environment(t):
        return t["Globals"]["Function"]["Environment"]["Variables"]

    def token_policy(t, function):
        return next(policy for policy in policies(t, function) if isinstance(policy, dict) and "Fn::If" in policy)

    def refresh_variables(t):
        return t["Resources"]["TokenRefreshFunction"]["Properties"]["Environment"]["Variables"]

    window = "TokenStore=SecretsManagerWithTable"

    profile, refresh, store, disconnect, fresh = ("UserProfileFunction", "TokenRefreshFunction", "StoreTokensFunction",
                                                  "DisconnectFunction", "FreshTokenFunction")
    decrypt = {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": {"Fn::GetAtt": ["TokensKey", "Arn"]},
               "Condition": access[(store, "dynamodb")]["${TokensKey.Arn}"]["Condition"]}
    breakages = {
        "runtime": lambda t: t["Globals"]["Function"].update(Runtime="provided.al2"),
        "handler": lambda t: t["Resources"]["DisconnectFunction"]["Properties"].update(Handler="main"),
        "profile reads tokens": lambda t: token_statements(t, profile, "SecretsManager")[0].update(
            Action=["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"]),
        "profile wildcard": lambda t: token_statements(t, profile, "SecretsManager")[0].update(Action="secretsmanager:*"),
        "list outside refresh": lambda t: shared_statements(t, profile).append({"Effect": "Allow", "Action": "secretsmanager:ListSecrets", "Resource": "*"}),
        "missing action": lambda t: token_statements(t, disconnect, "SecretsManager")[0].update(Action=["secretsmanager:GetSecretValue"]),
        "managed policy": lambda t: policies(t, store).append("SecretsManagerReadWrite"),
        "TokenStore=DynamoDB: extra action": lambda t: statement(t, disconnect, "DynamoDB", "TokenItems")["Action"].append("dynamodb:DeleteItem"),
        "TokenStore=DynamoDB: missing action": lambda t: statement(t, store, "DynamoDB", "TokenItems")["Action"].remove("dynamodb:PutItem"),
        "TokenStore=DynamoDB: missing KMS action": lambda t: statement(t, fresh, "DynamoDB", "TokenDataKeys")["Action"].remove("kms:GenerateDataKey"),
        "TokenStore=DynamoDB: profile decrypts": lambda t: token_statements(t, profile, "DynamoDB").append(decrypt),
        "TokenStore=DynamoDB: profile decrypts, shared policy": lambda t: shared_statements(t, profile).append(decrypt),
        "TokenStore=DynamoDB: token secrets still granted": lambda t: token_statements(t, store, "DynamoDB").append(
            copy.deepcopy(token_statements(t, store, "SecretsManager")[0])),
        "TokenStore=DynamoDB: ListSecrets kept": lambda t: token_statements(t, refresh, "DynamoDB").append(
            {"Effect": "Allow", "Action": "secretsmanager:ListSecrets", "Resource": "*"}),
        "TokenStore=DynamoDB: wildcard action": lambda t: statement(t, fresh, "DynamoDB", "TokenItems").update(Action="dynamodb:*"),
        "TokenStore=DynamoDB: KMS without the context condition": lambda t: statement(t, disconnect, "DynamoDB", "TokenDataKeys").pop("Condition"),
        "TokenStore=DynamoDB: KMS under another context key": lambda t: statement(t, store, "DynamoDB", "TokenDataKeys")["Condition"].update(
            {"ForAllValues:StringEquals": {"kms:EncryptionContextKeys": "user"}}),
        "TokenStore=DynamoDB: query on the table, not the index": lambda t: statement(t, refresh, "DynamoDB", "DueTokenItems").update(
            Resource={"Fn::GetAtt": ["TokensTable", "Arn"]}),
        "TokenStore=SecretsManager: tokens table granted": lambda t: token_statements(t, profile, "SecretsManager").append(
            {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": {"Fn::GetAtt": ["TokensTable", "Arn"]}}),
        "TokenStore default": lambda t: t["Parameters"]["TokenStore"].update(Default="DynamoDB"),
        "TokenStore choice dropped": lambda t: t["Parameters"]["TokenStore"].update(AllowedValues=["SecretsManager"]),
        "table key differs": lambda t: table(t)["KeySchema"][0].update(AttributeName="id"),
        "table index projection differs": lambda t: table(t)["GlobalSecondaryIndexes"][0]["Projection"].update(ProjectionType="KEYS_ONLY"),
        "table index key type differs": lambda t: table(t)["AttributeDefinitions"][-1].update(AttributeType="S"),
        "table index renamed": lambda t: table(t)["GlobalSecondaryIndexes"][0].update(IndexName="due"),
        "table TTL attribute differs": lambda t: table(t)["TimeToLiveSpecification"].update(AttributeName="expires_at"),
        "table TTL off": lambda t: table(t).pop("TimeToLiveSpecification"),
        "table billing differs": lambda t: table(t).update(BillingMode="PROVISIONED"),
        "table declares more than setup": lambda t: table(t).update(StreamSpecification={"StreamViewType": "NEW_IMAGE"}),
        "table name default differs": lambda t: t["Parameters"]["TokensTableName"].update(Default="tokens"),
        "table not retained": lambda t: t["Resources"]["TokensTable"].update(DeletionPolicy="Delete"),
        "table without point-in-time recovery": lambda t: table(t).pop("PointInTimeRecoverySpecification"),
        "table without SSE": lambda t: table(t).pop("SSESpecification"),
        "table under every choice": lambda t: t["Resources"]["TokensTable"].pop("Condition"),
        "TokenStore window value dropped": lambda t: t["Parameters"]["TokenStore"].update(AllowedValues=["SecretsManager", "DynamoDB"]),
        f"{window}: table missing": lambda t: t["Resources"]["TokensTable"].update(Condition="TokensInDynamoDB"),
        f"{window}: key missing": lambda t: t["Resources"]["TokensKey"].update(Condition="TokensInDynamoDB"),
        f"{window}: table output missing": lambda t: t["Outputs"]["TokenStoreTable"].update(Condition="TokensInDynamoDB"),
        f"{window}: key output missing": lambda t: t["Outputs"].pop("TokenStoreKeyArn"),
        f"{window}: table TTL only under DynamoDB": lambda t: table(t).update(TimeToLiveSpecification={
            "Fn::If": ["TokensInDynamoDB", table(t)["TimeToLiveSpecification"], {"Ref": "AWS::NoValue"}]}),
        f"{window}: table created under SecretsManager too": lambda t: t["Conditions"].update(
            TokensTableCreated={"Fn::Equals": ["same", "same"]}),
        f"{window}: store-tokens switched to the table": lambda t: token_policy(t, store)["Fn::If"].__setitem__(0, "TokensTableCreated"),
        f"{window}: functions' store switched": lambda t: environment(t)["PAYPULSE_STORE"]["Fn::If"].__setitem__(0, "TokensTableCreated"),
        f"{window}: tokens table variable set": lambda t: environment(t)["TOKENS_TABLE"]["Fn::If"].__setitem__(0, "TokensTableCreated"),
        f"{window}: writers get the refresh mode": lambda t: environment(t)["REFRESH_MODE"]["Fn::If"].__setitem__(0, "TokensTableCreated"),
        f"{window}: TokensInDynamoDB holds in the window": lambda t: t["Conditions"].update(
            TokensInDynamoDB={"Fn::Not": [{"Fn::Equals": [{"Ref": "TokenStore"}, "SecretsManager"]}]}),
        f"{window}: a function changes otherwise": lambda t: t["Resources"][refresh]["Properties"].update(
            MemorySize={"Fn::If": ["TokensTableCreated", 1024, 512]}),
        "key not rotated": lambda t: t["Resources"]["TokensKey"]["Properties"].update(EnableKeyRotation=False),
        "key not retained": lambda t: t["Resources"]["TokensKey"].pop("UpdateReplacePolicy"),
        "key policy open to anyone": lambda t: t["Resources"]["TokensKey"]["Properties"]["KeyPolicy"]["Statement"][0].update(Principal={"AWS": "*"}),
        "store variable for both choices": lambda t: environment(t).update(PAYPULSE_STORE="aws"),
        "store variable the code refuses": lambda t: environment(t).update(PAYPULSE_STORE={"Fn::If": ["TokensInDynamoDB", "DynamoDB", "aws"]}),
        "KMS key variable missing": lambda t: environment(t).pop("PAYPULSE_KMS_KEY_ID"),
        "tokens table variable under SecretsManager": lambda t: environment(t).update(TOKENS_TABLE="paypulse-gmail-tokens"),
        "TokenStore=DynamoDB: writers without the refresh mode": lambda t: environment(t).pop("REFRESH_MODE"),
        "TokenStore=DynamoDB: writers with another keep-alive": lambda t: environment(t).update(
            KEEPALIVE_SECONDS={"Fn::If": ["TokensInDynamoDB", "3600", {"Ref": "AWS::NoValue"}]}),
        "extra route": lambda t: t["Resources"]["UserProfileFunction"]["Properties"]["Events"].update(
            Extra={"Type": "HttpApi", "Properties": {"ApiId": {"Ref": "HttpApi"}, "Path": "/v1/user/{proxy+}", "Method": "ANY"}}),
        "bad rate default": lambda t: t["Parameters"]["RefreshSchedule"].update(Default="rate(1 minutes)"),
        "slow rate default": lambda t: t["Parameters"]["RefreshSchedule"].update(Default="rate(1 hour)"),
        "lax rate pattern": lambda t: t["Parameters"]["RefreshSchedule"].update(AllowedPattern="^rate\\(.+\\)$"),
        "shard target dropped": lambda t: t["Resources"]["TokenRefreshSchedule"]["Properties"]["Targets"].pop(),
        "wrong shard input": lambda t: t["Resources"]["TokenRefreshSchedule"]["Properties"]["Targets"][0].update(Input='{"shard": 1, "shards": 1}'),
        "pace over quota": lambda t: t["Mappings"]["RefreshWritePace"]["5"].update(SecretsManager="40"),
        "TokenStore=DynamoDB: pace over a due-index bucket": lambda t: t["Mappings"]["RefreshWritePace"]["1"].update(DynamoDB="2000"),
        "TokenStore=DynamoDB: pace over a due-index bucket at 5 shards": lambda t: t["Mappings"]["RefreshWritePace"]["5"].update(DynamoDB="400"),
        "TokenStore=DynamoDB: pace short of a million eager grants": lambda t: t["Mappings"]["RefreshWritePace"]["3"].update(DynamoDB="200"),
        "TokenStore=DynamoDB: pace left at Secrets Manager's": lambda t: refresh_variables(t).update(
            REFRESH_MAX_WRITES_PER_SECOND={"Fn::FindInMap": ["RefreshWritePace", {"Ref": "RefreshShardCount"}, "SecretsManager"]}),
        f"{window}: DynamoDB pace in the window": lambda t: refresh_variables(t)["REFRESH_MAX_WRITES_PER_SECOND"]["Fn::If"].__setitem__(
            0, "TokensTableCreated"),
        "pace column missing": lambda t: t["Mappings"]["RefreshWritePace"]["2"].pop("DynamoDB"),
        "alarm on a metric nobody emits": lambda t: t["Resources"]["RefreshBacklogAlarm"]["Properties"].update(MetricName="Backlog"),
        "alarm on another dimension": lambda t: t["Resources"]["RevokedSpikeAlarm"]["Properties"]["Dimensions"][0].update(Value="refresh"),
        "alarm on a foreign function": lambda t: t["Resources"]["RefreshFailedAlarm"]["Properties"]["Dimensions"][0].update(Value="other-function"),
        "alarm notifies nobody": lambda t: t["Resources"]["Api5xxAlarm"]["Properties"].pop("AlarmActions"),
        "alarm dropped": lambda t: t["Resources"].pop("RejectedSpikeAlarm"),
        "dashboard metric nobody emits": lambda t: t["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"].__setitem__(
            0, t["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"][0].replace('"Conflicts"', '"Collisions"')),
    }
    # What the code needs comes from `paypulse iam`: a change there must be seen too.
    def needing(function, store, resource, action):
        changed = copy.deepcopy(access)
        statement = changed[(function, store)].setdefault(resource, {"Action": [], "Resource": resource})
        statement["Action"] = sorted(set(statement["Action"]) ^ {action})
        return changed
    code_breakages = {
        "code: user-profile's state opens the value (kms:Decrypt)": needing(profile, "dynamodb", "${TokensKey.Arn}", "kms:Decrypt"),
        "code: create no longer puts (dynamodb:PutItem dropped)": needing(store, "dynamodb", "${TokensTable.Arn}", "dynamodb:PutItem"),
        "code: disconnect untags (secretsmanager:UntagResource)": needing(disconnect, "aws", TOKEN_SETS, "secretsmanager:UntagResource"),
    }
    # The pace's meaning comes from the sources: a change there must be seen too.
    pace_breakages = {
        "code: a refresh takes one permit (twice the refreshes per permit)": ("refresher", "limiter?.acquire(2)", "limiter?.acquire(1)"),
        "code: the due index has 2 buckets": ("index", "static let buckets = 4", "static let buckets = 2"),
        "code: the configuration accepts at most 1,000 permits/s": ("configuration", "range: 1...10_000)", "range: 1...1_000)"),
    }
    texts_by_name = pace_texts(REPOSITORY_SOURCES)
    failures = []
    for label, (name, old, new) in pace_breakages.items():
        if old not in texts_by_name[name]:
            failures.append(f"{label}: {old!r} is no longer in the sources; update the self-test")
            continue
        errors = []
        check_schedule(template, errors, model=pace_model(texts={**texts_by_name, name: texts_by_name[name].replace(old, new, 1)}))
        if not errors:
            failures.append(f"breakage not detected: {label}")
    if run_checks(template, access=access):
        failures.append("the template itself fails the checks")
    for label, change in breakages.items():
        if not run_checks(mutated(change), access=access):
            failures.append(f"breakage not detected: {label}")
    for label, changed in code_breakages.items():
        errors = []
        check_policies(template, errors, changed)
        if not errors:
            failures.append(f"breakage not detected: {label}")
    return failures, len(breakages) + len(code_breakages) + len(pace_breakages)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("template")
    parser.add_argument("--build-dir")
    parser.add_argument("--sources")
    parser.add_argument("--built", action="store_true", help="TEMPLATE is the one `sam build` wrote")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--paypulse", default=PAYPULSE, help="the built paypulse CLI, whose `iam` command says what the code needs")
    arguments = parser.parse_args()
    template = load(arguments.template)
    if arguments.self_test:
        failures, count = self_test(template, code_access(arguments.paypulse))
        for failure in failures:
            print(f"check_template self-test: {failure}", file=sys.stderr)
        print(f"check_template self-test: {count - len(failures)} of {count} breakages detected")
        return 1 if failures else 0
    errors = run_checks(template, arguments.sources, arguments.build_dir, arguments.built, code_access(arguments.paypulse))
    for error in errors:
        print(f"check_template: {error}", file=sys.stderr)
    if errors:
        return 1
    print(f"check_template: {arguments.template} ok ({len(functions(template))} functions, {len(EXPECTED_ROUTES)} routes, "
          f"least privilege under TokenStore={', '.join(token_store_choices(template))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
