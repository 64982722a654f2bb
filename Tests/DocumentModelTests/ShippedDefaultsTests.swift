import Engine
import Foundation
import Testing

/// The defaults compiled into the binary are `Config/docent.yaml` itself.
@Suite("Shipped defaults")
struct ShippedDefaultsTests {
    /// Regression: the compiled-in defaults were a copy of Config/docent.yaml, and the two
    /// drifted (textBytes 16 MiB in the binary, 1 MiB in the documented file).
    @Test("The compiled-in settings are the documented Config/docent.yaml, value for value")
    func compiledDefaultsAreTheConfigFile() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let documented = try String(contentsOf: repository.appendingPathComponent("Config/docent.yaml"), encoding: .utf8)
        var parsed = Settings()
        try parsed.apply(documented, file: "Config/docent.yaml", home: "~")
        #expect(parsed == Settings.defaults())
        // One file, not two: the target's resource is a link to it.
        let resource = repository.appendingPathComponent("Sources/Engine/Defaults/docent.yaml").path
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: resource) == "../../../Config/docent.yaml")
    }
}
