/// Removes the stage from a payload 2.0 path.
///
/// An HTTP API invoked on its execute-api URL with a named stage (`prod`) puts the stage
/// in `rawPath` (`/prod/v1/user/me`); the `$default` stage adds nothing. Handlers route
/// on stage-less paths, so a leading `/{stage}` segment is removed once. Only whole
/// segments match: stage `v` leaves `/v1/user/me` alone. Payload 1.0 is not passed
/// through here: its top-level `path` never holds the stage (`requestContext.path` does),
/// and stripping it anyway would break a stage named like a route segment (`v1`).
enum StagePrefix {
    static func strip(_ path: String, stage: String?) -> String {
        guard let stage, !stage.isEmpty, stage != "$default" else { return path }
        let prefix = "/" + stage
        if path == prefix { return "/" }
        if path.hasPrefix(prefix + "/") { return String(path.dropFirst(prefix.count)) }
        return path
    }
}
