import Foundation

/// How a `vbg` run fails. Bad usage exits 2, bad input (or a failure while working on it) exits 1,
/// a run stopped by Ctrl-C exits 130 (128 + SIGINT, as shells report it).
struct CLIError: Error, CustomStringConvertible {
    enum Kind { case usage, input, interrupted }
    var kind: Kind
    var message: String

    static func usage(_ message: String) -> CLIError { CLIError(kind: .usage, message: message) }
    static func input(_ message: String) -> CLIError { CLIError(kind: .input, message: message) }
    static func interrupted(_ message: String) -> CLIError { CLIError(kind: .interrupted, message: message) }

    var exitCode: Int32 {
        switch kind {
        case .usage: 2
        case .input: 1
        case .interrupted: 130
        }
    }
    var description: String { message }
}

/// A subcommand: its name, a one-line summary, its usage text, and what it does.
struct Command: Sendable {
    var name: String
    var summary: String
    var usage: String
    /// Options that take no value (`--json`), so the parser knows not to consume a value.
    var flags: Set<String> = []
    var run: @Sendable (inout Arguments) throws -> Void
}

extension Command {
    /// Whether the usage text names `--option` (as a whole word: `--mask` is not named by `--mask-npy`).
    func documents(option: String) -> Bool {
        var rest = usage[...]
        while let range = rest.range(of: "--" + option) {
            let next = rest[range.upperBound...].first
            if next.map({ !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) ?? true { return true }
            rest = rest[range.upperBound...]
        }
        return false
    }
}

/// The arguments after the subcommand name, consumed as options are read.
///
/// Options are `--name value` or `--name=value`; flags are `--name`. A word starting with `--` is
/// never taken as a value (`--name=--x` gives one), so `--output --dump D` is an `--output` with no
/// value, not a file named `--dump`. Whatever is not an option is positional, in order.
/// ``finish()`` rejects anything left unread, so a typo never passes silently; an option with no
/// value is an error only when the command reads it, so an unknown one is reported as unknown.
struct Arguments {
    private var options: [(name: String, value: String?)] = []
    private(set) var positionals: [String] = []
    private var used: Set<Int> = []

    init(_ words: [String], flags: Set<String> = []) throws {
        var index = 0
        while index < words.count {
            let word = words[index]
            if Self.isOption(word) {
                let body = word.dropFirst(2)
                if let equals = body.firstIndex(of: "=") {
                    options.append((String(body[..<equals]), String(body[body.index(after: equals)...])))
                } else if flags.contains(String(body)) || index + 1 == words.count || Self.isOption(words[index + 1]) {
                    options.append((String(body), nil))
                } else {
                    options.append((String(body), words[index + 1]))
                    index += 1
                }
            } else {
                positionals.append(word)
            }
            index += 1
        }
    }

    private static func isOption(_ word: String) -> Bool { word.hasPrefix("--") && word.count > 2 }

    /// The names of every option given, in order (read or not).
    var optionNames: [String] { options.map(\.name) }

    /// The value of `--name`, or nil if absent. Repeating an option is a usage error.
    mutating func value(_ name: String) throws -> String? {
        let matches = options.indices.filter { options[$0].name == name }
        guard let first = matches.first else { return nil }
        guard matches.count == 1 else { throw CLIError.usage("--\(name) given more than once") }
        used.insert(first)
        guard let value = options[first].value else { throw CLIError.usage("--\(name) needs a value") }
        return value
    }

    /// The values of every `--name`, in order (an option that may be repeated).
    mutating func values(_ name: String) throws -> [String] {
        try options.indices.filter { options[$0].name == name }.map { index in
            used.insert(index)
            guard let value = options[index].value else { throw CLIError.usage("--\(name) needs a value") }
            return value
        }
    }

    /// Whether the flag `--name` is present.
    mutating func flag(_ name: String) throws -> Bool {
        guard let index = options.firstIndex(where: { $0.name == name }) else { return false }
        guard options[index].value == nil else { throw CLIError.usage("--\(name) takes no value") }
        used.insert(index)
        return true
    }

    /// An integer option within `range`, or `default` when absent.
    mutating func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = try value(name) else { return defaultValue }
        guard let number = Int(text) else { throw CLIError.usage("--\(name) must be a whole number (got '\(text)')") }
        guard range.contains(number) else {
            throw CLIError.usage("--\(name) must be between \(range.lowerBound) and \(range.upperBound) (got \(number))")
        }
        return number
    }

    /// One of `choices` (exact spelling), or `default` when absent.
    mutating func choice(_ name: String, _ choices: [String], default defaultValue: String) throws -> String {
        guard let text = try value(name) else { return defaultValue }
        guard choices.contains(text) else {
            throw CLIError.usage("--\(name) must be one of \(choices.joined(separator: ", ")) (got '\(text)')")
        }
        return text
    }

    /// Exactly `count` positional arguments, named for the error message.
    func positionals(_ names: String...) throws -> [String] {
        guard positionals.count == names.count else {
            throw CLIError.usage("expected \(names.joined(separator: " ")), got \(positionals.count) argument(s)")
        }
        return positionals
    }

    /// Fails on any option that no one read.
    func finish() throws {
        for (index, option) in options.enumerated() where !used.contains(index) {
            throw CLIError.usage("unknown option --\(option.name)")
        }
    }
}

/// Writes an output file so that it is either complete or absent: the data goes to a temporary
/// file beside the destination, which is renamed over it only after everything was written.
enum OutputFile {
    /// Whether `path` names an existing character device, FIFO or socket (`/dev/null`, a pipe, a
    /// terminal): such a destination is written in place, since renaming a temporary file over it
    /// would replace the device or pipe with a plain file.
    static func isSpecial(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let kind = status.st_mode & S_IFMT
        return kind == S_IFCHR || kind == S_IFIFO || kind == S_IFSOCK
    }

    /// Fails unless `path` can be written: `-`, a special file, or a name in an existing, writable
    /// directory that is not itself a directory. Commands call it before any work, so a typo in the
    /// output path costs nothing.
    static func check(_ path: String) throws {
        if path == "-" || isSpecial(path) { return }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw CLIError.input("cannot write \(path): it is a directory")
        }
        let directory = (path as NSString).deletingLastPathComponent
        let parent = directory.isEmpty ? "." : directory
        guard stat(parent, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw CLIError.input("cannot write \(path): no directory \(parent)")
        }
        guard access(parent, W_OK) == 0 else {
            throw CLIError.input("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func write(_ path: String, _ body: (String) throws -> Void) throws {
        if isSpecial(path) {
            try body(path)
            return
        }
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).vbg-partial-\(getpid())"
        do {
            try body(temporary)
            guard rename(temporary, path) == 0 else {
                throw CLIError.input("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(temporary)
            // The temporary name means nothing to the user: name the path they asked for.
            if let failure = error as? CLIError {
                throw CLIError(kind: failure.kind, message: failure.message.replacingOccurrences(of: temporary, with: path))
            }
            throw error
        }
    }
}

extension OutputFile {
    /// Fails with a usage error unless `path` is a name for what the command writes: it ends in
    /// one of `extensions` (any case), or is `-` where `standardOutput` allows it, or is a special
    /// file (`/dev/null`, a pipe), which takes the bytes whatever its name. Each command writes
    /// one format, so a name that promises another (`out.jpg`, `o.mp4`) is refused, never written
    /// in the wrong format under it.
    static func checkFormat(_ path: String, of option: String, format: String, extensions: [String],
                            standardOutput: Bool = false, hint: String = "") throws {
        if (standardOutput && path == "-") || isSpecial(path) { return }
        guard !extensions.contains((path as NSString).pathExtension.lowercased()) else { return }
        let names = extensions.map { "." + $0 }.joined(separator: " or ") + (standardOutput ? ", or - for standard output" : "")
        throw CLIError.usage("\(option) is written as \(format): its name must end in \(names) (got \(path))\(hint)")
    }
}

/// Prints to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
