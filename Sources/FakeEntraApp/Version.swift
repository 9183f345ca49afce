public enum FakeEntraVersion {
    public static let current = "0.1.0"
}
