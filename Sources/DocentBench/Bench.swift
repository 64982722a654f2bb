import ArgumentParser

/// `docent-bench`: benchmarks that print figures beside baselines measured in the same run.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docent-bench",
        abstract: "Benchmarks for Docent, each against baselines measured in the same run.",
        subcommands: [SuiteBench.self, ClassifyBench.self, LiveBench.self, LoadBench.self, OCRBench.self, PDFBench.self, PostgresBench.self, RelevanceBench.self, ScaleBench.self, ViewerBench.self],
        defaultSubcommand: SuiteBench.self
    )
}
