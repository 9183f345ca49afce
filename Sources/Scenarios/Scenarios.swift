// Scenarios: see README's module map.
