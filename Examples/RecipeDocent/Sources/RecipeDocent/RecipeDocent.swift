import DocentKit
// GRDB beside DocentKit, for its query API: the names both have (`Table`, the record
// protocols) resolve, GRDB's `Table` having no `Table(header:rows:)`.
import GRDB

/// A recipe, as the recipe-box app stores it: one row of its `recipe` table.
struct Recipe: FetchableRecord, TableRecord, Decodable {
    static let databaseTableName = "recipe"
    /// Only the columns shown (GRDB's own API, beside DocentKit's).
    static var databaseSelection: [any SQLSelectable] { [Column("name"), Column("steps"), Column("minutes")] }
    var name: String
    var steps: String
    var minutes: Int
}

@main
struct RecipeDocent: DocentApp {
    var body: some DocumentScene {
        // The store format, declared in content-types.yaml as conforming to org.sqlite.sqlite3.
        DocumentGroup(viewing: Recipe.self, contentType: UTType(exportedAs: "com.example.recipe-box")) { store in
            Title("Recipe box")
            Metadata(["Recipes": .integer(store.count)])
            Table(header: ["Recipe", "Minutes", "Steps"], rows: store.records.map { [$0.name, String($0.minutes), $0.steps] })
        }
    }
}
