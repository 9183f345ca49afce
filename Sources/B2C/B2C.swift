// B2C: see README's module map.
