import Foundation
import Testing

/// The soak's judgement of single answers, on made-up records: an answer the workload
/// cannot cause must be caught, or a soak of failing calls would pass.
@Suite("Soak: every answer judged")
struct SoakJudgeTests {
    static func record(_ function: SoakFunction, status: Int?, exit: Int32? = 0, signal: Int32? = nil) -> SoakRecord {
        SoakRecord(
            function: function, user: 0, tag: "t", started: .now, ended: .now, exitStatus: exit, signal: signal, httpStatus: status,
            sent: function == .storeTokens ? InvariantCheckerTests.sent("t") : nil
        )
    }

    @Test("what the workload causes passes")
    func expected() {
        #expect(Self.record(.storeTokens, status: 201).unexpected == nil)
        var refused = Self.record(.storeTokens, status: 400)
        refused.sent?.scriptedRevoked = true
        #expect(refused.unexpected == nil)
        #expect(Self.record(.disconnect, status: 200).unexpected == nil)
        #expect(Self.record(.disconnect, status: 404).unexpected == nil)
        var profile = Self.record(.userProfile, status: 200)
        profile.connected = false
        #expect(profile.unexpected == nil)
    }

    @Test("a 503, 502 or 400 to a live grant, a 409 or 503 to a disconnect, unreadable output and abnormal ends fail")
    func unexpected() {
        for status in [503, 502, 400, 409, 500] {
            #expect(Self.record(.storeTokens, status: status).unexpected != nil, "store-tokens \(status)")
        }
        var liveExpectedRefused = Self.record(.storeTokens, status: 201)
        liveExpectedRefused.sent?.scriptedRevoked = true
        #expect(liveExpectedRefused.unexpected != nil, "a grant dead from the start stored")
        for status in [409, 503, 500, 401] {
            #expect(Self.record(.disconnect, status: status).unexpected != nil, "disconnect \(status)")
        }
        #expect(Self.record(.userProfile, status: 200).unexpected != nil, "a profile without gmail_account_connected")
        #expect(Self.record(.userProfile, status: 503).unexpected != nil)
        for function in SoakFunction.allCases {
            #expect(Self.record(function, status: nil).unexpected != nil, "\(function) printed no readable answer, exit 0")
            #expect(Self.record(function, status: 200, exit: 1).unexpected != nil)
            #expect(Self.record(function, status: 200, exit: nil, signal: 9).unexpected != nil)
        }
    }

    /// A violation a seed cannot replay must leave the user's calls in the output.
    @Test("a violation prints its user's calls by name, in start order, and no token")
    func historyOfAViolation() {
        var store = Self.record(.storeTokens, status: 201)
        store.user = 1
        let report = SoakReport(
            backend: "test", seed: 1, workers: 1, stormWorkers: 0, seconds: 1, records: [store, Self.record(.userProfile, status: 200)],
            samples: [], samplingErrors: 0, restored: 0, deletedTaggedConnected: [], tokenCalls: 0, invalidGrants: 0, revokeCalls: 0,
            violations: [Violation(user: 1, rule: "r", detail: "d")], harnessErrors: []
        )
        #expect(report.text.contains("history of user 1"))
        #expect(report.text.contains("store-tokens t call t "))
        #expect(!report.text.contains("history of user 0"))
        #expect(!report.text.contains(store.sent!.accessToken), "no token in the report")
    }

    @Test("the report reads what the security-events handler did from its log line, in either log format")
    func handlerSaid() {
        let json = #"{"timestamp":"t","level":"INFO","message":"security event received","grants_changed":"0","grants_stale":"1","grants_unchanged":"2"}"#
        #expect(SoakWorkload.handlerSaid("first line\n" + json + "\n") == "changed 0, unchanged 2, stale 1")
        #expect(SoakWorkload.handlerSaid("info: security event received grants_changed=1 grants_unchanged=0 grants_stale=0") == "changed 1, unchanged 0, stale 0")
        #expect(SoakWorkload.handlerSaid("security event delivered again; acted on before") == "its ledger holds the token already")
        #expect(SoakWorkload.handlerSaid("security event token refused") == nil)
    }
}
