import Logging

/// The request id of the Lambda invocation running on this task, set by ``LambdaLoop``
/// and read only by the log handler's metadata provider: the one place it is attached, so
/// that lines from adapters built once per process carry it too.
enum RequestScope {
    @TaskLocal static var requestID: String?

    /// Adds `requestId` to every line logged inside an invocation.
    static let metadata = Logger.MetadataProvider {
        guard let requestID else { return [:] }
        return ["requestId": .string(requestID)]
    }
}
