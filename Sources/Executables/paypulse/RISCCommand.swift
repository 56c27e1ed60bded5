import ArgumentParser
import PayPulseGoogle

/// `paypulse risc`: registers and manages the project's Cross-Account Protection (RISC)
/// stream at Google, so Google pushes its security events to the `security-events` receiver.
struct RISCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "risc",
        abstract: "Register and manage the Cross-Account Protection (RISC) stream at Google.",
        discussion: """
            Each subcommand signs a self-signed token with the service account's key file (the account needs \
            roles/riscconfigs.admin, and the RISC API must be enabled in the project of the app's OAuth clients). \
            The API is GOOGLE_RISC_API (default \(RISCManagementClient.productionAPIBase)).
            """,
        subcommands: [Register.self, Show.self, Status.self, Enable.self, Disable.self, Verify.self]
    )

    /// `risc register`: `POST stream:update`.
    struct Register: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register the receiver and the events Google pushes to it (replaces the stream's configuration)."
        )

        @OptionGroup var connection: RISCConnection
        @Option(help: "The receiver: an https:// URL on a domain authorized in the Cloud project, e.g. https://api.example.com/v1/google/security-events.")
        var receiver: String
        @Option(
            parsing: .upToNextOption,
            help: "Event types, short (tokens-revoked) or full URIs; default: Google's supported list (\(RISCEventType.googleSupported.map(RISCEventType.shortName).joined(separator: ", "))).")
        var events: [String] = []

        func validate() throws {
            for name in events where RISCEventType.uri(named: name) == nil {
                throw ValidationError("unknown event type '\(name)': use a full https:// URI or one of \(RISCEventType.googleSupported.map(RISCEventType.shortName).joined(separator: ", "))")
            }
        }

        func run() async throws {
            let uris = events.isEmpty ? RISCEventType.googleSupported : events.compactMap(RISCEventType.uri(named:))
            do {
                try await connection.client().updateStream(receiver: receiver, events: uris)
            } catch let error as RISCManagementError {
                throw error.forCLI("register")
            }
            print("registered: Google pushes to \(receiver)")
            print("events requested: \(uris.map(RISCEventType.shortName).joined(separator: ", "))")
        }
    }

    /// `risc show`: `GET stream`.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the stream's receiver and events.")

        @OptionGroup var connection: RISCConnection

        func run() async throws {
            let stream: RISCStream
            do {
                stream = try await connection.client().stream()
            } catch let error as RISCManagementError {
                throw error.forCLI("show")
            }
            let method = stream.deliveryMethod == RISCManagementClient.pushDeliveryMethod ? "push" : stream.deliveryMethod ?? "none"
            print("receiver: \(stream.deliveryURL ?? "none") (\(method))")
            print("events requested: \(Self.names(stream.eventsRequested))")
            print("events delivered: \(Self.names(stream.eventsDelivered))")
            if !stream.audience.isEmpty { print("audience: \(stream.audience.joined(separator: ", "))") }
        }

        private static func names(_ uris: [String]) -> String {
            uris.isEmpty ? "none" : uris.map(RISCEventType.shortName).joined(separator: ", ")
        }
    }

    /// `risc status`: `GET stream/status`.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show whether Google delivers the stream's events.")

        @OptionGroup var connection: RISCConnection

        func run() async throws {
            do {
                print("status: \(try await connection.client().status())")
            } catch let error as RISCManagementError {
                throw error.forCLI("status")
            }
        }
    }

    /// `risc enable`: `POST stream/status:update` `{"status": "enabled"}`.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Resume delivery.")

        @OptionGroup var connection: RISCConnection

        func run() async throws { try await RISCCommand.setStatus(.enabled, connection) }
    }

    /// `risc disable`: `POST stream/status:update` `{"status": "disabled"}`.
    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop delivery (Google keeps nothing for later while disabled).")

        @OptionGroup var connection: RISCConnection

        func run() async throws { try await RISCCommand.setStatus(.disabled, connection) }
    }

    /// `risc verify`: `POST stream:verify`.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ask Google to push a verification event to the receiver.")

        @OptionGroup var connection: RISCConnection
        @Option(help: "Text the verification event carries back as its state, to recognise it at the receiver.")
        var state: String

        func run() async throws {
            do {
                try await connection.client().verify(state: state)
            } catch let error as RISCManagementError {
                throw error.forCLI("verify")
            }
            print("verification requested: Google pushes a verification event with state \"\(state)\" to the receiver")
        }
    }

    private static func setStatus(_ status: RISCStreamStatus, _ connection: RISCConnection) async throws {
        do {
            print("status: \(try await connection.client().updateStatus(status))")
        } catch let error as RISCManagementError {
            throw error.forCLI(status == .enabled ? "enable" : "disable")
        }
    }
}
