// Package cli is the plumbing every svcrecon command shares. Each file does
// one job:
//
//   - command.go: a program's table of subcommands (Program, Command) and
//     running one: a Command's Runner declares its flags, the table says
//     everything else about it (help, whether the scheduler may run it, its
//     collector), and dispatch, help and the scheduler's job list all read
//     the one table;
//   - parse.go: parsing a command line into a flag set: -h, --version, a
//     mistake as one line that suggests the flag meant;
//   - usage.go: printing the help of a program, a command and a group, on
//     stdout, with the examples' dates counted from the clock
//     (ExampleDates);
//   - flags.go: the common flags (service, database, sandbox, logs) and
//     their environment defaults (Common);
//   - log.go: everything a command writes on stderr, in the --log-format
//     asked for: the logger (text or JSON, times in IST), the lines a
//     command has for a person (Lines), where a progress bar may be drawn
//     (Progress), and the format of what is said before the flags are
//     parsed (FormatOf, Notice; Exit's error line);
//   - env.go: opening what a command works with: the sandbox, the database
//     and the API client (Env);
//   - exit.go: exit codes, the errors that choose them, and the one line
//     a program ends with;
//   - period.go: the period flags (--from, --to, --date) and their checks;
//   - suggest.go: "did you mean" for names typed wrong;
//   - version.go: the version line of --version;
//   - profile.go: the CPU profile of SVCRECON_CPUPROFILE and the collector
//     of each command.
package cli
