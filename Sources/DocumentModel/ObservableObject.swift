/// SwiftUI's `ObservableObject`, for `ReferenceFileDocument` classes written as on Apple
/// platforms (Linux has no Combine). Docent never edits a document, so nothing is published:
/// `objectWillChange` exists so such code compiles, and sends nowhere.
public protocol ObservableObject: AnyObject {
    /// The publisher's type: `ObservableObjectPublisher` unless the class names its own.
    associatedtype ObjectWillChangePublisher = ObservableObjectPublisher
    /// What would announce a change; documents never change while open.
    var objectWillChange: ObjectWillChangePublisher { get }
}

extension ObservableObject where ObjectWillChangePublisher == ObservableObjectPublisher {
    /// A publisher that never publishes: documents are never edited.
    public var objectWillChange: ObservableObjectPublisher { ObservableObjectPublisher() }
}

/// What `objectWillChange` returns: `send()` is accepted and goes nowhere.
public struct ObservableObjectPublisher: Sendable {
    /// Makes the publisher.
    public init() {}
    /// Does nothing (there is no Combine on Linux, and nothing changes).
    public func send() {}
}

/// Combine's `@Published`, so a document's `@Published var` compiles: a plain stored value
/// (`$name` is the wrapper itself).
@propertyWrapper
public struct Published<Value> {
    /// The property's value.
    public var wrappedValue: Value
    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
    /// Wraps `initialValue` (Combine's older spelling).
    public init(initialValue: Value) { self.wrappedValue = initialValue }
    /// The property wrapper itself (`$property`).
    public var projectedValue: Published<Value> { self }
}

extension Published: Sendable where Value: Sendable {}

/// A value handed between threads whose every use is serialized by a lock the holder keeps
/// (a reference document and its `DocumentLock`).
final class LockedByCaller<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
