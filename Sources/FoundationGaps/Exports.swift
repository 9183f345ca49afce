// The one place that picks the Foundation the server builds on: FoundationEssentials where it can be
// imported (Linux: no ICU data in the binary), the system's Foundation on Apple's platforms. Modules import
// FoundationGaps and get it with what FoundationEssentials lacks.
#if canImport(FoundationEssentials)
@_exported import FoundationEssentials
#else
@_exported import Foundation
#endif
