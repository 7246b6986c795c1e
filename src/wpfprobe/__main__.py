"""``python -m wpfprobe``: the same program as the ``wpfprobe`` command."""

from wpfprobe.cli.parser import main

if __name__ == "__main__":
    raise SystemExit(main())
