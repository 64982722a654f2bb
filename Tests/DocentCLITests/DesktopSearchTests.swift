import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A private D-Bus session bus (Debian's dbus-daemon) in a temporary directory, started with
/// the test's environment so the services it activates see the test's index.
final class PrivateSessionBus {
    let address: String
    private let daemon: pid_t

    init(directory: String, serviceDirectory: String, environment: [String: String]) throws {
        let socket = directory + "/bus"
        address = "unix:path=" + socket
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(address)</listen>
              <servicedir>\(serviceDirectory)</servicedir>
              <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
            </busconfig>
            """
        try config.write(toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        daemon = try IsolatedProcess.start(["/usr/bin/dbus-daemon", "--config-file=" + directory + "/bus.conf", "--nofork", "--nopidfile"],
                                           environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                                           output: directory + "/bus.log")
        let deadline = Date().addingTimeInterval(10)
        while access(socket, F_OK) != 0, Date() < deadline { usleep(10_000) }
    }

    deinit {
        kill(daemon, SIGKILL)  // dbus-daemon --nofork takes SIGTERM as a request, not an order
        _ = IsolatedProcess.wait(daemon)
    }

    /// `gdbus call` on this bus: its printed reply, or the failure.
    func call(_ path: String, _ method: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        process.arguments = ["call", "--address", address, "--dest", "org.docent.Docent.SearchProvider", "--object-path", path,
                             "--method", method, "--timeout", "60"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// The strings of a GVariant text form (`'…'`, as gdbus prints them), in order.
    static func strings(_ text: String) -> [String] {
        var out: [String] = [], current = "", inside = false, escaped = false
        for character in text {
            if inside {
                if escaped { current.append(character); escaped = false } else if character == "\\" { escaped = true }
                else if character == "'" { out.append(current); current = ""; inside = false } else { current.append(character) }
            } else if character == "'" {
                inside = true
            }
        }
        return out
    }
}

@Suite("Desktop search: GNOME Shell's and KRunner's D-Bus interfaces on a private session bus")
struct DesktopSearchTests {
    @Test("installed files, D-Bus activation, results equal to docent search's, metas, activation through the opener")
    func searchProviderAndKRunner() throws {
        let fixture = try WatchFixture()
        let dir = fixture.dir.path
        try fixture.write("notes/lantern.txt", "The lantern of free software lights the harbour.")
        try fixture.write("notes/other.md", "# Harbour report\n\nFree software in the harbour, and a lantern.")
        try fixture.write("papers/far.txt", "Nothing about the subject here but free software.")
        try fixture.write("papers/café ünïcode.txt", "harbour lantern with a name in UTF-8")
        // The opener: records what it was asked to open.
        let opened = dir + "/opened.txt"
        let opener = try fixture.dir.write("opener.sh", "#!/bin/sh\nprintf '%s\\n' \"$@\" >> \(opened)\n")
        chmod(opener, 0o755)
        try FileManager.default.createDirectory(atPath: dir + "/config", withIntermediateDirectories: true)
        try "opener: [\(opener)]\n".write(toFile: dir + "/config/config.yaml", atomically: true, encoding: .utf8)
        var env = fixture.env
        env["DOCENT_CONFIG_DIR"] = dir + "/config"
        env["HOME"] = dir
        let r = try Docent.run(["index", fixture.root], environment: env)
        #expect(r.status == 0, "\(r.stderr)")

        // Installed where a session's D-Bus finds services, with this build's docent in Exec=.
        let install = try Docent.run(["desktop", "install", "--data-dir", dir + "/share", "--gnome-dir", dir + "/system"], environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        let service = try String(contentsOfFile: dir + "/share/dbus-1/services/org.docent.Docent.SearchProvider.service", encoding: .utf8)
        #expect(service.contains("Name=org.docent.Docent.SearchProvider"))
        #expect(service.contains("Exec=\(Docent.binary.resolvingSymlinksInPath().path) desktop run"), "\(service)")
        let ini = try String(contentsOfFile: dir + "/system/gnome-shell/search-providers/docent.search-provider.ini", encoding: .utf8)
        #expect(ini.contains("BusName=org.docent.Docent.SearchProvider") && ini.contains("ObjectPath=/org/docent/Docent/SearchProvider"))
        #expect(ini.contains("DesktopId=docent.desktop"))
        #expect(FileManager.default.fileExists(atPath: dir + "/share/applications/docent.desktop"))
        let runner = try String(contentsOfFile: dir + "/share/krunner/dbusplugins/docent.desktop", encoding: .utf8)
        #expect(runner.contains("X-Plasma-DBusRunner-Path=/org/docent/Docent/KRunner"))

        let bus = try PrivateSessionBus(directory: dir, serviceDirectory: dir + "/share/dbus-1/services", environment: env)
        let gnome = "/org/docent/Docent/SearchProvider", krunner = "/org/docent/Docent/KRunner"
        let provider = "org.gnome.Shell.SearchProvider2"

        for words in [["free", "software"], ["harbour"], ["software", "-harbour"], ["type:markdown"]] {
            let hits = try Docent.run(["search", "--json", "--limit", "20"] + words, environment: env).jsonLines
            let expected = hits.compactMap { $0["path"] as? String }
            let expectedNames = hits.map { ($0["title"] as? String) ?? (($0["path"] as? String ?? "") as NSString).lastPathComponent }
            #expect(!expected.isEmpty, "\(words)")
            // GNOME Shell: ids, then their metas (names in the same order as docent search's paths).
            let initial = try bus.call(gnome, provider + ".GetInitialResultSet", ["[" + words.map { "'\($0)'" }.joined(separator: ",") + "]"])
            #expect(initial.status == 0, "\(initial.output)")
            let ids = PrivateSessionBus.strings(initial.output)
            #expect(ids.count == expected.count, "\(words): \(initial.output) against \(expected)")
            let metas = try bus.call(gnome, provider + ".GetResultMetas", ["[" + ids.map { "'\($0)'" }.joined(separator: ",") + "]"])
            #expect(metas.status == 0, "\(metas.output)")
            let names = metaValues(metas.output, key: "name")
            #expect(names == expectedNames, "\(metas.output)")
            let descriptions = metaValues(metas.output, key: "description")
            #expect(descriptions.count == ids.count && descriptions.allSatisfy { $0.hasPrefix("~/root/") }, "\(descriptions)")
            #expect(metas.output.contains("'gicon'"))
            // KRunner: the same hits, named, with the place and text as subtext.
            let match = try bus.call(krunner, "org.kde.krunner1.Match", [words.joined(separator: " ")])
            #expect(match.status == 0, "\(match.output)")
            let matchIDs = matchTuples(match.output).map(\.id)
            #expect(matchIDs == ids, "\(match.output)")
        }
        // GetSubsearchResultSet narrows with the new words.
        let sub = try bus.call(gnome, provider + ".GetSubsearchResultSet", ["['1','2','3','4']", "['lantern','free']"])
        let lanternFree = try Docent.run(["search", "--files", "lantern", "free"], environment: env).stdout.split(separator: "\n")
        #expect(PrivateSessionBus.strings(sub.output).count == lanternFree.count, "\(sub.output)")

        // A half-typed query (an open quote) is no error; a half-typed last word finds by prefix.
        let open = try bus.call(gnome, provider + ".GetInitialResultSet", ["['\"harb']"])
        #expect(open.status == 0 && PrivateSessionBus.strings(open.output).count == 3, "\(open.output)")
        let nothing = try bus.call(gnome, provider + ".GetInitialResultSet", ["['zzzqqq']"])
        #expect(nothing.status == 0 && PrivateSessionBus.strings(nothing.output).isEmpty, "\(nothing.output)")
        // Unknown or foreign ids give no metas and open nothing.
        let unknown = try bus.call(gnome, provider + ".GetResultMetas", ["['99999','../../etc/passwd']"])
        #expect(unknown.status == 0 && metaValues(unknown.output, key: "name").isEmpty, "\(unknown.output)")

        // Activation: the opener gets the file's path (GNOME), or its folder (KRunner's action).
        let lanternID = try #require(PrivateSessionBus.strings(try bus.call(gnome, provider + ".GetInitialResultSet", ["['ünïcode']"]).output).first)
        #expect(try bus.call(gnome, provider + ".ActivateResult", ["'99999'", "[]", "0"]).status == 0)
        #expect(try bus.call(gnome, provider + ".ActivateResult", ["'\(lanternID)'", "['lantern']", "0"]).status == 0)
        #expect(try bus.call(krunner, "org.kde.krunner1.Run", ["'\(lanternID)'", "'open-folder'"]).status == 0)
        let expectedOpened = [fixture.root + "/papers/café ünïcode.txt", fixture.root + "/papers"]
        #expect(fixture.eventually(10) { (try? String(contentsOfFile: opened, encoding: .utf8))?.split(separator: "\n").map(String.init) == expectedOpened },
                "\((try? String(contentsOfFile: opened, encoding: .utf8)) ?? "nothing opened")")
        let actions = try bus.call(krunner, "org.kde.krunner1.Actions", [])
        #expect(actions.output.contains("open-folder"))

        let uninstall = try Docent.run(["desktop", "uninstall", "--data-dir", dir + "/share", "--gnome-dir", dir + "/system"], environment: env)
        #expect(uninstall.stdout.split(separator: "\n").count == 4, "\(uninstall.stdout)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/share/dbus-1/services/org.docent.Docent.SearchProvider.service"))
    }

    @Test("docent desktop run without a session bus says so in one line, exit 2")
    func noBus() throws {
        let r = try Docent.run(["desktop", "run"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("session bus"), "\(r.stderr)")
    }

    /// The values of `key` in each dictionary of a GetResultMetas reply.
    func metaValues(_ text: String, key: String) -> [String] {
        let strings = PrivateSessionBus.strings(text)
        return strings.indices.compactMap { i in strings[i] == key && i + 1 < strings.count ? strings[i + 1] : nil }
    }

    /// KRunner's match tuples: (id, text, icon, …) — their first string is the id.
    func matchTuples(_ text: String) -> [(id: String, name: String)] {
        text.components(separatedBy: "('").dropFirst().compactMap { part in
            let strings = PrivateSessionBus.strings("'" + part)
            return strings.count >= 2 ? (strings[0], strings[1]) : nil
        }
    }
}
