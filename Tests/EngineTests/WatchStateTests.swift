import Engine
import Foundation
import Testing

@Suite("The watcher's state")
struct WatchStateTests {
    @Test("What holds the watcher back comes first: a pause, then a disk that takes no writes, then the reconcile",
          arguments: [
              // paused, storage failing, reconciled, on battery, changes waiting, applying → state
              (true, true, false, true, 5, true, WatchState.paused),
              (false, true, false, false, 5, false, .waiting),
              (false, true, true, false, 0, false, .waiting),
              (false, false, false, false, 0, false, .starting),
              (false, false, false, true, 0, false, .deferred),
              (false, false, true, true, 0, false, .watching),  // reconciled on battery: single changes still go on
              (false, false, true, false, 0, false, .watching),
              (false, false, true, false, 3, false, .indexing),
              (false, false, true, false, 0, true, .indexing),  // a batch in hand, nothing else waiting
          ])
    func state(paused: Bool, storageFailing: Bool, reconciled: Bool, onBattery: Bool, waiting: Int, applying: Bool,
               expected: WatchState) {
        #expect(WatchState.of(paused: paused, storageFailing: storageFailing, reconciled: reconciled, onBattery: onBattery,
                              changesWaiting: waiting, applying: applying) == expected)
    }

    @Test("The status file keeps its words: each state is written and read as the word `docent status --json` prints")
    func statusFileWords() throws {
        #expect(WatchState.allCases.map(\.rawValue) == ["starting", "deferred", "indexing", "watching", "paused", "waiting", "stopped"])
        let written = #"{"files":3,"missingRoots":[],"overflows":0,"pending":2,"pid":1,"roots":["/r"],"started":0,"state":"paused","#
            + #""unwatchedDirectories":[],"watchedDirectories":1}"#
        let status = try JSONDecoder().decode(WatchStatus.self, from: Data(written.utf8))
        #expect(status.state == .paused)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(status)
        #expect(String(decoding: data, as: UTF8.self).contains(#""state":"paused""#))
        #expect(try JSONDecoder().decode(WatchStatus.self, from: data) == status)
        // A status file with a word no version writes is no status, not a crash.
        let strange = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\"paused\"", with: "\"dozing\"")
        #expect((try? JSONDecoder().decode(WatchStatus.self, from: Data(strange.utf8))) == nil)
    }
}
