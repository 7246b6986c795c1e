"""Exit statuses shared by every command (SPEC 2 and 9)."""

EXIT_OK = 0
"""The command did what was asked; for ``audit verify``: the log is intact."""
EXIT_FAILED = 1
"""The command ran and found a failure; for ``audit verify``: the log did not verify."""
EXIT_USAGE = 2
"""Bad arguments, or a file that could not be read: no verdict was reached."""
EXIT_NO_APP = 3
"""ls/tree/find/props/screenshot: no running app matches APP, several do, or it is not available."""

__all__ = ["EXIT_FAILED", "EXIT_NO_APP", "EXIT_OK", "EXIT_USAGE"]
