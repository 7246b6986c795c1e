"""wpf_run_diagnostics: providers that find real problems in a live UI.

The rules here are toolkit-agnostic: they judge plain facts an adapter reads
(``naming``, ``state``, ``children``, ``diagnostic_facts``, ``bindings``,
``binding_errors``). What a toolkit knows (which control is an input, what
clips, what virtualizes) stays in the adapters. The whole run is one walk in
one UI-thread hop: the engine's ``paged`` calls ``collect`` on the UI thread,
and later pages only re-resolve the node ids of the findings they show.

Scope: with a root element, the root's whole window is walked (so a finding
depends only on the element, not on where the walk started) and only findings
on the root and its descendants are kept.

Redaction: messages name elements, properties, binding paths and resource
keys, never a property's value. A binding error's own text (which can quote a
value) is left out when the bound property or its path names a secret.
"""

from wpfprobe.engine.diagnostics.model import LARGE_ITEM_COUNT, LEVELS
from wpfprobe.engine.diagnostics.rules import PROVIDER_NAMES, PROVIDERS
from wpfprobe.engine.diagnostics.run import run_diagnostics

__all__ = ["LARGE_ITEM_COUNT", "LEVELS", "PROVIDERS", "PROVIDER_NAMES", "run_diagnostics"]
