using System;
using System.Collections.Generic;
namespace System.Windows {
  public class DependencyProperty {
    public string Name { get; private set; } public Type PropertyType { get; private set; } public bool ReadOnly { get { return false; } }
    public DependencyProperty(string name, Type t) { Name = name; PropertyType = t; }
  }
  public class DependencyObject {
    public Dictionary<DependencyProperty, object> Values = new Dictionary<DependencyProperty, object>();
    public List<DependencyObject> Kids = new List<DependencyObject>();
    public HashSet<DependencyProperty> Bound = new HashSet<DependencyProperty>();
    public string AutomationId; public bool ThrowOnChildren; public bool ThrowOnGetValue;
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
  public static class BindingOperations { public static BindingBase GetBindingBase(System.Windows.DependencyObject d, System.Windows.DependencyProperty dp) { return d.Bound.Contains(dp) ? new BindingBase() : null; } }
}
namespace System.Windows.Controls {
  using System.Windows;
  public class Control : FrameworkElement {}
  public class ContentControl : Control { public static readonly DependencyProperty ContentProperty = new DependencyProperty("Content", typeof(object)); }
  public class HeaderedContentControl : ContentControl { public static readonly DependencyProperty HeaderProperty = new DependencyProperty("Header", typeof(object)); }
  public class ItemCollection { public int CountValue; public bool ThrowOnCount; public int Count { get { if (ThrowOnCount) throw new InvalidOperationException("count fails"); return CountValue; } } }
  public class ItemsControl : Control {
    public static ItemsControl ItemsControlFromItemContainer(DependencyObject d) { return d.Values.ContainsKey(Owner) ? (ItemsControl)d.Values[Owner] : null; }
    public static ItemsControl GetItemsOwner(DependencyObject d) { return d.Values.ContainsKey(HostOf) ? (ItemsControl)d.Values[HostOf] : null; }
    public static readonly DependencyProperty Owner = new DependencyProperty("Owner", typeof(object));
    public static readonly DependencyProperty HostOf = new DependencyProperty("HostOf", typeof(object));
    public ItemCollection ItemsValue = new ItemCollection(); public ItemCollection Items { get { return ItemsValue; } }
  }
  public class ComboBox : ItemsControl {}
  public class HeaderedItemsControl : ItemsControl { public static readonly DependencyProperty HeaderProperty = new DependencyProperty("Header", typeof(object)); }
  public class Label : ContentControl {} public class GroupBox : HeaderedContentControl {} public class Expander : HeaderedContentControl {}
  public class TabItem : HeaderedContentControl {} public class ListBoxItem : ContentControl {} public class MenuItem : HeaderedItemsControl {}
  public class TreeViewItem : HeaderedItemsControl {} public class DataGridRow : Control {} public class DataGridCell : ContentControl {}
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
namespace Stub { public class Hiding : System.Windows.Controls.Button { public new bool IsVisible { get { return false; } } } }
