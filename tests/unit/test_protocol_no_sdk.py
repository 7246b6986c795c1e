"""The SDK-free kernel imports no SDK: that is what it is for (issue 22)."""

from __future__ import annotations

import subprocess
import sys

# --- no SDK in the kernel ---------------------------------------------------------------------------------


def test_the_kernel_imports_no_sdk() -> None:
    code = (
        "import sys, wpfprobe.mcp.protocol, wpfprobe.mcp.jsonrpc, wpfprobe.mcp.stdioserve\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'mcp_types', 'starlette', 'sse_starlette', 'anyio'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
