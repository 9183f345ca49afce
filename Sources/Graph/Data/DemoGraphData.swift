/// The Graph content of the embedded demo directory: Adele has a photo and a busy week, Alex has no photo and a
/// few meetings, Megan (personal account) a couple of private appointments. Times are relative to the
/// platform clock's current week in each mailbox's time zone, so `calendarView` for "this week" always has
/// something.
extension GraphDataset {
    package static var embeddedDefault: GraphDataset {
        let adele = GraphEventSpec.Address(name: "Adele Vance", address: "adele.vance@contoso.onmicrosoft.com")
        let alex = GraphEventSpec.Attendee(name: "Alex Wilber", address: "alex.wilber@contoso.onmicrosoft.com")
        let adeleAttendee = GraphEventSpec.Attendee(name: adele.name, address: adele.address, response: "accepted")
        let adeleEvents: [GraphEventSpec] = [
            .init(subject: "Weekly team sync", body: "Agenda: sales figures, store openings, open issues.", start: "mon 09:00",
                  durationMinutes: 30, location: "Microsoft Teams Meeting", attendees: [alex], isOnlineMeeting: true),
            .init(subject: "Product review: Contoso Mark 8", body: "<p>Review the <b>Mark 8</b> launch plan.</p>", bodyContentType: "html",
                  start: "tue 13:00", durationMinutes: 60, location: "Conf Room Baker", attendees: [alex]),
            .init(subject: "Retail conference", body: "All day at the convention centre.", start: "wed", isAllDay: true,
                  location: "Seattle Convention Center", showAs: "oof"),
            .init(subject: "1:1 with Alex", start: "thu 16:30", durationMinutes: 45, location: "Adele's office", attendees: [alex]),
            .init(subject: "Quarterly planning", body: "Bring next quarter's targets.", start: "fri 11:00", durationMinutes: 90,
                  location: "Conf Room Adams", attendees: [alex], importance: "high"),
            .init(subject: "Coffee with Patti", start: "today 15:00", durationMinutes: 30, location: "Cafeteria"),
            .init(subject: "Store walk-through", start: "today 10:00", durationMinutes: 60, location: "Redmond store"),
            .init(subject: "Budget review", start: "last thu 14:00", durationMinutes: 60, attendees: [alex]),
            .init(subject: "Vendor call: Fabrikam", start: "last mon 08:30", durationMinutes: 30, isOnlineMeeting: true),
            .init(subject: "Store visit: Bellevue", start: "next mon 10:00", durationMinutes: 120, location: "Bellevue store"),
            .init(subject: "Training: new POS system", start: "next wed 13:30", durationMinutes: 90, location: "Training room 2",
                  categories: ["Training"]),
            .init(subject: "Team lunch", start: "next fri 12:00", durationMinutes: 60, location: "The Commons", attendees: [alex]),
        ]
        let alexEvents: [GraphEventSpec] = [
            .init(subject: "Weekly team sync", body: "Agenda: sales figures, store openings, open issues.", start: "mon 09:00",
                  durationMinutes: 30, location: "Microsoft Teams Meeting", organizer: adele, attendees: [adeleAttendee], isOnlineMeeting: true),
            .init(subject: "Campaign brainstorm", start: "tue 10:00", durationMinutes: 60, location: "Marketing corner"),
            .init(subject: "1:1 with Adele", start: "thu 16:30", durationMinutes: 45, location: "Adele's office", organizer: adele,
                  attendees: [adeleAttendee]),
            .init(subject: "Social media review", start: "today 14:00", durationMinutes: 30),
        ]
        let meganEvents: [GraphEventSpec] = [
            .init(subject: "Dentist", start: "wed 08:00", durationMinutes: 45, location: "Smile Dental", showAs: "oof"),
            .init(subject: "Dinner with friends", start: "sat 19:30", durationMinutes: 120, location: "Pasta Place"),
        ]
        return GraphDataset(users: [
            "adele.vance@contoso.onmicrosoft.com": GraphUserContent(
                photo: GraphPhotoSource(generated: .init(background: "#8764B8")), timeZone: "Pacific Standard Time", events: adeleEvents
            ),
            "alex.wilber@contoso.onmicrosoft.com": GraphUserContent(timeZone: "Pacific Standard Time", events: alexEvents),
            "megan@outlook.com": GraphUserContent(timeZone: "W. Europe Standard Time", events: meganEvents),
        ])
    }
}
