"""Layer 0: what every other layer shares, with no CLR, no engine and no I/O of its own.

The error contract (SPEC 5), the settings model, the DTOs every face returns,
the adapter protocol between the engine and a toolkit, key chords, the value
converter table, redaction rules, structured logging and the per-user paths.
Modules here import only each other.
"""
