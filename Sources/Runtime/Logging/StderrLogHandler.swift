import Logging

/// A swift-log handler that writes one line per event to standard error (descriptor 2,
/// or another descriptor in tests) with a single `write`, so concurrent lines do not
/// interleave.
public struct StderrLogHandler: LogHandler {
    /// The logger's label, shown on every line.
    public let label: String
    /// The line format.
    public let format: LogFormat
    /// The least severe level written.
    public var logLevel: Logger.Level
    /// Metadata added to every line.
    public var metadata: Logger.Metadata = [:]
    /// Contextual metadata (e.g. task-local request ids), if any.
    public var metadataProvider: Logger.MetadataProvider?
    private let fileDescriptor: Int32

    /// Creates a handler writing to standard error.
    ///
    /// - Parameters:
    ///   - label: The logger's label.
    ///   - level: The least severe level written.
    ///   - format: The line format.
    ///   - metadataProvider: Contextual metadata, if any.
    public init(label: String, level: Logger.Level, format: LogFormat = .text, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, level: level, format: format, metadataProvider: metadataProvider, fileDescriptor: 2)
    }

    /// Creates a handler writing to `fileDescriptor` (tests pass a pipe).
    init(label: String, level: Logger.Level, format: LogFormat, metadataProvider: Logger.MetadataProvider?, fileDescriptor: Int32) {
        self.label = label
        self.format = format
        self.logLevel = level
        self.metadataProvider = metadataProvider
        self.fileDescriptor = fileDescriptor
    }

    /// Metadata by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one line. Precedence: handler metadata, then the provider's,
    /// then the call's; an attached error is shown as `error=`.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error { merged["error"] = "\(error)" }
        let line = format.render(
            timestamp: .now(), level: event.level, label: label, message: event.message.description, metadata: merged
        )
        FileDescriptorIO.writeAll(fileDescriptor, Array((line + "\n").utf8))
    }
}
