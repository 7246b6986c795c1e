"""A small typed builder over System.Linq.Expressions, and the cache of what it compiles.

Code built here runs in .NET, compiled once per process: what it reads never
passes through pythonnet's conversion until it returns. Expressions compile on
Mono, the .NET Framework and CoreCLR alike, where Reflection.Emit by hand would
need a per-runtime story.

pythonnet picks .NET overloads from Python values, and with expressions a wrong
pick fails late and obscurely. So every helper here says its types: a constant
carries its declared type, blocks and calls get typed arrays
(``Array[ParameterExpression]``, ``Array[Expression]``), a method is found by
name *and* parameter types, and ``compile_lambda`` names the delegate type it
builds (``func(Object, Int32)`` is ``Func<object, int>``). Types are given as
pythonnet classes (``Control``), as ``System.Type`` objects, or as the Python
builtins ``object``, ``str``, ``int``, ``bool``, ``float`` (Object, String,
Int32, Boolean, Double).

Building is Python calling .NET factories a thousand times, with the GIL held
between calls, on the compile's thread beside the app's own Python: so the
helpers keep pythonnet's slow paths out of it. Each factory is called through
the one overload it means (``_factory``), since picking among Expression.Call's
or Block's overloads by the arguments' runtime types costs pythonnet ten times
the call itself; a method is looked up once per owner, name and parameter types;
``typeof`` answers from a table; the typed array classes are made once.

``compiled(key, build)`` keeps each delegate for the life of the process, so a
delegate is built the first time it is needed and every later call is one
.NET call from Python (about 11 us on Mono here, against 1.7 us for a plain
property read): batch the reads a delegate makes rather than making many calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import clr

# System.Linq.Expressions lives in System.Core on the .NET Framework (a facade elsewhere),
# and pythonnet 3 imports only from assemblies that are loaded.
clr.AddReference("System.Core")

from System import Array, Boolean, Double, Int32, Int64, Object, String, Type  # noqa: E402
from System.Linq.Expressions import Expression, ParameterExpression  # noqa: E402

from wpfprobe_clr._pausing import pause_point  # noqa: E402

__all__ = [
    "array_of",
    "assign",
    "block",
    "call",
    "compile_lambda",
    "compiled",
    "condition",
    "const",
    "convert",
    "enum_member",
    "for_each",
    "for_range",
    "func",
    "is_compiled",
    "is_type",
    "list_of",
    "method",
    "new",
    "null",
    "param",
    "prop",
    "static_call",
    "throw_inner",
    "try_catch",
    "typed_block",
    "typeof",
    "variable",
]

_BUILTINS: dict[type, Any] = {object: Object, str: String, int: Int32, bool: Boolean, float: Double}
_compiled: dict[Any, Any] = {}
# Keyed by pythonnet classes, Python builtins and System.Type objects (hashed and compared as the
# .NET objects they are): a program names a few hundred types at most, each for good.
_types: dict[Any, Any] = {}
_methods: dict[tuple[Any, ...], Any] = {}
_EXPRESSIONS = Array[Expression]
_TYPES = Array[Type]
_PARAMETERS = Array[ParameterExpression]


class _Factories:
    """Expression's factories bound to the one overload each helper means, made on first use."""

    def __init__(self) -> None:
        from System.Collections.Generic import IEnumerable  # noqa: PLC0415
        from System.Reflection import ConstructorInfo, MethodInfo  # noqa: PLC0415

        self.call = Expression.Call.Overloads[Expression, MethodInfo, _EXPRESSIONS]
        self.static_call = Expression.Call.Overloads[MethodInfo, _EXPRESSIONS]
        self.typed_block = Expression.Block.Overloads[Type, _EXPRESSIONS]
        self.block = Expression.Block.Overloads[IEnumerable[ParameterExpression], _EXPRESSIONS]
        self.new = Expression.New.Overloads[ConstructorInfo, _EXPRESSIONS]
        self.constant = Expression.Constant.Overloads[Object, Type]
        self.convert = Expression.Convert.Overloads[Expression, Type]
        self.condition = Expression.Condition.Overloads[Expression, Expression, Expression, Type]


_made: list[_Factories] = []


def _factory() -> _Factories:
    pause_point()  # a build on a background thread may give way here (wpfprobe_clr._pausing)
    if not _made:
        _made.append(_Factories())
    return _made[0]


def typeof(t: Any) -> Any:
    """The ``System.Type`` for a pythonnet class, a Python builtin, or a ``System.Type`` itself."""
    found = _types.get(t)
    if found is None:
        found = _types[t] = t if isinstance(t, Type) else clr.GetClrType(_BUILTINS.get(t, t))
    return found


def func(*types: Any) -> Any:
    """The delegate type ``Func<T1, ..., TResult>`` (the last type is the result)."""
    from System import Func  # noqa: PLC0415 - the generic type family, closed below

    return Func[tuple(typeof(t) for t in types)] if len(types) > 1 else Func[typeof(types[0])]


def array_of(t: Any) -> Any:
    """The ``System.Type`` of a one-dimensional array of ``t``."""
    return typeof(t).MakeArrayType()


def list_of(t: Any) -> Any:
    """The ``System.Type`` of ``List<t>``: pythonnet makes no class for it, as ``List[t]`` would."""
    from System.Collections.Generic import List  # noqa: PLC0415 - the generic family, closed below

    return typeof(List[Object]).GetGenericTypeDefinition().MakeGenericType(_TYPES([typeof(t)]))


# -- leaves ------------------------------------------------------------------


def param(t: Any, name: str) -> Any:
    """A lambda parameter of type ``t``."""
    return Expression.Parameter(typeof(t), name)


def variable(t: Any, name: str) -> Any:
    """A block variable of type ``t``."""
    return Expression.Variable(typeof(t), name)


def const(value: Any, t: Any) -> Any:
    """A constant of the declared type ``t``.

    pythonnet boxes a Python number as a type of its choosing (``Constant(0, Int32)``
    fails with "Argument types do not match"), so a number is made a constant as it
    comes and converted to ``t`` in the expression.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        boxed = (
            Double(value) if isinstance(value, float) else Int32(value) if -(2**31) <= value < 2**31 else Int64(value)
        )
        made = Expression.Constant(boxed)
        return made if made.Type.Equals(typeof(t)) else _factory().convert(made, typeof(t))
    return _factory().constant(value, typeof(t))


def null(t: Any) -> Any:
    return _factory().constant(None, typeof(t))


# -- members -----------------------------------------------------------------


def method(owner: Any, name: str, *parameter_types: Any) -> Any:
    """The public method ``name`` of ``owner`` with exactly these parameter types (instance or static)."""
    owner_type = typeof(owner)
    key = (owner_type, name, *(typeof(t) for t in parameter_types))
    found = _methods.get(key)
    if found is None:
        found = owner_type.GetMethod(name, _TYPES(list(key[2:])))
        if found is not None:
            _methods[key] = found
    if found is None:
        shown = ", ".join(str(typeof(t).Name) for t in parameter_types)
        raise LookupError(f"{typeof(owner).FullName} has no public method {name}({shown})")
    return found


def prop(instance: Any, name: str) -> Any:
    """``instance.name``, for a property or field of the instance's static type."""
    return Expression.PropertyOrField(instance, name)


def call(instance: Any, member: Any, *args: Any) -> Any:
    """``instance.member(args)``; ``member`` is a MethodInfo, or a name resolved on the instance's type by the args' types."""
    if isinstance(member, str):
        member = method(instance.Type, member, *(a.Type for a in args))
    return _factory().call(instance, member, _expressions(args))


def static_call(owner: Any, member: Any, *args: Any) -> Any:
    """``Owner.member(args)`` for a static method (a MethodInfo, or a name resolved by the args' types)."""
    if isinstance(member, str):
        member = method(owner, member, *(a.Type for a in args))
    return _factory().static_call(member, _expressions(args))


def new(t: Any, *args: Any) -> Any:
    """``new T(args)``, with the constructor found by the args' types."""
    ctor = typeof(t).GetConstructor(_TYPES([a.Type for a in args]))
    if ctor is None:
        raise LookupError(f"{typeof(t).FullName} has no public constructor for these arguments")
    return _factory().new(ctor, _expressions(args))


# -- operators ---------------------------------------------------------------


def enum_member(t: Any, name: str) -> Any:
    """The constant member ``name`` of the enum ``t``, read from its ``System.Type``: a ``WF.types``
    enum (``net.lazy``) gets no Python class made for it."""
    t = typeof(t)
    return _factory().convert(const(int(t.GetField(name).GetRawConstantValue()), int), t)


def convert(e: Any, t: Any) -> Any:
    """A cast (or box/unbox) of ``e`` to ``t``."""
    return _factory().convert(e, typeof(t))


def is_type(e: Any, t: Any) -> Any:
    """``e is T``."""
    return Expression.TypeIs(e, typeof(t))


def condition(test: Any, if_true: Any, if_false: Any, t: Any) -> Any:
    """``test ? if_true : if_false``, typed ``t`` (the branches may be of types assignable to it)."""
    return _factory().condition(test, if_true, if_false, typeof(t))


def assign(target: Any, value: Any) -> Any:
    return Expression.Assign(target, value)


def block(variables: Iterable[Any], *body: Any) -> Any:
    """``{ T v...; body... }``: its value is the last expression's."""
    return _factory().block(_PARAMETERS(list(variables)), _expressions(body))


def typed_block(t: Any, *body: Any) -> Any:
    """``{ body... }`` typed ``t`` (``Void``: a statement, whatever its last expression's value)."""
    return _factory().typed_block(typeof(t), _expressions(body))


def for_each(enumerable: Any, item: Any, body: Any) -> Any:
    """``foreach (object item in enumerable) body``; ``item`` is a variable of type Object.

    Written with IEnumerator (GetEnumerator, MoveNext, Current), which every
    collection the toolkits hand out implements, generic or not.
    """
    from System.Collections import IEnumerable, IEnumerator  # noqa: PLC0415

    enumerator = variable(IEnumerator, "enumerator")
    done = Expression.Label("done")
    return block(
        [enumerator, item],
        assign(enumerator, call(convert(enumerable, IEnumerable), method(IEnumerable, "GetEnumerator"))),
        Expression.Loop(
            Expression.IfThenElse(
                call(enumerator, method(IEnumerator, "MoveNext")),
                block([], assign(item, prop(enumerator, "Current")), body),
                Expression.Break(done),
            ),
            done,
        ),
    )


def for_range(index: Any, count: Any, body: Any) -> Any:
    """``for (index = 0; index < count; index++) body``; ``index`` is an Int32 variable the caller declares."""
    done = Expression.Label("done")
    return block(
        [],
        assign(index, const(0, Int32)),
        Expression.Loop(
            Expression.IfThenElse(
                Expression.LessThan(index, count),
                block([], body, Expression.PreIncrementAssign(index)),
                Expression.Break(done),
            ),
            done,
        ),
    )


def try_catch(body: Any, exception_type: Any, name: str, handler: Callable[[Any], Any]) -> Any:
    """``try { body } catch (exception_type name) { handler(name) }``; the handler has the body's type."""
    from System.Linq.Expressions import CatchBlock  # noqa: PLC0415

    caught = variable(exception_type, name)
    return Expression.TryCatch(body, Array[CatchBlock]([Expression.Catch(caught, handler(caught))]))


def throw_inner(caught: Any, t: Any) -> Any:
    """Rethrow what a caught wrapper exception (TargetInvocationException) wraps, typed ``t``.

    Reflection wraps every exception a called member throws; the caller should
    see the member's own (a getter's InvalidOperationException, an app's error).
    """
    inner = prop(caught, "InnerException")
    return condition(
        Expression.NotEqual(inner, null(inner.Type)),
        Expression.Throw(inner, typeof(t)),
        Expression.Rethrow(typeof(t)),
        t,
    )


# -- lambdas -----------------------------------------------------------------


def compile_lambda(delegate_type: Any, body: Any, *parameters: Any) -> Any:
    """Compile ``(parameters) => body`` to a delegate of ``delegate_type`` (see ``func``)."""
    lam = Expression.Lambda[delegate_type](body, _PARAMETERS(list(parameters)))
    return lam.Compile()


def compiled(key: Any, build: Callable[[], Any]) -> Any:
    """The delegate cached under ``key``, built by ``build()`` the first time it is asked for.

    The cache lives as long as the process (delegates are few and small). Two
    threads asking at once may both build; the first stored wins, and either works.
    """
    found = _compiled.get(key)
    if found is None:
        found = _compiled.setdefault(key, build())
    return found


def is_compiled(key: Any) -> bool:
    """Whether the delegate cached under ``key`` has been built."""
    return key in _compiled


def _expressions(items: Iterable[Any]) -> Any:
    return _EXPRESSIONS(list(items))
