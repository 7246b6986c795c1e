"""Face: ``wpfprobe mcp``, one stdio MCP server that federates every running probe of this user.

The modules, lowest first: ``naming`` (the app ids and tool names the broker
shows), ``wire`` (its tools' schemas, argument and result models), ``launch``
(what ``wpf_launch_app`` may start), ``registry`` (discovery, admission and
liveness of the apps, and which of them answer), ``progress`` (the progress
notifications of one call), ``broker`` (the MCP handlers: the tool list, and
each call routed to its app) and ``server`` (stdio serving and ``main``).
"""
