"""The code injected into the app: a fixed text whose only values are paths of our own.

Whatever thread the injector interrupts (gdb: a thread parked in a system call;
``sys.remote_exec``: the main thread between two bytecodes; debugpy on Windows: a
thread of its own), the injected code does one thing there: it starts a new
thread with ``_thread.start_new_thread`` and returns. It imports nothing
(``_thread`` is a built-in module, already loaded: ``__import__`` only looks it
up), binds no name in the app's ``__main__``, takes no lock of the app's and
makes no call into the CLR; an exception (no more threads) is swallowed, since
anything printed would land in the app's stderr.

On that new thread the second stage compiles and runs: it makes wpfprobe
importable if the app's environment lacks it (appending, so the app's own
packages keep winning), imports ``bootstrap`` and hands it the request file.
If wpfprobe cannot be imported there, it says so in the result file instead.

Nothing in the code comes from the user: the tier, the name and every other
choice travel in the owner-only request file. The paths are written as JSON
string literals, which are Python literals too, in double quotes: the injected
text holds no single quote, as debugpy's injector requires.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from wpfprobe.core.errors import InvalidArgumentError

# The second stage, run on the thread the first one starts. {root}, {request}, {result}
# and {script} are JSON string literals (script: a file to delete once run, or "").
_STAGE2 = """\
try:
    import os, sys
    if {script}:
        try:
            os.unlink({script})
        except OSError:
            pass
    if {root} and {root} not in sys.path:
        import importlib.util
        if importlib.util.find_spec("wpfprobe") is None:
            sys.path.append({root})
    from wpfprobe.apps.attach.bootstrap import start
    start({request}, {result})
except BaseException as exc:
    try:
        import json, os
        fd = os.open({result}, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(fd, json.dumps({{"ok": False, "code": "ATTACH_REFUSED", "stage": "import",
            "message": "wpfprobe could not be imported in the app: %s: %s" % (type(exc).__name__, exc)}}).encode())
        os.close(fd)
    except BaseException:
        pass
"""

# The first stage, run on the interrupted thread: start a thread and return.
_STAGE1 = """\
try:
    __import__("_thread").start_new_thread(exec, ({stage2}, {{"__name__": "__wpfprobe_attach__"}}))
except BaseException:
    pass
"""

MAX_LENGTH = 2000
"""debugpy's Windows injector carries the code in a 2,048-byte shared buffer."""


def literal(text: str) -> str:
    """``text`` as a double-quoted, ASCII-only Python string literal with no single quote."""
    out = json.dumps(text, ensure_ascii=True).replace("'", "\\u0027")
    if ast.literal_eval(out) != text:  # a character JSON would write as a surrogate pair
        raise InvalidArgumentError(f"The path {text!r} cannot be written into the injected code.")
    return out


def injected_code(*, request: Path, result: Path, root: Path | None, script: Path | None = None) -> str:
    """The code to run in the app. ``root``: the directory holding the ``wpfprobe`` package,
    appended to the app's ``sys.path`` only if the app cannot import wpfprobe (None: never).
    ``script``: the file the code was handed over in, deleted once it runs (``sys.remote_exec``)."""
    for path in (request, result, *(p for p in (root, script) if p is not None)):
        if not path.is_absolute():
            raise InvalidArgumentError(f"The path {path} must be absolute.")
    stage2 = _STAGE2.format(
        root=literal(str(root) if root is not None else ""),
        request=literal(str(request)),
        result=literal(str(result)),
        script=literal(str(script) if script is not None else ""),
    )
    compile(stage2, "<wpfprobe attach stage 2>", "exec", dont_inherit=True)
    code = _STAGE1.format(stage2=literal(stage2))
    compile(code, "<wpfprobe attach>", "exec", dont_inherit=True)
    if "'" in code or not code.isascii() or len(code) > MAX_LENGTH:
        raise InvalidArgumentError("The injected code came out too long or with characters no injector carries.")
    return code
