"""Which CLR a test process hosts: Mono (the default here), or CoreCLR from PyPI's ``dotnetcore2``.

One process hosts one CLR, so the .NET-side code that does not need a UI
toolkit (the expression builder and bridge, Python-defined classes read
through ``net/``, the walk frame over stand-in types) runs on CoreCLR in a
process of its own: ``test_coreclr.py`` starts pytest again on those tests
with ``WPFPROBE_TEST_CLR=coreclr``, and the integration conftest loads
CoreCLR first thing in that process (``load_test_clr``).

CoreCLR is what modern WPF apps run on. ``dotnetcore2`` carries .NET Core
3.1's runtime for Linux x64 (no SDK, no WinForms or WPF); pythonnet 3 loads
it given a runtime config naming Microsoft.NETCore.App and its root. ICU is
not on every machine, hence invariant globalization.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

#: The environment variable naming the CLR a test process hosts: "mono" (the default) or "coreclr".
VARIABLE = "WPFPROBE_TEST_CLR"


def coreclr_root() -> Path | None:
    """``dotnetcore2``'s runtime folder (a DOTNET_ROOT), or None where the package is not installed."""
    try:
        import dotnetcore2  # type: ignore[import-untyped]
    except ImportError:
        return None
    root = Path(dotnetcore2.__file__).resolve().parent / "bin"
    return root if (root / "shared" / "Microsoft.NETCore.App").is_dir() else None


def load_coreclr() -> None:
    """Load CoreCLR from ``dotnetcore2`` into this process, through pythonnet (before ``import clr``)."""
    import pythonnet

    root = coreclr_root()
    if root is None:
        raise RuntimeError("dotnetcore2 is not installed: it is in the test extras on Linux x86_64")
    version = max((p.name for p in (root / "shared" / "Microsoft.NETCore.App").iterdir()), key=_version)
    config = Path(tempfile.mkdtemp(prefix="wpfprobe-coreclr-")) / "tests.runtimeconfig.json"
    framework = {"name": "Microsoft.NETCore.App", "version": version}
    config.write_text(json.dumps({"runtimeOptions": {"tfm": "netcoreapp3.1", "framework": framework}}))
    os.environ.setdefault("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
    pythonnet.load("coreclr", runtime_config=str(config), dotnet_root=str(root))


def load_test_clr(default: str = "mono") -> str:
    """Load the CLR ``WPFPROBE_TEST_CLR`` names (or ``default``) unless one is loaded; its name."""
    import sys

    kind = os.environ.get(VARIABLE, default)
    if "clr" in sys.modules:
        return kind
    if kind == "coreclr":
        load_coreclr()
    else:
        import pythonnet

        os.environ.setdefault("MONO_THREADS_SUSPEND", "preemptive")
        pythonnet.load(kind)
    import clr  # noqa: F401 - finishes the load

    return kind


def _version(name: str) -> tuple[int, ...]:
    return tuple(int(p) for p in name.split(".") if p.isdigit())
