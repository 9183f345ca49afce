package enum FakeEntraVersion {
    package static let current = "0.1.0"
}
