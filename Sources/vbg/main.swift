import CPUSupport
import Foundation

// vbg: the command-line face of the engine. Each subcommand lives in Commands/<Name>.swift and
// is listed here once.

// A computed property, not a stored global: main.swift's stored globals are initialised by its
// top-level code, which never runs when tests call `runMain` through `@testable import vbg`.
nonisolated var commands: [Command] { [
    // Subcommands are added here as they land (infer, inspect, blur, replace, segment, video, bench).
    inferCommand,
    checkCommand,
    inspectCommand,
    testCommand,
    blurCommand,
    replaceCommand,
    segmentCommand,
    videoCommand,
    benchCommand,
    soakCommand,
] }

func usage() -> String {
    var text = "usage: vbg <command> [options]\n\ncommands:\n"
    for command in commands {
        text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary + "\n"
    }
    text += "\n'vbg help <command>' or 'vbg <command> --help' shows a command's options; 'vbg --version' the version."
    return text
}

/// This tool's version, with the instruction set it was built for.
func versionText() -> String { "vbg \(vbgVersion) (\(CPUSupport.buildDescription) build)" }

/// The release of swift-virtual-background this `vbg` belongs to.
let vbgVersion = "1.0.0"

func runMain(_ words: [String]) -> Int32 {
    if words.first == "--version" || words.first == "version" {
        print(versionText())
        return 0
    }
    guard let name = words.first, !["-h", "--help", "help"].contains(name) || words.count > 1 else {
        // Asked-for help goes to stdout; a missing command is bad usage, reported on stderr.
        if words.isEmpty { printError(usage()) } else { print(usage()) }
        return words.isEmpty ? 2 : 0
    }
    if name == "help" {
        guard let command = commands.first(where: { $0.name == words[1] }) else {
            printError("vbg: unknown command '\(words[1])'\n" + usage())
            return 2
        }
        print(command.usage)
        return 0
    }
    guard let command = commands.first(where: { $0.name == name }) else {
        printError("vbg: unknown command '\(name)'\n" + usage())
        return 2
    }
    // `--help` or `-h` anywhere after the command asks for its usage, whatever else is there.
    if words.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
        print(command.usage)
        return 0
    }
    let given = (try? Arguments(Array(words.dropFirst()), flags: command.flags))?.optionNames ?? []
    do {
        var arguments = try Arguments(Array(words.dropFirst()), flags: command.flags)
        try command.run(&arguments)
        return 0
    } catch let error as CLIError {
        var message = error.message
        // A command stops at its first problem, which can come before it has read every option (a
        // required one missing): an option its usage never names is then the problem to report.
        if error.kind == .usage, let unknown = given.first(where: { !command.documents(option: $0) }) {
            message = "unknown option --\(unknown)"
        }
        printError("vbg \(name): \(message)")
        if error.kind == .usage { printError(command.usage) }
        return error.exitCode
    } catch {
        printError("vbg \(name): \(error)")
        return 1
    }
}

CPUSupport.verify()
exit(runMain(Array(CommandLine.arguments.dropFirst())))
