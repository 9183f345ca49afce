// EntraServer: see README's module map.
