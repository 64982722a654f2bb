import DocentKit
import Viewer

// `docent-engine`: every `docent` command but the plain search (which `docent` runs itself),
// and the helper process — a DocentApp with no groups of its own.
await DocentMain.run(groups: [], commands: [ServeCommand.self])
