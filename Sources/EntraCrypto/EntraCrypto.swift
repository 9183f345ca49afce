// EntraCrypto: see README's module map.
