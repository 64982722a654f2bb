import FileAccess
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether the machine runs on battery, from the kernel's power supply class
/// (`/sys/class/power_supply`, what UPower reads too), and news of its changes from the
/// kernel's uevents (netlink) — no polling.
///
/// `DOCENT_POWER_SUPPLY_DIR` points elsewhere (tests: a battery cannot be unplugged on
/// purpose); such a directory is followed with inotify, as sysfs cannot be.
package struct PowerSource: Sendable {
    package var directory: String

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        directory = environment["DOCENT_POWER_SUPPLY_DIR"] ?? "/sys/class/power_supply"
    }

    var isSimulated: Bool { directory != "/sys/class/power_supply" }

    /// Whether any supply is a battery (a desktop has none: nothing to follow).
    package var hasBattery: Bool { supplies().contains { $0.type == "Battery" } }

    /// On battery: a system battery discharging and no mains or USB supply online.
    package var onBattery: Bool {
        let all = supplies()
        if all.contains(where: { $0.type != "Battery" && $0.online == "1" }) { return false }
        return all.contains { $0.type == "Battery" && $0.scope != "Device" && $0.status == "Discharging" }
    }

    private struct Supply {
        var type: String?, online: String?, status: String?, scope: String?
    }

    private func supplies() -> [Supply] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.map { name in
            func value(_ key: String) -> String? {
                WholeFile.read(directory + "/" + name + "/" + key).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
            }
            return Supply(type: value("type"), online: value("online"), status: value("status"), scope: value("scope"))
        }
    }

    /// Calls `changed` (on a thread of its own) whenever a power supply may have changed,
    /// until the process ends. False when no source of news could be opened.
    @discardableResult
    package func follow(_ changed: @escaping @Sendable () -> Void) -> Bool {
        let directory = self.directory
        let descriptor: Int32
        if isSimulated {
            descriptor = inotify_init1(Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return false }
            let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
            _ = inotify_add_watch(descriptor, directory, mask)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                _ = inotify_add_watch(descriptor, directory + "/" + name, mask)
            }
        } else {
            descriptor = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 15 /* NETLINK_KOBJECT_UEVENT */)
            guard descriptor >= 0 else { return false }
            // struct sockaddr_nl (linux/netlink.h, not in Swift's Glibc module): family, padding,
            // port id, groups; group 1 is the kernel's uevents.
            var address: (UInt16, UInt16, UInt32, UInt32) = (UInt16(AF_NETLINK), 0, 0, 1)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, 12) }
            }
            guard bound == 0 else {
                close(descriptor)
                return false
            }
        }
        let simulated = isSimulated
        OwnThreads.start("docent-power") {
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let n = read(descriptor, &buffer, buffer.count)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return }
                // A uevent is NUL-separated KEY=value lines; only power supplies matter.
                if simulated || String(decoding: buffer[..<n], as: UTF8.self).contains("SUBSYSTEM=power_supply") { changed() }
            }
        }
        return true
    }
}
