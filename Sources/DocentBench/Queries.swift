/// The search benchmark's queries: one per query class, written for Docent and for Recoll.
struct BenchQuery {
    let label: String
    let docent: String
    let recoll: String
    /// Docent's flags besides the query.
    var arguments: [String] = []

    static let all: [BenchQuery] = [
        BenchQuery(label: "common word", docent: "system", recoll: "system"),
        BenchQuery(label: "rare word", docent: "lorentz", recoll: "lorentz"),
        BenchQuery(label: "two words", docent: "memory allocation", recoll: "memory allocation"),
        BenchQuery(label: "phrase", docent: "\"free software foundation\"", recoll: "\"free software foundation\""),
        BenchQuery(label: "prefix", docent: "licen*", recoll: "licen*"),
        BenchQuery(label: "type filter", docent: "manual type:pdf", recoll: "manual mime:application/pdf"),
        BenchQuery(label: "name", docent: "name:README*", recoll: "filename:README*"),
        BenchQuery(label: "no hit", docent: "qzxvnohitword", recoll: "qzxvnohitword"),
        BenchQuery(label: "either word", docent: "gzip OR bzip2", recoll: "gzip OR bzip2"),
        BenchQuery(label: "exclusion", docent: "python -perl", recoll: "python -perl"),
        BenchQuery(label: "extension", docent: "install ext:md", recoll: "install ext:md"),
    ]

    /// What "did you mean" costs where it is computed (a terminal, `--json`): a misspelt word
    /// and a word nothing is close to, each with its suggestions looked for. Docent's alone.
    static let suggesting: [BenchQuery] = [
        BenchQuery(label: "did you mean, misspelt", docent: "recieve", recoll: "", arguments: ["--json"]),
        BenchQuery(label: "did you mean, no hit", docent: "qzxvnohitword", recoll: "", arguments: ["--json"]),
    ]

    /// How the query reads in a table: `recieve --json`.
    var shown: String { ([docent] + arguments).joined(separator: " ") }
}
