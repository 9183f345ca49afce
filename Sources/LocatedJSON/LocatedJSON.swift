// LocatedJSON: see README's module map.
