"""Write ``listing.json``, the built-in tools' Tool objects (``listing.py`` says why it is shipped)::

python -m wpfprobe.mcp.write_listing
"""

from __future__ import annotations

import json
from typing import Any

from wpfprobe.mcp.catalog import arguments_model, tool_object
from wpfprobe.mcp.listing import PATH
from wpfprobe.mcp.tools import all_tools


def made() -> dict[str, dict[str, Any]]:
    """Every built-in tool's Tool object, made from its models, in the order the tools are listed."""
    return {spec.name: tool_object(spec, arguments_model(spec), custom=False) for spec in all_tools(tier="mutate")}


def render(tools: dict[str, dict[str, Any]]) -> str:
    """The file's text: one line per tool, keys in the order made (the wire's order)."""
    lines = [f"  {json.dumps(name)}: {json.dumps(tool, ensure_ascii=False)}" for name, tool in tools.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main() -> int:
    PATH.write_text(render(made()), encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
