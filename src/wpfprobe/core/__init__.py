"""Layer 0: what every other layer shares, with no CLR, no engine and no I/O of its own.

The error contract (SPEC 5), the settings model, the DTOs every face returns,
the adapter protocol between the engine and a toolkit, key chords, the value
converter table, redaction rules, structured logging and the per-user paths.
Modules here import only each other.
"""

import logging as _logging

# The library's etiquette (the logging HOWTO's "Configuring Logging for a Library"): a
# NullHandler on the package's logger, so that in an app that configured no logging, a
# warning of the probe's is not printed on the app's stderr by Python's last-resort
# handler. It prints nothing; records still reach whatever handlers the app installs.
_logging.getLogger("wpfprobe").addHandler(_logging.NullHandler())
