// Fuzz target: an inotify read buffer, decoded into events.
// Built and run by Fuzz/run.sh; libFuzzer's flags are this program's flags.
import FuzzSupport
import Watcher

/// One input, as Docent meets such bytes.
@Sendable func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    _ = InotifyEvent.decode(UnsafeRawBufferPointer(bytes))
}

runFuzzer(fuzzOne)
