// Foundation's own names: compiled where FoundationEssentials stands in for Foundation (Linux); on Apple's
// platforms the shipping modules import Foundation, which has them.
#if canImport(FoundationEssentials)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// C's `printf` conversions (`%d`, `%02X`, `%.3f`, `%g`, `%016llx`…) through the C library's
    /// `vsnprintf`, in the C locale a process starts in: a decimal point, no grouping. No `%@`.
    package init(format: String, _ arguments: any CVarArg...) {
        self.init(format: format, arguments: arguments)
    }

    package init(format: String, arguments: [any CVarArg]) {
        var capacity = 256
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let written = withVaList(arguments) { list in
                buffer.withUnsafeMutableBufferPointer { vsnprintf($0.baseAddress, capacity, format, list) }
            }
            guard written >= 0 else { self = format; return }
            if Int(written) < capacity {
                self = String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                return
            }
            capacity = Int(written) + 1
        }
    }
}
#endif
