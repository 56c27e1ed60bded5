import PayPulseTransport

/// Each AWS request as the clients write it and moto_server 5.2.1's answer to it, byte for
/// byte: the fixed bytes the round-trip tests replay. Captured on 2026-11-25 by sending the
/// requests in this order, signed for us-east-1, to one fresh `moto_server` (so the ARNs,
/// dates and the KMS key are moto's). Long lines are moto's answers, unwrapped.
enum MotoExchanges {
    /// One call: the target and body sent, the status and body moto answered.
    struct Exchange: Sendable {
        let target: String
        let status: Int
        let request: String
        let answer: String

        var response: HTTPResponse { HTTPResponse(status: status, body: Array(answer.utf8)) }
    }
}

extension MotoExchanges.Exchange {
    static let createSecret = Self(
        target: "secretsmanager.CreateSecret", status: 200,
        request: ##"{"ClientRequestToken":"00000000-0000-4000-8000-000000000001","Name":"gmail/user/u-1","SecretString":"{\"access_token\":\"ya29.one\",\"token_type\":\"Bearer\"}","Tags":[{"Key":"connected","Value":"true"},{"Key":"google_sub","Value":"1234"}]}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "VersionId": "00000000-0000-4000-8000-000000000001"}"##
    )

    static let getSecretValue = Self(
        target: "secretsmanager.GetSecretValue", status: 200,
        request: ##"{"SecretId":"gmail/user/u-1","VersionStage":"AWSCURRENT"}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "VersionId": "00000000-0000-4000-8000-000000000001", "VersionStages": ["AWSCURRENT"], "CreatedDate": 1795637178, "SecretString": "{\"access_token\":\"ya29.one\",\"token_type\":\"Bearer\"}"}"##
    )

    static let putSecretValue = Self(
        target: "secretsmanager.PutSecretValue", status: 200,
        request: ##"{"ClientRequestToken":"00000000-0000-4000-8000-000000000002","SecretId":"gmail/user/u-1","SecretString":"{\"access_token\":\"ya29.two\",\"token_type\":\"Bearer\"}","VersionStages":["AWSPENDING"]}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "VersionId": "00000000-0000-4000-8000-000000000002", "VersionStages": ["AWSPENDING"]}"##
    )

    static let getSecretValueByVersion = Self(
        target: "secretsmanager.GetSecretValue", status: 200,
        request: ##"{"SecretId":"gmail/user/u-1","VersionId":"00000000-0000-4000-8000-000000000002"}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "VersionId": "00000000-0000-4000-8000-000000000002", "VersionStages": ["AWSPENDING"], "CreatedDate": 1795637178, "SecretString": "{\"access_token\":\"ya29.two\",\"token_type\":\"Bearer\"}"}"##
    )

    static let updateSecretVersionStage = Self(
        target: "secretsmanager.UpdateSecretVersionStage", status: 200,
        request: ##"{"MoveToVersionId":"00000000-0000-4000-8000-000000000002","RemoveFromVersionId":"00000000-0000-4000-8000-000000000001","SecretId":"gmail/user/u-1","VersionStage":"AWSCURRENT"}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1"}"##
    )

    static let describeSecret = Self(
        target: "secretsmanager.DescribeSecret", status: 200,
        request: ##"{"SecretId":"gmail/user/u-1"}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "LastChangedDate": 1795637178, "LastAccessedDate": null, "NextRotationDate": null, "DeletedDate": null, "CreatedDate": 1795637178, "KmsKeyId": null, "Tags": [{"Key": "connected", "Value": "true"}, {"Key": "google_sub", "Value": "1234"}], "VersionIdsToStages": {"00000000-0000-4000-8000-000000000001": ["AWSPREVIOUS"], "00000000-0000-4000-8000-000000000002": ["AWSPENDING", "AWSCURRENT"]}, "SecretVersionsToStages": {"00000000-0000-4000-8000-000000000001": ["AWSPREVIOUS"], "00000000-0000-4000-8000-000000000002": ["AWSPENDING", "AWSCURRENT"]}}"##
    )

    static let tagResource = Self(
        target: "secretsmanager.TagResource", status: 200,
        request: ##"{"SecretId":"gmail/user/u-1","Tags":[{"Key":"status","Value":"active"}]}"##,
        answer: ##"{}"##
    )

    static let untagResource = Self(
        target: "secretsmanager.UntagResource", status: 200,
        request: ##"{"SecretId":"gmail/user/u-1","TagKeys":["google_sub"]}"##,
        answer: ##"{}"##
    )

    static let listSecrets = Self(
        target: "secretsmanager.ListSecrets", status: 200,
        request: ##"{"Filters":[{"Key":"name","Values":["gmail/user/"]}],"IncludePlannedDeletion":false,"MaxResults":10,"SortOrder":"asc"}"##,
        answer: ##"{"SecretList": [{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "LastChangedDate": 1795637178, "LastAccessedDate": null, "NextRotationDate": null, "DeletedDate": null, "CreatedDate": 1795637178, "KmsKeyId": null, "Tags": [{"Key": "connected", "Value": "true"}, {"Key": "status", "Value": "active"}], "VersionIdsToStages": {"00000000-0000-4000-8000-000000000001": ["AWSPREVIOUS"], "00000000-0000-4000-8000-000000000002": ["AWSPENDING", "AWSCURRENT"]}, "SecretVersionsToStages": {"00000000-0000-4000-8000-000000000001": ["AWSPREVIOUS"], "00000000-0000-4000-8000-000000000002": ["AWSPENDING", "AWSCURRENT"]}}], "NextToken": null}"##
    )

    static let deleteSecret = Self(
        target: "secretsmanager.DeleteSecret", status: 200,
        request: ##"{"RecoveryWindowInDays":7,"SecretId":"gmail/user/u-1"}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "DeletionDate": 1796241978.163758}"##
    )

    static let describeDeletedSecret = Self(
        target: "secretsmanager.DescribeSecret", status: 200,
        request: ##"{"SecretId":"gmail/user/u-1"}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1", "LastChangedDate": 1795637178, "LastAccessedDate": null, "NextRotationDate": null, "DeletedDate": 1796241978.163758, "CreatedDate": 1795637178, "KmsKeyId": null, "Tags": [{"Key": "connected", "Value": "true"}, {"Key": "status", "Value": "active"}], "VersionIdsToStages": {"00000000-0000-4000-8000-000000000001": ["AWSPREVIOUS"], "00000000-0000-4000-8000-000000000002": ["AWSPENDING", "AWSCURRENT"]}, "SecretVersionsToStages": {"00000000-0000-4000-8000-000000000001": ["AWSPREVIOUS"], "00000000-0000-4000-8000-000000000002": ["AWSPENDING", "AWSCURRENT"]}}"##
    )

    static let restoreSecret = Self(
        target: "secretsmanager.RestoreSecret", status: 200,
        request: ##"{"SecretId":"gmail/user/u-1"}"##,
        answer: ##"{"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:gmail/user/u-1-ReHpzf", "Name": "gmail/user/u-1"}"##
    )

    static let getMissingSecret = Self(
        target: "secretsmanager.GetSecretValue", status: 404,
        request: ##"{"SecretId":"gmail/user/nobody","VersionStage":"AWSCURRENT"}"##,
        answer: ##"{"__type": "ResourceNotFoundException", "message": "Secrets Manager can't find the specified secret."}"##
    )

    static let createTable = Self(
        target: "DynamoDB_20120810.CreateTable", status: 200,
        request: ##"{"AttributeDefinitions":[{"AttributeName":"user_id","AttributeType":"S"},{"AttributeName":"due_shard","AttributeType":"N"},{"AttributeName":"due_at","AttributeType":"N"}],"BillingMode":"PAY_PER_REQUEST","GlobalSecondaryIndexes":[{"IndexName":"due","KeySchema":[{"AttributeName":"due_shard","KeyType":"HASH"},{"AttributeName":"due_at","KeyType":"RANGE"}],"Projection":{"NonKeyAttributes":["status"],"ProjectionType":"INCLUDE"}}],"KeySchema":[{"AttributeName":"user_id","KeyType":"HASH"}],"TableName":"paypulse-tokens"}"##,
        answer: ##"{"TableDescription": {"AttributeDefinitions": [{"AttributeName": "user_id", "AttributeType": "S"}, {"AttributeName": "due_shard", "AttributeType": "N"}, {"AttributeName": "due_at", "AttributeType": "N"}], "TableName": "paypulse-tokens", "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"}], "TableStatus": "ACTIVE", "CreationDateTime": 1795637178.355, "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}, "TableSizeBytes": 0, "ItemCount": 0, "TableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/paypulse-tokens", "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"}, "LocalSecondaryIndexes": [], "GlobalSecondaryIndexes": [{"IndexName": "due", "KeySchema": [{"AttributeName": "due_shard", "KeyType": "HASH"}, {"AttributeName": "due_at", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["status"]}, "IndexStatus": "ACTIVE", "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}, "WarmThroughput": {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}}], "DeletionProtectionEnabled": false, "WarmThroughput": {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}}}"##
    )

    static let updateTimeToLive = Self(
        target: "DynamoDB_20120810.UpdateTimeToLive", status: 200,
        request: ##"{"TableName":"paypulse-tokens","TimeToLiveSpecification":{"AttributeName":"expires_at","Enabled":true}}"##,
        answer: ##"{"TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires_at"}}"##
    )

    static let describeTable = Self(
        target: "DynamoDB_20120810.DescribeTable", status: 200,
        request: ##"{"TableName":"paypulse-tokens"}"##,
        answer: ##"{"Table": {"AttributeDefinitions": [{"AttributeName": "user_id", "AttributeType": "S"}, {"AttributeName": "due_shard", "AttributeType": "N"}, {"AttributeName": "due_at", "AttributeType": "N"}], "TableName": "paypulse-tokens", "KeySchema": [{"AttributeName": "user_id", "KeyType": "HASH"}], "TableStatus": "ACTIVE", "CreationDateTime": 1795637178.355, "ProvisionedThroughput": {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}, "TableSizeBytes": 0, "ItemCount": 0, "TableArn": "arn:aws:dynamodb:us-east-1:123456789012:table/paypulse-tokens", "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"}, "LocalSecondaryIndexes": [], "GlobalSecondaryIndexes": [{"IndexName": "due", "KeySchema": [{"AttributeName": "due_shard", "KeyType": "HASH"}, {"AttributeName": "due_at", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["status"]}, "IndexStatus": "ACTIVE", "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}, "WarmThroughput": {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}}], "DeletionProtectionEnabled": false, "WarmThroughput": {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}}}"##
    )

    static let putItem = Self(
        target: "DynamoDB_20120810.PutItem", status: 200,
        request: ##"{"ConditionExpression":"attribute_not_exists(user_id)","Item":{"connected":{"BOOL":true},"due_at":{"N":"1767225600"},"due_shard":{"N":"3"},"sealed":{"B":"AAEC"},"status":{"S":"active"},"user_id":{"S":"u-1"},"version":{"N":"1"}},"TableName":"paypulse-tokens"}"##,
        answer: ##"{}"##
    )

    static let getItem = Self(
        target: "DynamoDB_20120810.GetItem", status: 200,
        request: ##"{"ConsistentRead":true,"Key":{"user_id":{"S":"u-1"}},"TableName":"paypulse-tokens"}"##,
        answer: ##"{"Item": {"connected": {"BOOL": true}, "due_at": {"N": "1767225600"}, "due_shard": {"N": "3"}, "sealed": {"B": "AAEC"}, "status": {"S": "active"}, "user_id": {"S": "u-1"}, "version": {"N": "1"}}}"##
    )

    static let getMissingItem = Self(
        target: "DynamoDB_20120810.GetItem", status: 200,
        request: ##"{"ConsistentRead":true,"Key":{"user_id":{"S":"u-2"}},"TableName":"paypulse-tokens"}"##,
        answer: ##"{}"##
    )

    static let updateItem = Self(
        target: "DynamoDB_20120810.UpdateItem", status: 200,
        request: ##"{"ConditionExpression":"#v = :old","ExpressionAttributeNames":{"#v":"version"},"ExpressionAttributeValues":{":new":{"N":"2"},":old":{"N":"1"}},"Key":{"user_id":{"S":"u-1"}},"ReturnValues":"ALL_NEW","TableName":"paypulse-tokens","UpdateExpression":"SET #v = :new"}"##,
        answer: ##"{"Attributes": {"connected": {"BOOL": true}, "due_at": {"N": "1767225600"}, "due_shard": {"N": "3"}, "sealed": {"B": "AAEC"}, "status": {"S": "active"}, "user_id": {"S": "u-1"}, "version": {"N": "2"}}, "ConsumedCapacity": {"TableName": "paypulse-tokens", "CapacityUnits": 0.5}}"##
    )

    static let updateItemConditionFailed = Self(
        target: "DynamoDB_20120810.UpdateItem", status: 400,
        request: ##"{"ConditionExpression":"#v = :old","ExpressionAttributeNames":{"#v":"version"},"ExpressionAttributeValues":{":new":{"N":"2"},":old":{"N":"1"}},"Key":{"user_id":{"S":"u-1"}},"ReturnValues":"ALL_NEW","TableName":"paypulse-tokens","UpdateExpression":"SET #v = :new"}"##,
        answer: ##"{"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "The conditional request failed"}"##
    )

    static let putPlainItem = Self(
        target: "DynamoDB_20120810.PutItem", status: 200,
        request: ##"{"Item":{"due_at":{"N":"1767229200"},"due_shard":{"N":"3"},"status":{"S":"active"},"user_id":{"S":"u-2"}},"TableName":"paypulse-tokens"}"##,
        answer: ##"{}"##
    )

    static let query = Self(
        target: "DynamoDB_20120810.Query", status: 200,
        request: ##"{"ExpressionAttributeValues":{":s":{"N":"3"},":t":{"N":"1767300000"}},"IndexName":"due","KeyConditionExpression":"due_shard = :s AND due_at <= :t","Limit":1,"TableName":"paypulse-tokens"}"##,
        answer: ##"{"Items": [{"user_id": {"S": "u-1"}, "due_shard": {"N": "3"}, "due_at": {"N": "1767225600"}, "status": {"S": "active"}}], "Count": 1, "ScannedCount": 1, "LastEvaluatedKey": {"user_id": {"S": "u-1"}, "due_shard": {"N": "3"}, "due_at": {"N": "1767225600"}}}"##
    )

    static let scan = Self(
        target: "DynamoDB_20120810.Scan", status: 200,
        request: ##"{"ConsistentRead":true,"ExpressionAttributeNames":{"#s":"status"},"ExpressionAttributeValues":{":a":{"S":"active"}},"FilterExpression":"#s = :a","Limit":1,"TableName":"paypulse-tokens"}"##,
        answer: ##"{"Items": [{"connected": {"BOOL": true}, "due_at": {"N": "1767225600"}, "due_shard": {"N": "3"}, "sealed": {"B": "AAEC"}, "status": {"S": "active"}, "user_id": {"S": "u-1"}, "version": {"N": "2"}}], "Count": 1, "ScannedCount": 1, "LastEvaluatedKey": {"user_id": {"S": "u-1"}}}"##
    )

    static let deleteItem = Self(
        target: "DynamoDB_20120810.DeleteItem", status: 200,
        request: ##"{"Key":{"user_id":{"S":"u-2"}},"TableName":"paypulse-tokens"}"##,
        answer: ##"{}"##
    )

    static let createKey = Self(
        target: "TrentService.CreateKey", status: 200,
        request: ##"{"Description":"paypulse fixture","KeySpec":"SYMMETRIC_DEFAULT","KeyUsage":"ENCRYPT_DECRYPT"}"##,
        answer: ##"{"KeyMetadata": {"AWSAccountId": "123456789012", "Arn": "arn:aws:kms:us-east-1:123456789012:key/d6b3d6c1-4037-4bdd-bcff-3142a2577c22", "CreationDate": 1795637178.51828, "CustomerMasterKeySpec": "SYMMETRIC_DEFAULT", "KeySpec": "SYMMETRIC_DEFAULT", "Description": "paypulse fixture", "Enabled": true, "EncryptionAlgorithms": ["SYMMETRIC_DEFAULT"], "KeyId": "d6b3d6c1-4037-4bdd-bcff-3142a2577c22", "KeyManager": "CUSTOMER", "KeyUsage": "ENCRYPT_DECRYPT", "KeyState": "Enabled", "MultiRegion": null, "Origin": "AWS_KMS", "SigningAlgorithms": null}}"##
    )

    static let generateDataKey = Self(
        target: "TrentService.GenerateDataKey", status: 200,
        request: ##"{"EncryptionContext":{"user_id":"u-1"},"KeyId":"d6b3d6c1-4037-4bdd-bcff-3142a2577c22","KeySpec":"AES_256"}"##,
        answer: ##"{"CiphertextBlob": "ZDZiM2Q2YzEtNDAzNy00YmRkLWJjZmYtMzE0MmEyNTc3YzIy5bgVklf+7T4MsAC5PPbwI7D3rqio/S0UU4686m2tSQeoKWyxBt8RgGGJueuuLHig8MlYHKkm7iFK55pA", "Plaintext": "9ZG7JnTEWB5PjSlfA9bZl6xfObFJZEiEcm3/MeboOn8=", "KeyId": "arn:aws:kms:us-east-1:123456789012:key/d6b3d6c1-4037-4bdd-bcff-3142a2577c22"}"##
    )

    static let decrypt = Self(
        target: "TrentService.Decrypt", status: 200,
        request: ##"{"CiphertextBlob":"ZDZiM2Q2YzEtNDAzNy00YmRkLWJjZmYtMzE0MmEyNTc3YzIy5bgVklf+7T4MsAC5PPbwI7D3rqio/S0UU4686m2tSQeoKWyxBt8RgGGJueuuLHig8MlYHKkm7iFK55pA","EncryptionContext":{"user_id":"u-1"},"KeyId":"d6b3d6c1-4037-4bdd-bcff-3142a2577c22"}"##,
        answer: ##"{"Plaintext": "9ZG7JnTEWB5PjSlfA9bZl6xfObFJZEiEcm3/MeboOn8=", "KeyId": "arn:aws:kms:us-east-1:123456789012:key/d6b3d6c1-4037-4bdd-bcff-3142a2577c22"}"##
    )
}
