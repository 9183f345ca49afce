// libFuzzer target for form, query and cookie decoding (EntraHTTP) and Graph's OData query options,
// linked by scripts/fuzz. Properties: encoding what was decoded and decoding it again gives the same
// pairs; percent-encoding round-trips; a cookie read back from its Set-Cookie value is unchanged.
import EntraHTTP
import Graph

@_cdecl("LLVMFuzzerTestOneInput")
public func formFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

    let form = FormParameters(decoding: text)
    require(FormParameters(decoding: form.encoded) == form, "form encoding does not round-trip")
    for pair in form.pairs {
        require(FormCoding.percentDecode(FormCoding.encodeComponent(pair.value)) == pair.value, "percent-encoding does not round-trip")
        require(form[pair.name] != nil && !form.values(pair.name).isEmpty)
    }
    if let decoded = FormCoding.percentDecode(text) {
        require(FormCoding.percentDecode(FormCoding.encodeComponent(decoded)) == decoded)
    }

    let cookies = CookieCoding.parse(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    // A quoted value keeps its quotes' inner spaces, which a bare Set-Cookie value cannot carry: not compared.
    let edges: Set<Character> = [" ", "\t", "\""]
    for (name, value) in cookies where !name.contains("\n") && !(value.first.map(edges.contains) ?? false) && !(value.last.map(edges.contains) ?? false) {
        let header = CookieCoding.setCookie(name: name, value: value, maxAge: 0)
        require(CookieCoding.parse([header])[name] == value, "a cookie does not survive Set-Cookie")
    }

    let query = ODataQuery(form)
    _ = try? query.requireOnly(["$select", "$top", "$skip", "$orderby", "$filter", "$count"])
    _ = try? query.top
    _ = try? query.skip
    _ = query.orderBy
    if let selected = try? query.selected(from: ["id", "displayName", "userPrincipalName", "mail"], type: "user") {
        require(selected.count <= 4)
    }
    return 0
}
