#!/usr/bin/env python3
"""Checks template.yaml for what cfn-lint and `sam validate --lint` do not catch.

    check_template.py TEMPLATE [--build-dir .aws-sam/build] [--sources Sources]
    check_template.py .aws-sam/build/template.yaml --built --build-dir .aws-sam/build
    check_template.py TEMPLATE --self-test   # each check must flag a broken copy

Checks: the five functions (Runtime provided.al2023, Handler bootstrap, makefile build,
the Architecture parameter); least privilege (each function's Secrets Manager and
DynamoDB actions are exactly the ones its code calls, user-profile reads no token value,
ListSecrets only for token-refresh, no wildcard action, Resource "*" only for ListSecrets);
exactly the three routes on the one HTTP API; the refresh schedule (the default rate is a
valid EventBridge rate shorter than the refresh window, and for every allowed shard count
the rule has one target per shard with input {"shard": i, "shards": n}, paced under the
Secrets Manager write quota); every environment variable is one the sources read; the
alarms and the dashboard name only metrics that exist (the EMF metrics the refresh code
emits, in its namespace and dimension; the Lambda and API Gateway metrics of this stack's
own function and API) and every alarm notifies the AlarmTopicArn parameter when set; each
built artifact directory holds an executable bootstrap.
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
TOKEN_SETS = SECRET_ARN + "gmail/user/*"
JWT_KEY = SECRET_ARN + "${JwtKeySecretName}-??????"
CLIENT_ID = SECRET_ARN + "${GoogleClientIdSecretName}-??????"
USERS_TABLE = "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${Table}"

# What each function's code calls (TokenVault, TokenVault+Store, RefreshJob,
# TokenRefresher, GoogleClientID, AWSSecretStore.replaceCurrent, the handlers), by resource.
EXPECTED_ACCESS = {
    "StoreTokensFunction": {
        TOKEN_SETS: {"GetSecretValue", "CreateSecret", "PutSecretValue", "UpdateSecretVersionStage",
                     "DescribeSecret", "TagResource", "RestoreSecret"},
        JWT_KEY: {"GetSecretValue"},
        CLIENT_ID: {"GetSecretValue"},
    },
    "UserProfileFunction": {
        TOKEN_SETS: {"DescribeSecret"},
        JWT_KEY: {"GetSecretValue"},
        USERS_TABLE: {"dynamodb:GetItem"},
    },
    "DisconnectFunction": {
        TOKEN_SETS: {"GetSecretValue", "PutSecretValue", "UpdateSecretVersionStage", "DescribeSecret", "TagResource",
                     "DeleteSecret"},
        JWT_KEY: {"GetSecretValue"},
    },
    "FreshTokenFunction": {
        TOKEN_SETS: {"GetSecretValue", "PutSecretValue", "UpdateSecretVersionStage", "DescribeSecret", "TagResource"},
        CLIENT_ID: {"GetSecretValue"},
    },
    "TokenRefreshFunction": {
        "*": {"ListSecrets"},
        TOKEN_SETS: {"GetSecretValue", "PutSecretValue", "UpdateSecretVersionStage", "DescribeSecret", "TagResource"},
        CLIENT_ID: {"GetSecretValue"},
    },
}
EXPECTED_ROUTES = {
    ("POST", "/v1/auth/gmail-tokens"): "StoreTokensFunction",
    ("GET", "/v1/user/me"): "UserProfileFunction",
    ("DELETE", "/v1/auth/gmail-tokens"): "DisconnectFunction",
}
# Secrets Manager: PutSecretValue + UpdateSecretVersionStage (+ UpdateSecret) share 50/s per region.
SECRETS_MANAGER_WRITE_QUOTA = 50
REFRESH_WINDOW_SECONDS = 900  # REFRESH_WINDOW_SECONDS' default (Sources/Configuration/ServiceSettings.swift)
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
    if isinstance(resource, str):
        return resource
    if isinstance(resource, dict) and "Fn::Sub" in resource:
        sub = resource["Fn::Sub"]
        return sub if isinstance(sub, str) else sub[0]
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
    if set(found) != set(EXPECTED_ACCESS):
        errors.append(f"functions are {sorted(found)}, expected {sorted(EXPECTED_ACCESS)}")
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


def check_policies(template, errors):
    for name, resource in functions(template).items():
        granted = {}
        for statement, problem in statements(resource):
            if problem:
                errors.append(f"{name}: {problem}")
                continue
            if statement.get("Effect") != "Allow" or "NotAction" in statement or "NotResource" in statement:
                errors.append(f"{name}: only plain Allow statements with Action and Resource are expected")
                continue
            actions = [str(action) for action in as_list(statement.get("Action", []))]
            for action in actions:
                if "*" in action or "?" in action:
                    errors.append(f"{name}: wildcard action {action}")
            for resource_arn in as_list(statement.get("Resource", [])):
                text = resource_text(resource_arn)
                if text == "*" and any(action != "secretsmanager:ListSecrets" for action in actions):
                    errors.append(f"{name}: Resource \"*\" for {actions}: only ListSecrets takes no resource")
                short = {action.split(":", 1)[1] if action.startswith("secretsmanager:") else action for action in actions}
                granted.setdefault(text, set()).update(short)
        # Any GetSecretValue that could reach a token set (whatever its resource's spelling).
        if name == "UserProfileFunction":
            for text, actions in granted.items():
                if "GetSecretValue" in actions and text != JWT_KEY:
                    errors.append(f"{name}: GetSecretValue on {text}: user-profile must not read token values")
        for text, actions in granted.items():
            if "ListSecrets" in actions and name != "TokenRefreshFunction":
                errors.append(f"{name}: ListSecrets is only for token-refresh")
        expected = EXPECTED_ACCESS.get(name)
        if expected is not None and granted != expected:
            errors.append(f"{name}: grants {json.dumps({k: sorted(v) for k, v in granted.items()}, sort_keys=True)}, "
                          f"its code calls {json.dumps({k: sorted(v) for k, v in expected.items()}, sort_keys=True)}")


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
    return {key: evaluate(value, template, parameters) for key, value in node.items()}


NO_VALUE = object()


def check_schedule(template, errors):
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
        mapping, key, attribute = pace_node["Fn::FindInMap"]
        pace = int(template["Mappings"][mapping][evaluate(key, template, parameters)][attribute])
        if pace < 1 or pace * n >= SECRETS_MANAGER_WRITE_QUOTA:
            errors.append(f"RefreshShardCount={count}: {n} runs at {pace} writes/s reach the {SECRETS_MANAGER_WRITE_QUOTA}/s quota")


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


def run_checks(template, sources=None, build_dir=None, built=False):
    errors = []
    check_functions(template, errors, built)
    check_policies(template, errors)
    check_routes(template, errors)
    check_rate(template, errors)
    check_schedule(template, errors)
    check_alarms(template, sources, errors)
    if sources:
        check_environment(template, sources, errors)
    if build_dir:
        check_artifacts(template, build_dir, errors)
    return errors


def self_test(template):
    """Each breakage must be reported: a check that cannot fail proves nothing."""
    def mutated(change):
        broken = copy.deepcopy(template)
        change(broken)
        return broken

    def profile_statements(t):
        return t["Resources"]["UserProfileFunction"]["Properties"]["Policies"][0]["Statement"]

    breakages = {
        "runtime": lambda t: t["Globals"]["Function"].update(Runtime="provided.al2"),
        "handler": lambda t: t["Resources"]["DisconnectFunction"]["Properties"].update(Handler="main"),
        "profile reads tokens": lambda t: profile_statements(t)[0].update(Action=["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"]),
        "profile wildcard": lambda t: profile_statements(t)[0].update(Action="secretsmanager:*"),
        "list outside refresh": lambda t: profile_statements(t).append({"Effect": "Allow", "Action": "secretsmanager:ListSecrets", "Resource": "*"}),
        "missing action": lambda t: t["Resources"]["DisconnectFunction"]["Properties"]["Policies"][0]["Statement"][0].update(Action=["secretsmanager:GetSecretValue"]),
        "managed policy": lambda t: t["Resources"]["StoreTokensFunction"]["Properties"]["Policies"].append("SecretsManagerReadWrite"),
        "extra route": lambda t: t["Resources"]["UserProfileFunction"]["Properties"]["Events"].update(
            Extra={"Type": "HttpApi", "Properties": {"ApiId": {"Ref": "HttpApi"}, "Path": "/v1/user/{proxy+}", "Method": "ANY"}}),
        "bad rate default": lambda t: t["Parameters"]["RefreshSchedule"].update(Default="rate(1 minutes)"),
        "slow rate default": lambda t: t["Parameters"]["RefreshSchedule"].update(Default="rate(1 hour)"),
        "lax rate pattern": lambda t: t["Parameters"]["RefreshSchedule"].update(AllowedPattern="^rate\\(.+\\)$"),
        "shard target dropped": lambda t: t["Resources"]["TokenRefreshSchedule"]["Properties"]["Targets"].pop(),
        "wrong shard input": lambda t: t["Resources"]["TokenRefreshSchedule"]["Properties"]["Targets"][0].update(Input='{"shard": 1, "shards": 1}'),
        "pace over quota": lambda t: t["Mappings"]["RefreshWritePace"]["5"].update(WritesPerSecond="40"),
        "alarm on a metric nobody emits": lambda t: t["Resources"]["RefreshBacklogAlarm"]["Properties"].update(MetricName="Backlog"),
        "alarm on another dimension": lambda t: t["Resources"]["RevokedSpikeAlarm"]["Properties"]["Dimensions"][0].update(Value="refresh"),
        "alarm on a foreign function": lambda t: t["Resources"]["RefreshFailedAlarm"]["Properties"]["Dimensions"][0].update(Value="other-function"),
        "alarm notifies nobody": lambda t: t["Resources"]["Api5xxAlarm"]["Properties"].pop("AlarmActions"),
        "alarm dropped": lambda t: t["Resources"].pop("RejectedSpikeAlarm"),
        "dashboard metric nobody emits": lambda t: t["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"].__setitem__(
            0, t["Resources"]["Dashboard"]["Properties"]["DashboardBody"]["Fn::Sub"][0].replace('"Conflicts"', '"Collisions"')),
    }
    failures = []
    if run_checks(template):
        failures.append("the template itself fails the checks")
    for label, change in breakages.items():
        if not run_checks(mutated(change)):
            failures.append(f"breakage not detected: {label}")
    return failures, len(breakages)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("template")
    parser.add_argument("--build-dir")
    parser.add_argument("--sources")
    parser.add_argument("--built", action="store_true", help="TEMPLATE is the one `sam build` wrote")
    parser.add_argument("--self-test", action="store_true")
    arguments = parser.parse_args()
    template = load(arguments.template)
    if arguments.self_test:
        failures, count = self_test(template)
        for failure in failures:
            print(f"check_template self-test: {failure}", file=sys.stderr)
        print(f"check_template self-test: {count - len(failures)} of {count} breakages detected")
        return 1 if failures else 0
    errors = run_checks(template, arguments.sources, arguments.build_dir, arguments.built)
    for error in errors:
        print(f"check_template: {error}", file=sys.stderr)
    if errors:
        return 1
    print(f"check_template: {arguments.template} ok ({len(functions(template))} functions, {len(EXPECTED_ROUTES)} routes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
