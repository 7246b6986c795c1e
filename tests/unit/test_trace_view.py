"""The trace viewer: a session folder or a ticket as one self-contained HTML page, checked in Chromium.

The page data is checked as data first (which step failed, which tree came
before which, which audit entry belongs to which step); then the page is
opened from disk in headless Chromium with every network request refused,
and used as a person would: it renders, the failing step is selected with
its failure, clicking a step shows its screenshot and its tree differences.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import trace_fixtures as tf
from chromium import open_page

from wpfprobe.cli import main as cli_main
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.testkit import trace_view


def test_a_session_folder_reads_as_steps_with_their_trees_screens_and_audit_entries(tmp_path: Path) -> None:
    folder = tf.session(tmp_path)
    data = trace_view.load(folder)
    assert data.kind == "session" and [s["action"] for s in data.steps] == ["type_text", "click", "click"]
    # Each step starts from the tree the one before it ended with; the first from the start tree.
    assert [(s["treeBefore"], s["treeAfter"]) for s in data.steps] == [
        ("trees/start-01.txt", "trees/step-0001.txt"),
        ("trees/step-0001.txt", "trees/step-0002.txt"),
        ("trees/step-0002.txt", "trees/step-0003.txt"),
    ]
    assert all(data.images[s["shot"]].startswith("data:image/png;base64,") for s in data.steps)
    assert [[data.audit[i]["tool"] for i in s["audit"]] for s in data.steps] == [
        ["wpf_type_text"],
        ["wpf_click"],
        ["wpf_click"],
    ]
    # No ticket for this session yet: the failure is the step's own.
    assert data.fail_index == 2 and data.failure is not None
    assert data.failure["signature"] == "exception|KeyError|#applyButton"


def test_a_ticket_reads_from_its_own_folder_and_a_session_finds_its_ticket(tmp_path: Path) -> None:
    ticket = tf.ticket(tmp_path)
    assert ticket.path is not None
    folder = Path(ticket.path)
    assert (folder / "trace.html").is_file(), "every ticket comes with its page"
    assert (folder / "snapshots" / "before-step-01.txt").read_text(encoding="utf-8").startswith("w1 Form#mainForm")
    data = trace_view.load(folder)
    assert data.kind == "ticket" and data.fail_index == 2 and data.ticket is not None
    assert data.failure is not None and data.failure["stack"].endswith("KeyError: 'items'")
    assert data.steps[0]["treeBefore"] == "snapshots/before-step-01.txt"
    assert [len(s["audit"]) for s in data.steps] == [1, 1, 1]
    session = trace_view.load(tmp_path / "sessions" / folder.parent.name)
    assert session.ticket is not None and session.ticket["id"] == ticket.id and session.title == ticket.title


def test_the_page_holds_everything_and_no_text_can_escape_into_html(tmp_path: Path) -> None:
    page = trace_view.write_html(tf.session(tmp_path), tmp_path / "out" / "trace.html").read_text(encoding="utf-8")
    assert tf.HOSTILE not in page and "</script><script>" not in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "nothing is loaded from anywhere"
    assert "default-src 'none'" in page
    data = json.loads(re.search(r'<script type="application/json" id="trace-data">(.*?)</script>', page, re.S)[1])
    assert data["steps"][1]["note"] == tf.HOSTILE, "escaped in the file, whole again in the page's data"


def test_what_is_not_a_trace_is_refused_with_what_to_give(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError, match="neither a session folder"):
        trace_view.load(tmp_path)
    record = tmp_path / "record"
    tf.session(record)  # <record>/sessions/<id>: one level too deep for a --record DIR, so not found
    with pytest.raises(InvalidArgumentError):
        trace_view.load(record)


def test_show_trace_and_tickets_show_html_write_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ticket = tf.ticket(tmp_path)
    assert ticket.path is not None
    out = tmp_path / "mine.html"
    assert cli_main(["show-trace", ticket.path, "-o", str(out)]) == 0
    assert out.is_file() and capsys.readouterr().out.strip() == str(out)
    assert cli_main(["tickets", "show", "--last", "--html", "--artifacts", str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == str(Path(ticket.path) / "trace.html")
    assert cli_main(["show-trace", str(tmp_path / "nothing-here")]) == 2


# -- in a real browser ---------------------------------------------------------------------------


def test_the_page_renders_offline_and_shows_each_steps_screenshot_and_tree_differences(tmp_path: Path) -> None:
    ticket = tf.ticket(tmp_path)
    assert ticket.path is not None
    with open_page(Path(ticket.path) / "trace.html") as opened:
        page = opened.page
        assert page.title().startswith("KeyError when using the button 'Apply'")
        assert page.locator("#verdict").inner_text() == "FAILED"
        # The failure is on top, with its stack; the failing step is selected and shows it too.
        assert "KeyError: 'items'" in page.locator("#failure-stack").inner_text()
        assert page.locator("#steps li.selected").get_attribute("data-step") == "2"
        assert page.locator("#step-failure").is_visible()
        assert page.locator("#timeline div").count() == 3 and page.locator("#filmstrip img").count() == 3
        images = [page.locator("#filmstrip img").nth(i).get_attribute("src") for i in range(3)]
        assert len(set(images)) == 3
        # A step clicked in the list: its screenshot, what changed and its tree differences.
        page.click("#steps li[data-step='0']")
        assert page.locator("#shot").get_attribute("src") == images[0]
        changes = page.locator("#changes").inner_text()
        assert "Label#greeting" in changes and "Hello, Ada" in changes
        changed = [line.strip() for line in page.locator("#tree-after .changed").all_inner_texts()]
        assert changed == ['b1 TextBox#nameBox "Ada"', 'b2 Label#greeting "Hello, Ada"']
        assert page.locator("#tree-before .changed").all_inner_texts()[1].strip() == 'b2 Label#greeting "Hello"'
        assert page.locator("#audit li").all_inner_texts() == [
            "2026-03-01T12:00:00.150+00:00 · wpf_type_text · #nameBox · type · ok"
        ]
        # The filmstrip selects too; the window the step opened is an added line.
        page.click("#filmstrip figure[data-step='1']")
        assert page.locator("#shot").get_attribute("src") == images[1]
        assert 'w2 Form#doneDialog "Done"' in [t.strip() for t in page.locator("#tree-after .added").all_inner_texts()]
        # The hostile note is text on the page, not markup.
        assert tf.HOSTILE in page.locator("#detail").inner_text()
        assert page.locator("img[src^='https']").count() == 0
        # The keyboard walks the steps.
        page.keyboard.press("ArrowDown")
        assert page.locator("#steps li.selected").get_attribute("data-step") == "2"
        assert page.locator("#events li").count() == 1
        assert not opened.errors, opened.errors
        assert not opened.requests, f"the page asked the network for {opened.requests}"
        assert page.title() != "pwned"
