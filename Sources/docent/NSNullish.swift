import Foundation

/// JSON `null` for `JSONSerialization`.
enum NSNullish {
    static var value: Any { NSNull() }
}
