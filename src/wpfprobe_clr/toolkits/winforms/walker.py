"""The WinForms walk in .NET: a subtree's controls and their basic facts in one call, as one string.

Every pythonnet read costs microseconds, so a walk in Python cannot get under
the bare pythonnet walk (about 14 us a control here). This walk is one
delegate compiled from an expression (``net.expr``; no SDK, and the same on
Mono, the .NET Framework and CoreCLR): called once, it goes breadth first
through ``Controls`` from a root, reads per control what a tree node needs
at the least (type, full type, Name, Text, Visible, Enabled, Focused, the
number of child controls) and packs it all into one string, so a walk of
thousands of controls crosses into Python once.

- Redaction stays decided before any getter runs (invariant 4): the Text of
  a password box (a TextBox or MaskedTextBox with a PasswordChar or
  UseSystemPasswordChar, the adapter's ``is_password_box``) is not read; the
  record says ``secret`` instead.
- Every read is guarded: a getter that throws leaves its exception's type
  and message in that field, the rest of the control is still read, and a
  failed ``Controls`` read leaves the control without children (per-element
  fault isolation, as on the Python path).
- Only ``Controls`` is walked: the items the Python path adds (a ToolStrip's
  items, a list's rows, old-style menus, context menus) are not here, so a
  node says how many child *controls* it has.

The Python path (``tree.py`` through the engine) stays the oracle:
``tests/integration/test_walker_live.py`` compares both, control for control.
Not yet used by the engine's snapshot (issue 13: node ids are still made in
Python, and items and locators come from the Python path). The packed form
is ``toolkits/_walk_format.py``'s.
"""

from __future__ import annotations

from typing import Any

import clr
from System import Char, Int32, Object, String, Void
from System import Exception as NetException
from System import Type as NetType
from System.Collections.Generic import Queue
from System.Linq.Expressions import Expression
from System.Text import StringBuilder
from System.Windows.Forms import Control, MaskedTextBox, TextBox

from wpfprobe_clr.net import expr as E
from wpfprobe_clr.toolkits._walk_format import SECRET, ReadError, WalkedControl, decode

__all__ = ["SECRET", "ReadError", "WalkedControl", "decode", "walk", "walk_packed"]


def walk(root: Any, cap: int = 5000) -> list[WalkedControl]:
    """``root`` and the controls below it, breadth first, at most ``cap``; call on the UI thread."""
    return decode(walk_packed(root, cap))


def walk_packed(root: Any, cap: int = 5000) -> str:
    """The walk's packed string; call on the UI thread, and ``decode`` it anywhere.

    Decoding in Python costs more than the walk itself (about 3x on 5,000
    controls here), and needs nothing from the UI thread: do it after letting go.
    """
    return str(E.compiled(("winforms.walker", 1), _build)(root, cap))


# -- the expression ---------------------------------------------------------------


def _build() -> Any:
    root = E.param(Control, "root")
    cap = E.param(int, "cap")
    queue = E.variable(Queue[Control], "queue")
    parents = E.variable(Queue[Int32], "parents")
    sb = E.variable(StringBuilder, "sb")
    c = E.variable(Control, "c")
    index = E.variable(int, "index")
    parent = E.variable(int, "parent")
    kid = E.variable(object, "kid")

    def append(value: Any) -> Any:
        return E.call(sb, E.method(StringBuilder, "Append", value.Type), value)

    def text(s: str) -> Any:
        return append(E.const(s, str))

    def void(*body: Any) -> Any:
        return Expression.Block(clr.GetClrType(Void), E._expressions(body))

    def counted(value: Any) -> Any:  # value: a String that is not null
        return void(append(E.prop(value, "Length")), text(":"), append(value))

    def guarded(read: Any) -> Any:
        def on_error(ex: Any) -> Any:
            kind = E.prop(E.call(E.convert(ex, object), E.method(Object, "GetType")), "Name")
            return void(text("!"), counted(kind), counted(E.prop(ex, "Message")))

        return E.try_catch(read, NetException, "ex", on_error)

    def string_field(read: Any) -> Any:
        v = E.variable(String, "v")
        return guarded(
            E.block(
                [v],
                E.assign(v, read),
                Expression.IfThenElse(
                    Expression.ReferenceEqual(v, E.null(String)), void(text("n")), void(text("s"), counted(v))
                ),
            )
        )

    def bool_field(read: Any) -> Any:
        return guarded(void(Expression.IfThenElse(read, void(text("b1")), void(text("b0")))))

    def int_field(read: Any) -> Any:
        return void(text("i"), append(read), text(";"))

    def password(kind: Any) -> Any:
        box = E.convert(c, kind)
        no_char = E.convert(E.const(0, int), Char)
        return Expression.AndAlso(
            E.is_type(c, kind),
            Expression.OrElse(
                Expression.NotEqual(E.prop(box, "PasswordChar"), no_char), E.prop(box, "UseSystemPasswordChar")
            ),
        )

    net_type = E.variable(NetType, "t")
    controls = E.prop(c, "Controls")
    record = E.block(
        [net_type],
        int_field(parent),
        E.assign(net_type, E.call(E.convert(c, object), E.method(Object, "GetType"))),
        text("s"),
        counted(E.prop(net_type, "Name")),
        text("s"),
        counted(Expression.Coalesce(E.prop(net_type, "FullName"), E.const("", str))),
        string_field(E.prop(c, "Name")),
        # Redaction before any getter runs: a password box's Text is never read.
        guarded(
            void(
                Expression.IfThenElse(
                    Expression.OrElse(password(TextBox), password(MaskedTextBox)),
                    void(text("*")),
                    string_field(E.prop(c, "Text")),
                )
            )
        ),
        bool_field(E.prop(c, "Visible")),
        bool_field(E.prop(c, "Enabled")),
        bool_field(E.prop(c, "Focused")),
        guarded(
            void(
                E.for_each(
                    controls,
                    kid,
                    void(
                        E.call(queue, E.method(Queue[Control], "Enqueue", Control), E.convert(kid, Control)),
                        E.call(parents, E.method(Queue[Int32], "Enqueue", int), index),
                    ),
                ),
                int_field(E.prop(controls, "Count")),
            )
        ),
    )
    done = Expression.Label("done")
    body = E.block(
        [queue, parents, sb, c, index, parent],
        E.assign(queue, E.new(Queue[Control])),
        E.assign(parents, E.new(Queue[Int32])),
        E.assign(sb, E.new(StringBuilder)),
        E.assign(index, E.const(0, int)),
        E.call(queue, E.method(Queue[Control], "Enqueue", Control), root),
        E.call(parents, E.method(Queue[Int32], "Enqueue", int), E.const(-1, int)),
        Expression.Loop(
            Expression.IfThenElse(
                Expression.AndAlso(
                    Expression.GreaterThan(E.prop(queue, "Count"), E.const(0, int)), Expression.LessThan(index, cap)
                ),
                void(
                    E.assign(c, E.call(queue, E.method(Queue[Control], "Dequeue"))),
                    E.assign(parent, E.call(parents, E.method(Queue[Int32], "Dequeue"))),
                    record,
                    Expression.PreIncrementAssign(index),
                ),
                Expression.Break(done),
            ),
            done,
        ),
        E.call(sb, E.method(Object, "ToString")),
    )
    return E.compile_lambda(E.func(Control, int, str), body, root, cap)
