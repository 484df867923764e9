"""The command line's exit codes, shared by every subcommand."""

#: 0 fine, 1 something failed while running, 2 the command or settings are wrong, 130 stopped by
#: Ctrl-C (or SIGTERM, in the offline modes) before the end (``run`` and ``play-local`` end that
#: way: 0).
OK, FAILED, USAGE, INTERRUPTED = 0, 1, 2, 130
