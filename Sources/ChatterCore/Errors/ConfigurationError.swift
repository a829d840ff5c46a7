/// A setting chatterd cannot start with; the message names the setting and what it takes.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
