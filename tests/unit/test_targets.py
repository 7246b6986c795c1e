"""``_targets.resolve``: which running app a target string names (broker ``app`` argument, CLI APP)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wpfprobe.apps.targets import Candidate, resolve, slug
from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError, ProbeError
from wpfprobe.mcp.manifest import Manifest


def manifest(name: str, pid: int, *, exe: str = "/usr/bin/python3") -> Manifest:
    return Manifest(
        app_id=f"{slug(name)}-{pid}", app_name=name, pid=pid, process_start_time=1.0, exe=exe, toolkit="winforms",
        runtime="mono 6.8", url=f"http://127.0.0.1:{4000 + pid % 1000}/mcp", token="secret-token-" + "x" * 40,
        tier="read", started_at="2026-01-01T00:00:00+00:00", version="0.1.0",
    )  # fmt: skip


def cand(name: str, pid: int, **kw: object) -> Candidate:
    app_id = kw.pop("app_id", "")
    exe = str(kw.pop("exe", "/usr/bin/python3"))
    return Candidate(manifest=manifest(name, pid, exe=exe), app_id=str(app_id), **kw)  # type: ignore[arg-type]


ORDERS = cand(
    "Orders", 101, app_id="orders", titles=("Orders — main", "Find order"),
    cmdline=("/usr/bin/python3", "-m", "wpfprobe", "run", "--name", "Orders", "apps/orders_app.py"), cwd="/srv/work",
    process_name="python3",
)  # fmt: skip
STOCK = cand(
    "Stock Viewer", 202, app_id="stock-viewer", titles=("Stock",), cmdline=("python", "/opt/stock/main.py", "--x"),
    cwd="/opt/stock", process_name="StockViewer.exe", exe="C:/apps/StockViewer.exe",
)  # fmt: skip
BILLING = cand("billing", 303, app_id="billing", titles=("Billing",), cmdline=("python", "billing.py"), cwd="/b")
ALL = [ORDERS, STOCK, BILLING]


def test_no_target_picks_the_only_app() -> None:
    assert resolve(None, [STOCK]) is STOCK
    assert resolve("  ", [STOCK]) is STOCK


def test_no_target_with_several_apps_is_ambiguous_and_lists_them() -> None:
    with pytest.raises(ProbeError) as info:
        resolve(None, ALL)
    err = info.value
    assert err.code == "APP_AMBIGUOUS" and err.suggestion
    assert err.detail["apps"] == [
        {"appId": "orders", "name": "Orders", "pid": 101},
        {"appId": "stock-viewer", "name": "Stock Viewer", "pid": 202},
        {"appId": "billing", "name": "billing", "pid": 303},
    ]
    assert "secret-token" not in repr(err.to_dict()) and "127.0.0.1" not in repr(err.to_dict())


def test_nothing_running() -> None:
    with pytest.raises(AppNotAvailableError) as info:
        resolve(None, [])
    assert info.value.detail["apps"] == [] and "wpf_list_apps" in info.value.suggestion
    with pytest.raises(AppNotAvailableError):
        resolve("orders", [])


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("orders", ORDERS),  # the broker's id
        ("orders-101", ORDERS),  # the probe's id
        ("ORDERS", ORDERS),  # names and ids ignore case
        ("Stock Viewer", STOCK),
        ("stock viewer", STOCK),
        ("stock-viewer", STOCK),  # the slug
        ("stock-viewer-202", STOCK),
        ("pid:303", BILLING),
        ("PID: 303", BILLING),
        ("303", BILLING),
        ("process:StockViewer", STOCK),
        ("process:stockviewer.exe", STOCK),
        ("title:^Find", ORDERS),
        ("title:stock", STOCK),
        ("script:orders_app.py", ORDERS),
        ("orders_app.py", ORDERS),
        ("/opt/stock/main.py", STOCK),
        ("script:/srv/work/apps/orders_app.py", ORDERS),
        ("script:/b/billing.py", BILLING),
    ],
)
def test_each_target_form(target: str, expected: Candidate) -> None:
    assert resolve(target, ALL) is expected


def test_relative_script_paths_resolve_against_the_callers_directory(tmp_path: Path) -> None:
    app_dir = tmp_path / "apps"
    app_dir.mkdir()
    script = app_dir / "tool.py"
    script.write_text("")
    runner = cand("tool", 7, cmdline=("python", "tool.py"), cwd=str(app_dir))
    assert resolve("script:apps/tool.py", [runner, STOCK], cwd=str(tmp_path)) is runner
    assert resolve("./tool.py", [runner, STOCK], cwd=str(app_dir)) is runner
    with pytest.raises(AppNotAvailableError):
        resolve("script:other/tool.py", [runner, STOCK], cwd=str(tmp_path))


def test_a_symlinked_script_matches_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_text("")
    link = tmp_path / "link.py"
    os.symlink(real, link)
    runner = cand("linked", 8, cmdline=("python", str(link)), cwd=str(tmp_path))
    assert resolve(f"script:{real}", [runner, STOCK]) is runner


def test_interpreter_and_options_are_not_scripts() -> None:
    # argv[0] and options are skipped: "python" names no script.
    with pytest.raises(AppNotAvailableError):
        resolve("script:python", ALL)


def test_unknown_target_lists_the_live_apps() -> None:
    with pytest.raises(AppNotAvailableError) as info:
        resolve("nosuch", ALL)
    assert info.value.code == "APP_NOT_AVAILABLE"
    assert [a["appId"] for a in info.value.detail["apps"]] == ["orders", "stock-viewer", "billing"]
    assert info.value.detail["target"] == "nosuch"
    assert "wpf_list_apps" in info.value.suggestion


def test_shared_name_is_ambiguous_but_ids_and_pids_are_not() -> None:
    a = cand("Orders", 1, app_id="orders-1")
    b = cand("Orders", 2, app_id="orders-2")
    with pytest.raises(ProbeError) as info:
        resolve("orders", [a, b])
    assert info.value.code == "APP_AMBIGUOUS"
    assert {x["pid"] for x in info.value.detail["apps"]} == {1, 2}
    assert resolve("orders-2", [a, b]) is b
    assert resolve("pid:1", [a, b]) is a


def test_an_id_match_wins_over_a_name_match() -> None:
    # "orders" is app a's broker id and app b's name: the id is the more specific.
    a = cand("Sales", 1, app_id="orders")
    b = cand("orders-x", 2, app_id="orders-x")
    assert resolve("orders", [a, b]) is a


def test_a_title_regex_matching_several_apps_is_ambiguous() -> None:
    with pytest.raises(ProbeError) as info:
        resolve("title:.", ALL)
    assert info.value.code == "APP_AMBIGUOUS"


@pytest.mark.parametrize("target", ["pid:abc", "pid:", "title:(", "title:", "process:", "script:"])
def test_malformed_targets_are_invalid_arguments(target: str) -> None:
    with pytest.raises(InvalidArgumentError):
        resolve(target, ALL)


def test_slug_matches_the_engines() -> None:
    from wpfprobe.engine.base import slug as _slug

    for text in ("My App!", "  x  ", "Ünïcode Näme", "a" * 80, "---", "Stock Viewer"):
        assert slug(text) == _slug(text)
