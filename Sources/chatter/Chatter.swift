import ArgumentParser
import ChatterKit

@main
struct Chatter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chatter",
        abstract: "Use Chatter from a terminal: sign in, post, read, sign out.",
        discussion: "The sign-in and posting commands arrive with the client SDK.",
        version: ChatterKit.version)
}
