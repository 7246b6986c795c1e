"""App plumbing: which app a person means, profiles, launching an app, and ``wpfprobe run``."""
