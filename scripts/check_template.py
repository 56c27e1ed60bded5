#!/usr/bin/env python3
"""Checks template.yaml against what the code says, for what cfn-lint and `sam validate --lint` do not catch.

What the code says comes from `paypulse deploy-facts` (JSON printed from the Swift values); nothing
here reads Swift. What else the template must hold, and the self-test's planted faults, are tables
in check_template.yaml. cfn-lint and `sam validate --lint` (scripts/check-template.sh) prove the
template well formed; each check_* proves what they cannot, and --self-test that each can fail.
"""
import argparse, copy, itertools, json, os, re, subprocess, sys, types

import yaml  # cfn-lint's own dependency
from cfnlint.decode import decode  # scripts/check-template.sh runs this with the venv that holds cfn-lint

HERE = os.path.dirname(os.path.abspath(__file__))
PAYPULSE = os.path.join(HERE, "..", ".build", "debug", "paypulse")
with open(os.path.join(HERE, "check_template.yaml"), encoding="utf-8") as handle:
    SPEC = types.SimpleNamespace(**yaml.safe_load(handle))
ROUTES = {tuple(key.split(" ")): function for key, function in SPEC.routes.items()}
NO_VALUE = object()


def deploy_facts(paypulse=PAYPULSE):
    """What the code says (`paypulse deploy-facts`), with its IAM keyed {(Resource, store): {resource: statement}}."""
    facts = json.loads(subprocess.run([paypulse, "deploy-facts"], check=True, capture_output=True, text=True).stdout)
    facts["access"] = {(resource_name(function), store): {statement["Resource"]: statement for statement in found}
                       for function, stores in facts["iam"].items() for store, found in stores.items()}
    return facts


def resource_name(function):
    """store-tokens -> StoreTokensFunction."""
    return "".join(word.capitalize() for word in function.split("-")) + "Function"


def of_type(template, kind):
    resources = template["Resources"].items()
    return {name: r.get("Properties", {}) for name, r in resources if r.get("Type") == kind}


def functions(template):
    return {name: r for name, r in template["Resources"].items() if r.get("Type") == "AWS::Serverless::Function"}


def variables_of(template, resource):
    """A function's environment: Globals.Function's, overridden by its own."""
    variables = dict(template.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {}))
    variables.update(resource.get("Properties", {}).get("Environment", {}).get("Variables", {}))
    return variables


def resource_text(resource):
    """A resource as Sub text: !GetAtt R.A is ${R.A}, !Ref X is ${X}."""
    if isinstance(resource, dict) and "Fn::Sub" in resource:
        return resource["Fn::Sub"] if isinstance(resource["Fn::Sub"], str) else resource["Fn::Sub"][0]
    if isinstance(resource, dict) and list(resource) in (["Fn::GetAtt"], ["Ref"]):
        return "${" + ".".join(as_list(next(iter(resource.values())))) + "}"
    return resource if isinstance(resource, str) else json.dumps(resource, sort_keys=True)


def as_list(value):
    return value if isinstance(value, list) else [value]


def resolve(node, template, parameters):
    """The node as deployed with these parameters: conditions, Fn::If, Refs to parameters, Fn::FindInMap and
    AWS::NoValue resolved; other Refs, Fn::GetAtt and Fn::Sub left as text (the code's IAM is text)."""
    def again(item):
        return resolve(item, template, parameters)
    if isinstance(node, list):
        return [item for item in map(again, node) if item is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    key, value = next(iter(node.items())) if len(node) == 1 else (None, None)
    if key == "Ref":
        return NO_VALUE if value == "AWS::NoValue" else parameters.get(value, node)
    if key == "Condition" and isinstance(value, str):
        return again(template["Conditions"][value])
    if key == "Fn::If":
        return again(value[1] if again({"Condition": value[0]}) else value[2])
    if key == "Fn::Equals":
        return str(again(value[0])) == str(again(value[1]))
    if key in ("Fn::Not", "Fn::And", "Fn::Or"):
        results = [again(item) for item in value]
        return not results[0] if key == "Fn::Not" else all(results) if key == "Fn::And" else any(results)
    if key == "Fn::FindInMap":
        mapping, top, second = (str(again(item)) for item in value)
        return template.get("Mappings", {}).get(mapping, {}).get(top, {}).get(second)
    decided = {key: again(value) for key, value in node.items()}
    return {key: value for key, value in decided.items() if value is not NO_VALUE}


def deployed(template, **chosen):
    """The template as deployed with the chosen parameters, others at their default, false Conditions left out."""
    parameters = {name: spec.get("Default") for name, spec in template.get("Parameters", {}).items()} | chosen
    resolved = resolve({key: value for key, value in template.items() if key != "Conditions"}, template, parameters)
    for section in ("Resources", "Outputs"):
        resolved[section] = {name: item for name, item in resolved.get(section, {}).items()
                             if "Condition" not in item or resolve({"Condition": item["Condition"]}, template, parameters)}
    return resolved


def token_store_choices(template):
    return {choice: deployed(template, TokenStore=choice)
            for choice in template.get("Parameters", {}).get("TokenStore", {}).get("AllowedValues", [])}


def check_functions(template, facts, errors, built=False):
    """The code's functions, each one bootstrap binary built by the Makefile for provided.al2023."""
    found, expected = functions(template), {resource_name(function) for function in facts["functions"]}
    errors.extend([f"functions are {sorted(found)}, the code has {sorted(expected)}"] if set(found) != expected else [])
    for name, resource in found.items():
        properties = {**template.get("Globals", {}).get("Function", {}), **resource.get("Properties", {}),
                      "Metadata.BuildMethod": resource.get("Metadata", {}).get("BuildMethod")}
        errors.extend(f"{name}: {key} must be {value}" for key, value in (SPEC.function_properties | ({"CodeUri": name} if built else {})).items()
                      if properties.get(key) != value)


def normalized_condition(condition):
    """An IAM Condition block with single values as one-item lists and values as strings."""
    if not isinstance(condition, dict):
        return condition
    return {operator: {key: sorted(str(value).lower() if isinstance(value, bool) else str(value) for value in as_list(values))
                       for key, values in block.items()} for operator, block in condition.items()}


def check_policies(template, facts, errors):
    """Least privilege: under each TokenStore and AuthMode, each function's inline statements grant
    what `paypulse iam` prints, no more; whatever its code says, user-profile opens no token."""
    choices = token_store_choices(template)
    if set(choices) != set(SPEC.store_of_choice) or template["Parameters"]["TokenStore"].get("Default") != "SecretsManager":
        errors.append(f"TokenStore must allow {sorted(SPEC.store_of_choice)} and default to SecretsManager (today's store)")
    for choice, auth, resolved in ((c, a, deployed(template, TokenStore=c, AuthMode=a)) for c in choices if c in SPEC.store_of_choice for a in SPEC.auth_modes):
        store = SPEC.store_of_choice[choice]
        for name, resource in functions(resolved).items():
            label, granted, conditions = f"TokenStore={choice}, AuthMode={auth}: {name}", {}, {}
            for policy in resource.get("Properties", {}).get("Policies") or []:
                for statement in (policy.get("Statement") if isinstance(policy, dict) else None) or [None]:
                    if not isinstance(statement, dict) or statement.get("Effect") != "Allow" or {"NotAction", "NotResource"} & set(statement):
                        errors.append(f"{label}: {policy!r} is not inline Allow statements (managed and SAM policies hide what they allow)")
                        break
                    for text in map(resource_text, as_list(statement.get("Resource", []))):
                        granted.setdefault(text, set()).update(map(str, as_list(statement.get("Action", []))))
                        conditions.setdefault(text, []).append(normalized_condition(statement.get("Condition")))
            for text, actions in granted.items() if name == "UserProfileFunction" else ():
                if "secretsmanager:GetSecretValue" in actions and text != SPEC.jwt_key or any(a.startswith("kms:") for a in actions):
                    errors.append(f"{label}: user-profile must not read or open token values ({sorted(actions)} on {text})")
            expected = facts["access"].get((name, store), {})
            if SPEC.auth_modes[auth] != SPEC.key_mode:  # the authorizer or the issuer's published keys verify: no key is read
                expected = {text: statement for text, statement in expected.items() if text != SPEC.jwt_key}
            wanted = {text: set(statement["Action"]) for text, statement in expected.items()}
            if granted != wanted:
                show = lambda grants: json.dumps({k: sorted(v) for k, v in grants.items()}, sort_keys=True)  # noqa: E731
                errors.append(f"{label}: grants {show(granted)}, `paypulse iam` needs {show(wanted)}")
            for text, found in conditions.items():
                condition = normalized_condition(expected.get(text, {}).get("Condition"))
                if any(item != condition for item in found):
                    errors.append(f"{label}: statements on {text} must carry the code's condition {json.dumps(condition, sort_keys=True)}")


def check_table(properties, label, errors, name, setup):
    """A table as `paypulse setup` creates it (deploy/FILE), but for the template's protection."""
    spec = SPEC.tables[name]
    errors.extend(label + f"{name} declares {key}, which `paypulse setup` (deploy/{spec['file']}) does not"
                  for key in sorted(set(properties) - set(spec["shape"]) - set(spec["protection"])))
    for key in sorted(spec["shape"]):
        found, wanted = properties.get(key), setup.get(key)
        if key in spec["by_name"]:
            found, wanted = ({item.get(spec["by_name"][key]): item for item in items or []}
                             for items in (found, wanted))
        errors.extend([label + f"{name} {key} {found} is not setup's {wanted}"] if found != wanted else [])
    errors.extend(label + f"{name} must set {key}: {value}"
                  for key, value in spec["required"].items() if properties.get(key) != value)


def check_tables(template, facts, errors):
    """The tables as `paypulse setup` creates them, names agreeing; the tokens table and key kept,
    with `paypulse migrate`'s outputs, under the table choices only; those named by a parameter
    (the security events and request quotas tables) under all."""
    kept, outputs = set(SPEC.table_resources), SPEC.table_outputs
    everywhere = {name: spec for name, spec in SPEC.tables.items() if "parameter" in spec}
    named, setups = {}, {}  # setup's two requests (deploy/FILE): their TableNames, the two as one
    for name, spec in SPEC.tables.items():
        with open(os.path.join(HERE, "..", "deploy", spec["file"]), encoding="utf-8") as handle:
            definition = json.load(handle)
        create, update = definition["CreateTable"], definition["UpdateTimeToLive"]
        named[name], setups[name] = [create["TableName"], update["TableName"]], {**create, **update}
    errors.extend(f"{name} must be kept (DeletionPolicy and UpdateReplacePolicy Retain): it holds or opens the grants" for name in sorted(kept)
                  if {template["Resources"].get(name, {}).get(policy) for policy in ("DeletionPolicy", "UpdateReplacePolicy")} != {"Retain"})
    for name, parameter in ((name, spec["parameter"]) for name, spec in everywhere.items()):
        resource = template["Resources"].get(name, {})
        if resource.get("Type") != "AWS::DynamoDB::Table" or resource.get("Properties", {}).get("TableName") != {"Ref": parameter}:
            errors.append(f"{name} must be an AWS::DynamoDB::Table named by the {parameter} parameter")
        names = [template.get("Parameters", {}).get(parameter, {}).get("Default"), *named[name]]
        errors.extend([f"{name}'s names (the {parameter} default, setup's two) {names} must agree"] if len(set(map(str, names))) != 1 else [])
    choices = token_store_choices(template)
    for choice, resolved in choices.items():
        label, tables = f"TokenStore={choice}: ", choice in SPEC.table_choices
        present = kept & set(resolved["Resources"])
        found = {name: resolved["Outputs"][name].get("Value") for name in outputs if name in resolved["Outputs"]}
        if present != (kept if tables else set()) or found != (outputs if tables else {}):
            errors.append(f"TokenStore={choice}: creates {sorted(present)}, outputs {found}: expected both and their outputs or none")
        errors.extend(label + f"no {name}: every AWS store needs it" for name in everywhere if name not in resolved["Resources"])
        properties = resolved["Resources"].get("TokensTable", {}).get("Properties", {})
        names = [properties.get("TableName"), *named["TokensTable"], facts["tokens_table_default"]]
        if "TokensTable" in present and len(set(map(str, names))) != 1:
            errors.append(label + f"the tokens table's names (template, setup's two, TOKENS_TABLE's default) {names} must agree")
        for name in (name for name in SPEC.tables if name in resolved["Resources"]):
            properties = resolved["Resources"][name].get("Properties", {})
            check_table(properties, label, errors, name, setups[name])
    today, window = choices.get("SecretsManager", {}), choices.get("SecretsManagerWithTable", {})
    for section in ("Globals", "Resources", "Outputs"):  # what the TokenStore parameter can change
        before = today.get(section, {})
        after = {name: item for name, item in window.get(section, {}).items() if name not in kept | set(outputs)}
        names = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
        errors.extend([f"TokenStore=SecretsManagerWithTable: {section} {', '.join(names)} differ from SecretsManager's"] if names else [])
    properties = template["Resources"].get("TokensKey", {}).get("Properties", {})
    errors.extend(["TokensKey must rotate (EnableKeyRotation: true)"] if properties.get("EnableKeyRotation") is not True else [])
    errors.extend(f"TokensKey's key policy names {statement.get('Principal')}: only the account (IAM grants each role its use)"
                  for statement in properties.get("KeyPolicy", {}).get("Statement", [])
                  if statement.get("Principal") != SPEC.key_principal)
    for (name, resource), (table, spec) in itertools.product(functions(template).items(), everywhere.items()):
        value = variables_of(template, resource).get(spec["variable"], {"Ref": table})
        errors.extend([f"{name}: {spec['variable']} is {value}, it must be !Ref {table}"] if value != {"Ref": table} else [])


def check_environment(template, facts, errors):
    """Every variable set is read by the code, the required ones are set; under each choice each function gets
    the code's store and its variables; under DynamoDB each runs with token-refresh's mode (it keys the due index)."""
    names = set().union(*(variables_of(template, resource) for resource in functions(template).values()))
    errors.extend(f"environment variable {name} is one the configuration never reads" for name in sorted(names - set(facts["environment"])))
    errors.extend(f"environment variable {name} is not set" for name in SPEC.required_variables if name not in names)
    store_variables = list(dict.fromkeys(itertools.chain(*SPEC.store_variables.values())))
    for choice, resolved in token_store_choices(template).items():
        refresh = variables_of(resolved, resolved["Resources"].get("TokenRefreshFunction", {}))
        wanted = SPEC.store_variables.get(SPEC.store_of_choice.get(choice))
        for name, resource in functions(resolved).items():
            variables = variables_of(resolved, resource)
            for variable in SPEC.due_policy_variables if choice == "DynamoDB" else ():
                if variable not in refresh or variables.get(variable) != refresh[variable]:
                    errors.append(f"TokenStore=DynamoDB: {name} has {variable}={variables.get(variable)}, token-refresh's {refresh.get(variable)}")
            found = {v: variables[v] for v in store_variables if v in variables}
            if found != wanted or found.get("PAYPULSE_STORE") not in facts["stores"]:
                errors.append(f"TokenStore={choice}: {name} has {found}, expected {wanted}, a store in {facts['stores']}")


def check_routes(template, facts, errors):
    """The routes, each one AWS_PROXY (2.0) integration on its function, with the JWT authorizer
    under APIGatewayJWT only, never on Google's; no other route, integration, event, permission."""
    parameter = template["Parameters"].get("AuthMode", {})
    if parameter.get("Default") != "PayPulseJWT" or sorted(parameter.get("AllowedValues", [])) != sorted(SPEC.auth_modes):
        errors.append(f"AuthMode must allow {sorted(SPEC.auth_modes)} and default to PayPulseJWT (today's tokens)")
    for choice, mode in SPEC.auth_modes.items():  # the functions run with PAYPULSE_AUTH_MODE=mode
        resolved, label = deployed(template, AuthMode=choice, **SPEC.issuer_parameters), f"AuthMode={choice}"
        integrations, authorizers = of_type(resolved, "AWS::ApiGatewayV2::Integration"), of_type(resolved, "AWS::ApiGatewayV2::Authorizer")
        events = sorted(f"{name} {event.get('Type')}" for name, resource in functions(resolved).items()
                        for event in (resource["Properties"].get("Events") or {}).values() if event.get("Type") in ("Api", "HttpApi"))
        errors.extend([f"{label}: SAM API events {events} reach a function outside the checked routes"] if events else [])
        routes, used = {}, set()
        for name, route in of_type(resolved, "AWS::ApiGatewayV2::Route").items():
            method, _, path = str(route.get("RouteKey", "")).partition(" ")
            target = re.fullmatch(r"integrations/\$\{(\w+)\}", str(resource_text(route.get("Target"))))
            integration = integrations.get(target.group(1)) if target else None
            used.add(target.group(1) if target else None)
            uri = (integration or {}).get("IntegrationUri", {})
            function = uri.get("Fn::GetAtt", [None])[0] if isinstance(uri, dict) else None
            if route.get("ApiId") != {"Ref": "HttpApi"} or not integration or integration.get("ApiId") != {"Ref": "HttpApi"} \
                    or integration.get("IntegrationType") != "AWS_PROXY" or str(integration.get("PayloadFormatVersion")) != "2.0":
                errors.append(f"{label}: route {name} is not one AWS_PROXY (payload 2.0) integration on HttpApi")
            routes[(method.upper(), path)] = function
            authorizer = authorizers.get((route.get("AuthorizerId") or {}).get("Ref")) if isinstance(route.get("AuthorizerId"), dict) else None
            if f"{method.upper()} {path}" in SPEC.unauthenticated_routes:
                if route.get("AuthorizationType", "NONE") != "NONE" or "AuthorizerId" in route:
                    errors.append(f"{label}: route {route.get('RouteKey')} has an authorizer, but Google's pushes carry no PayPulse JWT")
                continue
            if mode == "apigateway" and (route.get("AuthorizationType") != "JWT" or authorizer != SPEC.jwt_authorizer):
                errors.append(f"{label}: route {route.get('RouteKey')} must carry the JWT authorizer {SPEC.jwt_authorizer} (has {route.get('AuthorizationType')}, {authorizer})")
            if mode in SPEC.self_verifying_modes and (route.get("AuthorizationType", "NONE") != "NONE" or "AuthorizerId" in route):
                errors.append(f"{label}: route {route.get('RouteKey')} has an authorizer, but the functions verify the token ({mode})")
        if mode in SPEC.self_verifying_modes and authorizers:
            errors.append(f"{label}: authorizers {sorted(authorizers)} are deployed, but the functions verify the token ({mode})")
        errors.extend([f"{label}: routes are {sorted(routes.items())}, expected exactly {sorted(ROUTES.items())} on HttpApi"] if routes != ROUTES else [])
        errors.extend([f"{label}: integrations {sorted(set(integrations) - used)} are on no checked route"] if set(integrations) - used else [])
        wanted = {f"${{HttpApi}}/*/{method}{path}": function for (method, path), function in ROUTES.items()}
        for name, permission in of_type(resolved, "AWS::Lambda::Permission").items():
            if permission.get("Principal") != "apigateway.amazonaws.com":
                continue
            source = resource_text(permission.get("SourceArn")).rpartition(":")[2]
            if wanted.get(source) != (permission.get("FunctionName") or {}).get("Ref"):
                errors.append(f"{label}: permission {name} lets API Gateway invoke {permission.get('FunctionName')} from {source}, not only its route")


def check_auth_environment(template, facts, errors):
    """Under each AuthMode, IssuerJWT's optional parameters (default: empty) empty and set, each API
    function runs with exactly the mode and the auth_environment it sets, the others no more."""
    options, api = SPEC.issuer_option_values, set(ROUTES.values())
    for name, values in options.items():
        spec = template["Parameters"].get(name, {})
        if spec.get("Default") != "" or name == "JwtTokenUse" and sorted(spec.get("AllowedValues") or []) != sorted(values):
            errors.append(f"parameter {name} must default to empty (no variable){f' and allow {values}' if name == 'JwtTokenUse' else ''}")
    for (choice, mode), url, use in itertools.product(SPEC.auth_modes.items(), *options.values()):
        chosen = SPEC.issuer_parameters | {"JwtJwksUrl": url, "JwtTokenUse": use}
        wanted = {"PAYPULSE_AUTH_MODE": mode} | {v: chosen[p] for v, p in SPEC.auth_environment[mode].items() if chosen[p] != ""}
        resolved, label = deployed(template, AuthMode=choice, **chosen), f"AuthMode={choice}, JwtJwksUrl={url!r}, JwtTokenUse={use!r}"
        for name, resource in functions(resolved).items():
            variables = variables_of(resolved, resource)
            found = {variable: variables[variable] for variable in SPEC.auth_variables if variable in variables}
            for variable in sorted(set(found) | (set(wanted) if name in api else set())):
                if found.get(variable, NO_VALUE) != wanted.get(variable, NO_VALUE):
                    errors.append(f"{label}: {name} runs with {variable}={found.get(variable, 'unset')}, expected {wanted.get(variable, 'unset')}")


def check_pace(label, choice, pace, n, refresh, errors):
    """One shard count's REFRESH_MAX_WRITES_PER_SECOND under one choice: the n shards' runs at once."""
    low, high = refresh["writes_per_second_accepted"]
    errors.extend([f"{label}: REFRESH_MAX_WRITES_PER_SECOND={pace}, the code accepts {low} to {high}"] if not low <= pace <= high else [])
    if SPEC.store_of_choice.get(choice) == "aws":
        if pace * n >= SPEC.secrets_manager_write_quota:
            errors.append(f"{label}: {n} runs at {pace} writes/s reach the {SPEC.secrets_manager_write_quota}/s Secrets Manager quota")
        return
    refreshes = pace * n / refresh["permits_per_write"]
    bounds = [("write units/s on each due-index bucket", refreshes * SPEC.index_units / refresh["due_index_buckets"], SPEC.partition_share * SPEC.partition_units),
              ("KMS requests/s", refreshes * SPEC.kms_requests, SPEC.kms_share * SPEC.kms_quota), ("due-index write units/s", refreshes * SPEC.index_units, SPEC.warm_units)]
    errors.extend(f"{label}: {n} runs at {pace} permits/s ({refreshes:g} refreshes/s) make {value:g} {what}, over {bound:g}"
                  for what, value, bound in bounds if value > bound)
    if refreshes < SPEC.required_refreshes:
        errors.append(f"{label}: {n} runs at {pace} permits/s refresh {refreshes:g} grants/s, under the {SPEC.required_refreshes}/s a million eager grants need")


def check_schedule(template, facts, errors):
    """The default rate runs twice per refresh window; one target per shard invokes token-refresh with
    {"shard": i, "shards": n}; each shard count's pace is one the code accepts, under each store's quotas."""
    default, window = template["Parameters"]["RefreshSchedule"].get("Default"), facts["refresh"]["window_seconds_default"]
    # The rate's exact syntax is RefreshSchedule's AllowedPattern, which cfn-lint applies to the default.
    rate = re.match(r"^rate\(([1-9]\d*) (minute|hour|day)s?\)$", str(default))
    if not rate or int(rate.group(1)) * SPEC.unit_seconds[rate.group(2)] * 2 > window:
        errors.append(f"RefreshSchedule default {default!r} is not a rate running at least twice per {window} s refresh window")
    rules = {name: rule for name, rule in of_type(template, "AWS::Events::Rule").items() if "EventPattern" not in rule}
    if sorted(rules) != ["TokenRefreshSchedule"] or rules["TokenRefreshSchedule"].get("ScheduleExpression") != {"Ref": "RefreshSchedule"}:
        errors.append(f"expected one schedule rule, TokenRefreshSchedule on !Ref RefreshSchedule; found {sorted(rules)}")
        return
    permissions = of_type(template, "AWS::Lambda::Permission").values()
    if not any(SPEC.schedule_permission.items() <= p.items() for p in permissions):
        errors.append("no Lambda permission lets TokenRefreshSchedule invoke TokenRefreshFunction")
    for count in template["Parameters"]["RefreshShardCount"].get("AllowedValues", []):
        n, label = int(count), f"RefreshShardCount={count}"
        targets = deployed(template, RefreshShardCount=count)["Resources"]["TokenRefreshSchedule"]["Properties"]["Targets"]
        try:
            inputs = [json.loads(resource_text(target.get("Input")).replace("${RefreshShardCount}", count)) for target in targets]
        except ValueError:
            inputs = None
        if (n > 5 or len({target.get("Id") for target in targets}) != n or inputs != [{"shard": i, "shards": n} for i in range(n)]
                or any(target.get("Arn") != SPEC.schedule_target for target in targets)):
            errors.append(f"{label}: targets {targets}, expected {n} (at most 5) on TokenRefreshFunction with inputs shard 0..{n - 1} of {n}")
        for choice in template["Parameters"]["TokenStore"].get("AllowedValues", []):
            resolved = deployed(template, RefreshShardCount=count, TokenStore=choice)
            pace = variables_of(resolved, resolved["Resources"]["TokenRefreshFunction"]).get("REFRESH_MAX_WRITES_PER_SECOND")
            if not str(pace).isdigit():
                errors.append(f"TokenStore={choice}, {label}: REFRESH_MAX_WRITES_PER_SECOND is {pace}, not a number")
                continue
            check_pace(f"TokenStore={choice}, {label}", choice, int(pace), n, facts["refresh"], errors)


def check_alarms(template, facts, errors):
    """Each alarm and dashboard line measures a metric that exists, each alarm notifies AlarmTopicArn, and
    the refresh job's outcomes, the functions' errors and the API's 5xx have one."""
    emitted, seen = facts["metrics"], set()
    refresh_namespace = emitted[0]["namespace"]

    def check_metric(label, namespace, metric, dimensions):
        """The code's (a family `paypulse deploy-facts` reads back) or the platform's, here."""
        families = [family for family in emitted if family["namespace"] == namespace]
        if families:
            if not any(metric in family["names"] and dimensions == family["dimensions"] for family in families):
                errors.append(f"{label}: {namespace} {metric} by {dimensions} is not a metric the code emits")
            return
        dimension, names = SPEC.platform_metrics.get(namespace, (None, []))
        target = dimensions.get(dimension)
        if metric not in names or set(dimensions) != {dimension} or (target.get("Ref") if isinstance(target, dict) else target) not in template["Resources"]:
            errors.append(f"{label}: {namespace} {metric} by {dimensions} is not a platform metric of this stack's resources")
    for name, props in of_type(template, "AWS::CloudWatch::Alarm").items():
        dimensions = {d["Name"]: d["Value"] for d in props.get("Dimensions", [])}
        check_metric(f"alarm {name}", props.get("Namespace"), props.get("MetricName"), dimensions)
        seen.add(props.get("MetricName") if props.get("Namespace") == refresh_namespace else f"{props.get('Namespace')} {props.get('MetricName')}")
        errors.extend([f"alarm {name}: AlarmActions must notify the AlarmTopicArn parameter when it is set"] if props.get("AlarmActions") != SPEC.alarm_actions else [])
    errors.extend(f"no alarm on {missing}" for missing in sorted(set(SPEC.required_alarms) - seen))
    for dashboard in of_type(template, "AWS::CloudWatch::Dashboard").values():
        body, variables = dashboard["DashboardBody"]["Fn::Sub"]
        for widget in json.loads(body.replace("${AWS::Region}", "us-east-1"))["widgets"]:
            for namespace, metric, dimension, value in (line[:4] for line in widget["properties"]["metrics"]):
                resolved = variables.get(value[2:-1]) if value.startswith("${") and value.endswith("}") else value
                check_metric(f"dashboard '{widget['properties']['title']}'", namespace, metric, {dimension: resolved})


def check_events(template, facts, errors):
    """Under each EventBusName, the bus (LifecycleBus only if none is named) is the output's, every pattern rule's, and in PAYPULSE_EVENT_BUS
    and PutEvents that of exactly the functions `paypulse iam` lets publish; the example subscriber is as the table has it, or off."""
    spec, example = SPEC.event_bus, SPEC.example_subscriber
    publishers = {name for (name, _), grants in facts["access"].items() if any("events:PutEvents" in g["Action"] for g in grants.values())}
    for choice, bus in spec["buses"].items():
        resolved, label = deployed(template, **{spec["parameter"]: choice}), f"{spec['parameter']}={choice!r}: "
        if (resolved["Resources"].get(spec["resource"], {}).get("Type") == spec["type"]) != (bus == {"Ref": spec["resource"]}) \
                or resolved["Outputs"].get(spec["output"], {}).get("Value") != bus:
            errors.append(label + f"the stack must create {spec['resource']} ({spec['type']}) only when no bus is named, and output {spec['output']}: {bus}")
        errors.extend(label + f"{name}: {spec['variable']} and PutEvents name the bus {bus} on exactly {sorted(publishers)}" for name, resource in functions(resolved).items()
                      if {variables_of(resolved, resource).get(spec["variable"]) == bus,
                          json.dumps({spec["sub_variable"]: bus}) in json.dumps(resource["Properties"].get("Policies"))} != {name in publishers})
        errors.extend(label + f"rule {name} listens on another bus than the functions'" for name, rule in of_type(resolved, "AWS::Events::Rule").items()
                      if "EventPattern" in rule and rule.get("EventBusName") != bus)
    for choice, on in example["choices"].items():
        resources = deployed(template, **{example["parameter"]: choice})["Resources"]
        errors.extend(f"{example['parameter']}={choice}: {name} must {'be deployed with ' + json.dumps(wanted) if on else 'not be deployed'}"
                      for name, wanted in example["resources"].items()
                      if (name in resources) != on or on and not wanted.items() <= resources[name].get("Properties", {}).items())


def run_checks(template, facts, build_dir=None, built=False):
    errors = []
    check_functions(template, facts, errors, built)
    for check in (check_policies, check_tables, check_environment, check_routes,
                  check_auth_environment, check_schedule, check_alarms, check_events):
        check(template, facts, errors)
    bootstraps = [os.path.join(build_dir, name, "bootstrap") for name in functions(template)] if build_dir else []
    errors.extend(f"{bootstrap}: missing or not executable" for bootstrap in bootstraps if not (os.path.isfile(bootstrap) and os.access(bootstrap, os.X_OK)))
    return errors


def self_test(template, facts):
    """Each planted fault is reported by its check (a check that cannot fail proves nothing)."""
    def plant(broken, changed, op, path, *values):
        keys = path.split("/") if isinstance(path, str) else path
        keys = [tuple(key) if isinstance(key, list) else key for key in keys]  # (Resource, store)
        parent, keys = (changed, keys[1:]) if keys[0] == "facts" else (broken, keys)
        for key in keys[:-1]:
            parent = parent[int(key)] if isinstance(parent, list) else parent[key]
        key = int(keys[-1]) if isinstance(parent, list) else keys[-1]
        if op == "put":
            parent[key] = copy.deepcopy(values[0])
        elif op == "drop":
            del parent[key]
        elif op == "replace":
            parent[key] = parent[key].replace(*values)
        else:  # append or remove a list's item
            getattr(parent[key], op)(copy.deepcopy(values[0]))
    failures = ["the template itself fails: " + "; ".join(errors) for errors in [run_checks(template, facts)] if errors]
    for breakage in SPEC.self_test:
        broken, changed = copy.deepcopy(template), copy.deepcopy(facts)
        for change in breakage["change"]:
            plant(broken, changed, *change)
        if not any(breakage["report"] in error for error in run_checks(broken, changed)):
            failures.append(f"breakage not reported as {breakage['report']!r}")
    return failures, len(SPEC.self_test)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("template")
    parser.add_argument("--build-dir")
    parser.add_argument("--built", action="store_true", help="TEMPLATE is the one `sam build` wrote")
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--paypulse", default=PAYPULSE, help="the built paypulse CLI, whose `deploy-facts` says what the code needs")
    arguments = parser.parse_args()
    # cfn-lint's own reader gives short-form intrinsics (!Ref, !If, ...) in their long form.
    template, problems = decode(arguments.template)
    if problems:
        sys.exit(f"check_template: {arguments.template}: {problems}")
    facts = deploy_facts(arguments.paypulse)
    if arguments.self_test:
        errors, count = self_test(template, facts)
        summary = f"self-test: {count - len(errors)} of {count} breakages reported by their check"
    else:
        errors = run_checks(template, facts, arguments.build_dir, arguments.built)
        summary = f"{arguments.template}: {len(errors)} problem(s)" if errors else f"{arguments.template} ok ({len(functions(template))} functions)"
    for error in errors:
        print(f"check_template: {error}", file=sys.stderr)
    print(f"check_template: {summary}", file=sys.stderr if errors else sys.stdout)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
