"""The trace viewer: a run's session folder or a ticket as one HTML page that opens offline.

``wpfprobe show-trace DIR`` and ``wpfprobe tickets show --html`` write it.
Everything the page shows is inside the file: the steps and their evidence as
JSON in a ``<script type="application/json">`` block, screenshots as
``data:`` URIs, the styles and the script from ``template.html`` (shipped with
the package; no build step). The page loads nothing from anywhere (its
Content-Security-Policy forbids it), so it opens from disk, from a CI
artifact or an email attachment, with no server.

What it shows: the steps on a timeline (width by duration, colour by
outcome), a filmstrip of the screenshots, and for the selected step the
element tree before and after with the differences marked, the arguments,
the locators (given, used, generated), what changed, the app's events and
the audit entries written during it; the failure and its stack on top,
with its step selected.
"""

from wpfprobe.testkit.trace_view.build import TraceData, load, render, write_html

__all__ = ["TraceData", "load", "render", "write_html"]
