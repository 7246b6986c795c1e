"""wpfprobe_clr._build on the real CLR: parsed values become .NET objects of the exact type.

Each test parses text with the fixed table (toolkit "winforms"), builds the
.NET value and checks its runtime type and content; the setter tests store
the values through reflection (Array.SetValue, PropertyDescriptor.SetValue),
which refuses a value of the wrong boxed type, so they prove the types are
what a setter takes, not just what Python prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from wpfprobe.core.convert import (
    FIXED_ENUMS,
    Converted,
    UnsupportedPropertyTypeError,
    expected_format,
    parse_value,
    supported_types,
)


@pytest.fixture(scope="module")
def net() -> Any:
    """The loaded CLR with System.Drawing and System.Windows.Forms referenced."""
    import wpfprobe_clr

    wpfprobe_clr.ensure_clr()
    import clr

    clr.AddReference("System.Drawing")
    clr.AddReference("System.Windows.Forms")
    import System

    return System


def build(text: str, type_name: str, target: Any = None, **options: Any) -> Any:
    from wpfprobe_clr._build import build_value

    return build_value(parse_value(text, type_name, toolkit="winforms", **options), target)


def clr_type(cls: Any) -> Any:
    import clr

    return clr.GetClrType(cls)


def store(element_type: Any, value: Any) -> Any:
    """Store ``value`` in a one-element array of ``element_type`` (strict reflection) and read it back."""
    from System import Array

    array = Array.CreateInstance(element_type, 1)
    array.SetValue(value, 0)
    return array.GetValue(0)


def full_name(value: Any) -> str:
    return str(value.GetType().FullName)


# --------------------------------------------------------------------------- primitives


def test_string_and_object_get_the_text_verbatim(net: Any) -> None:
    for type_name in ("System.String", "System.Object"):
        built = build("  Line one\nLine two ", type_name)
        assert built == "  Line one\nLine two "
        assert store(clr_type(net.String), built) == "  Line one\nLine two "


def test_nullable_int_takes_null_and_a_number(net: Any) -> None:
    nullable = clr_type(net.Nullable[net.Int32])
    type_name = str(nullable.FullName)
    assert build("null", type_name, nullable) is None
    assert store(nullable, build("null", type_name, nullable)) is None
    seven = build("7", type_name, nullable)
    assert full_name(seven) == "System.Int32"
    assert store(nullable, seven) == 7


def test_bool_is_a_system_boolean(net: Any) -> None:
    built = build("TRUE", "System.Boolean")
    assert full_name(built) == "System.Boolean"
    assert store(clr_type(net.Boolean), built) is True
    assert store(clr_type(net.Boolean), build("false", "System.Boolean")) is False


INT_LIMITS = [
    ("System.SByte", -(2**7), 2**7 - 1),
    ("System.Byte", 0, 2**8 - 1),
    ("System.Int16", -(2**15), 2**15 - 1),
    ("System.UInt16", 0, 2**16 - 1),
    ("System.Int32", -(2**31), 2**31 - 1),
    ("System.UInt32", 0, 2**32 - 1),
    ("System.Int64", -(2**63), 2**63 - 1),
    ("System.UInt64", 0, 2**64 - 1),
]


@pytest.mark.parametrize(("type_name", "low", "high"), INT_LIMITS)
def test_each_integral_type_is_built_exactly(net: Any, type_name: str, low: int, high: int) -> None:
    element = net.Type.GetType(type_name)
    for n in (low, high, 42):
        built = build(str(n), type_name)
        # The exact type: a bare Python int would be boxed as Int32 and refused by the setter.
        assert full_name(built) == type_name
        assert store(element, built) == n


def test_double_and_single(net: Any) -> None:
    double = build("0.1", "System.Double")
    assert full_name(double) == "System.Double"
    assert store(clr_type(net.Double), double) == 0.1

    single = build("-3.25e2", "System.Single")
    assert full_name(single) == "System.Single"
    assert store(clr_type(net.Single), single) == -325.0
    tenth = store(clr_type(net.Single), build("0.1", "System.Single"))
    assert tenth == pytest.approx(0.1, rel=1e-7) and tenth != 0.1  # float32, not float64


def test_decimal_keeps_its_exact_digits(net: Any) -> None:
    from System.Globalization import CultureInfo

    invariant = CultureInfo.InvariantCulture
    for text, shown in [
        ("12.50", "12.50"),
        ("-0.000001", "-0.000001"),
        ("+7", "7"),
        ("79228162514264337593543950335", "79228162514264337593543950335"),
    ]:
        built = build(text, "System.Decimal")
        assert full_name(built) == "System.Decimal"
        assert str(built.ToString(invariant)) == shown
        assert str(store(clr_type(net.Decimal), built).ToString(invariant)) == shown


def test_char_is_a_system_char(net: Any) -> None:
    for text in ("A", ";", " ", "\u20ac"):
        built = build(text, "System.Char")
        assert full_name(built) == "System.Char"
        assert store(clr_type(net.Char), built) == text


# --------------------------------------------------------------------------- enums


def test_enum_is_built_from_its_number(net: Any) -> None:
    from System.Windows.Forms import AnchorStyles, DockStyle

    fill = build("fill", "System.Windows.Forms.DockStyle", clr_type(DockStyle))
    assert full_name(fill) == "System.Windows.Forms.DockStyle"
    assert fill == DockStyle.Fill

    both = build("Top, Left", "System.Windows.Forms.AnchorStyles", clr_type(AnchorStyles))
    assert full_name(both) == "System.Windows.Forms.AnchorStyles"
    assert both == AnchorStyles.Top | AnchorStyles.Left
    assert int(net.Convert.ToInt32(both)) == 5
    assert store(clr_type(AnchorStyles), both) == AnchorStyles.Top | AnchorStyles.Left

    # A pythonnet class works as the target type too, and so does Nullable<E>.
    assert build("3", "System.Windows.Forms.DockStyle", DockStyle) == DockStyle.Left
    nullable = clr_type(net.Nullable[DockStyle])
    right = build("Right", str(nullable.FullName), nullable)
    assert full_name(right) == "System.Windows.Forms.DockStyle"
    assert store(nullable, right) == DockStyle.Right
    assert build("null", str(nullable.FullName), nullable) is None


def test_enum_spec_of_reads_members_and_flags(net: Any) -> None:
    from System.Windows.Forms import AnchorStyles, DockStyle, FlatStyle

    from wpfprobe_clr._build import enum_spec_of

    fixed = FIXED_ENUMS["winforms"]
    assert enum_spec_of(clr_type(DockStyle)) == fixed["System.Windows.Forms.DockStyle"]
    assert enum_spec_of(clr_type(AnchorStyles)) == fixed["System.Windows.Forms.AnchorStyles"]
    assert enum_spec_of(clr_type(net.Nullable[AnchorStyles])) == fixed["System.Windows.Forms.AnchorStyles"]
    assert enum_spec_of(DockStyle) == fixed["System.Windows.Forms.DockStyle"]

    for not_enum in (net.Int32, net.Nullable[net.Int32], net.String, net.Enum):
        assert enum_spec_of(clr_type(not_enum)) is None
    assert enum_spec_of(None) is None

    # An enum outside the fixed table: parse with the adapter's spec, then build.
    spec = enum_spec_of(clr_type(FlatStyle))
    assert spec is not None and not spec.flags and "Popup" in spec.names
    popup = build("popup", "System.Windows.Forms.FlatStyle", clr_type(FlatStyle), enum=spec)
    assert popup == FlatStyle.Popup


@pytest.fixture(scope="module")
def emitted_enums(net: Any) -> dict[str, Any]:
    """Enums C# rarely has: a [Flags] UInt64 one with members above Int64.MaxValue, an Int64 one below 0."""
    from System import AppDomain, Array, FlagsAttribute, Object
    from System.Reflection import AssemblyName, TypeAttributes
    from System.Reflection.Emit import AssemblyBuilderAccess, CustomAttributeBuilder

    assembly = AppDomain.CurrentDomain.DefineDynamicAssembly(
        AssemblyName("WpfprobeBuildTestEnums"), AssemblyBuilderAccess.Run
    )
    module = assembly.DefineDynamicModule("WpfprobeBuildTestEnums")

    wide = module.DefineEnum("Test.WideFlags", TypeAttributes.Public, clr_type(net.UInt64))
    wide.DefineLiteral("None", net.UInt64(0))
    wide.DefineLiteral("Low", net.UInt64(1))
    wide.DefineLiteral("High", net.UInt64(2**63))
    wide.DefineLiteral("Top", net.UInt64(2**64 - 1))
    flags_ctor = clr_type(FlagsAttribute).GetConstructor(net.Type.EmptyTypes)
    wide.SetCustomAttribute(CustomAttributeBuilder(flags_ctor, Array.CreateInstance(clr_type(Object), 0)))

    signed = module.DefineEnum("Test.Signed", TypeAttributes.Public, clr_type(net.Int64))
    signed.DefineLiteral("Lowest", net.Int64(-(2**63)))
    signed.DefineLiteral("Minus", net.Int64(-1))
    signed.DefineLiteral("Zero", net.Int64(0))

    return {"wide": wide.CreateType(), "signed": signed.CreateType()}


def test_enum_values_beyond_int64_keep_their_value(net: Any, emitted_enums: dict[str, Any]) -> None:
    from wpfprobe_clr._build import enum_spec_of

    wide = emitted_enums["wide"]
    spec = enum_spec_of(wide)
    assert spec is not None and spec.flags
    assert dict(zip(spec.names, spec.values, strict=True)) == {"None": 0, "Low": 1, "High": 2**63, "Top": 2**64 - 1}

    for text, n in [("High", 2**63), ("Top", 2**64 - 1), ("Low, High", 2**63 + 1), ("None", 0)]:
        built = build(text, str(wide.FullName), wide, enum=spec)
        assert full_name(built) == "Test.WideFlags"
        assert int(net.Convert.ToUInt64(built)) == n

    signed = emitted_enums["signed"]
    spec = enum_spec_of(signed)
    assert spec is not None and not spec.flags
    assert dict(zip(spec.names, spec.values, strict=True)) == {"Lowest": -(2**63), "Minus": -1, "Zero": 0}
    for text, n in [("Lowest", -(2**63)), ("minus", -1), ("0", 0)]:
        built = build(text, str(signed.FullName), signed, enum=spec)
        assert full_name(built) == "Test.Signed"
        assert int(net.Convert.ToInt64(built)) == n


# --------------------------------------------------------------------------- System.Drawing / WinForms


def test_color_from_argb_and_known_color(net: Any) -> None:
    from System.Drawing import Color, KnownColor

    for text, argb in [("#80FF8800", (128, 255, 136, 0)), ("#102030", (255, 16, 32, 48)), ("1,2,3,4", (1, 2, 3, 4))]:
        built = build(text, "System.Drawing.Color")
        assert full_name(built) == "System.Drawing.Color"
        assert argb == (built.A, built.R, built.G, built.B)
        assert not built.IsKnownColor

    control = build("control", "System.Drawing.Color")
    assert full_name(control) == "System.Drawing.Color"
    assert control.IsKnownColor and control.IsSystemColor
    assert control.ToKnownColor() == KnownColor.Control
    red = build("RED", "System.Drawing.Color")
    assert red.IsKnownColor and str(red.Name) == "Red"
    assert red.ToArgb() == Color.Red.ToArgb()


def test_size_point_rectangle_ints_and_floats(net: Any) -> None:
    size = build("100,40", "System.Drawing.Size")
    assert full_name(size) == "System.Drawing.Size"
    assert (size.Width, size.Height) == (100, 40)

    point = build("-5 0", "System.Drawing.Point")
    assert full_name(point) == "System.Drawing.Point"
    assert (point.X, point.Y) == (-5, 0)

    rect = build("1,2,3,4", "System.Drawing.Rectangle")
    assert full_name(rect) == "System.Drawing.Rectangle"
    assert (rect.X, rect.Y, rect.Width, rect.Height) == (1, 2, 3, 4)

    size_f = build("100,40.5", "System.Drawing.SizeF")
    assert full_name(size_f) == "System.Drawing.SizeF"
    assert (size_f.Width, size_f.Height) == (100.0, 40.5)

    point_f = build("10.5,-0.25", "System.Drawing.PointF")
    assert full_name(point_f) == "System.Drawing.PointF"
    assert (point_f.X, point_f.Y) == (10.5, -0.25)


def test_padding_all_sides_and_each_side(net: Any) -> None:
    four = build("4,2,6,8", "System.Windows.Forms.Padding")
    assert full_name(four) == "System.Windows.Forms.Padding"
    assert (four.Left, four.Top, four.Right, four.Bottom) == (4, 2, 6, 8)
    assert four.All == -1

    uniform = build("4", "System.Windows.Forms.Padding")
    assert (uniform.Left, uniform.Top, uniform.Right, uniform.Bottom, uniform.All) == (4, 4, 4, 4, 4)


def _find_type(net: Any, type_name: str) -> Any:
    for assembly in net.AppDomain.CurrentDomain.GetAssemblies():
        found = assembly.GetType(type_name)
        if found is not None:
            return found
    raise AssertionError(f"{type_name} is not loaded")


def test_every_winforms_table_type_builds_and_stores(net: Any) -> None:
    """Each type the table lists for winforms: its first documented example builds to that exact type."""
    for type_name in supported_types("winforms"):
        described = expected_format(type_name, toolkit="winforms")
        assert described is not None
        example = described[1][0]
        target = _find_type(net, type_name)
        built = build(example, type_name, target)
        stored = store(target, built)
        if type_name in ("System.String", "System.Object"):
            assert built == example == stored
        else:
            assert full_name(built) == type_name, type_name


# --------------------------------------------------------------------------- not built here


@pytest.mark.parametrize(
    "value",
    [
        Converted("thickness", "System.Windows.Thickness", (1.0, 2.0, 3.0, 4.0)),
        Converted("brush", "System.Windows.Media.Brush", (255, 1, 2, 3)),
        Converted("gridlength", "System.Windows.GridLength", (2.0, "Star")),
        Converted("fontweight", "System.Windows.FontWeight", (700,)),
        # Kinds shared with WPF, but with a WPF type: the WPF adapter's to build.
        Converted("color", "System.Windows.Media.Color", (255, 1, 2, 3)),
        Converted("size", "System.Windows.Size", (1.0, 2.0)),
        Converted("point", "System.Windows.Point", (1.0, 2.0)),
        Converted("rect", "System.Windows.Rect", (0.0, 0.0, 1.0, 2.0)),
        Converted("int", "System.Numerics.BigInteger", (5,)),
    ],
    ids=lambda v: f"{v.kind}-{v.type_name}",
)
def test_kinds_this_toolkit_cannot_build_are_unsupported(net: Any, value: Converted) -> None:
    from wpfprobe_clr._build import build_value

    with pytest.raises(UnsupportedPropertyTypeError) as raised:
        build_value(value, None)
    assert raised.value.code == "UNSUPPORTED_PROPERTY_TYPE"
    assert raised.value.detail["typeName"] == value.type_name


def test_enum_needs_an_enum_target_type(net: Any) -> None:
    from wpfprobe_clr._build import build_value

    value = Converted("enum", "System.Windows.Forms.DockStyle", (5,))
    for target in (None, clr_type(net.Int32), clr_type(net.Nullable[net.Int32])):
        with pytest.raises(UnsupportedPropertyTypeError):
            build_value(value, target)


# --------------------------------------------------------------------------- real setters


@pytest.fixture
def controls(net: Any, display: str | None) -> Iterator[list[Any]]:
    """Controls made on the test thread and never shown (creating one needs the display)."""
    made: list[Any] = []
    yield made
    for control in made:
        control.Dispose()


def _set(control: Any, name: str, value: Any) -> Any:
    from System.ComponentModel import TypeDescriptor

    descriptor = TypeDescriptor.GetProperties(control).Find(name, True)
    assert descriptor is not None, name
    descriptor.SetValue(control, value)
    return descriptor.GetValue(control)


def test_built_values_go_through_property_descriptors(net: Any, controls: list[Any]) -> None:
    from System.Drawing import Color, KnownColor
    from System.Windows.Forms import AnchorStyles, Button, DockStyle, NumericUpDown, TextBox

    button = Button()
    controls.append(button)
    padding = _set(button, "Padding", build("4,2,6,8", "System.Windows.Forms.Padding"))
    assert (padding.Left, padding.Top, padding.Right, padding.Bottom) == (4, 2, 6, 8)
    assert (button.Padding.Left, button.Padding.Bottom) == (4, 8)

    assert _set(button, "Dock", build("Fill", "System.Windows.Forms.DockStyle", clr_type(DockStyle))) == DockStyle.Fill
    _set(button, "Dock", build("None", "System.Windows.Forms.DockStyle", clr_type(DockStyle)))
    anchor = _set(button, "Anchor", build("Bottom, Right", "System.Windows.Forms.AnchorStyles", clr_type(AnchorStyles)))
    assert anchor == AnchorStyles.Bottom | AnchorStyles.Right

    back = _set(button, "BackColor", build("#FF112233", "System.Drawing.Color"))
    assert back.ToArgb() == Color.FromArgb(255, 0x11, 0x22, 0x33).ToArgb()
    fore = _set(button, "ForeColor", build("ControlText", "System.Drawing.Color"))
    assert fore.ToKnownColor() == KnownColor.ControlText

    size = _set(button, "Size", build("120,30", "System.Drawing.Size"))
    assert (size.Width, size.Height) == (120, 30)
    location = _set(button, "Location", build("7,9", "System.Drawing.Point"))
    assert (location.X, location.Y) == (7, 9)
    assert _set(button, "Text", build("Save", "System.String")) == "Save"
    assert _set(button, "Enabled", build("false", "System.Boolean")) is False
    assert _set(button, "TabIndex", build("3", "System.Int32")) == 3

    box = TextBox()
    controls.append(box)
    assert _set(box, "PasswordChar", build("*", "System.Char")) == "*"
    assert _set(box, "MaxLength", build("12", "System.Int32")) == 12

    spinner = NumericUpDown()
    controls.append(spinner)
    _set(spinner, "DecimalPlaces", build("2", "System.Int32"))
    _set(spinner, "Maximum", build("1000", "System.Decimal"))
    value = _set(spinner, "Value", build("12.50", "System.Decimal"))
    from System.Globalization import CultureInfo

    assert str(value.ToString(CultureInfo.InvariantCulture)) == "12.50"


def test_a_single_goes_through_a_property_descriptor(net: Any) -> None:
    from System.ComponentModel import TypeDescriptor
    from System.Windows.Forms import ColumnStyle, SizeType

    style = ColumnStyle(SizeType.Percent, net.Single(10.0))
    descriptor = TypeDescriptor.GetProperties(style).Find("Width", True)
    assert str(descriptor.PropertyType.FullName) == "System.Single"
    descriptor.SetValue(style, build("33.5", "System.Single"))
    assert style.Width == 33.5
