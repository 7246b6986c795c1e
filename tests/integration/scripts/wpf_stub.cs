using System;
using System.Collections.Generic;
namespace System.Windows {
  public class DependencyProperty {
    public string Name { get; private set; } public Type PropertyType { get; private set; } public bool ReadOnly { get { return false; } }
    public DependencyProperty(string name, Type t) { Name = name; PropertyType = t; }
    public static readonly object UnsetValue = new object();
  }
  public class DependencyObject {
    public Dictionary<DependencyProperty, object> Values = new Dictionary<DependencyProperty, object>();
    public List<DependencyObject> Kids = new List<DependencyObject>();
    public HashSet<DependencyProperty> Bound = new HashSet<DependencyProperty>();
    public string AutomationId; public bool ThrowOnChildren; public bool ThrowOnGetValue;
    // CLR properties of the stand-ins: set in P, or thrown (the message names the member) when in Throws.
    public Dictionary<string, object> P = new Dictionary<string, object>(); public HashSet<string> Throws = new HashSet<string>();
    protected T Get<T>(string n) { if (Throws.Contains(n)) throw new InvalidOperationException(n + " fails"); object v; return P.TryGetValue(n, out v) ? (T)v : default(T); }
    public object ReadLocalValue(DependencyProperty dp) { object v; return Values.TryGetValue(dp, out v) ? v : DependencyProperty.UnsetValue; }
    public object GetValue(DependencyProperty dp) { if (ThrowOnGetValue) throw new InvalidOperationException("value fails"); object v; return Values.TryGetValue(dp, out v) ? v : null; }
  }
  public class UIElement : System.Windows.Media.Visual {
    public bool Visible = true, Enabled = true, Focus; public bool ThrowOnVisible;
    public bool IsVisible { get { if (ThrowOnVisible) throw new ArgumentException("visible fails"); return Visible; } }
    public bool IsEnabled { get { return Enabled; } } public bool IsKeyboardFocusWithin { get { return Focus; } }
  }
  public class UIElement3D : System.Windows.Media.Media3D.Visual3D {
    public bool IsVisible { get { return true; } } public bool IsEnabled { get { return false; } } public bool IsKeyboardFocusWithin { get { return false; } }
  }
  public class FrameworkElement : UIElement { public string NameValue; public bool ThrowOnName; public string Name { get { if (ThrowOnName) throw new NotSupportedException("name fails"); return NameValue; } } }
  public class Window : System.Windows.Controls.ContentControl { public static readonly DependencyProperty TitleProperty = new DependencyProperty("Title", typeof(string)); }
}
namespace System.Windows.Media {
  public class Visual : System.Windows.DependencyObject {}
  public static class VisualTreeHelper {
    public static int GetChildrenCount(System.Windows.DependencyObject d) { if (d.ThrowOnChildren) throw new InvalidOperationException("children fail"); return d.Kids.Count; }
    public static System.Windows.DependencyObject GetChild(System.Windows.DependencyObject d, int i) { return d.Kids[i]; }
  }
}
namespace System.Windows.Media.Media3D { public class Visual3D : System.Windows.DependencyObject {} }
namespace System.Windows.Automation { public static class AutomationProperties { public static string GetAutomationId(System.Windows.DependencyObject d) { return d.AutomationId ?? ""; } } }
namespace System.Windows.Data {
  public class BindingBase {}
  public static class BindingOperations {
    public static BindingExpressionBase GetBindingExpressionBase(System.Windows.DependencyObject d, System.Windows.DependencyProperty dp) { return null; }
    public static BindingBase GetBindingBase(System.Windows.DependencyObject d, System.Windows.DependencyProperty dp) { return d.Bound.Contains(dp) ? new BindingBase() : null; }
  }
}
namespace System.Windows.Controls {
  using System.Windows;
  public class Control : FrameworkElement {}
  public class ContentControl : Control {
    public static readonly DependencyProperty ContentProperty = new DependencyProperty("Content", typeof(object));
    public object Content { get { if (Throws.Contains("Content")) throw new InvalidOperationException("Content fails"); return GetValue(ContentProperty); } }
  }
  public class HeaderedContentControl : ContentControl {
    public static readonly DependencyProperty HeaderProperty = new DependencyProperty("Header", typeof(object));
    public object Header { get { return GetValue(HeaderProperty); } }
  }
  public class ItemContainerGenerator {
    public Dictionary<DependencyObject, object> Made = new Dictionary<DependencyObject, object>();
    public object ItemFromContainer(DependencyObject container) { object v; return Made.TryGetValue(container, out v) ? v : DependencyProperty.UnsetValue; }
  }
  public static class TextSearch {
    public static readonly DependencyProperty TextPathProperty = new DependencyProperty("TextPath", typeof(string));
    public static string GetTextPath(DependencyObject d) { return (string)d.GetValue(TextPathProperty); }
  }
  public class ItemCollection { public int CountValue; public bool ThrowOnCount; public int Count { get { if (ThrowOnCount) throw new InvalidOperationException("count fails"); return CountValue; } } }
  public class ItemsControl : Control {
    public static ItemsControl ItemsControlFromItemContainer(DependencyObject d) { return d.Values.ContainsKey(Owner) ? (ItemsControl)d.Values[Owner] : null; }
    public static ItemsControl GetItemsOwner(DependencyObject d) { return d.Values.ContainsKey(HostOf) ? (ItemsControl)d.Values[HostOf] : null; }
    public static readonly DependencyProperty Owner = new DependencyProperty("Owner", typeof(object));
    public static readonly DependencyProperty HostOf = new DependencyProperty("HostOf", typeof(object));
    public ItemCollection ItemsValue = new ItemCollection(); public ItemCollection Items { get { return ItemsValue; } }
    public ItemContainerGenerator Generator = new ItemContainerGenerator(); public ItemContainerGenerator ItemContainerGenerator { get { return Generator; } }
    public string DisplayMemberPath { get { return Get<string>("DisplayMemberPath"); } }
    public string ItemStringFormat { get { return Get<string>("ItemStringFormat"); } }
    public bool HasItems { get { return Get<bool>("HasItems"); } }
    // Makes ``container`` the container of ``item`` in this list (item null: of itself, as an element item is).
    public void Holds(DependencyObject container, object item) { container.Values[Owner] = this; Generator.Made[container] = item ?? container; }
  }
  public class ComboBox : System.Windows.Controls.Primitives.Selector { public bool IsDropDownOpen { get { return Get<bool>("IsDropDownOpen"); } } }
  public class ListBox : System.Windows.Controls.Primitives.Selector {} public class ListView : ListBox {} public class TabControl : System.Windows.Controls.Primitives.Selector {} public class TreeView : ItemsControl {}
  public class HeaderedItemsControl : ItemsControl {
    public static readonly DependencyProperty HeaderProperty = new DependencyProperty("Header", typeof(object));
    public object Header { get { return GetValue(HeaderProperty); } }
  }
  public class Label : ContentControl {} public class GroupBox : HeaderedContentControl {}
  public class Expander : HeaderedContentControl { public bool IsExpanded { get { return Get<bool>("IsExpanded"); } } }
  public class TabItem : HeaderedContentControl { public bool IsSelected { get { return Get<bool>("IsSelected"); } } }
  public class ListBoxItem : ContentControl { public bool IsSelected { get { return Get<bool>("IsSelected"); } } }
  public class ComboBoxItem : ListBoxItem {} public class ListViewItem : ListBoxItem {}
  public class MenuItem : HeaderedItemsControl {
    public bool IsCheckable { get { return Get<bool>("IsCheckable"); } } public bool IsChecked { get { return Get<bool>("IsChecked"); } }
    public bool IsSubmenuOpen { get { return Get<bool>("IsSubmenuOpen"); } }
  }
  public class TreeViewItem : HeaderedItemsControl {
    public bool IsSelected { get { return Get<bool>("IsSelected"); } } public bool IsExpanded { get { return Get<bool>("IsExpanded"); } }
  }
  public class DataGridRow : Control { public bool IsSelected { get { return Get<bool>("IsSelected"); } } }
  public class DataGridCell : ContentControl { public bool IsSelected { get { return Get<bool>("IsSelected"); } } }
  public class ContentPresenter : FrameworkElement {}
  public class Panel : FrameworkElement { public bool Host; public bool IsItemsHost { get { return Host; } } }
  public class StackPanel : Panel {}
  public class TextBlock : FrameworkElement { public static readonly DependencyProperty TextProperty = new DependencyProperty("Text", typeof(string)); }
  public class TextBox : Control { public static readonly DependencyProperty TextProperty = new DependencyProperty("Text", typeof(string)); }
  public class AccessText : FrameworkElement { public static readonly DependencyProperty TextProperty = new DependencyProperty("Text", typeof(string)); }
  public class PasswordBox : Control { public string Password { get { throw new Exception("the password was read"); } } }
  public class Button : System.Windows.Controls.Primitives.ButtonBase {}
  public class CheckBox : System.Windows.Controls.Primitives.ToggleButton {}
}
namespace System.Windows.Controls.Primitives {
  public class ButtonBase : System.Windows.Controls.ContentControl {}
  public class ToggleButton : ButtonBase { public bool? Checked; public bool? IsChecked { get { return Checked; } } }
}
namespace Stub {
  public class Hiding : System.Windows.Controls.Button { public new bool IsVisible { get { return false; } } }
  // Hides a member the engine reads by name on an item (pythonnet reads this one, the walk WPF's).
  public class HidingItem : System.Windows.Controls.ListBoxItem { public new bool IsSelected { get { return true; } } }
  public class HidingList : System.Windows.Controls.ListBox { public new string DisplayMemberPath { get { return "Name"; } } }
  public class Person { public string Name; public override string ToString() { return "Person " + Name; } }
}
// What the engine's own WPF path (wpf/_tree.py, _items.py, _properties.py) names, so that the script reads
// the same stand-ins both ways: types it only tests against, and the members it reads for a tree node.
namespace System.Windows {
  public class ContentElement : DependencyObject {} public class FrameworkContentElement : ContentElement {}
  public class Application {} public struct DpiScale {} public struct Point {} public struct Rect {} public struct Size {}
  public class PresentationSource {} public class LogicalTreeHelper {}
  public class DataTemplate : FrameworkTemplate {} public class HierarchicalDataTemplate : DataTemplate {}
  public class DataTemplateKey {} public class PropertyPath {} public class FrameworkTemplate {} public class ResourceDictionary {} public class Style {}
  public enum BaseValueSource { Unknown, Default, Inherited, DefaultStyle, DefaultStyleTrigger, Style, TemplateTrigger, StyleTrigger, ImplicitStyleReference, ParentTemplate, ParentTemplateTrigger, Local }
  public struct ValueSource { public BaseValueSource BaseValueSource { get { return BaseValueSource.Local; } } }
  public static class DependencyPropertyHelper { public static ValueSource GetValueSource(DependencyObject d, DependencyProperty dp) { return new ValueSource(); } }
}
namespace System.Windows.Threading { public class Dispatcher {} public class DispatcherObject {} public enum DispatcherPriority { Normal } }
namespace System.Windows.Media { public struct Matrix {} public struct Color {} public class SolidColorBrush {} }
namespace System.ComponentModel { public class DependencyPropertyDescriptor {} }
namespace System.Windows.Data {
  public class Binding : BindingBase {} public class MultiBinding : BindingBase {} public class PriorityBinding : BindingBase {}
  public class BindingExpressionBase {}
}
namespace System.Windows.Controls {
  public class DataGrid : System.Windows.Controls.Primitives.MultiSelector {} public class Menu : System.Windows.Controls.Primitives.MenuBase {} public class DataGridColumn {} public class DataGridBoundColumn : DataGridColumn {}
}
namespace System.Windows.Controls.Primitives {
  public class Selector : System.Windows.Controls.ItemsControl {} public class MultiSelector : Selector {} public class MenuBase : System.Windows.Controls.ItemsControl {}
}
