#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import PayPulseCoding
import PayPulseDomain
import PayPulsePorts
import PayPulseRuntime

/// `GET /v1/user/me`: the profile and whether Gmail is connected, decided from the grant
/// state only (this function may not read token values).
package struct UserProfileHandler: APIRouteHandler {
    let guardian: RequestGuard
    let users: any UserDirectory
    let grants: any GrantStates

    /// Creates the handler.
    ///
    /// - Parameters:
    ///   - guardian: Admits the request (JWT, method).
    ///   - users: Where profiles live.
    ///   - grants: The grants' states only: this function never reads a token value.
    package init(guardian: RequestGuard, users: any UserDirectory, grants: any GrantStates) {
        self.guardian = guardian
        self.users = users
        self.grants = grants
    }

    package func respond(to request: APIRequest, context: InvocationContext) async throws(APIError) -> APIResponse {
        let user = try await guardian.admit(request, method: "GET", logger: context.logger)
        var logger = context.logger
        logger[metadataKey: "user_id"] = "\(user.userID)"
        do {
            async let record = users.user(id: user.userID.rawValue)
            async let state = ConnectionState.of(user.userID, in: grants)
            guard let profile = try await record else { throw APIError.notFound("No PayPulse user with this id.") }
            let connection = try await state
            return .json(status: 200, UserProfileReply(
                message: "User profile retrieved successfully",
                data: .init(
                    name: profile.name, email: profile.email, created_on: Self.normalized(profile.createdOn),
                    gmail_account_connected: connection.isConnected
                )
            ).jsonValue)
        } catch let error as APIError {
            throw error
        } catch let error as StoreError {
            logger.error("user-profile failed", metadata: ["error": "\(error)"])
            throw APIError(storeError: error)
        } catch {
            logger.error("user-profile failed", metadata: ["error": "\(type(of: error))"])
            throw .internalError
        }
    }

    /// RFC 3339 in UTC with whole seconds when the stored value parses; otherwise as stored.
    static func normalized(_ createdOn: String) -> String {
        RFC3339.date(from: createdOn).map(RFC3339.string(from:)) ?? createdOn
    }
}

/// The 200 body of the reference contract.
struct UserProfileReply {
    struct Data {
        var name: String
        var email: String
        var created_on: String
        var gmail_account_connected: Bool
    }

    var message: String
    var data: Data

    /// The document.
    var jsonValue: JSONValue {
        .object([
            "message": .string(message),
            "data": .object([
                "name": .string(data.name), "email": .string(data.email), "created_on": .string(data.created_on),
                "gmail_account_connected": .bool(data.gmail_account_connected),
            ]),
        ])
    }
}
