// Graph: see README's module map.
