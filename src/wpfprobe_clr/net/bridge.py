""".NET-side code that hands a Python-defined .NET object to Python only as a WeakReference.

Why: a class written in Python with ``__namespace__`` (a Panel with a
``clrproperty``, say) is a real .NET type implementing
``Python.Runtime.IPythonDerivedType``. When the app drops its last Python
reference to an instance, pythonnet 3 turns the Python object's handle to its
.NET side weak, and the next .NET garbage collection frees that side
(ClassDerived.cs, ``tp_dealloc``). The control itself lives on in its parent's
``Controls``; but every later conversion of it into Python yields the old
Python object, whose calls then fail ("invalid target", "No method matches
given arguments for Object.GetType: ()") and which comes back into .NET as a
``PyObject`` rather than the control. Nothing in pythonnet repairs it.

So such an object must never be converted. The delegates below run in .NET:
on the way out each value is *wrapped* (an IPythonDerivedType instance becomes
a ``System.WeakReference`` to it, anything else is returned as it is), and on
the way in each argument is *unwrapped* (a WeakReference becomes its target).
The probe never hands the toolkits a WeakReference of its own, so the
WeakReference is an unambiguous marker. ``derived.DerivedHandle`` is the
Python side of it.

Each delegate is compiled once per process (``expr.compiled``).
"""

from __future__ import annotations

from typing import Any

from System import (
    Array,
    Boolean,
    Convert,
    Enum,
    IConvertible,
    IFormatProvider,
    Int32,
    Object,
    String,
    Type,
    WeakReference,
)
from System.Collections import ArrayList
from System.Globalization import CultureInfo
from System.Linq.Expressions import Expression
from System.Reflection import MethodBase, ParameterInfo, TargetInvocationException
from System.Runtime.CompilerServices import ConditionalWeakTable, RuntimeHelpers

from wpfprobe_clr.net import expr as x

__all__ = [
    "DERIVED_INTERFACE",
    "deref",
    "describe",
    "invoke",
    "items",
    "reader",
    "same",
    "table_add",
    "table_find",
    "unwrapped",
    "wrap",
    "wrapped",
]

#: What pythonnet makes every Python-defined .NET type implement.
DERIVED_INTERFACE: Any = Type.GetType("Python.Runtime.IPythonDerivedType, Python.Runtime", True)
WeakTable = ConditionalWeakTable[Object, String]


# -- expressions -------------------------------------------------------------


def wrapped(value: Any) -> Any:
    """``value is IPythonDerivedType ? new WeakReference(value) : value``; ``value`` is a variable (read twice)."""
    return x.condition(
        x.is_type(value, DERIVED_INTERFACE),
        x.convert(x.new(WeakReference, value), object),
        value,
        object,
    )


def unwrapped(value: Any) -> Any:
    """``value is WeakReference ? ((WeakReference) value).Target : value``; ``value`` is a variable."""
    return x.condition(
        x.is_type(value, WeakReference), x.prop(x.convert(value, WeakReference), "Target"), value, object
    )


def _fitted(value: Any, parameter_type: Any) -> Any:
    """An argument made to fit its parameter: pythonnet boxes a Python int as Int32 whatever the
    parameter is, and reflection on Mono refuses even Int32 for Int64 or for an enum."""
    not_it = Expression.Not(x.call(parameter_type, "IsInstanceOfType", value))
    present = Expression.NotEqual(value, x.null(object))
    as_enum = x.static_call(Enum, x.method(Enum, "ToObject", Type, object), parameter_type, value)
    invariant = x.const(CultureInfo.InvariantCulture, IFormatProvider)
    as_primitive = x.static_call(Convert, "ChangeType", value, parameter_type, invariant)
    needs = Expression.AndAlso(present, not_it)
    return x.condition(
        Expression.AndAlso(needs, x.prop(parameter_type, "IsEnum")),
        as_enum,
        x.condition(
            Expression.AndAlso(
                Expression.AndAlso(needs, x.prop(parameter_type, "IsPrimitive")), x.is_type(value, IConvertible)
            ),
            as_primitive,
            value,
            object,
        ),
        object,
    )


# -- the delegates -------------------------------------------------------------


def _build_invoke() -> Any:
    member = x.param(MethodBase, "member")
    target = x.param(object, "target")
    args = x.param(Array[Object], "args")
    parameters = x.variable(Array[ParameterInfo], "parameters")
    i = x.variable(Int32, "i")
    arg = x.variable(object, "arg")
    result = x.variable(object, "result")
    slot = Expression.ArrayAccess(args, Array[Expression]([i]))
    parameter_type = x.prop(Expression.ArrayIndex(parameters, i), "ParameterType")
    body = x.block(
        [parameters, i, arg, result],
        x.assign(target, unwrapped(target)),
        x.assign(parameters, x.call(member, x.method(MethodBase, "GetParameters"))),
        x.for_range(
            i,
            x.prop(args, "Length"),
            x.block(
                [], x.assign(arg, slot), x.assign(arg, unwrapped(arg)), x.assign(slot, _fitted(arg, parameter_type))
            ),
        ),
        x.assign(
            result,
            x.try_catch(
                x.call(member, x.method(MethodBase, "Invoke", object, Array[Object]), target, args),
                TargetInvocationException,
                "error",
                lambda caught: x.throw_inner(caught, object),
            ),
        ),
        wrapped(result),
    )
    return x.compile_lambda(x.func(MethodBase, object, Array[Object], object), body, member, target, args)


def _build_read(member: Any) -> Any:
    """``target => wrap((object) ((Declaring) unwrap(target)).member())`` for one method taking nothing:
    a property getter, mostly. No reflection at call time, and what it throws comes out as itself."""
    target = x.param(object, "target")
    result = x.variable(object, "result")
    declaring = member.DeclaringType
    if member.IsStatic:
        made = Expression.Call(member, Array[Expression]([]))
    else:
        made = Expression.Call(x.convert(unwrapped(target), declaring), member, Array[Expression]([]))
    if str(member.ReturnType.FullName) == "System.Void":
        value = x.block([], made, x.null(object))
    else:
        value = x.convert(made, object)
    body = x.block([result], x.assign(result, value), wrapped(result))
    return x.compile_lambda(x.func(object, object), body, target)


def _build_items() -> Any:
    collection = x.param(object, "collection")
    found = x.variable(ArrayList, "found")
    item = x.variable(object, "item")
    body = x.block(
        [found],
        x.assign(collection, unwrapped(collection)),
        x.assign(found, x.new(ArrayList)),
        x.for_each(collection, item, x.call(found, x.method(ArrayList, "Add", object), wrapped(item))),
        x.call(found, x.method(ArrayList, "ToArray")),
    )
    return x.compile_lambda(x.func(object, Array[Object]), body, collection)


def _build_deref() -> Any:
    ref = x.param(WeakReference, "ref")
    target = x.variable(object, "target")
    body = x.block([target], x.assign(target, x.prop(ref, "Target")), wrapped(target))
    return x.compile_lambda(x.func(WeakReference, object), body, ref)


def _build_wrap() -> Any:
    value = x.param(object, "value")
    return x.compile_lambda(x.func(object, object), wrapped(value), value)


def _build_describe() -> Any:
    value = x.param(object, "value")
    target = x.variable(object, "target")
    body = x.block(
        [target],
        x.assign(target, unwrapped(value)),
        Expression.NewArrayInit(
            x.typeof(object),
            Array[Expression](
                [
                    x.convert(x.call(target, x.method(Object, "GetType")), object),
                    x.convert(
                        x.static_call(RuntimeHelpers, x.method(RuntimeHelpers, "GetHashCode", object), target), object
                    ),
                ]
            ),
        ),
    )
    return x.compile_lambda(x.func(object, Array[Object]), body, value)


def _build_same() -> Any:
    a = x.param(object, "a")
    b = x.param(object, "b")
    body = x.block(
        [],
        x.assign(a, unwrapped(a)),
        x.assign(b, unwrapped(b)),
        x.static_call(Object, x.method(Object, "ReferenceEquals", object, object), a, b),
    )
    return x.compile_lambda(x.func(object, object, Boolean), body, a, b)


def _build_table_find() -> Any:
    table = x.param(WeakTable, "table")
    key = x.param(object, "key")
    found = x.variable(str, "found")
    body = x.block(
        [found],
        x.assign(key, unwrapped(key)),
        x.condition(x.call(table, x.typeof(WeakTable).GetMethod("TryGetValue"), key, found), found, x.null(str), str),
    )
    return x.compile_lambda(x.func(WeakTable, object, str), body, table, key)


def _build_table_add() -> Any:
    table = x.param(WeakTable, "table")
    key = x.param(object, "key")
    value = x.param(str, "value")
    body = x.block(
        [], x.assign(key, unwrapped(key)), x.call(table, x.method(WeakTable, "Add", object, str), key, value)
    )
    from System import Action  # noqa: PLC0415 - the generic family, closed here

    return x.compile_lambda(Action[WeakTable, Object, String], body, table, key, value)


# -- the Python face of each -------------------------------------------------


def invoke(member: Any, target: Any, args: Any) -> Any:
    """``member.Invoke(target, args)`` in .NET: target and args unwrapped, the result wrapped.

    ``args`` is an ``Object[]``; an exception the member throws comes out as itself,
    not wrapped in TargetInvocationException.
    """
    return x.compiled("invoke", _build_invoke)(member, target, args)


def reader(member: Any) -> Any:
    """The delegate ``target => wrap(unwrap(target).member())`` for a MethodInfo taking no
    arguments (a getter mostly): one per method for the process, built on first use."""
    key = ("read", int(member.MethodHandle.Value.ToInt64()))
    return x.compiled(key, lambda: _build_read(member))


def items(collection: Any) -> Any:
    """Every item of a .NET IEnumerable, each wrapped, as an ``Object[]``."""
    return x.compiled("items", _build_items)(collection)


def deref(ref: Any) -> Any:
    """A WeakReference's target, wrapped (None once it is collected)."""
    return x.compiled("deref", _build_deref)(ref)


def wrap(value: Any) -> Any:
    """A live value made safe to keep: a Python-defined .NET object becomes a WeakReference to it."""
    return x.compiled("wrap", _build_wrap)(value)


def describe(value: Any) -> Any:
    """``[target.GetType(), RuntimeHelpers.GetHashCode(target)]`` of an unwrapped value."""
    return x.compiled("describe", _build_describe)(value)


def same(a: Any, b: Any) -> bool:
    """Whether two (unwrapped) values are the same .NET object."""
    return bool(x.compiled("same", _build_same)(a, b))


def table_find(table: Any, key: Any) -> str | None:
    """The string a ``ConditionalWeakTable<object, string>`` holds for the unwrapped key, or None."""
    found = x.compiled("table_find", _build_table_find)(table, key)
    return None if found is None else str(found)


def table_add(table: Any, key: Any, value: str) -> None:
    """Add the unwrapped key to a ``ConditionalWeakTable<object, string>``."""
    x.compiled("table_add", _build_table_add)(table, key, value)
