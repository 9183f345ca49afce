/// The box of a value type that keeps its fields in one shared object (a request, an app registration):
/// copies of the value share the box until one of them changes.
@usableFromInline package protocol CopyOnWriteStorage: AnyObject {
    /// A new box with the same fields.
    func copy() -> Self
}

/// `storage`, copied first when another value shares it: the box a change may write to.
@inlinable package func writableStorage<Storage: CopyOnWriteStorage>(_ storage: inout Storage) -> Storage {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    return storage
}
