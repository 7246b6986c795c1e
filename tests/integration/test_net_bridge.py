"""wpfprobe_clr.net: the expression builder, the .NET-side bridge and DerivedHandle, in this process.

No UI: the derived type here is a Component subclass written in Python with
``__namespace__``. Each test that needs it orphaned builds it in a function,
keeps it only in a .NET collection, and runs both garbage collectors; a plain
pythonnet read of it then fails (the premise, checked once), and everything
here must still reach it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def clr_types() -> Iterator[dict[str, Any]]:
    import wpfprobe_clr

    wpfprobe_clr.ensure_clr()
    import clr
    from System import Int32, String
    from System.ComponentModel import Component

    class Tagged(Component):  # type: ignore[misc, valid-type]
        __namespace__ = "WpfprobeNetTests"

        def __init__(self) -> None:
            super().__init__()
            self._level = 3

        @clr.clrproperty(Int32)  # type: ignore[misc]
        def Level(self) -> int:
            return self._level

        @Level.setter  # type: ignore[misc]
        def Level(self, value: int) -> None:
            self._level = value

        @clr.clrproperty(String)  # type: ignore[misc]
        def Broken(self) -> str:
            raise RuntimeError("Broken fails on purpose")

    yield {"Tagged": Tagged, "Component": Component}


def collect() -> None:
    import System

    gc.collect()
    System.GC.Collect()
    System.GC.WaitForPendingFinalizers()
    gc.collect()


@pytest.fixture
def orphaned(clr_types: dict[str, Any]) -> Callable[[int], Any]:
    """``orphaned(n)``: an ArrayList holding n Tagged objects that Python no longer refers to."""
    from System.Collections import ArrayList

    def make(n: int) -> Any:
        bag = ArrayList()

        def fill() -> None:
            for _ in range(n):
                bag.Add(clr_types["Tagged"]())

        fill()
        collect()
        return bag

    return make


# -- the expression builder ------------------------------------------------------------


def test_constants_keep_their_declared_type(clr_types: Any) -> None:
    from System import Double, Int32, Int64, String

    from wpfprobe_clr.net import expr as x

    assert x.const(5, Int64).Type.Equals(x.typeof(Int64))
    assert x.const(0, int).Type.Equals(x.typeof(Int32))
    assert x.const(2.5, float).Type.Equals(x.typeof(Double))
    assert x.const("s", str).Type.Equals(x.typeof(String))
    assert x.typeof(object).FullName == "System.Object" and x.typeof(bool).FullName == "System.Boolean"


def test_methods_are_found_by_exact_parameter_types(clr_types: Any) -> None:
    from System import Int64, Math

    from wpfprobe_clr.net import expr as x

    assert str(x.method(Math, "Abs", Int64).ReturnType.FullName) == "System.Int64"
    with pytest.raises(LookupError, match=r"System.Math has no public method Abs\(String\)"):
        x.method(Math, "Abs", str)


def test_loops_blocks_and_conditions_compile_and_run(clr_types: Any) -> None:
    from System import Array, Int32
    from System.Collections import ArrayList
    from System.Linq.Expressions import Expression

    from wpfprobe_clr.net import expr as x

    values = x.param(Array[Int32], "values")
    total, i = x.variable(int, "total"), x.variable(int, "i")
    body = x.block(
        [total, i],
        x.assign(total, x.const(0, int)),
        x.for_range(
            i, x.prop(values, "Length"), x.assign(total, Expression.Add(total, Expression.ArrayIndex(values, i)))
        ),
        total,
    )
    summed = x.compile_lambda(x.func(Array[Int32], int), body, values)
    assert summed(Array[Int32]([1, 2, 3, 4])) == 10

    items, count, item = x.param(object, "items"), x.variable(int, "count"), x.variable(object, "item")
    counting = x.block(
        [count],
        x.assign(count, x.const(0, int)),
        x.for_each(
            items,
            item,
            x.assign(count, x.condition(x.is_type(item, str), Expression.Add(count, x.const(1, int)), count, int)),
        ),
        count,
    )
    strings = x.compile_lambda(x.func(object, int), counting, items)
    bag = ArrayList()
    for value in ("a", 1, "b", None):
        bag.Add(value)
    assert strings(bag) == 2


def test_a_wrapped_exception_comes_out_as_itself(clr_types: Any) -> None:
    from System import Array, FormatException, Int32, Object
    from System.Reflection import MethodBase, TargetInvocationException

    from wpfprobe_clr.net import expr as x

    member = x.param(MethodBase, "member")
    args = x.param(Array[Object], "args")
    call = x.call(member, x.method(MethodBase, "Invoke", object, Array[Object]), x.null(object), args)
    body = x.try_catch(call, TargetInvocationException, "error", lambda caught: x.throw_inner(caught, object))
    invoke = x.compile_lambda(x.func(MethodBase, Array[Object], object), body, member, args)
    parse = x.method(Int32, "Parse", str)
    assert invoke(parse, Array[Object](["42"])) == 42
    with pytest.raises(FormatException):
        invoke(parse, Array[Object](["forty-two"]))


def test_compiled_builds_each_delegate_once(clr_types: Any) -> None:
    from wpfprobe_clr.net import expr as x

    built: list[int] = []

    def build() -> Any:
        built.append(1)
        value = x.param(object, "value")
        return x.compile_lambda(x.func(object, object), value, value)

    first = x.compiled(("test", "identity"), build)
    assert x.compiled(("test", "identity"), build) is first and built == [1]
    assert first("same") == "same"


# -- the bridge and DerivedHandle -----------------------------------------------------------


def test_an_orphaned_python_defined_object_is_dead_to_pythonnet_but_not_to_the_bridge(orphaned: Any) -> None:
    from System.ComponentModel import Component

    from wpfprobe_clr.net.derived import DerivedHandle, is_a, is_derived, members_of, same

    bag = orphaned(2)
    # The premise: converted the plain way, its .NET side is gone.
    with pytest.raises(Exception, match=r"GetType|invalid target"):
        next(iter(bag)).GetType()
    first, second = members_of(bag)
    assert type(first) is DerivedHandle and first.alive and is_derived(first)
    assert first.names == ("Tagged", "WpfprobeNetTests.Tagged")
    assert first.Level == 3 and str(first.GetType().FullName) == "WpfprobeNetTests.Tagged"
    assert is_a(first, Component) and not is_a(first, str) and first.is_a((str, Component))
    again = members_of(bag)[0]
    assert again is not first and again == first and hash(again) == hash(first) and same(again, first)
    assert first != second and not same(first, second)
    first.Level = 7
    assert members_of(bag)[0].Level == 7, "set through .NET, read back through .NET"
    with pytest.raises(RuntimeError, match="Broken fails on purpose"):
        _ = first.Broken
    with pytest.raises(AttributeError):
        _ = first.NoSuchMember


def test_handles_go_back_into_net_as_the_objects_they_hold(orphaned: Any) -> None:
    from System import Object
    from System.Collections import Hashtable

    from wpfprobe_clr.net.derived import call, deref, handle_of, members_of, same, weak

    bag = orphaned(1)
    (held,) = members_of(bag)
    assert call(bag, "IndexOf", held) == 0 and call(bag, "Contains", held) is True
    assert call(Object, "ReferenceEquals", held, held) is True
    table = Hashtable()
    call(table, "set_Item", "k", held)
    # Read the plain way first, found to be a derived object, read again through .NET.
    assert call(table, "get_Item", "k") == held
    assert deref(weak(held)) == held
    assert handle_of(held) is held and handle_of(5) == 5
    assert same(members_of(bag)[0], held)


def test_a_live_python_object_handed_over_becomes_a_handle(clr_types: Any) -> None:
    from wpfprobe_clr.net.derived import DerivedHandle, handle_of

    live = clr_types["Tagged"]()
    live.Level = 9
    handle = handle_of(live)
    assert type(handle) is DerivedHandle and handle.Level == 9


def test_property_reads_that_meet_a_derived_object_give_a_handle(orphaned: Any) -> None:
    import contextlib

    import clr

    for assembly in ("System.Data", "System.Data.Common"):  # DataColumn: Mono's, CoreCLR's
        with contextlib.suppress(Exception):
            clr.AddReference(assembly)
    from System import Object
    from System.Data import DataColumn

    from wpfprobe_clr.net.derived import DerivedHandle, get, invoke, members_of

    (held,) = members_of(orphaned(1))
    column = DataColumn("c", clr.GetClrType(Object))
    invoke(clr.GetClrType(DataColumn).GetProperty("DefaultValue").GetSetMethod(), column, held)
    value = get(column, "DefaultValue")
    assert type(value) is DerivedHandle and value == held
    assert get(column, "ColumnName") == "c"


def test_the_object_table_keys_a_handle_by_its_object_and_lets_it_go(orphaned: Any) -> None:
    from wpfprobe.core.protocol import ItemRef
    from wpfprobe_clr._objects import ClrObjectTable, same_object
    from wpfprobe_clr.net.derived import members_of

    table = ClrObjectTable()
    bag = orphaned(2)
    first, second = members_of(bag)
    node_id = table.id_for(first)
    assert table.id_for(members_of(bag)[0]) == node_id, "a new handle to the same object has the same id"
    assert table.id_for(second) != node_id
    assert table.get(node_id) == first
    assert same_object(ItemRef(first, 1), ItemRef(members_of(bag)[0], 1))
    assert not same_object(ItemRef(first, 1), ItemRef(second, 1))
    item = table.get(f"{node_id}.4")
    assert isinstance(item, ItemRef) and item.index == 4 and item.owner == first
    bag.Clear()
    del first, second
    collect()
    assert table.get(node_id) is None, "held weakly: gone once the app lets it go"


def test_first_reads_of_a_python_defined_objects_members_compile_one_getter_at_a_time(
    orphaned: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each getter's delegate took 1-20 ms to compile, and the first reads of a Python-defined control's
    # members compiled a dozen at once in one slice of the UI thread (15-17 ms): one at a time now, the
    # others read by reflection meanwhile, with the same values and the same exceptions.
    from wpfprobe_clr.net import bridge, derived

    compiled: list[str] = []
    reader = bridge.reader

    def counted(member: Any) -> Any:
        compiled.append(str(member.Name))
        return reader(member)

    monkeypatch.setattr(bridge, "reader", counted)
    monkeypatch.setattr(derived, "_readers", {})
    monkeypatch.setattr(derived, "_next_compile", 0.0)
    monkeypatch.setattr(derived, "COMPILE_GAP", 3600.0)  # no second turn within this test
    (held,) = derived.members_of(orphaned(1))
    held.Level = 5
    assert [held.Level, held.Site, held.Container, held.Level] == [5, None, None, 5]
    with pytest.raises(RuntimeError, match="Broken fails on purpose"):
        _ = held.Broken  # by reflection: the getter's own exception, not a TargetInvocationException
    assert compiled == ["get_Level"], "one compile; the rest by reflection until their turn"
    monkeypatch.setattr(derived, "_next_compile", 0.0)  # the turn comes
    with pytest.raises(RuntimeError, match="Broken fails on purpose"):
        _ = held.Broken  # compiled now: the same exception
    assert compiled == ["get_Level", "get_Broken"] and held.Site is None


# -- type tests by System.Type (net.lazy) ------------------------------------------------------


def test_a_type_test_by_system_type_answers_as_isinstance_does(orphaned: Any, clr_types: Any) -> None:
    from System import String
    from System.Collections import ArrayList, ICollection, IList
    from System.ComponentModel import Component, IComponent

    from wpfprobe_clr.net.derived import is_a
    from wpfprobe_clr.net.lazy import clr_namespace, is_instance

    types = clr_namespace("System.ComponentModel").types
    collections = clr_namespace("System.Collections").types
    assert str(types.Component.FullName) == "System.ComponentModel.Component"
    assert types.optional("NoSuchType") is None and types.optional("NoSuchType") is None
    live = clr_types["Tagged"]()
    handle = next(iter(derived_members(orphaned(1))))
    # A value a method returns as an interface is of the interface's class in pythonnet 3: isinstance
    # says no to its object's own class (ArrayList), and so must a test by System.Type.
    as_interface = ArrayList.Synchronized(IList(ArrayList()))
    values = [Component(), live, ArrayList(), as_interface, String("text"), "text", 3, None, object()]
    pairs = [
        (Component, types.Component),
        (IComponent, types.IComponent),
        (ArrayList, collections.ArrayList),
        (ICollection, collections.ICollection),
    ]
    for value in values:
        for cls, net_type in pairs:
            for _ in range(2):  # the second answer is the one kept for the Python type
                assert is_instance(value, net_type) == isinstance(value, cls), (value, cls)
                assert is_instance(value, (String, net_type)) == isinstance(value, (String, cls)), (value, cls)
    # A Python-defined object that Python no longer holds is a handle: tested by its .NET type.
    assert is_a(handle, types.Component) and is_a(handle, (ArrayList, types.IComponent))
    assert not is_a(handle, types.Container) and not is_instance(handle, types.Component)


def derived_members(bag: Any) -> list[Any]:
    from wpfprobe_clr.net.derived import members_of

    return list(members_of(bag))


def test_whether_a_plain_python_value_is_python_defined_is_answered_without_asking_net(
    clr_types: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asked of None's class (a property read that answered null), GetClrType threw, and the process's
    # first .NET exception on the UI thread cost 8-10 ms inside the first slice of the first call.
    from wpfprobe_clr.net import derived

    asked: list[Any] = []
    real = derived.clr.GetClrType

    def counted(kind: Any) -> Any:
        asked.append(kind)
        return real(kind)

    monkeypatch.setattr(derived.clr, "GetClrType", counted)
    for value in (None, 3, "text", 2.5, [], object()):
        assert not derived._is_derived_type(type(value))
    assert asked == []
    assert derived._is_derived_type(clr_types["Tagged"])
    assert not derived._is_derived_type(clr_types["Component"])
    assert len(asked) == 2
