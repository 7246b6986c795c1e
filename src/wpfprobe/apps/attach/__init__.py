"""Attaching to a pythonnet app that is already running (SPEC section 10).

``wpfprobe ps`` finds this user's processes that loaded a CLR through pythonnet,
from outside and without entering them (``processes``). ``wpfprobe attach``
enters one with the platform's mechanism (``inject``: ``sys.remote_exec`` on
Python 3.14 and later, the OS's debugger gdb on Linux, debugpy's injector on
Windows), which runs a fixed piece of code (``payload``) that only starts a
thread; on that thread ``bootstrap`` starts the probe's server as
``wpfprobe.start()`` would and answers through an owner-only file. ``attacher``
holds it together: the checks that refuse an attach before anything is
injected, the request and its answer, ``detach``. docs/attach.md says why each
piece is as it is.
"""
