#!/usr/bin/env python3
"""Checks template.yaml for what cfn-lint and `sam validate --lint` do not catch.

    check_template.py TEMPLATE [--build-dir .aws-sam/build] [--built]
    check_template.py TEMPLATE --self-test   # each check must flag a broken copy
    (needs the built CLI, .build/debug/paypulse, or --paypulse PATH)

What the code says comes from `paypulse deploy-facts` (JSON printed from the Swift values
themselves: IAM per function and store, store names, variables read, table default name, the
pace's meaning, the refresh metrics); nothing here reads Swift. Each check_* says what it proves:
functions, least privilege under each TokenStore choice, the tokens table and key, the store
variables, the migration window, routes, schedule and pace, environment, alarms, artifacts.
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
PAYPULSE = os.path.join(HERE, "..", ".build", "debug", "paypulse")
TABLE_DEFINITION = os.path.join(HERE, "..", "deploy", "tokens-table.json")
SECRET_ARN = "arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:"
JWT_KEY = SECRET_ARN + "${JwtKeySecretName}-??????"
TOKEN_SETS = SECRET_ARN + "gmail/user/*"
# The store the functions run on under each TokenStore choice, as `paypulse iam --store` names it.
STORE_OF_CHOICE = {"SecretsManager": "aws", "SecretsManagerWithTable": "aws", "DynamoDB": "dynamodb"}
TABLE_CHOICES = {"SecretsManagerWithTable", "DynamoDB"}
TABLE_RESOURCES = {"TokensTable", "TokensKey"}
TABLE_OUTPUTS = {"TokenStoreTable": {"Ref": "TokensTable"}, "TokenStoreKeyArn": {"Fn::GetAtt": ["TokensKey", "Arn"]}}
# What the template may declare on the table beyond deploy/tokens-table.json: protection, no data shape.
TABLE_ONLY_PROPERTIES = {"TableName", "SSESpecification", "PointInTimeRecoverySpecification", "Tags", "DeletionProtectionEnabled"}
EXPECTED_ROUTES = {("POST", "/v1/auth/gmail-tokens"): "StoreTokensFunction", ("GET", "/v1/user/me"): "UserProfileFunction",
                   ("DELETE", "/v1/auth/gmail-tokens"): "DisconnectFunction"}
# Quotas and sizes (docs/perf/capacity.md): Secrets Manager's writes share 50/s per region. One
# refresh on DynamoDB is one UpdateItem (2 table units), its due-index entry deleted and put (2 + 2
# units, in its user's bucket) and one KMS Decrypt. A partition key takes 1,000 units/s (the job
# may use 80 %); KMS takes 10,000 requests/s (the job a tenth); a new on-demand table is warm for
# 4,000 units/s; a million eager grants need 351 refreshes/s.
SECRETS_MANAGER_WRITE_QUOTA = 50
TABLE_UNITS, INDEX_UNITS, KMS_REQUESTS = 2, 4, 1
PARTITION_UNITS, PARTITION_SHARE, KMS_QUOTA, KMS_SHARE, WARM_UNITS, REQUIRED_REFRESHES = 1000, 0.8, 10000, 0.1, 4000, 351
# The DynamoDB store keys its due index by these at every write (GrantDuePolicy.refresh).
DUE_POLICY_VARIABLES = ("REFRESH_MODE", "KEEPALIVE_SECONDS")
REQUIRED_VARIABLES = ("PAYPULSE_STORE", "USERS_TABLE", "PAYPULSE_JWT_SECRET_ID", "GOOGLE_CLIENT_ID_SECRET_ID")
PLATFORM_METRICS = {"AWS/Lambda": ("FunctionName", {"Errors", "Throttles", "Duration", "Invocations"}),
                    "AWS/ApiGateway": ("ApiId", {"5xx", "4xx", "Latency", "IntegrationLatency", "Count"})}
RATE = re.compile(r"^rate\(([1-9]\d*) (minute|minutes|hour|hours|day|days)\)$")
UNIT_SECONDS = {"minute": 60, "hour": 3600, "day": 86400}
NO_VALUE = object()


class CloudFormationLoader(yaml.SafeLoader):
    """Reads short-form intrinsics (!Ref, !Sub, !If, ...) as their long form."""


def _intrinsic(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix in ("Ref", "Condition"):
        return {suffix: value}
    if suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {"Fn::" + suffix: value}


CloudFormationLoader.add_multi_constructor("!", _intrinsic)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.load(handle, Loader=CloudFormationLoader)


def deploy_facts(paypulse=PAYPULSE):
    """What the code says (`paypulse deploy-facts`), with its IAM keyed {(Resource, store): {resource: statement}}."""
    facts = json.loads(subprocess.run([paypulse, "deploy-facts"], check=True, capture_output=True, text=True).stdout)
    facts["access"] = {(resource_name(function), store): {statement["Resource"]: statement for statement in found}
                       for function, stores in facts["iam"].items() for store, found in stores.items()}
    return facts


def resource_name(function):
    """store-tokens -> StoreTokensFunction."""
    return "".join(word.capitalize() for word in function.split("-")) + "Function"


def functions(template):
    return {name: r for name, r in template["Resources"].items() if r.get("Type") == "AWS::Serverless::Function"}


def effective(template, resource, key):
    """A function property, falling back to Globals.Function."""
    properties = resource.get("Properties", {})
    return properties[key] if key in properties else template.get("Globals", {}).get("Function", {}).get(key)


def variables_of(template, resource):
    variables = dict(template.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {}))
    variables.update(resource.get("Properties", {}).get("Environment", {}).get("Variables", {}))
    return variables


def resource_text(resource):
    """A resource as Sub text: !GetAtt R.A is ${R.A}, !Ref X is ${X}."""
    if isinstance(resource, str):
        return resource
    if isinstance(resource, dict) and "Fn::Sub" in resource:
        return resource["Fn::Sub"] if isinstance(resource["Fn::Sub"], str) else resource["Fn::Sub"][0]
    if isinstance(resource, dict) and list(resource) == ["Fn::GetAtt"]:
        return "${" + ".".join(resource["Fn::GetAtt"]) + "}"
    if isinstance(resource, dict) and list(resource) == ["Ref"]:
        return "${" + resource["Ref"] + "}"
    return json.dumps(resource, sort_keys=True)


def as_list(value):
    return value if isinstance(value, list) else [value]


def check_functions(template, facts, errors, built=False):
    found, expected = functions(template), {resource_name(function) for function in facts["functions"]}
    if set(found) != expected:
        errors.append(f"functions are {sorted(found)}, the code has {sorted(expected)}")
    for name, resource in found.items():
        for key, value in (("Runtime", "provided.al2023"), ("Handler", "bootstrap"), ("Architectures", [{"Ref": "Architecture"}]),
                           ("CodeUri", name if built else ".")):  # `sam build` points each at its artifact directory
            if effective(template, resource, key) != value:
                errors.append(f"{name}: {key} must be {value}")
        if resource.get("Metadata", {}).get("BuildMethod") != "makefile":
            errors.append(f"{name}: Metadata.BuildMethod must be makefile")


def token_store_choices(template):
    """{choice: the template as deployed with TokenStore=choice}, every other parameter at its default."""
    parameter = template.get("Parameters", {}).get("TokenStore")
    return {choice: resolve_choice(template, choice) for choice in parameter.get("AllowedValues", [])} if parameter else {}


def resolve_choice(template, choice):
    """The template with every Fn::If decided and AWS::NoValue dropped for TokenStore=choice, and the
    resources and outputs whose Condition is false left out."""
    parameters = {name: spec.get("Default") for name, spec in template.get("Parameters", {}).items()}
    parameters["TokenStore"] = choice

    def decide(node):
        if isinstance(node, list):
            return [item for item in map(decide, node) if item is not NO_VALUE]
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


def normalized_condition(condition):
    """A Condition block with single values as one-item lists and values as strings."""
    if not isinstance(condition, dict):
        return condition
    return {operator: {key: sorted(str(value).lower() if isinstance(value, bool) else str(value) for value in as_list(values))
                       for key, values in block.items()} if isinstance(block, dict) else block
            for operator, block in condition.items()}


def check_policies(template, facts, errors):
    choices = token_store_choices(template)
    if set(choices) != set(STORE_OF_CHOICE):
        errors.append(f"TokenStore allows {sorted(choices)}, expected {sorted(STORE_OF_CHOICE)}")
    if choices and template["Parameters"]["TokenStore"].get("Default") != "SecretsManager":
        errors.append("TokenStore must default to SecretsManager (today's store)")
    executables = {resource_name(function): function for function in facts["functions"]}
    for choice, resolved in ((c, r) for c, r in choices.items() if c in STORE_OF_CHOICE):
        store = STORE_OF_CHOICE[choice]
        for name, resource in functions(resolved).items():
            check_function_policies(f"TokenStore={choice}: {name}", name, resource, facts["access"].get((name, store), {}),
                                    f"paypulse iam {executables.get(name, name)} --store {store}", errors)


def check_function_policies(label, name, resource, expected, command, errors):
    """The function's inline statements grant exactly what the code needs: the same actions on the
    same resources, the same conditions."""
    granted, conditions = {}, {}
    for policy in resource.get("Properties", {}).get("Policies", []) or []:
        if not isinstance(policy, dict) or "Statement" not in policy:
            errors.append(f"{label}: policy {policy!r} is not an inline statement list (managed or SAM policies hide what is allowed)")
            continue
        for statement in policy["Statement"]:
            if statement.get("Effect") != "Allow" or "NotAction" in statement or "NotResource" in statement:
                errors.append(f"{label}: only plain Allow statements with Action and Resource are expected")
                continue
            actions = [str(action) for action in as_list(statement.get("Action", []))]
            errors.extend(f"{label}: wildcard action {action}" for action in actions if "*" in action or "?" in action)
            for arn in as_list(statement.get("Resource", [])):
                granted.setdefault(resource_text(arn), set()).update(actions)
                conditions.setdefault(resource_text(arn), []).append(normalized_condition(statement.get("Condition")))
    if name == "UserProfileFunction":  # the design's promise, whatever the code declares: no token value read
        for text, actions in granted.items():
            if "secretsmanager:GetSecretValue" in actions and text != JWT_KEY or any(a.startswith("kms:") for a in actions):
                errors.append(f"{label}: user-profile must not read or open token values ({sorted(actions)} on {text})")
    wanted = {text: set(statement["Action"]) for text, statement in expected.items()}
    if granted != wanted:
        show = lambda grants: json.dumps({k: sorted(v) for k, v in grants.items()}, sort_keys=True)  # noqa: E731
        errors.append(f"{label}: grants {show(granted)}, its code (`{command}`) needs {show(wanted)}")
    for text, found in conditions.items():
        condition = normalized_condition(expected.get(text, {}).get("Condition"))
        if any(item != condition for item in found):
            errors.append(f"{label}: statements on {text} must carry the condition the code needs: {json.dumps(condition, sort_keys=True)}")


def by_name(items, key):
    return {item.get(key): item for item in items or []}


def check_token_table(template, facts, errors, definition):
    """The tokens table and its key exist under SecretsManagerWithTable and DynamoDB only, and the
    table, as each choice deploys it, is deploy/tokens-table.json's: what `paypulse setup` creates."""
    table, key = template["Resources"].get("TokensTable"), template["Resources"].get("TokensKey")
    if not table or table.get("Type") != "AWS::DynamoDB::Table" or not key or key.get("Type") != "AWS::KMS::Key":
        errors.append("expected an AWS::DynamoDB::Table TokensTable and an AWS::KMS::Key TokensKey")
        return
    for name, resource in (("TokensTable", table), ("TokensKey", key)):
        if resource.get("Condition") != "TokensTableCreated":
            errors.append(f"{name} must have Condition TokensTableCreated (it exists with TokenStore={' and '.join(sorted(TABLE_CHOICES))})")
        if resource.get("DeletionPolicy") != "Retain" or resource.get("UpdateReplacePolicy") != "Retain":
            errors.append(f"{name} must be kept (DeletionPolicy and UpdateReplacePolicy Retain): it holds or opens the users' grants")
    for choice, resolved in token_store_choices(template).items():
        present, wanted = TABLE_RESOURCES & set(resolved["Resources"]), TABLE_RESOURCES if choice in TABLE_CHOICES else set()
        if present != wanted:
            errors.append(f"TokenStore={choice}: the stack creates {sorted(present) or 'neither'} of TokensTable and TokensKey")
        outputs = {name: resolved["Outputs"][name].get("Value") for name in TABLE_OUTPUTS if name in resolved.get("Outputs", {})}
        if outputs != (TABLE_OUTPUTS if choice in TABLE_CHOICES else {}):
            errors.append(f"TokenStore={choice}: outputs {outputs}: `paypulse migrate` needs {TABLE_OUTPUTS} with the table, else none")
        if "TokensTable" in present:
            check_table_definition(resolved["Resources"]["TokensTable"]["Properties"], template, facts, f"TokenStore={choice}: ", errors, definition)
    properties = key.get("Properties", {})
    if properties.get("EnableKeyRotation") is not True:
        errors.append("TokensKey must rotate (EnableKeyRotation: true)")
    if properties.get("KeySpec", "SYMMETRIC_DEFAULT") != "SYMMETRIC_DEFAULT" or properties.get("KeyUsage", "ENCRYPT_DECRYPT") != "ENCRYPT_DECRYPT":
        errors.append("TokensKey must be a symmetric encryption key (GenerateDataKey and Decrypt)")
    root = {"AWS": {"Fn::Sub": "arn:${AWS::Partition}:iam::${AWS::AccountId}:root"}}
    for statement in properties.get("KeyPolicy", {}).get("Statement", []):
        if statement.get("Principal") != root:
            errors.append(f"TokensKey's key policy names {statement.get('Principal')}: only the account (whose IAM policies grant each role its actions)")


def check_table_definition(properties, template, facts, label, errors, definition):
    create, ttl = definition["CreateTable"], definition["UpdateTimeToLive"]
    extra = set(properties) - TABLE_ONLY_PROPERTIES - {"AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "BillingMode",
                                                       "TimeToLiveSpecification"}
    if extra:
        errors.append(label + f"TokensTable declares {sorted(extra)}, which deploy/tokens-table.json (and so `paypulse setup`) does not")
    if properties.get("TableName") != {"Ref": "TokensTableName"}:
        errors.append(label + "TokensTable must be named by the TokensTableName parameter")
    default = template.get("Parameters", {}).get("TokensTableName", {}).get("Default")
    if len({default, create.get("TableName"), ttl.get("TableName"), facts["tokens_table_default"]}) != 1:
        errors.append(label + f"TokensTableName defaults to {default!r}; deploy/tokens-table.json names {create.get('TableName')!r} and "
                      f"{ttl.get('TableName')!r}, TOKENS_TABLE defaults to {facts['tokens_table_default']!r}: all must agree")
    same = (("KeySchema", properties.get("KeySchema"), create["KeySchema"]), ("BillingMode", properties.get("BillingMode"), create["BillingMode"]),
            ("AttributeDefinitions", by_name(properties.get("AttributeDefinitions"), "AttributeName"), by_name(create["AttributeDefinitions"], "AttributeName")),
            ("GlobalSecondaryIndexes", by_name(properties.get("GlobalSecondaryIndexes"), "IndexName"), by_name(create.get("GlobalSecondaryIndexes"), "IndexName")),
            ("TimeToLiveSpecification", properties.get("TimeToLiveSpecification"), ttl["TimeToLiveSpecification"]))
    for what, found, wanted in same:
        if found != wanted:
            errors.append(label + f"TokensTable {what} {found} is not setup's {wanted}")
    if properties.get("SSESpecification", {}).get("SSEEnabled") is not True:
        errors.append(label + "TokensTable must have server-side encryption on (SSESpecification.SSEEnabled: true)")
    if properties.get("PointInTimeRecoverySpecification", {}).get("PointInTimeRecoveryEnabled") is not True:
        errors.append(label + "TokensTable must have point-in-time recovery on")


def check_token_store_environment(template, facts, errors):
    """Under each choice every function gets a store the code knows, and the table and key variables
    exactly when the DynamoDB store reads them; under DynamoDB every function runs with token-refresh's
    refresh mode, which keys the due index at each write."""
    wanted = {"SecretsManager": {"PAYPULSE_STORE": "aws"}, "SecretsManagerWithTable": {"PAYPULSE_STORE": "aws"},
              "DynamoDB": {"PAYPULSE_STORE": "dynamodb", "TOKENS_TABLE": {"Ref": "TokensTable"}, "PAYPULSE_KMS_KEY_ID": {"Fn::GetAtt": ["TokensKey", "Arn"]}}}
    for choice, resolved in token_store_choices(template).items():
        refresh = variables_of(resolved, resolved["Resources"].get("TokenRefreshFunction", {}))
        for name, resource in functions(resolved).items():
            variables = variables_of(resolved, resource)
            for variable in DUE_POLICY_VARIABLES if choice == "DynamoDB" else ():
                if variable not in refresh or variables.get(variable) != refresh[variable]:
                    errors.append(f"TokenStore=DynamoDB: {name} has {variable}={variables.get(variable)}, token-refresh "
                                  f"{refresh.get(variable)}: the due index is keyed by the refresh mode at every write")
            found = {v: variables[v] for v in ("PAYPULSE_STORE", "TOKENS_TABLE", "PAYPULSE_KMS_KEY_ID") if v in variables}
            if found != wanted.get(choice):
                errors.append(f"TokenStore={choice}: {name} has {found}, expected {wanted.get(choice)}")
            if found.get("PAYPULSE_STORE") not in facts["stores"]:
                errors.append(f"TokenStore={choice}: {name}: PAYPULSE_STORE={found.get('PAYPULSE_STORE')} is not one of the code's stores {facts['stores']}")


def check_migration_window(template, errors):
    """TokenStore=SecretsManagerWithTable deploys the SecretsManager stack exactly, plus the tokens
    table, its key and their two outputs, so `paypulse migrate` can fill the table while the
    functions still run on Secrets Manager."""
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
        if before != after:
            names = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n)) if isinstance(before, dict) and isinstance(after, dict) else []
            errors.append(f"TokenStore=SecretsManagerWithTable: {section} {', '.join(names)} differ from TokenStore=SecretsManager's: {adds}")


def check_routes(template, errors):
    routes = {}
    for name, resource in functions(template).items():
        for event_name, event in (resource.get("Properties", {}).get("Events") or {}).items():
            properties = event.get("Properties", {})
            if event.get("Type") != "HttpApi" or properties.get("ApiId") != {"Ref": "HttpApi"}:
                errors.append(f"{name}.{event_name}: only HttpApi routes on !Ref HttpApi are expected")
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
    return None if (count == 1) != (unit == singular) else count * UNIT_SECONDS[singular]


def check_rate(template, facts, errors):
    parameter = template["Parameters"]["RefreshSchedule"]
    default, window = parameter["Default"], facts["refresh"]["window_seconds_default"]
    seconds = rate_seconds(default)
    if seconds is None:
        errors.append(f"RefreshSchedule default {default!r} is not a valid EventBridge rate expression")
    elif seconds * 2 > window:
        errors.append(f"RefreshSchedule default {default!r} runs less than twice per {window} s refresh window")
    pattern = parameter.get("AllowedPattern")
    if not pattern:
        errors.append("RefreshSchedule has no AllowedPattern")
        return
    # CloudFormation matches the whole value; the pattern must agree with EventBridge's syntax.
    for sample in [default, "rate(1 minute)", "rate(5 minutes)", "rate(1 hour)", "rate(12 hours)", "rate(1 day)", "rate(10 minutes)",
                   "rate(0 minutes)", "rate(1 minutes)", "rate(5 minute)", "rate(5 mins)", "rate(5minutes)", "rate(05 minutes)",
                   "cron(0 * * * ? *)", "rate(5 minutes) ", ""]:
        accepted = re.fullmatch(pattern, sample) is not None
        if accepted != (rate_seconds(sample) is not None):
            errors.append(f"RefreshSchedule AllowedPattern {'accepts' if accepted else 'refuses'} {sample!r}")


class Unresolvable(Exception):
    pass


def evaluate(node, template, parameters):
    """Resolves the intrinsics the schedule and the conditions use, for given parameter values."""
    if isinstance(node, list):
        return [item for item in (evaluate(item, template, parameters) for item in node) if item is not NO_VALUE]
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
        if key in ("Fn::Not", "Fn::And", "Fn::Or"):
            results = [evaluate(item, template, parameters) for item in value]
            return not results[0] if key == "Fn::Not" else all(results) if key == "Fn::And" else any(results)
        if key == "Fn::If":
            condition, then, otherwise = value
            return evaluate(then if evaluate(template["Conditions"][condition], template, parameters) else otherwise, template, parameters)
        if key == "Fn::Sub" and isinstance(value, str):
            def substitute(match):
                if match.group(1) in parameters:
                    return str(parameters[match.group(1)])
                raise Unresolvable(match.group(1))
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


def check_pace(label, choice, pace, n, refresh, errors):
    """One shard count's REFRESH_MAX_WRITES_PER_SECOND under one choice: the n shards' runs at once."""
    low, high = refresh["writes_per_second_accepted"]
    if not low <= pace <= high:
        errors.append(f"{label}: REFRESH_MAX_WRITES_PER_SECOND={pace}, the code accepts {low} to {high}")
    if STORE_OF_CHOICE.get(choice) == "aws":
        if pace * n >= SECRETS_MANAGER_WRITE_QUOTA:
            errors.append(f"{label}: {n} runs at {pace} writes/s reach the {SECRETS_MANAGER_WRITE_QUOTA}/s Secrets Manager quota")
        return
    refreshes = pace * n / refresh["permits_per_write"]
    bounds = [("write units/s on each due-index bucket", refreshes * INDEX_UNITS / refresh["due_index_buckets"], PARTITION_SHARE * PARTITION_UNITS),
              ("KMS requests/s", refreshes * KMS_REQUESTS, KMS_SHARE * KMS_QUOTA), ("table write units/s", refreshes * TABLE_UNITS, WARM_UNITS),
              ("due-index write units/s", refreshes * INDEX_UNITS, WARM_UNITS)]
    for what, value, bound in bounds:
        if value > bound:
            errors.append(f"{label}: {n} runs at {pace} permits/s ({refreshes:g} refreshes/s) make {value:g} {what}, over {bound:g}")
    if refreshes < REQUIRED_REFRESHES:
        errors.append(f"{label}: {n} runs at {pace} permits/s refresh {refreshes:g} grants/s, under the {REQUIRED_REFRESHES}/s "
                      f"a million eager grants need: size the DynamoDB pace for DynamoDB")


def check_schedule(template, facts, errors):
    resources = template["Resources"]
    rules = {name: r for name, r in resources.items() if r.get("Type") == "AWS::Events::Rule"}
    if list(rules) != ["TokenRefreshSchedule"]:
        errors.append(f"expected one schedule rule TokenRefreshSchedule, found {sorted(rules)}")
        return
    rule = rules["TokenRefreshSchedule"]["Properties"]
    if rule.get("ScheduleExpression") != {"Ref": "RefreshSchedule"}:
        errors.append("TokenRefreshSchedule must use !Ref RefreshSchedule")
    if not any(r["Properties"].get("SourceArn") == {"Fn::GetAtt": ["TokenRefreshSchedule", "Arn"]} and r["Properties"].get("Principal") == "events.amazonaws.com"
               and r["Properties"].get("FunctionName") == {"Ref": "TokenRefreshFunction"} for r in resources.values() if r.get("Type") == "AWS::Lambda::Permission"):
        errors.append("no Lambda permission lets TokenRefreshSchedule invoke TokenRefreshFunction")
    counts = template["Parameters"]["RefreshShardCount"].get("AllowedValues", [])
    if not counts:
        errors.append("RefreshShardCount needs AllowedValues")
    pace_node = resources["TokenRefreshFunction"]["Properties"].get("Environment", {}).get("Variables", {}).get("REFRESH_MAX_WRITES_PER_SECOND")
    defaults = {name: spec.get("Default") for name, spec in template.get("Parameters", {}).items()}
    for count in counts:
        n = int(count)
        try:
            targets = evaluate(rule["Targets"], template, {"RefreshShardCount": count})
        except Unresolvable as error:
            errors.append(f"schedule targets use {error} beyond the shard count")
            continue
        if len(targets) != n or n > 5 or len({t.get("Id") for t in targets}) != n:
            errors.append(f"RefreshShardCount={count}: {len(targets)} targets, expected {n} with distinct ids (an EventBridge rule takes at most 5)")
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
        for choice in template["Parameters"].get("TokenStore", {}).get("AllowedValues", ["SecretsManager"]):
            label = f"TokenStore={choice}, RefreshShardCount={count}"
            try:
                pace = int(evaluate(pace_node, template, {**defaults, "RefreshShardCount": count, "TokenStore": choice}))
            except (Unresolvable, TypeError, ValueError) as error:
                errors.append(f"{label}: REFRESH_MAX_WRITES_PER_SECOND does not resolve to a number ({error})")
                continue
            check_pace(label, choice, pace, n, facts["refresh"], errors)


def check_environment(template, facts, errors):
    names = set().union(*(variables_of(template, resource) for resource in functions(template).values()))
    for name in sorted(names - set(facts["environment"])):
        errors.append(f"environment variable {name} is one the configuration never reads (`paypulse deploy-facts`)")
    errors.extend(f"environment variable {name} is not set" for name in REQUIRED_VARIABLES if name not in names)


def check_metric(label, namespace, metric, dimensions, template, emitted, errors):
    """One alarm's or dashboard line's metric must exist: the code's or the platform's."""
    if namespace == emitted["namespace"]:
        if metric not in emitted["names"]:
            errors.append(f"{label}: {namespace} {metric} is not a metric the code emits ({', '.join(sorted(emitted['names']))})")
        if dimensions != emitted["dimensions"]:
            errors.append(f"{label}: dimensions {dimensions} are not the code's {emitted['dimensions']}")
        return
    if namespace not in PLATFORM_METRICS:
        errors.append(f"{label}: namespace {namespace} is neither the code's nor the platform's")
        return
    dimension, names = PLATFORM_METRICS[namespace]
    if metric not in names:
        errors.append(f"{label}: {namespace} has no metric {metric}")
    target = dimensions.get(dimension)
    if (target.get("Ref") if isinstance(target, dict) else target) not in template["Resources"] or set(dimensions) != {dimension}:
        errors.append(f"{label}: {namespace} {metric} must be measured on this stack's resource by {dimension}, not {dimensions}")


def check_alarms(template, facts, errors):
    emitted = facts["metrics"]
    alarms = {name: r for name, r in template["Resources"].items() if r.get("Type") == "AWS::CloudWatch::Alarm"}
    required, seen = {"Remaining", "Revoked", "Rejected", ("AWS/Lambda", "Errors"), ("AWS/ApiGateway", "5xx")}, set()
    for name, alarm in alarms.items():
        props = alarm["Properties"]
        dimensions = {d["Name"]: d["Value"] for d in props.get("Dimensions", [])}
        check_metric(f"alarm {name}", props.get("Namespace"), props.get("MetricName"), dimensions, template, emitted, errors)
        seen.add(props.get("MetricName") if props.get("Namespace") == emitted["namespace"] else (props.get("Namespace"), props.get("MetricName")))
        if props.get("AlarmActions") != {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}:
            errors.append(f"alarm {name}: AlarmActions must notify the AlarmTopicArn parameter when it is set")
        if props.get("TreatMissingData") != "notBreaching":
            errors.append(f"alarm {name}: a period without runs or requests must not alarm (TreatMissingData: notBreaching)")
    errors.extend(f"no alarm on {missing}" for missing in sorted(map(str, required - seen)))
    dashboards = [r for r in template["Resources"].values() if r.get("Type") == "AWS::CloudWatch::Dashboard"]
    if len(dashboards) != 1:
        errors.append(f"expected one dashboard, found {len(dashboards)}")
        return
    body, variables = dashboards[0]["Properties"]["DashboardBody"]["Fn::Sub"]
    for widget in json.loads(body.replace("${AWS::Region}", "us-east-1"))["widgets"]:
        for namespace, metric, dimension, value in (line[:4] for line in widget["properties"]["metrics"]):
            resolved = variables.get(value[2:-1]) if value.startswith("${") and value.endswith("}") else value
            check_metric(f"dashboard '{widget['properties']['title']}'", namespace, metric, {dimension: resolved}, template, emitted, errors)


def run_checks(template, facts, build_dir=None, built=False, definition=None):
    errors = []
    check_functions(template, facts, errors, built)
    check_policies(template, facts, errors)
    with open(TABLE_DEFINITION, encoding="utf-8") as handle:
        check_token_table(template, facts, errors, definition or json.load(handle))
    check_token_store_environment(template, facts, errors)
    check_migration_window(template, errors)
    check_routes(template, errors)
    check_rate(template, facts, errors)
    check_schedule(template, facts, errors)
    check_environment(template, facts, errors)
    check_alarms(template, facts, errors)
    for name in functions(template) if build_dir else ():
        bootstrap = os.path.join(build_dir, name, "bootstrap")
        if not os.path.isfile(bootstrap) or not os.access(bootstrap, os.X_OK):
            errors.append(f"{bootstrap}: missing or not executable")
    return errors


def at(node, path):
    """The node at a slash path ("Resources/TokensTable/Properties/KeySchema/0")."""
    for key in filter(None, path.split("/")):
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def put(path, value):
    parent, _, key = path.rpartition("/")
    return lambda t: at(t, parent).__setitem__(int(key) if isinstance(at(t, parent), list) else key, copy.deepcopy(value))


def drop(path):
    parent, _, key = path.rpartition("/")
    return lambda t: at(t, parent).pop(int(key) if isinstance(at(t, parent), list) else key)


def self_test(template, facts):
    """Each breakage, of the template or of what the code says, must be reported: a check that cannot
    fail proves nothing. Token policies are each function's !If: [1] under DynamoDB, [2] otherwise."""
    def policy(function, choice="DynamoDB", shared=False):
        policies = template["Resources"][function]["Properties"]["Policies"]
        index = next(i for i, item in enumerate(policies) if isinstance(item, dict) and ("Statement" in item) == shared)
        return f"Resources/{function}/Properties/Policies/{index}" + ("" if shared else f"/Fn::If/{1 if choice == 'DynamoDB' else 2}")

    def sid(function, name):
        return policy(function) + f"/Statement/{next(i for i, s in enumerate(at(template, policy(function) + '/Statement')) if s.get('Sid') == name)}"

    def add(path, item):
        return lambda t: at(t, path).append(copy.deepcopy(item))

    profile, refresh, store, disconnect, fresh = ("UserProfileFunction", "TokenRefreshFunction", "StoreTokensFunction", "DisconnectFunction", "FreshTokenFunction")
    table, env, key = "Resources/TokensTable/Properties/", "Globals/Function/Environment/Variables/", "Resources/TokensKey/"
    pace, window, alarm = "Mappings/RefreshWritePace/", "TokenStore=SecretsManagerWithTable: ", "Resources/{}/Properties/"
    decrypt = {"Effect": "Allow", "Action": "kms:Decrypt", "Resource": {"Fn::GetAtt": ["TokensKey", "Arn"]},
               "Condition": facts["access"][(store, "dynamodb")]["${TokensKey.Arn}"]["Condition"]}
    list_secrets = {"Effect": "Allow", "Action": "secretsmanager:ListSecrets", "Resource": "*"}
    pace_at_secrets_manager = {"Fn::FindInMap": ["RefreshWritePace", {"Ref": "RefreshShardCount"}, "SecretsManager"]}
    body = at(template, "Resources/Dashboard/Properties/DashboardBody/Fn::Sub/0")
    breakages = {
        "runtime": put("Globals/Function/Runtime", "provided.al2"),
        "handler": put(f"Resources/{disconnect}/Properties/Handler", "main"),
        "profile reads tokens": put(policy(profile, "SecretsManager") + "/Statement/0/Action", ["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"]),
        "profile wildcard": put(policy(profile, "SecretsManager") + "/Statement/0/Action", "secretsmanager:*"),
        "list outside refresh": add(policy(profile, shared=True) + "/Statement", list_secrets),
        "missing action": put(policy(disconnect, "SecretsManager") + "/Statement/0/Action", ["secretsmanager:GetSecretValue"]),
        "managed policy": add(f"Resources/{store}/Properties/Policies", "SecretsManagerReadWrite"),
        "DynamoDB: extra action": add(sid(disconnect, "TokenItems") + "/Action", "dynamodb:DeleteItem"),
        "DynamoDB: missing KMS action": drop(sid(fresh, "TokenDataKeys") + "/Action/0"),
        "DynamoDB: profile decrypts": add(policy(profile) + "/Statement", decrypt),
        "DynamoDB: profile decrypts, shared policy": add(policy(profile, shared=True) + "/Statement", decrypt),
        "DynamoDB: token secrets still granted": add(policy(store) + "/Statement", at(template, policy(store, "SecretsManager") + "/Statement/0")),
        "DynamoDB: ListSecrets kept": add(policy(refresh) + "/Statement", list_secrets),
        "DynamoDB: KMS without the context condition": drop(sid(disconnect, "TokenDataKeys") + "/Condition"),
        "DynamoDB: KMS under another context key": put(sid(store, "TokenDataKeys") + "/Condition/ForAllValues:StringEquals", {"kms:EncryptionContextKeys": "user"}),
        "DynamoDB: query on the table, not the index": put(sid(refresh, "DueTokenItems") + "/Resource", {"Fn::GetAtt": ["TokensTable", "Arn"]}),
        "SecretsManager: tokens table granted": add(policy(profile, "SecretsManager") + "/Statement",
                                                    {"Effect": "Allow", "Action": "dynamodb:GetItem", "Resource": {"Fn::GetAtt": ["TokensTable", "Arn"]}}),
        "TokenStore default": put("Parameters/TokenStore/Default", "DynamoDB"),
        "TokenStore window value dropped": put("Parameters/TokenStore/AllowedValues", ["SecretsManager", "DynamoDB"]),
        "table key differs": put(table + "KeySchema/0/AttributeName", "id"),
        "table index projection differs": put(table + "GlobalSecondaryIndexes/0/Projection/ProjectionType", "KEYS_ONLY"),
        "table index key type differs": put(table + "AttributeDefinitions/-1/AttributeType", "S"),
        "table TTL off": drop(table + "TimeToLiveSpecification"),
        "table billing differs": put(table + "BillingMode", "PROVISIONED"),
        "table declares more than setup": put(table + "StreamSpecification", {"StreamViewType": "NEW_IMAGE"}),
        "table name default differs": put("Parameters/TokensTableName/Default", "tokens"),
        "table not retained": put("Resources/TokensTable/DeletionPolicy", "Delete"),
        "table without point-in-time recovery": drop(table + "PointInTimeRecoverySpecification"),
        "table without SSE": drop(table + "SSESpecification"),
        "table under every choice": drop("Resources/TokensTable/Condition"),
        window + "table missing": put("Resources/TokensTable/Condition", "TokensInDynamoDB"),
        window + "key output missing": drop("Outputs/TokenStoreKeyArn"),
        window + "table TTL only under DynamoDB": put(table + "TimeToLiveSpecification", {
            "Fn::If": ["TokensInDynamoDB", at(template, table + "TimeToLiveSpecification"), {"Ref": "AWS::NoValue"}]}),
        window + "table created under SecretsManager too": put("Conditions/TokensTableCreated", {"Fn::Equals": ["same", "same"]}),
        window + "store-tokens switched to the table": put(policy(store, shared=False).rsplit("/", 1)[0] + "/0", "TokensTableCreated"),
        window + "functions' store switched": put(env + "PAYPULSE_STORE/Fn::If/0", "TokensTableCreated"),
        window + "writers get the refresh mode": put(env + "REFRESH_MODE/Fn::If/0", "TokensTableCreated"),
        window + "a function changes otherwise": put(f"Resources/{refresh}/Properties/MemorySize", {"Fn::If": ["TokensTableCreated", 1024, 512]}),
        window + "DynamoDB pace in the window": put(alarm.format(refresh) + "Environment/Variables/REFRESH_MAX_WRITES_PER_SECOND/Fn::If/0", "TokensTableCreated"),
        "key not rotated": put(key + "Properties/EnableKeyRotation", False),
        "key not retained": drop(key + "UpdateReplacePolicy"),
        "key policy open to anyone": put(key + "Properties/KeyPolicy/Statement/0/Principal", {"AWS": "*"}),
        "store variable for both choices": put(env + "PAYPULSE_STORE", "aws"),
        "store variable the code refuses": put(env + "PAYPULSE_STORE", {"Fn::If": ["TokensInDynamoDB", "DynamoDB", "aws"]}),
        "KMS key variable missing": drop(env + "PAYPULSE_KMS_KEY_ID"),
        "tokens table variable under SecretsManager": put(env + "TOKENS_TABLE", "paypulse-gmail-tokens"),
        "variable the code never reads": put(env + "PAYPULSE_JWT_ISSUERS", "x"),
        "DynamoDB: writers with another keep-alive": put(env + "KEEPALIVE_SECONDS", {"Fn::If": ["TokensInDynamoDB", "3600", {"Ref": "AWS::NoValue"}]}),
        "extra route": put(alarm.format(profile) + "Events/Extra", {"Type": "HttpApi", "Properties": {"ApiId": {"Ref": "HttpApi"}, "Path": "/v1/user/{proxy+}", "Method": "ANY"}}),
        "bad rate default": put("Parameters/RefreshSchedule/Default", "rate(1 minutes)"),
        "slow rate default": put("Parameters/RefreshSchedule/Default", "rate(1 hour)"),
        "lax rate pattern": put("Parameters/RefreshSchedule/AllowedPattern", "^rate\\(.+\\)$"),
        "shard target dropped": drop(alarm.format("TokenRefreshSchedule") + "Targets/-1"),
        "wrong shard input": put(alarm.format("TokenRefreshSchedule") + "Targets/0/Input", '{"shard": 1, "shards": 1}'),
        "pace over quota": put(pace + "5/SecretsManager", "40"),
        "DynamoDB: pace over a due-index bucket": put(pace + "1/DynamoDB", "2000"),
        "DynamoDB: pace short of a million eager grants": put(pace + "3/DynamoDB", "200"),
        "DynamoDB: pace left at Secrets Manager's": put(alarm.format(refresh) + "Environment/Variables/REFRESH_MAX_WRITES_PER_SECOND", pace_at_secrets_manager),
        "pace column missing": drop(pace + "2/DynamoDB"),
        "alarm on a metric nobody emits": put(alarm.format("RefreshBacklogAlarm") + "MetricName", "Backlog"),
        "alarm on another dimension": put(alarm.format("RevokedSpikeAlarm") + "Dimensions/0/Value", "refresh"),
        "alarm notifies nobody": drop(alarm.format("Api5xxAlarm") + "AlarmActions"),
        "alarm dropped": drop("Resources/RejectedSpikeAlarm"),
        "dashboard metric nobody emits": put("Resources/Dashboard/Properties/DashboardBody/Fn::Sub/0", body.replace('"Conflicts"', '"Collisions"')),
    }

    def toggle(function, store_name, resource, action):
        def change(f):
            statement = f["access"][(function, store_name)].setdefault(resource, {"Action": [], "Resource": resource})
            statement["Action"] = sorted(set(statement["Action"]) ^ {action})
        return change
    code_breakages = {  # what the code says, changed: the template, unchanged, must no longer pass
        "code: user-profile's state opens the value (kms:Decrypt)": toggle(profile, "dynamodb", "${TokensKey.Arn}", "kms:Decrypt"),
        "code: create no longer puts (dynamodb:PutItem dropped)": toggle(store, "dynamodb", "${TokensTable.Arn}", "dynamodb:PutItem"),
        "code: disconnect untags (secretsmanager:UntagResource)": toggle(disconnect, "aws", TOKEN_SETS, "secretsmanager:UntagResource"),
        "code: a write takes one permit (twice the refreshes per permit)": put("refresh/permits_per_write", 1),
        "code: the due index has 2 buckets": put("refresh/due_index_buckets", 2),
        "code: the configuration accepts at most 1,000 permits/s": put("refresh/writes_per_second_accepted", [1, 1000]),
        "code: the refresh window is 60 s": put("refresh/window_seconds_default", 60),
        "code: the tokens table defaults to another name": put("tokens_table_default", "tokens"),
        "code: the store is named secretsmanager": put("stores", ["embedded", "secretsmanager", "dynamodb"]),
        "code: the configuration no longer reads LOG_LEVEL": lambda f: f["environment"].remove("LOG_LEVEL"),
        "code: the Conflicts metric is renamed": lambda f: f["metrics"]["names"].remove("Conflicts"),
        "code: the metrics' dimension is FunctionName": put("metrics/dimensions", {"FunctionName": "token-refresh"}),
        "code: another function": lambda f: f["functions"].append("security-events"),
    }
    failures = ["the template itself fails the checks: " + "; ".join(errors) for errors in [run_checks(template, facts)] if errors]
    for label, change, broken, changed in [(label, change, copy.deepcopy(template), facts) for label, change in breakages.items()] + \
            [(label, change, template, copy.deepcopy(facts)) for label, change in code_breakages.items()]:
        change(broken if changed is facts else changed)
        if not run_checks(broken, changed):
            failures.append(f"breakage not detected: {label}")
    return failures, len(breakages) + len(code_breakages)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("template")
    parser.add_argument("--build-dir")
    parser.add_argument("--built", action="store_true", help="TEMPLATE is the one `sam build` wrote")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--paypulse", default=PAYPULSE, help="the built paypulse CLI, whose `deploy-facts` says what the code needs")
    arguments = parser.parse_args()
    template, facts = load(arguments.template), deploy_facts(arguments.paypulse)
    if arguments.self_test:
        failures, count = self_test(template, facts)
        for failure in failures:
            print(f"check_template self-test: {failure}", file=sys.stderr)
        print(f"check_template self-test: {count - len(failures)} of {count} breakages detected")
        return 1 if failures else 0
    errors = run_checks(template, facts, arguments.build_dir, arguments.built)
    for error in errors:
        print(f"check_template: {error}", file=sys.stderr)
    if errors:
        return 1
    print(f"check_template: {arguments.template} ok ({len(functions(template))} functions, {len(EXPECTED_ROUTES)} routes, "
          f"least privilege under TokenStore={', '.join(token_store_choices(template))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
