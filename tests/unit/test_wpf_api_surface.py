"""WPF code is checked against the public WPF API, since WPF cannot run here.

The checker (``wpf_surface.py`` beside this file) verifies every WPF type and
member used by the WPF adapter (every module of its package, checked together)
and the WPF example; the negative tests prove it catches the mistakes that
would otherwise only show up on Windows.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import wpf_surface  # noqa: E402

ROOT = wpf_surface.REPO_ROOT
ADAPTER = ROOT / "src" / "wpfprobe_clr" / "toolkits" / "wpf"
EXAMPLE = ROOT / "examples" / "wpf_app.py"


@pytest.fixture(scope="module")
def api() -> wpf_surface.WpfApi:
    try:
        path = wpf_surface.find_api_file()
    except FileNotFoundError as exc:
        missing = str(exc)
    else:
        return wpf_surface.load_api(path)
    # Not a skip: without the file nothing WPF is checked at all.
    pytest.fail(missing, pytrace=False)


def check(api: wpf_surface.WpfApi, source: str) -> wpf_surface.Report:
    return wpf_surface.check_source(textwrap.dedent(source), api)


def check_package(api: wpf_surface.WpfApi, root: Path, modules: dict[str, str]) -> wpf_surface.Report:
    """Write ``modules`` ({"pkg/mod.py": source}) under ``root`` and check them together, as one report."""
    paths = []
    for name, source in modules.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        paths.append(path)
    return wpf_surface.combined("package", wpf_surface.check_files(paths, api))


def members_by_name(path: Path) -> list[ast.expr]:
    """The rows of the module's ``WPF_MEMBERS_BY_NAME`` table (none if it has none)."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == "WPF_MEMBERS_BY_NAME" and isinstance(node.value, ast.Tuple):
            return list(node.value.elts)
    return []


def messages(report: wpf_surface.Report) -> str:
    return "\n".join(p.message for p in report.problems)


# --------------------------------------------------------------------------- the project's WPF code


#: Modules that use a WPF member or two on purpose (the rule above wants five, so that a module
#: the checker did not see through is noticed): ``_load`` finds the app for ``wpfprobe.start()``
#: without importing the adapter's modules.
SMALL_MODULES = {"_load.py": {"System.Windows.Application.Current"}}


def test_the_wpf_adapter_package_uses_only_the_public_wpf_api(api: wpf_surface.WpfApi) -> None:
    files = wpf_surface.package_files(ADAPTER)
    assert ADAPTER / "__init__.py" in files, f"{ADAPTER} is not a package"
    reports = wpf_surface.check_files(files, api)
    # Every module of the package is checked (a new module is picked up as it is added).
    assert {Path(r.filename) for r in reports} == set(files)
    total = wpf_surface.combined(str(ADAPTER), reports)
    assert not total.problems, "\n".join(str(r) for r in reports if r.problems)
    # A checker that sees nothing passes everything: make sure it saw the code. The
    # adapter used 687 references, 477 members and 149 types in one file before it
    # was split, and 897, 536 and 169 once items were elements (issue 11); it must
    # still be seen whole (a name crossing modules that lost its type would lower these).
    assert total.references >= 890, str(total)
    assert len(total.members) >= 530, str(total)
    assert len(total.types) >= 165, str(total)
    # And every module that imports WPF types uses them through verified members.
    for report in reports:
        if Path(report.filename).name in SMALL_MODULES:
            # Seen whole: exactly the members it is there for.
            assert report.members == SMALL_MODULES[Path(report.filename).name], str(report)
        elif report.types:
            # Members named by a string are invisible here; a module lists them in its
            # WPF_MEMBERS_BY_NAME, checked against the API by its own test (test_wpf_structure.py).
            assert report.references + len(members_by_name(Path(report.filename))) >= 5, str(report)
    # The automation providers are reached through interface casts and checked member by member.
    for member in (
        "System.Windows.Automation.Provider.IInvokeProvider.Invoke",
        "System.Windows.Automation.Provider.IValueProvider.SetValue",
        "System.Windows.Automation.Provider.IValueProvider.IsReadOnly",
        "System.Windows.Automation.Provider.IToggleProvider.Toggle",
        "System.Windows.Automation.Provider.ISelectionItemProvider.Select",
        "System.Windows.Automation.Provider.IExpandCollapseProvider.ExpandCollapseState",
        "System.Windows.Automation.Provider.IExpandCollapseProvider.Collapse",
    ):
        assert member in total.members, member
    # Items as elements: generated containers, data items, display paths, hierarchies, grid edits.
    for member in (
        "System.Windows.Controls.ItemContainerGenerator.ContainerFromIndex",
        "System.Windows.Controls.ItemContainerGenerator.ItemFromContainer",
        "System.Windows.Controls.ItemsControl.ItemsControlFromItemContainer",
        "System.Windows.Controls.TextSearch.GetTextPath",
        "System.Windows.HierarchicalDataTemplate.ItemsSource",
        "System.Windows.Controls.VirtualizingPanel.BringIndexIntoViewPublic",
        "System.Windows.Controls.DataGrid.BeginEdit",
        "System.Windows.Controls.DataGrid.CommitEdit",
        "System.Windows.Controls.DataGridColumn.GetCellContent",
    ):
        assert member in total.members, member


def test_the_wpf_example_uses_only_the_public_wpf_api(api: wpf_surface.WpfApi) -> None:
    assert EXAMPLE.is_file(), f"{EXAMPLE} is missing"
    report = wpf_surface.check_file(EXAMPLE, api)
    assert not report.problems, str(report)
    assert report.references >= 120, str(report)
    assert len(report.members) >= 60, str(report)
    assert len(report.types) >= 28, str(report)


def test_missing_api_file_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(wpf_surface, "REPO_ROOT", tmp_path / "repo")
    monkeypatch.setenv(wpf_surface.ENV_VAR, str(tmp_path / "nowhere.tsv"))
    with pytest.raises(FileNotFoundError, match=r"wpf-api\.tsv") as info:
        wpf_surface.find_api_file()
    assert wpf_surface.ENV_VAR in str(info.value)
    assert "nowhere.tsv" in str(info.value)


def test_env_var_takes_precedence(monkeypatch: pytest.MonkeyPatch, api: wpf_surface.WpfApi) -> None:
    assert api.source is not None
    monkeypatch.setenv(wpf_surface.ENV_VAR, str(api.source))
    assert wpf_surface.api_candidates()[0] == api.source
    assert wpf_surface.find_api_file() == api.source


# --------------------------------------------------------------------------- what it must catch


def test_catches_a_misspelt_member(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from System.Windows.Controls import Button
        button: Button = Button()
        button.Contnet = "Save"
        """,
    )
    assert len(report.problems) == 1, messages(report)
    assert "Contnet" in messages(report) and "Content" in messages(report)


def test_catches_a_misspelt_type(api: wpf_surface.WpfApi) -> None:
    report = check(api, "from System.Windows.Controls import Buton\n")
    assert len(report.problems) == 1, messages(report)
    assert "System.Windows.Controls.Buton" in messages(report)
    assert "Button" in messages(report)


def test_catches_a_type_imported_from_the_wrong_namespace(api: wpf_surface.WpfApi) -> None:
    report = check(api, "from System.Windows.Media import DpiScale\n")
    assert "it lives in System.Windows" in messages(report)


def test_catches_a_static_member_used_through_an_instance(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from System.Windows import Window
        def title_property(window: Window) -> object:
            return window.TitleProperty
        """,
    )
    assert len(report.problems) == 1, messages(report)
    assert "TitleProperty" in messages(report) and "static" in messages(report)


def test_catches_an_instance_member_used_through_the_type(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from System.Windows import Window
        title = Window.Title
        """,
    )
    assert len(report.problems) == 1, messages(report)
    assert "instance" in messages(report) and "Title" in messages(report)


def test_catches_a_member_of_an_unrelated_type(api: wpf_surface.WpfApi) -> None:
    # IsChecked is declared on ToggleButton; TextBlock does not derive from it.
    report = check(
        api,
        """
        from System.Windows.Controls import TextBlock
        def checked(label: TextBlock) -> bool:
            return label.IsChecked
        """,
    )
    assert len(report.problems) == 1, messages(report)
    assert "IsChecked" in messages(report)
    assert "ToggleButton" in messages(report)


def test_catches_members_on_a_narrowed_and_on_a_returned_value(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from typing import Any
        from System.Windows import PresentationSource, UIElement
        from System.Windows.Media import Visual
        def f(element: Any, visual: Visual) -> None:
            if isinstance(element, UIElement):
                element.IsVisibel
            PresentationSource.FromVisual(visual).CompositionTarget.TransformToDevice.M33
        """,
    )
    assert "IsVisibel" in messages(report)
    assert "M33" in messages(report) and "Matrix" in messages(report)
    assert len(report.problems) == 2, messages(report)


def test_refuses_unverifiable_members_on_untyped_values(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from typing import Any
        def f(element: Any) -> object:
            return element.Content
        """,
    )
    assert len(report.problems) == 1, messages(report)
    assert "annotate" in messages(report)


def test_catches_protected_members_wrong_arity_and_namespace_imports(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        import System.Windows
        from System.Windows import Controls, Window
        from System.Windows.Media import VisualTreeHelper
        def f(window: Window) -> None:
            window.OnClosed(None)
            VisualTreeHelper.GetChild(window)
        """,
    )
    text = messages(report)
    assert "protected" in text
    assert "GetChild takes 2" in text
    assert text.count("import WPF types by name") == 2
    assert len(report.problems) == 4, text


def test_members_inherited_from_a_bcl_base_need_listing(
    api: wpf_surface.WpfApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = """
        from System.ComponentModel import DependencyPropertyDescriptor
        def name(descriptor: DependencyPropertyDescriptor) -> str:
            return descriptor.Name
        """
    report = check(api, source)
    assert "BCL base System.ComponentModel.PropertyDescriptor" in messages(report)
    monkeypatch.setitem(wpf_surface.BCL_BASE_MEMBERS, "System.ComponentModel.PropertyDescriptor", frozenset({"Name"}))
    assert not check(api, source).problems


def test_catches_misspelt_and_wrong_kind_members_of_automation_provider_interfaces(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from System.Windows.Automation.Provider import IInvokeProvider, IToggleProvider, IValueProvider
        def f(provider: object) -> None:
            IInvokeProvider(provider).Invok()          # misspelt
            IToggleProvider(provider).Expand()         # a member of IExpandCollapseProvider
            IValueProvider(provider).IsReadOnly()      # a property called as a method
            IValueProvider(provider).SetValue()        # SetValue takes the value
            IInvokeProvider(provider).Invoke = None    # a method assigned
            IInvokeProvider.Invoke()                   # an instance member, through the type
            IValueProvider()                           # an interface is not constructed
        """,
    )
    text = messages(report)
    assert "no member 'Invok' (did you mean Invoke?)" in text
    assert "no member 'Expand'" in text and "IExpandCollapseProvider" in text
    assert "IValueProvider.IsReadOnly is a property, not a method" in text
    assert "SetValue takes 1 argument(s), not 0" in text
    assert "IInvokeProvider.Invoke is a method: it cannot be assigned" in text
    assert "instance method" in text and "not on the type" in text
    assert "is an interface: it cannot be constructed" in text
    assert len(report.problems) == 7, text


def test_catches_interface_members_on_values_a_wpf_member_returns(api: wpf_surface.WpfApi) -> None:
    # Keyboard.FocusedElement is declared as IInputElement: its members are the interface's.
    report = check(
        api,
        """
        from System.Windows.Input import Keyboard
        def f() -> None:
            Keyboard.FocusedElement.Focus()
            Keyboard.FocusedElement.Focuss()
            Keyboard.FocusedElement.Focusable()
        """,
    )
    text = messages(report)
    assert "Focuss" in text and "did you mean Focus" in text
    assert "IInputElement.Focusable is a property, not a method" in text
    assert len(report.problems) == 2, text
    assert "System.Windows.IInputElement.Focus" in report.members


def test_catches_calls_of_properties_fields_events_and_enum_values(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from System.Windows import Visibility, Window
        from System.Windows.Controls import Button
        def f(window: Window, button: Button) -> None:
            window.Title()
            button.Click()
            Visibility.Collapsed()
            Window.TitleProperty()
        """,
    )
    text = messages(report)
    assert "Window.Title is a property, not a method" in text
    assert "ButtonBase.Click is an event, not a method: it cannot be called (subscribe with +=)" in text
    assert "Visibility.Collapsed is an enumvalue, not a method" in text
    assert "Window.TitleProperty is a field, not a method" in text
    assert len(report.problems) == 4, text


def test_sees_through_imports_between_the_modules_of_a_package(api: wpf_surface.WpfApi, tmp_path: Path) -> None:
    report = check_package(
        api,
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/_base.py": """
                from dataclasses import dataclass
                from System.Windows import Window
                from System.Windows.Media import Visual

                @dataclass
                class Box:
                    visual: Visual

                class Base:
                    def __init__(self, window: Window) -> None:
                        self.window: Window = window

                    def _box(self) -> Box:
                        return Box(self.window)

                def main_window(base: Base) -> Window:
                    return base.window
                """,
            "pkg/_mixin.py": """
                from pkg._base import Base, main_window
                from pkg._base import Missing
                from ._base import Box

                class Mixin(Base):
                    def f(self, box: Box) -> None:
                        self.window.Activat()                  # self.window: from the base class
                        self._box().visual.PointToScren(None)  # a base method's declared return type
                        main_window(self).Titel                # a function imported from a sibling
                        box.visual.IsAncestorOff(None)         # a class imported relatively
                """,
        },
    )
    text = messages(report)
    for wrong in ("Activat", "PointToScren", "Titel", "IsAncestorOff"):
        assert f"no member '{wrong}'" in text, text
    assert "pkg._base has no name 'Missing'" in text
    assert len(report.problems) == 5, text


def test_a_name_from_an_import_cycle_is_refused_not_passed(api: wpf_surface.WpfApi, tmp_path: Path) -> None:
    report = check_package(
        api,
        tmp_path,
        {
            "cyc/__init__.py": "",
            "cyc/a.py": """
                from System.Windows import Window
                from cyc.b import helper
                def window() -> Window: ...
                def f() -> None:
                    helper().Title
                """,
            "cyc/b.py": """
                from System.Windows import Window
                from cyc.a import window
                def helper() -> Window: ...
                def g() -> None:
                    window().Title
                """,
        },
    )
    # One side of the cycle runs first and cannot know the other's names yet: it
    # refuses the member (unknown type) instead of letting it through unchecked.
    assert len(report.problems) == 1, messages(report)
    assert "annotate" in messages(report)


# --------------------------------------------------------------------------- what it must accept


def test_accepts_inherited_members_statics_enums_and_constructors(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from typing import Any
        from System.Windows import Point, Visibility, Window
        from System.Windows.Controls import Button
        def f(element: Any, window: Window) -> None:
            button = Button()
            button.Content = "Save"              # ContentControl.Content
            button.Visibility = Visibility.Collapsed  # UIElement.Visibility, enum value
            button.Click += lambda sender, args: None  # ButtonBase.Click
            dp = Button.ContentProperty          # static, inherited from ContentControl
            name = dp.Name
            window.Title = window.GetType().Name  # System.Object member, then BCL
            if isinstance(element, Window):
                element.Close()
            origin = window.PointToScreen(Point(0, 0))  # Visual.PointToScreen, struct ctor
            origin.X
        """,
    )
    assert not report.problems, messages(report)
    for member in (
        "System.Windows.Controls.ContentControl.Content",
        "System.Windows.UIElement.Visibility",
        "System.Windows.Controls.Primitives.ButtonBase.Click",
        "System.Windows.Controls.ContentControl.ContentProperty",
        "System.Windows.Window.Close",
        "System.Windows.Media.Visual.PointToScreen",
        "System.Windows.Point.X",
    ):
        assert member in report.members, sorted(report.members)


def test_accepts_interface_casts_and_interface_members(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from System.Windows.Automation import ExpandCollapseState
        from System.Windows.Automation.Peers import AutomationPeer, PatternInterface
        from System.Windows.Automation.Provider import IExpandCollapseProvider, IValueProvider
        def f(peer: AutomationPeer) -> None:
            provider = peer.GetPattern(PatternInterface.Value)
            value = IValueProvider(provider)
            if not value.IsReadOnly:
                value.SetValue(str(value.Value or "") + "!")
            expand = IExpandCollapseProvider(peer.GetPattern(PatternInterface.ExpandCollapse))
            if str(expand.ExpandCollapseState) == str(ExpandCollapseState.Expanded):
                expand.Collapse()
        """,
    )
    assert not report.problems, messages(report)
    for member in (
        "System.Windows.Automation.Provider.IValueProvider.cast",
        "System.Windows.Automation.Provider.IValueProvider.IsReadOnly",
        "System.Windows.Automation.Provider.IValueProvider.SetValue",
        "System.Windows.Automation.Provider.IValueProvider.Value",
        "System.Windows.Automation.Provider.IExpandCollapseProvider.ExpandCollapseState",
        "System.Windows.Automation.Provider.IExpandCollapseProvider.Collapse",
    ):
        assert member in report.members, sorted(report.members)


def test_early_return_narrowing_and_annotated_attributes(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        """
        from typing import Any
        from System.Windows import Application, Window
        class Holder:
            app: Application
            def __init__(self, window: Window) -> None:
                self.window: Window = window
            def title(self, element: Any) -> str:
                if not isinstance(element, Window):
                    return ""
                self.app.MainWindow.Title
                self.window.Activate()
                return element.Title
        """,
    )
    assert not report.problems, messages(report)
    assert report.references == 4


# --------------------------------------------------------------------------- members named in expressions

EXPRESSION_HEADER = """
    from System import Int32
    from System.Collections.Generic import List
    from System.Windows import DependencyObject, FrameworkElement, UIElement
    from System.Windows.Automation import AutomationProperties
    from System.Windows.Media import VisualTreeHelper
    from wpfprobe_clr.net import expr as E
    c = E.variable(DependencyObject, "c")
    k = E.variable(Int32, "k")
"""


def test_the_wpf_walk_names_its_members_where_the_checker_sees_them(api: wpf_surface.WpfApi) -> None:
    report = wpf_surface.check_file(ADAPTER / "_walker.py", api)
    assert not report.problems, str(report)
    items = wpf_surface.check_file(ADAPTER / "_walk_items.py", api)
    assert not items.problems, str(items)
    # Every WPF member the expressions read (the walk names them as strings to the builder).
    for member in (
        "System.Windows.FrameworkElement.Name",
        "System.Windows.Automation.AutomationProperties.GetAutomationId",
        "System.Windows.UIElement.IsVisible",
        "System.Windows.UIElement.IsEnabled",
        "System.Windows.UIElement.IsKeyboardFocusWithin",
        "System.Windows.UIElement3D.IsVisible",
        "System.Windows.Controls.Primitives.ToggleButton.IsChecked",
        "System.Windows.Controls.Panel.IsItemsHost",
        "System.Windows.Controls.ItemsControl.ItemsControlFromItemContainer",
        "System.Windows.Data.BindingOperations.GetBindingBase",
        "System.Windows.DependencyObject.GetValue",
        "System.Windows.Media.VisualTreeHelper.GetChildrenCount",
        "System.Windows.Media.VisualTreeHelper.GetChild",
        "System.Windows.Window.TitleProperty",
    ):
        assert member in report.members | items.members, member
    # What the item reads name (``_walk_items.py``): states, and a container's item and its list's paths.
    for member in (
        "System.Windows.Controls.ListBoxItem.IsSelected",
        "System.Windows.Controls.TabItem.IsSelected",
        "System.Windows.Controls.TreeViewItem.IsSelected",
        "System.Windows.Controls.TreeViewItem.IsExpanded",
        "System.Windows.Controls.DataGridRow.IsSelected",
        "System.Windows.Controls.MenuItem.IsCheckable",
        "System.Windows.Controls.MenuItem.IsChecked",
        "System.Windows.Controls.MenuItem.IsSubmenuOpen",
        "System.Windows.Controls.ItemsControl.HasItems",
        "System.Windows.Controls.ComboBox.IsDropDownOpen",
        "System.Windows.Controls.Expander.IsExpanded",
        "System.Windows.Controls.ContentControl.Content",
        "System.Windows.Controls.HeaderedItemsControl.Header",
        "System.Windows.Controls.ItemsControl.ItemContainerGenerator",
        "System.Windows.Controls.ItemContainerGenerator.ItemFromContainer",
        "System.Windows.Controls.ItemsControl.DisplayMemberPath",
        "System.Windows.Controls.ItemsControl.ItemStringFormat",
        "System.Windows.Controls.TextSearch.GetTextPath",
        "System.Windows.DependencyProperty.UnsetValue",
    ):
        assert member in items.members, member


def test_catches_wrong_members_named_in_expressions(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        EXPRESSION_HEADER
        + """
    E.prop(E.convert(c, FrameworkElement), "Nmae")                   # misspelt property
    E.prop(E.convert(c, UIElement), "Focus")                         # a method read as a property
    E.call(E.convert(c, UIElement), "IsVisible")                     # a property called as a method
    E.static_call(VisualTreeHelper, "GetChlid", c, k)                # misspelt static method
    E.static_call(VisualTreeHelper, "GetChild", c)                   # wrong arity
    E.static_call(UIElement, "Focus")                                # an instance method called statically
    E.method(AutomationProperties, "GetAutomationIdd", DependencyObject)
    """,
    )
    text = messages(report)
    assert "has no public instance property or field 'Nmae'" in text and "did you mean Name" in text
    assert "has no public instance property or field 'Focus'" in text
    assert "has no public instance method 'IsVisible'" in text
    assert "has no public static method 'GetChlid'" in text
    assert "GetChild takes 2 argument(s), not 1 (in an expression)" in text
    assert "has no public static method 'Focus'" in text
    assert "has no public method 'GetAutomationIdd'" in text
    assert len(report.problems) == 7, text


def test_accepts_right_members_named_in_expressions_and_leaves_the_bcl_alone(api: wpf_surface.WpfApi) -> None:
    report = check(
        api,
        EXPRESSION_HEADER
        + """
    E.prop(E.convert(c, FrameworkElement), "Name")
    E.prop(E.convert(c, FrameworkElement), "IsVisible")              # inherited from UIElement
    E.call(E.convert(c, UIElement), "Focus")
    E.static_call(VisualTreeHelper, "GetChild", c, k)
    E.method(AutomationProperties, "GetAutomationId", DependencyObject)
    E.prop(k, "Whatever")                                            # not a WPF owner in sight: not checked
    E.method(List[Int32], "Add", Int32)                              # a BCL type
    """,
    )
    assert not report.problems, messages(report)
    for member in (
        "System.Windows.FrameworkElement.Name",
        "System.Windows.UIElement.IsVisible",
        "System.Windows.UIElement.Focus",
        "System.Windows.Media.VisualTreeHelper.GetChild",
        "System.Windows.Automation.AutomationProperties.GetAutomationId",
    ):
        assert member in report.members, sorted(report.members)
