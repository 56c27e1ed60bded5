#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The version of a grant's value: an opaque token, compared only for equality and handed
/// back to ``GrantStore/replace(_:expected:value:attributes:)``.
public struct GrantVersion: Hashable, Sendable, CustomStringConvertible {
    /// The token as the store spells it.
    public let rawValue: String

    /// Wraps a token.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }
}

/// A grant's value as read, with the version to compare-and-swap from.
public struct GrantValue: Sendable, Equatable {
    /// The stored document.
    public var value: String
    /// The version read.
    public var version: GrantVersion

    /// Creates a value.
    public init(value: String, version: GrantVersion) {
        self.value = value
        self.version = version
    }
}

/// What ``GrantStore/state(of:)`` tells without reading the value.
public struct GrantState: Sendable, Equatable {
    /// The listing attributes.
    public var attributes: [String: String]
    /// When the grant was scheduled for deletion; `nil` when it is not.
    public var deletionDate: Date?
    /// The current version, if the store knows one.
    public var currentVersion: GrantVersion?

    /// Creates a state.
    public init(attributes: [String: String], deletionDate: Date?, currentVersion: GrantVersion?) {
        self.attributes = attributes
        self.deletionDate = deletionDate
        self.currentVersion = currentVersion
    }

    /// Whether the grant is scheduled for deletion.
    public var isScheduledForDeletion: Bool { deletionDate != nil }
}

/// One grant as listed: no value.
public struct GrantSummary: Sendable, Equatable {
    /// The user id.
    public var user: String
    /// The listing attributes.
    public var attributes: [String: String]
    /// When a value was last written (created or replaced), if the store tells; attribute
    /// writes may or may not move it, so only "a value was written at least this recently"
    /// may be read from it.
    public var lastWritten: Date?
    /// When it was scheduled for deletion; `nil` when it is not.
    public var deletionDate: Date?

    /// Creates a summary.
    public init(user: String, attributes: [String: String], lastWritten: Date?, deletionDate: Date?) {
        self.user = user
        self.attributes = attributes
        self.lastWritten = lastWritten
        self.deletionDate = deletionDate
    }
}

/// One page of a grant listing.
public struct GrantPage: Sendable, Equatable {
    /// The grants on this page.
    public var grants: [GrantSummary]
    /// Where the next page starts; `nil` on the last page.
    public var cursor: String?

    /// Creates a page.
    public init(grants: [GrantSummary], cursor: String?) {
        self.grants = grants
        self.cursor = cursor
    }
}
