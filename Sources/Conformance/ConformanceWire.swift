package import FoundationGaps
import Scenarios

/// One coding of dates (ISO 8601 with milliseconds) for reports and the control API.
package enum ConformanceJSON {
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ReportDates.iso(date))
        }
        return encoder
    }

    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = ReportDates.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 time: \(text)"))
            }
            return date
        }
        return decoder
    }
}

package struct CaseListing: Sendable, Codable, Equatable {
    package var id: String
    package var title: String
    package var area: CaseArea
    package var level: CaseLevel
    package var journey: [JourneyStep]

    package init(_ conformanceCase: ConformanceCase) {
        id = conformanceCase.id
        title = conformanceCase.title
        area = conformanceCase.area
        level = conformanceCase.level
        journey = conformanceCase.journey
    }
}

package struct RunCreated: Sendable, Codable, Equatable {
    package var run: String
    package var cases: [CaseListing]

    package init(run: String, cases: [CaseListing]) {
        self.run = run
        self.cases = cases
    }
}

package struct RunResults: Sendable, Codable, Equatable {
    package var run: String
    package var results: [CaseResult]

    package init(run: String, results: [CaseResult]) {
        self.run = run
        self.results = results
    }
}
