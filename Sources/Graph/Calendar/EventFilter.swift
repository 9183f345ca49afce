import FoundationGaps
import EntraHTTP

/// `$filter` on events: `start/dateTime` and `end/dateTime` compared with a date-time (no offset = UTC),
/// `subject` (`eq`, `ne`, `startswith`, ignoring case), `isAllDay`/`isOnlineMeeting` with a boolean,
/// `showAs`, `importance` and `organizer/emailAddress/address` with `eq`/`ne`.
struct EventFilter {
    static let invalid = GraphError(
        status: .badRequest, code: "ErrorInvalidUrlQueryFilter", message: "The query filter contains one or more invalid nodes."
    )

    private enum Test {
        case instant(KeyPath<CalendarEvent, Date>, FilterExpression.Operator, Date)
        case text((CalendarEvent) -> String, FilterExpression.Operator, String)
        case flag(KeyPath<CalendarEvent, Bool>, FilterExpression.Operator, Bool)
    }

    private let tests: [Test]
    private let conjunction: Bool

    init(parsing text: String) throws(GraphError) {
        guard let expression = FilterExpression(parsing: text) else { throw Self.invalid }
        var tests: [Test] = []
        for clause in expression.clauses {
            tests.append(try Self.test(for: clause))
        }
        self.tests = tests
        conjunction = expression.conjunction
    }

    func matches(_ event: CalendarEvent) -> Bool {
        let results = tests.lazy.map { test -> Bool in
            switch test {
            case .instant(let path, let op, let value): FilterExpression.compare(event[keyPath: path], op, value)
            case .text(let read, .startsWith, let value): read(event).lowercased().hasPrefix(value.lowercased())
            case .text(let read, let op, let value): FilterExpression.compare(read(event).lowercased(), op, value.lowercased())
            case .flag(let path, let op, let value): op == .eq ? event[keyPath: path] == value : event[keyPath: path] != value
            }
        }
        return conjunction ? results.allSatisfy { $0 } : results.contains(true)
    }

    private static func test(for clause: FilterExpression.Clause) throws(GraphError) -> Test {
        guard !clause.negated, clause.op != .any else { throw invalid }
        let property = clause.property.lowercased()
        switch property {
        case "start/datetime", "end/datetime":
            guard clause.op != .startsWith, let parsed = CivilTime.parseISO(clause.value.text) else { throw invalid }
            let instant = parsed.time.instant(offset: parsed.offset ?? 0)
            return .instant(property.hasPrefix("start") ? \.start : \.end, clause.op, instant)
        case "isallday", "isonlinemeeting":
            guard case .bool(let flag) = clause.value, clause.op == .eq || clause.op == .ne else { throw invalid }
            return .flag(property == "isallday" ? \.isAllDay : \.isOnlineMeeting, clause.op, flag)
        case "subject", "showas", "importance", "organizer/emailaddress/address":
            guard case .string(let value) = clause.value, clause.op != .startsWith || property == "subject",
                  property == "subject" || clause.op == .eq || clause.op == .ne else { throw invalid }
            let read: (CalendarEvent) -> String = switch property {
            case "subject": { $0.subject }
            case "showas": { $0.showAs }
            case "importance": { $0.importance }
            default: { $0.organizer.address }
            }
            return .text(read, clause.op, value)
        default:
            throw .unknownProperty(clause.property, type: "event", inSelect: false)
        }
    }
}
