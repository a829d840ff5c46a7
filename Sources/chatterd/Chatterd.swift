import ArgumentParser

@main
struct Chatterd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chatterd",
        abstract: "Chatter's sign-in back end: Google ID tokens in, sessions out, and the course chatts API.",
        subcommands: [Serve.self, CheckToken.self, HashSpeed.self, Backup.self, Admin.self],
        defaultSubcommand: Serve.self)
}
