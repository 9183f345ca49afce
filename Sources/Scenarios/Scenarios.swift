// Scenarios: see the module map in docs/development.md.
