#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PayPulsePorts

/// What a vault needs to consult Google's word on an account after a write: where the word
/// is kept, and how a purge it finds deletes (a disconnect's recovery window).
package struct GoogleWordCheck: Sendable {
    /// Google's word on each account.
    package let words: any GoogleAccountWords
    /// The recovery window of a grant a recorded purge deletes (`DISCONNECT_RECOVERY_DAYS`).
    package let recoveryWindowDays: Int

    /// Creates the check.
    package init(words: any GoogleAccountWords, recoveryWindowDays: Int) {
        self.words = words
        self.recoveryWindowDays = recoveryWindowDays
    }
}

/// Google's word found newer than the proof of a grant just written: the grant now says what
/// Google said (revoked, disabled, or deleted), and the caller must not answer "connected".
package struct GoogleWordOverruled: Error, Sendable, Equatable {
    /// The grant's status after Google's word; `nil` when a purge deleted it.
    package let status: GmailTokenSet.Status?

    /// Google's word left the grant `status` (`nil`: deleted).
    package init(status: GmailTokenSet.Status?) {
        self.status = status
    }
}

extension TokenVault {
    /// Consults Google's word on the account of `set`, which was just written for `user`
    /// usable (active, or awaiting Google's proof), and applies every event not older than
    /// the set's proof, as the receiver would have (``GoogleAccountEvents``). The receiver
    /// records the word before it looks for grants, and this reads it after the write, so an
    /// event is never lost between them: if the receiver's listing could not show this write
    /// yet, this read sees its word.
    ///
    /// Costs one consistent read of the word; a set without a known account (unverified), or
    /// one already not usable, costs none.
    /// - Throws: ``GoogleWordOverruled`` when the word changed the grant; `StoreError` when
    ///   the word or the store cannot be read (the write stands; the refresh run applies the
    ///   word later).
    package func honourGoogle(_ user: UserID, written set: GmailTokenSet) async throws {
        guard let googleWord, set.googleSubject != nil, set.status == .active else { return }
        let events = GoogleAccountEvents(vault: self, recoveryWindowDays: googleWord.recoveryWindowDays, words: googleWord.words, now: now)
        guard try await events.applyWord(to: user, written: set) else { return }
        let after = try await current(of: user)
        if let status = after?.tokenSet.status, status == .active { return }
        throw GoogleWordOverruled(status: after?.tokenSet.status)
    }
}
