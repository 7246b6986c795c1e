"""The WPF adapter package imports on the real CLR, with or without WPF.

Where WPF is missing (Mono on Linux) every module must still import, so that
toolkit auto-detection works; only building an adapter fails, with
ClrUnavailableError. Where WPF loads (Windows), the same imports run with
the WPF names bound.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest


def test_every_module_of_the_wpf_package_imports() -> None:
    import wpfprobe_clr

    wpfprobe_clr.ensure_clr()
    from wpfprobe_clr.toolkits import wpf

    names = sorted(m.name for m in pkgutil.iter_modules(wpf.__path__))
    assert len(names) >= 10, names
    for name in names:
        importlib.import_module(f"{wpf.__name__}.{name}")
    assert wpf.is_wpf_object(object()) is False


def test_without_wpf_the_adapter_says_why_it_cannot_be_built() -> None:
    import wpfprobe_clr

    wpfprobe_clr.ensure_clr()
    from wpfprobe.core.errors import ClrUnavailableError
    from wpfprobe_clr.toolkits import wpf
    from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR

    if _WPF_LOAD_ERROR is None:
        pytest.skip("WPF loads here: the adapter can be built")
    assert wpf.find_app() is None
    with pytest.raises(ClrUnavailableError, match="WPF assemblies could not be loaded"):
        wpf.WpfAdapter(object())
    with pytest.raises(ClrUnavailableError):
        wpf.connect(object(), timeout=1.0)
