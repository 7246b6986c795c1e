"""The shipped listing (``wpfprobe/mcp/listing.json``) is what the built-in tools make, and what a
catalog serves for them."""

from __future__ import annotations

from wpfprobe.mcp import listing, write_listing
from wpfprobe.mcp.catalog import ToolCatalog
from wpfprobe.mcp.tools import all_tools


def test_the_shipped_listing_is_what_the_tools_make_byte_for_byte() -> None:
    """A built-in tool changed without the file written again would list a stale schema: write
    it with ``python -m wpfprobe.mcp.write_listing``."""
    assert listing.PATH.read_text(encoding="utf-8") == write_listing.render(write_listing.made()), (
        "src/wpfprobe/mcp/listing.json is stale: run python -m wpfprobe.mcp.write_listing"
    )


def test_a_catalog_lists_the_shipped_tool_objects_and_makes_none() -> None:
    shipped = listing.shipped()
    for tier in ("read", "interact", "mutate"):
        catalog = ToolCatalog(None, tier=tier)
        listed = catalog.list_tools()
        assert [tool["name"] for tool in listed] == [spec.name for spec in all_tools(tier=tier)]
        assert all(tool is shipped[tool["name"]] for tool in listed)
        # Nor any argument model: each is made at its tool's first call.
        assert [name for name, tool in catalog._tools.items() if tool._arguments is not None] == []


def test_an_apps_own_tool_is_made_from_its_models_not_taken_from_the_file() -> None:
    spec = all_tools(tier="read")[0]
    catalog = ToolCatalog(None, tier="read")
    catalog._tools.pop(spec.name)  # its name free again, as an app's own tool of that name would find it
    assert catalog.add(spec, custom=True)
    listed = next(tool for tool in catalog.list_tools() if tool["name"] == spec.name)
    assert listed is not listing.shipped()[spec.name]
    assert listed == {**listing.shipped()[spec.name], "_meta": {"dev.wpfprobe/custom": True}}
