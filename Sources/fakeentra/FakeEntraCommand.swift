import ArgumentParser

@main
struct FakeEntraCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fakeentra",
        abstract: "A local, scriptable Microsoft identity platform (Entra ID, Azure AD B2C) and Microsoft Graph.",
        subcommands: [ServeCommand.self, CertsCommand.self, ConformCommand.self, ScenariosCommand.self, JournalCommand.self, TokenCommand.self, ReplayCommand.self, SchemaCommand.self, BrowseCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
