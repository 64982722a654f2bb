#if canImport(Glibc)
import Glibc
#endif

/// Whether this process runs under AddressSanitizer or ThreadSanitizer (a build made with
/// `--sanitize=address` or `--sanitize=thread`): their runtimes reserve terabytes of address
/// space for shadow memory, so an address-space budget (`RLIMIT_AS`) cannot be applied.
public enum Sanitizers {
    public static let active: Bool = dlsym(nil, "__asan_init") != nil || dlsym(nil, "__tsan_init") != nil
}
