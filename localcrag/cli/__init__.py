"""Command-line front end: `main` parses, subcommand modules register themselves."""
