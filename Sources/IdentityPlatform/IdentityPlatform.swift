// IdentityPlatform: see README's module map.
