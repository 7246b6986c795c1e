"""DerivedHandle: the probe's element for a Python-defined .NET object, and reads that are safe with it.

A ``DerivedHandle`` holds a ``System.WeakReference`` to an object whose type
was written in Python with ``__namespace__`` (see ``bridge`` for why such an
object must never be converted into Python). Its .NET type's names are read
once. Reading a member (``handle.Name``, ``handle.Controls``) or calling one
(``handle.Focus()``, ``handle.RectangleToScreen(r)``) resolves it on that type
by reflection, in Python, and invokes it in .NET through ``bridge.invoke``:
the target stays in .NET, and a result that is itself such an object comes
back as another handle. Setting a property works the same way. Two handles
are equal when they hold the same .NET object, and hash alike.

A handle is not a pythonnet object, so ``isinstance(handle, Control)`` is
False: code that may meet one tests with ``is_a``. And code that reads a
value which may be such an object (a Parent, an ActiveControl, a collection
of controls, a property's value) reads it through ``get``, ``call`` or
``members_of`` here: each reads the ordinary way first and, only when what it got
is a Python-defined object, reads it again through .NET. Converting such an
object is harmless in itself (pythonnet keeps one handle slot per object);
using the result is what fails.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import clr
from System import Array, Object, WeakReference

from wpfprobe_clr.net import bridge
from wpfprobe_clr.net.expr import typeof
from wpfprobe_clr.net.lazy import is_instance

__all__ = [
    "DerivedHandle",
    "call",
    "get",
    "handle_of",
    "has_member",
    "invoke",
    "is_a",
    "is_derived",
    "members_of",
    "same",
    "to_net",
    "type_names",
    "weak",
]

#: Python type -> whether it is a Python-defined .NET type (decided once per type).
_derived_types: dict[type, bool] = {}
#: (Python type or class, property name) -> its getter, for re-reading through .NET.
_getters: dict[tuple[Any, str], Any] = {}
#: MethodInfo taking no arguments -> its compiled delegate (``bridge.reader``).
_readers: dict[Any, Any] = {}
#: Seconds after compiling one getter's delegate before the next is compiled. Compiling one takes
#: 1-20 ms on Mono, and the first reads of a Python-defined control's members asked for a dozen
#: at once, all on the UI thread in one slice (15-17 ms measured). Until its turn comes, a getter
#: is called by reflection through the one ``bridge.invoke`` delegate, a few microseconds more a call.
COMPILE_GAP = 0.02
_next_compile = 0.0
_NO_ARGS: Any = None
#: (Python type or class, method name, kinds of argument) -> the overload ``call`` invokes.
_overloads: dict[tuple[Any, str, tuple[Any, ...]], Any] = {}


class DerivedHandle:
    """A Python-defined .NET object, held weakly in .NET and never converted into Python."""

    __slots__ = ("_hash", "info", "net_type", "ref")
    _types: ClassVar[dict[str, _TypeInfo]] = {}
    ref: Any  # System.WeakReference
    net_type: Any  # System.Type
    info: _TypeInfo
    _hash: int

    def __init__(self, ref: Any) -> None:
        net_type, identity = bridge.describe(ref)
        key = str(net_type.AssemblyQualifiedName)
        info = DerivedHandle._types.get(key)
        if info is None:
            info = DerivedHandle._types[key] = _TypeInfo(net_type)
        object.__setattr__(self, "ref", ref)
        object.__setattr__(self, "net_type", net_type)
        object.__setattr__(self, "info", info)
        object.__setattr__(self, "_hash", int(identity))

    @property
    def alive(self) -> bool:
        """Whether the .NET object still exists (it is held weakly)."""
        return bool(self.ref.IsAlive)

    @property
    def names(self) -> tuple[str, str]:
        """The .NET type's short and full name."""
        return self.info.names

    def is_a(self, classes: Any) -> bool:
        return self.info.is_a(classes)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        member = self.info.member(name)
        if member is None:
            raise AttributeError(f"{self.names[0]} has no public member {name!r}")
        if isinstance(member, _Property):
            if member.getter is None:
                raise AttributeError(f"{self.names[0]}.{name} has no getter")
            return _read(member.getter, self.ref)
        return _BoundMethod(self, member)

    def __setattr__(self, name: str, value: Any) -> None:
        member = self.info.member(name)
        if not isinstance(member, _Property) or member.setter is None:
            raise AttributeError(f"{self.names[0]}.{name} cannot be set")
        invoke(member.setter, self, value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DerivedHandle) and other._hash == self._hash and bridge.same(self.ref, other.ref)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"<DerivedHandle {self.names[1]}{'' if self.alive else ' (collected)'}>"


class _Property:
    __slots__ = ("getter", "setter")

    def __init__(self, getter: Any, setter: Any) -> None:
        self.getter = getter
        self.setter = setter


class _Methods:
    """A method group of one type, with the overload picked for each kind of arguments kept."""

    __slots__ = ("_picked", "name", "overloads")

    def __init__(self, name: str, overloads: list[Any]) -> None:
        self.name = name
        self.overloads = overloads
        self._picked: dict[tuple[Any, ...], Any] = {}

    def pick(self, args: tuple[Any, ...]) -> Any:
        key = tuple(a.info if type(a) is DerivedHandle else type(a) for a in args)
        found = self._picked.get(key)
        if found is None:
            found = self._picked[key] = _pick(self.overloads, args, self.name)
        return found


class _TypeInfo:
    """What is read once per .NET type: names, members by name, and type tests."""

    def __init__(self, net_type: Any) -> None:
        self.net_type = net_type
        self.names = (str(net_type.Name), str(net_type.FullName))
        self._members: dict[str, _Property | _Methods | None] = {}
        self._is_a: dict[Any, bool] = {}

    def is_a(self, classes: Any) -> bool:
        found = self._is_a.get(classes)
        if found is None:
            wanted = classes if isinstance(classes, tuple) else (classes,)
            found = self._is_a[classes] = any(typeof(c).IsAssignableFrom(self.net_type) for c in wanted)
        return found

    def member(self, name: str) -> _Property | _Methods | None:
        if name not in self._members:
            self._members[name] = _resolve(self.net_type, name)
        return self._members[name]


def _resolve(net_type: Any, name: str) -> _Property | _Methods | None:
    """The public property ``name`` (the most derived one, where a type hides its base's), else its methods."""
    found = [p for p in net_type.GetProperties() if str(p.Name) == name and not len(p.GetIndexParameters())]
    if found:
        best = max(found, key=lambda p: _depth(p.DeclaringType))
        return _Property(best.GetGetMethod(), best.GetSetMethod())
    methods = [m for m in net_type.GetMethods() if str(m.Name) == name and not m.IsGenericMethodDefinition]
    return _Methods(name, methods) if methods else None


def _depth(t: Any) -> int:
    depth = 0
    while t is not None:
        depth += 1
        t = t.BaseType
    return depth


class _BoundMethod:
    """``target.name`` as a callable: the overload is picked by the arguments' count, then their types."""

    __slots__ = ("methods", "target")

    def __init__(self, target: Any, methods: _Methods) -> None:
        self.target = target
        self.methods = methods

    def __call__(self, *args: Any) -> Any:
        member = self.methods.pick(args)
        return invoke(member, None if member.IsStatic else self.target, *args)


def _pick(overloads: list[Any], args: tuple[Any, ...], name: str) -> Any:
    fits = [m for m in overloads if len(m.GetParameters()) == len(args)]
    if len(fits) > 1:
        fits = [
            m for m in fits if all(_accepts(p.ParameterType, a) for p, a in zip(m.GetParameters(), args, strict=True))
        ]
    if not fits:
        raise TypeError(f"no overload of {name} takes these {len(args)} arguments")
    return fits[0]


def _accepts(parameter_type: Any, arg: Any) -> bool:
    if arg is None:
        return not bool(parameter_type.IsValueType)
    if isinstance(arg, DerivedHandle):
        return bool(parameter_type.IsAssignableFrom(arg.net_type))
    if isinstance(arg, bool):
        return str(parameter_type.FullName) in ("System.Boolean", "System.Object")
    if isinstance(arg, int):
        return (
            bool(parameter_type.IsPrimitive or parameter_type.IsEnum) or str(parameter_type.FullName) == "System.Object"
        )
    if isinstance(arg, float):
        return str(parameter_type.FullName) in ("System.Double", "System.Single", "System.Decimal", "System.Object")
    if isinstance(arg, str):
        return str(parameter_type.FullName) in ("System.String", "System.Object", "System.Char")
    return bool(parameter_type.IsInstanceOfType(arg))


# -- safe reads over plain objects and handles ---------------------------------


def is_derived(value: Any) -> bool:
    """Whether ``value`` is a handle, or a pythonnet object of a Python-defined .NET type."""
    kind = type(value)
    if kind is DerivedHandle:
        return True
    found = _derived_types.get(kind)
    if found is None:
        found = _derived_types[kind] = _is_derived_type(kind)
    return found


def _is_derived_type(kind: type) -> bool:
    if not isinstance(kind, type(Object)):
        # Not a .NET class (None's, an int's, a str's): asked, GetClrType throws, and a process's
        # first .NET exception on a thread cost 8-10 ms, in the first slice of the first call.
        return False
    try:
        net_type = clr.GetClrType(kind)
    except Exception:  # noqa: BLE001 - a plain Python type (int, str, a tuple) has no .NET type
        return False
    return net_type is not None and bool(bridge.DERIVED_INTERFACE.IsAssignableFrom(net_type))


def from_net(value: Any) -> Any:
    """What a bridge delegate returned: a WeakReference is a Python-defined object, held as a handle."""
    if isinstance(value, WeakReference):
        return DerivedHandle(value) if value.IsAlive else None
    return value


def to_net(value: Any) -> Any:
    """What to hand a bridge delegate for ``value``: a handle as its WeakReference, anything else as it is."""
    return value.ref if type(value) is DerivedHandle else value


def handle_of(value: Any) -> Any:
    """``value``, or a handle when it is a live pythonnet object of a Python-defined .NET type.

    For objects the app itself hands over (the form given to ``attach``): the
    app still holds it, so it converts into .NET correctly this once.
    """
    if type(value) is DerivedHandle or not is_derived(value):
        return value
    return from_net(bridge.wrap(value))


def weak(value: Any) -> Any:
    """A ``System.WeakReference`` to ``value`` (a handle's own, for a handle)."""
    if type(value) is DerivedHandle:
        return value.ref
    return WeakReference(value)


def deref(ref: Any) -> Any:
    """The target of a ``System.WeakReference``, as a handle when it is a Python-defined object."""
    return from_net(bridge.deref(ref))


def invoke(member: Any, target: Any, *args: Any) -> Any:
    """Invoke a MethodInfo in .NET on ``target`` (None for a static one); handles in, handles out."""
    if not args:
        return _read(member, to_net(target))
    net_args = Array[Object]([to_net(a) for a in args])
    return from_net(bridge.invoke(member, to_net(target), net_args))


def _read(member: Any, target: Any) -> Any:
    """``member`` (a MethodInfo taking nothing) called on the .NET ``target``: by its compiled delegate
    when it has one, or its turn to be compiled has come (``COMPILE_GAP``), else by reflection."""
    global _next_compile, _NO_ARGS
    read = _readers.get(member)
    if read is None:
        if time.perf_counter() < _next_compile:
            if _NO_ARGS is None:
                _NO_ARGS = Array[Object]([])
            return from_net(bridge.invoke(member, target, _NO_ARGS))
        read = _readers[member] = bridge.reader(member)
        _next_compile = time.perf_counter() + COMPILE_GAP
    return from_net(read(target))


def get(target: Any, name: str) -> Any:
    """``target.name`` (``target`` an object, or a class for a static property), with a
    Python-defined object in the answer as a handle."""
    value = getattr(target, name)
    if type(target) is DerivedHandle or not is_derived(value):
        return value
    static = isinstance(target, type)
    key = (target if static else type(target), name)
    getter = _getters.get(key)
    if getter is None:
        member = _resolve(typeof(target) if static else _net_type(target), name)
        if not isinstance(member, _Property) or member.getter is None:
            raise AttributeError(f"{name} is not a readable property")
        getter = _getters[key] = member.getter
    return invoke(getter, None if static else target)


def call(target: Any, name: str, *args: Any) -> Any:
    """``target.name(*args)``, with handles allowed among the arguments and in the answer.

    Without a handle among the arguments the call is made the ordinary way, and
    made again through .NET only when its answer is a Python-defined object: use
    it for reads (FindForm, GetChildAtPoint) and for calls that answer nothing.
    """
    if type(target) is DerivedHandle:
        return getattr(target, name)(*args)
    static = isinstance(target, type)
    if not any(type(a) is DerivedHandle for a in args):
        value = getattr(target, name)(*args)
        if not is_derived(value):
            return value
    # Picked once per (class, method, kinds of argument): reflecting over a type's methods
    # costs more than the call itself, and a property list makes one call per property.
    key = (
        target if static else type(target),
        name,
        tuple(a.info if type(a) is DerivedHandle else type(a) for a in args),
    )
    chosen = _overloads.get(key)
    if chosen is None:
        owner = typeof(target) if static else _net_type(target)
        overloads = [m for m in owner.GetMethods() if str(m.Name) == name]
        if not overloads:
            raise AttributeError(f"{owner.Name} has no public method {name!r}")
        chosen = _overloads[key] = _pick(overloads, args, name)
    return invoke(chosen, None if chosen.IsStatic else target, *args)


def members_of(collection: Any) -> list[Any]:
    """The items of a .NET collection, with Python-defined objects among them as handles."""
    found = list(collection)
    if not any(is_derived(item) for item in found):
        return found
    return [from_net(item) for item in bridge.items(to_net(collection))]


def same(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same .NET object (handles compared by what they hold)."""
    if a is None or b is None:
        return a is b
    if type(a) is DerivedHandle or type(b) is DerivedHandle:
        return type(a) is type(b) and a == b
    return bool(Object.ReferenceEquals(a, b))


def is_a(value: Any, classes: Any) -> bool:
    """``isinstance(value, classes)`` that also answers for a handle, by its .NET type; ``classes`` may
    hold ``System.Type`` objects (``WF.types.DataGridView``: see ``lazy.is_instance``)."""
    if type(value) is DerivedHandle:
        return value.is_a(classes)
    return is_instance(value, classes)


def has_member(value: Any, name: str) -> bool:
    """Whether the value's type has a public member ``name`` (read from the type: no getter runs)."""
    if type(value) is DerivedHandle:
        return value.info.member(name) is not None
    return getattr(type(value), name, None) is not None


def type_names(value: Any) -> tuple[str, str]:
    """The .NET short and full type name of a handle; a pythonnet object's from its Python type."""
    if type(value) is DerivedHandle:
        return value.names
    kind = type(value)
    return kind.__name__, f"{kind.__module__}.{kind.__name__}"


def _net_type(target: Any) -> Any:
    kind = type(target)
    try:
        return clr.GetClrType(kind)
    except Exception:  # noqa: BLE001 - an object of an internal type: ask it
        return target.GetType()
