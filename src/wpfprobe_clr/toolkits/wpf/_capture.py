"""Screenshots: an element's pixels, as the user sees them, as a PNG.

The bitmap is sized from the same layout box and DPI scale as the element's
bounds (``_tree``), so a screenshot is always as large as the bounds say.
"""

from __future__ import annotations

from typing import Any

from System.IO import MemoryStream

from wpfprobe.core.errors import ElementNotRenderableError
from wpfprobe.core.protocol import Capture, ItemRef
from wpfprobe_clr._values import net_bytes
from wpfprobe_clr.toolkits.wpf._items import _ItemsAdapter
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR

if _WPF_LOAD_ERROR is None:
    from System.Windows import PresentationSource, Rect, UIElement
    from System.Windows.Media import BrushMappingMode, DrawingVisual, PixelFormats, Visual, VisualBrush
    from System.Windows.Media.Imaging import BitmapFrame, PngBitmapEncoder, RenderTargetBitmap


class _CaptureMixin(_ItemsAdapter):
    """WpfAdapter.capture."""

    def capture(self, element: Any) -> Capture:
        if isinstance(element, ItemRef):
            container = self._ref_container(element)
            if container is None:
                raise ElementNotRenderableError(
                    f"Item {element.index} is a data item its list has made no container for: it is not drawn.",
                    suggestion="Bring it into view first (wpf_click selects it and scrolls to it), then capture it.",
                    detail={"type": self.naming(element).type_name, "reason": "not-realised"},
                )
            element = container  # WPF has made its container since
        short = self.naming(element).type_name
        if not isinstance(element, Visual):
            raise ElementNotRenderableError(
                f"{short} is not a Visual: it has no pixels of its own.",
                suggestion="Capture its nearest visual ancestor (see wpf_get_ancestors) or the window.",
                detail={"type": short, "reason": "not-a-visual"},
            )
        if isinstance(element, UIElement) and not element.IsVisible:
            raise ElementNotRenderableError(
                f"{short} is not visible (collapsed, hidden, or inside something hidden).",
                suggestion="Make it visible first, or capture a visible ancestor.",
                detail={"type": short, "reason": "hidden"},
            )
        if PresentationSource.FromVisual(element) is None:
            raise ElementNotRenderableError(
                f"{short} is not connected to a window, so it is not rendered.",
                suggestion="Capture an element that is shown in a window.",
                detail={"type": short, "reason": "not-connected"},
            )
        box = self._box(element)
        if box.width <= 0 or box.height <= 0:
            raise ElementNotRenderableError(
                f"{short} has zero size ({box.width:g} x {box.height:g}).",
                suggestion="Capture its parent, or wait until layout gives it a size.",
                detail={"type": short, "reason": "zero-size"},
            )
        pixel_width, pixel_height = self._pixel_size(box)
        if pixel_width <= 0 or pixel_height <= 0:
            raise ElementNotRenderableError(
                f"{short} is smaller than a pixel ({box.width:g} x {box.height:g}).",
                suggestion="Capture its parent instead.",
                detail={"type": short, "reason": "zero-size"},
            )
        scale_x, scale_y = self._dpi_scale(box.visual)
        bitmap = RenderTargetBitmap(pixel_width, pixel_height, 96.0 * scale_x, 96.0 * scale_y, PixelFormats.Pbgra32)
        # Rendering the element itself would include its offset in the parent;
        # a VisualBrush over exactly its layout box draws it at the origin, 1:1.
        brush = VisualBrush(box.visual)
        brush.ViewboxUnits = BrushMappingMode.Absolute
        brush.Viewbox = Rect(box.x, box.y, box.width, box.height)
        drawing = DrawingVisual()
        context = drawing.RenderOpen()
        try:
            context.DrawRectangle(brush, None, Rect(0.0, 0.0, box.width, box.height))
        finally:
            context.Close()
        bitmap.Render(drawing)
        encoder = PngBitmapEncoder()
        encoder.Frames.Add(BitmapFrame.Create(bitmap))
        stream = MemoryStream()
        try:
            encoder.Save(stream)
            data = net_bytes(stream.ToArray())
        finally:
            stream.Dispose()
        return Capture(width=pixel_width, height=pixel_height, mode="PNG", data=data)
