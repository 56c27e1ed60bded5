"""moto's EventBridge and SQS for the lifecycle events' suites, through boto3 (an independent
client): one JSON request on standard input, one JSON answer on standard output.

  {"op": "setup", "endpoint": URL, "bus": NAME}
      creates the bus, a queue, and a rule on the bus that forwards every paypulse.gmail event
      to the queue (as docs/events.md's sample rule does); answers {"queue_url": URL}.
  {"op": "drain", "endpoint": URL, "queue_url": URL, "schema": PATH}
      receives until the queue is empty; answers {"events": [event...], "invalid": [why...]},
      each event checked against the JSON Schema at PATH (docs/lifecycle-event.schema.json).
  {"op": "validate", "events": [event...], "schema": PATH}
      checks events read elsewhere (the embedded store's table); answers {"invalid": [why...]}.
"""
import json
import sys

import boto3
import jsonschema

request = json.load(sys.stdin)


def validator():
    with open(request["schema"], encoding="utf-8") as file:
        return jsonschema.Draft202012Validator(json.load(file))


def problems(check, event):
    return [f"{event.get('detail-type')}: {error.message}" for error in check.iter_errors(event)]


if request["op"] == "validate":
    check = validator()
    print(json.dumps({"invalid": [problem for event in request["events"] for problem in problems(check, event)]}))
    sys.exit(0)
session = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1")
events = session.client("events", endpoint_url=request["endpoint"])
sqs = session.client("sqs", endpoint_url=request["endpoint"])

if request["op"] == "setup":
    bus = request["bus"]
    events.create_event_bus(Name=bus)
    queue_url = sqs.create_queue(QueueName=bus + "-queue")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name=bus + "-all", EventBusName=bus, EventPattern=json.dumps({"source": ["paypulse.gmail"]}))
    events.put_targets(Rule=bus + "-all", EventBusName=bus, Targets=[{"Id": "queue", "Arn": queue_arn}])
    print(json.dumps({"queue_url": queue_url}))
elif request["op"] == "drain":
    check = validator()
    received, invalid = [], []
    while True:
        messages = sqs.receive_message(QueueUrl=request["queue_url"], MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])
        if not messages:
            break
        for message in messages:
            event = json.loads(message["Body"])
            invalid.extend(problems(check, event))
            received.append(event)
            sqs.delete_message(QueueUrl=request["queue_url"], ReceiptHandle=message["ReceiptHandle"])
    print(json.dumps({"events": received, "invalid": invalid}))
else:
    sys.exit(f"unknown op {request['op']}")
