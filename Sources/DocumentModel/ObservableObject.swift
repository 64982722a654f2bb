/// SwiftUI's `ObservableObject`, for `ReferenceFileDocument` classes written as on Apple
/// platforms (Linux has no Combine). Docent never edits a document, so nothing is published:
/// `objectWillChange` exists so such code compiles, and sends nowhere.
public protocol ObservableObject: AnyObject {
    associatedtype ObjectWillChangePublisher = ObservableObjectPublisher
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    public var objectWillChange: ObservableObjectPublisher { ObservableObjectPublisher() }
}

/// What `objectWillChange` returns: `send()` is accepted and goes nowhere.
public struct ObservableObjectPublisher: Sendable {
    public init() {}
    public func send() {}
}

/// Combine's `@Published`, so a document's `@Published var` compiles: a plain stored value
/// (`$name` is the wrapper itself).
@propertyWrapper
public struct Published<Value> {
    public var wrappedValue: Value
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
    public init(initialValue: Value) { self.wrappedValue = initialValue }
    public var projectedValue: Published<Value> { self }
}

extension Published: Sendable where Value: Sendable {}

/// A value handed between threads whose every use is serialized by a lock the holder keeps
/// (a reference document and its `DocumentLock`).
final class LockedByCaller<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
