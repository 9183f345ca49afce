/// A value type's fields kept in one object that its copies share until one of them changes (a request,
/// an app registration): copying such a value retains one object instead of every reference-counted
/// field, and a change copies the fields first only when another value still shares them.
package struct CopyOnWrite<Fields: Sendable>: Sendable {
    // Changed only through `fields`' `_modify`, that is while no other value shares the box.
    @usableFromInline final class Box: @unchecked Sendable {
        @usableFromInline var fields: Fields
        @usableFromInline init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var box: Box

    @inlinable package init(_ fields: Fields) { box = Box(fields) }

    /// Read in place (a field read copies that field only) and changed in place, after copying the box
    /// if it is shared.
    @inlinable package var fields: Fields {
        _read { yield box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            yield &box.fields
        }
    }

    /// Whether both values share one box, hence have the same fields.
    @inlinable package func sharesFields(with other: Self) -> Bool { box === other.box }
}
