"""An event handler that runs no Python frame: for work due once a UI loop has ended.

Used to raise Ctrl+C's KeyboardInterrupt in the app's code right after its UI
loop (``wpfprobe.mcp.ending``): Python checks for pending signals whenever a
Python frame starts, so the interrupt must be set after the last Python handler
of the loop's end has run, and by something that is not a Python frame itself.
The handler is compiled from an expression (``net.expr``): .NET code that
invokes a delegate to ``fn``, a function written in C (a builtin such as
``_thread.interrupt_main``), which pythonnet calls without a frame.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from System import Action, EventArgs, EventHandler, Object
from System.Threading import Thread

from wpfprobe_clr.net import expr


def native_handler(fn: Callable[[], object], *, only_on: Any = None) -> Any:
    """An EventHandler that calls ``fn()`` (a builtin), on ``only_on`` (a .NET Thread) only if given."""
    from System.Linq.Expressions import Expression  # noqa: PLC0415 - expr has loaded System.Core

    sender, args = expr.param(Object, "sender"), expr.param(EventArgs, "e")
    invoke = expr.call(expr.const(Action(fn), Action), expr.method(Action, "Invoke"))
    if only_on is None:
        return expr.compile_lambda(EventHandler, invoke, sender, args)
    current = Expression.Property(None, expr.typeof(Thread).GetProperty("CurrentThread"))
    on_it = Expression.ReferenceEqual(current, expr.const(only_on, Thread))
    return expr.compile_lambda(EventHandler, Expression.IfThen(on_it, invoke), sender, args)
