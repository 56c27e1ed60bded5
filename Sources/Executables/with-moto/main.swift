// `with-moto COMMAND [ARG...]`: runs COMMAND with a moto_server on a free loopback port
// (MotoServer.run(command:)). A test tool, never deployed; scripts/with-moto.sh runs it.
import Foundation
import PayPulseTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let command = Array(CommandLine.arguments.dropFirst())
guard !command.isEmpty else {
    FileHandle.standardError.write(Data("usage: with-moto COMMAND [ARG...]\n".utf8))
    exit(64)
}
do {
    exit(try await MotoServer.run(command: command))
} catch {
    FileHandle.standardError.write(Data("with-moto: \(error)\n".utf8))
    exit(1)
}
