import ArgumentParser

@main
struct Chatterd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chatterd",
        abstract: "Chatter's sign-in back end: Google ID tokens in, sessions out, and the course chatts API.",
        discussion: "With no subcommand chatterd serves; `chatterd serve --help` lists every setting (flags and CHATTERD_* variables).",
        subcommands: [Serve.self, CheckToken.self, CheckPasskey.self, CheckAppAttest.self, HashSpeed.self, Backup.self, Admin.self],
        defaultSubcommand: Serve.self)
}
