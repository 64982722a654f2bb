import Foundation

extension UTTypeRegistry {
    /// The registry built from Docent's declarations, the system's shared-mime-info
    /// database and the user's declaration file, as found through the environment.
    public static let shared: UTTypeRegistry = load()

    /// Where Docent's shipped declarations are named in diagnostics.
    package static let builtInDeclarationsName = "Config/content-types.yaml"

    /// Docent's own declarations (layer 1), compiled into the binary from `Config/content-types.yaml`.
    package static func builtInDeclarations() -> (declarations: [UTTypeDeclaration], diagnostics: [DeclarationDiagnostic]) {
        DeclarationFile.parse(
            String(decoding: PackageResources.content_types_yaml, as: UTF8.self),
            file: builtInDeclarationsName, isUserFile: false)
    }

    /// Docent's configuration directory: `$DOCENT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/docent`,
    /// else `~/.config/docent`.
    package static func configDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["DOCENT_CONFIG_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_CONFIG_HOME"], !xdg.isEmpty { return xdg + "/docent" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/docent"
    }

    /// The user's declaration file: `content-types.yaml` in the configuration directory.
    package static func userDeclarationsPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        configDirectory(environment: environment) + "/content-types.yaml"
    }

    /// A fingerprint of what the registry is built from in `environment`: Docent's declarations
    /// and the stamps of the shared-mime-info and user files (the types cache's key, hashed).
    package static func inputsFingerprint(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let key = RegistryCache.key(builtIn: PackageResources.content_types_yaml,
                                    mimeDirectories: SharedMIMEInfo.defaultDirectories(environment: environment),
                                    userFiles: [userDeclarationsPath(environment: environment)])
        return String(RegistryCache.fnv1a(key), radix: 16)
    }

    /// Loads the three layers from the places `environment` points to, through the on-disk
    /// `RegistryCache` when its key still matches them.
    package static func load(environment: [String: String] = ProcessInfo.processInfo.environment) -> UTTypeRegistry {
        let directories = SharedMIMEInfo.defaultDirectories(environment: environment)
        let userFiles = [userDeclarationsPath(environment: environment)]
        guard let cache = RegistryCache.path(environment: environment) else {
            return load(mimeDirectories: directories, userFiles: userFiles)
        }
        // The key is taken before the inputs are read: a change meanwhile makes the next key differ.
        let key = RegistryCache.key(builtIn: PackageResources.content_types_yaml, mimeDirectories: directories, userFiles: userFiles)
        if let cached = RegistryCache.read(cache, key: key) { return cached }
        let built = load(mimeDirectories: directories, userFiles: userFiles)
        RegistryCache.write(built, to: cache, key: key)
        return built
    }

    /// The types' descriptions ("PDF document", "Python script") by identifier, for output that
    /// names types in people's words without building the registry: those kept beside the
    /// types cache while it is current (under a millisecond), else `shared`'s (30 ms).
    package static func descriptions(environment: [String: String] = ProcessInfo.processInfo.environment) -> TypeDescriptions {
        let cache = RegistryCache.path(environment: environment)
        let key = RegistryCache.key(builtIn: PackageResources.content_types_yaml,
                                    mimeDirectories: SharedMIMEInfo.defaultDirectories(environment: environment),
                                    userFiles: [userDeclarationsPath(environment: environment)])
        if let cache, let found = RegistryCache.descriptions(cache, key: key) { return found }
        let registry = load(environment: environment)
        // Kept for the next process (a types cache written before descriptions were kept beside it).
        if let cache { RegistryCache.writeDescriptions(registry, beside: cache, key: key) }
        var found: [String: String] = [:]
        for type in registry.allTypes {
            if let description = type.localizedDescription { found[type.identifier] = description }
        }
        return TypeDescriptions(found)
    }

    /// Loads Docent's declarations, the shared-mime-info databases in `mimeDirectories`
    /// (highest priority first) and the user declaration files `userFiles` (later ones win).
    package static func load(mimeDirectories: [String], userFiles: [String]) -> UTTypeRegistry {
        let builtIn = builtInDeclarations()
        var diagnostics = builtIn.diagnostics
        var user: [UTTypeDeclaration] = []
        for file in userFiles {
            let loaded = DeclarationFile.load(path: file, isUserFile: true)
            user += loaded.declarations
            diagnostics += loaded.diagnostics
        }
        return build(builtIn: builtIn.declarations, mimeInfo: SharedMIMEInfo.load(directories: mimeDirectories),
                     user: user, diagnostics: diagnostics)
    }
}
