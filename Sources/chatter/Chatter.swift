import ArgumentParser
import ChatterKit

@main
struct Chatter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chatter",
        abstract: "Use Chatter from a terminal: sign in, post, read, sign out.",
        discussion: """
            Exit codes: 0 done; 1 the server refused the request; 3 sign-in needed (not signed in, session \
            ended, or sign-in cancelled); 4 the server cannot be reached safely (connection, TLS, pin); \
            5 secure storage unavailable; 64 bad usage.
            """,
        version: ChatterKit.version,
        subcommands: [Login.self, Post.self, Chatts.self, WhoAmI.self, Sessions.self, SecondFactor.self, Logout.self])
}
