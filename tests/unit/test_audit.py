"""The audit log of issue 4, point 6: chained entries, every tamper kind, crashes, restarts, threads."""

from __future__ import annotations

import inspect
import itertools
import json
import logging
import os
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from wpfprobe.audit import VerifyReport, _entry, _files, _key, verify
from wpfprobe.audit._entry import ENTRY_FIELDS, AuditAction, AuditEntry
from wpfprobe.audit._key import AuditKeyError, key_id
from wpfprobe.audit._writer import AuditLog
from wpfprobe.core.errors import InvalidArgumentError, ProbeError

KEY = bytes(range(32))
OTHER_KEY = bytes(range(100, 132))
posix_only = pytest.mark.skipif(sys.platform.startswith("win"), reason="POSIX permission bits")


def make_log(path: Path, n: int = 5, *, key: bytes = KEY, app: str = "demo-1") -> Path:
    with AuditLog(path, key=key, app_id=app) as log:
        for i in range(n):
            log.record("wpf_click", target=f"Button#b{i}", action="invoke")
    return path


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def put(path: Path, new_lines: list[bytes]) -> None:
    path.write_bytes(b"".join(new_lines))


def check(path: Path, **kwargs: Any) -> VerifyReport:
    return verify(path, key=KEY, **kwargs)


def forge(fields: dict[str, Any], key: bytes) -> bytes:
    """A line with a MAC computed by ``key`` over exactly these fields."""
    body = {k: v for k, v in fields.items() if k != "mac"}
    body["mac"] = _entry._mac(key, _entry._ENTRY_DOMAIN, body)
    return json.dumps(body, separators=(",", ":")).encode() + b"\n"


@pytest.fixture
def log_path(tmp_path: Path) -> Path:
    return make_log(tmp_path / "app.jsonl")


# --------------------------------------------------------------------------- an intact log


def test_an_intact_log_verifies(log_path: Path) -> None:
    report = check(log_path)
    assert report.ok and report.entries == 5 and report.head == "verified"
    assert report.kind is None and report.first_bad_line is None and report.problem is None
    assert report.summary() == "OK: 5 entries, chain intact"


def test_entries_hold_exactly_the_documented_fields_and_chain(log_path: Path) -> None:
    entries = [json.loads(raw) for raw in lines(log_path)]
    assert [list(e) for e in entries] == [list(ENTRY_FIELDS)] * 5
    assert [e["seq"] for e in entries] == [1, 2, 3, 4, 5]
    first = entries[0]
    assert first["prev"] == _entry._genesis(KEY, first["app"], first["time"])
    for before, after in itertools.pairwise(entries):
        assert after["prev"] == before["mac"]
    assert all(e["kid"] == key_id(KEY) and e["app"] == "demo-1" and e["outcome"] == "ok" for e in entries)
    assert entries[2]["target"] == "Button#b2" and entries[2]["action"] == "invoke"
    assert entries[0]["time"].endswith("+00:00")


def test_a_new_log_with_no_entries_verifies(tmp_path: Path) -> None:
    path = make_log(tmp_path / "empty.jsonl", 0)
    assert path.read_bytes() == b""
    assert check(path).summary() == "OK: 0 entries, chain intact"


def test_record_returns_the_entry_written(tmp_path: Path) -> None:
    with AuditLog(tmp_path / "a.jsonl", key=KEY, app_id="demo-1") as log:
        entry = log.record("wpf_set_property", target="mp7", property="Grid.Row", outcome="PROPERTY_READ_ONLY")
    assert isinstance(entry, AuditEntry)
    assert (entry.seq, entry.tool, entry.target, entry.property, entry.action) == (
        1, "wpf_set_property", "mp7", "Grid.Row", None,
    )  # fmt: skip
    assert json.loads(lines(tmp_path / "a.jsonl")[0]) == entry.model_dump()


def test_targets_keep_any_text_and_long_ones_are_capped(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    odd = 'TextBox[Text="caf\u00e9 \U0001f600"] > Button:nth(1) \ud800'  # a lone surrogate, as .NET strings allow
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        assert log.record("wpf_click", target=odd).target == odd
        long = log.record("wpf_click", target="x" * 5000).target
    assert long is not None and long.startswith("x" * _entry.MAX_TARGET_CHARS) and long.endswith("[3000 more chars]")
    assert path.read_bytes().isascii()
    assert check(path).ok


# --------------------------------------------------------------------------- every tamper kind


def test_an_edited_field_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    ls[2] = ls[2].replace(b'"outcome":"ok"', b'"outcome":"INTERNAL"')
    put(log_path, ls)
    report = check(log_path)
    assert (report.ok, report.kind, report.first_bad_line, report.entries) == (False, "edited", 3, 2)
    assert report.summary() == "TAMPERED at line 3: entry edited (mac mismatch)"
    assert report.head == "unchecked"


def test_an_edit_with_a_mac_from_another_key_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    fields = json.loads(ls[1])
    fields["target"] = "Button#other"
    ls[1] = forge(fields, OTHER_KEY)
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("edited", 2)


def test_a_reformatted_line_is_an_edit(log_path: Path) -> None:
    ls = lines(log_path)
    ls[1] = ls[1].replace(b'{"v":1,', b'{"v": 1,')
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("edited", 2)
    assert "reformatted" in (report.problem or "")


def test_line_ends_converted_to_crlf_are_an_edit(log_path: Path) -> None:
    log_path.write_bytes(log_path.read_bytes().replace(b"\n", b"\r\n"))
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("edited", 1)


def test_a_deleted_line_in_the_middle_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    del ls[2]
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.entries) == ("deleted", 3, 2)
    assert report.problem == "entry 3 deleted (1 line)"


def test_several_deleted_lines_are_named(log_path: Path) -> None:
    ls = lines(log_path)
    del ls[1:3]
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.problem) == ("deleted", 2, "entries 2-3 deleted (2 lines)")


def test_a_deleted_first_line_is_detected(log_path: Path) -> None:
    put(log_path, lines(log_path)[1:])
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.entries) == ("deleted", 1, 0)


def test_reordered_lines_are_detected(log_path: Path) -> None:
    ls = lines(log_path)
    ls[1], ls[2] = ls[2], ls[1]
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.entries) == ("reordered", 2, 1)
    assert report.problem == "entry 3 out of order (entry 2 is at line 3)"


def test_an_inserted_forged_line_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    fake = json.loads(ls[1])
    fake.update(seq=3, prev=fake["mac"], target="Button#delete")
    ls.insert(2, json.dumps(fake, separators=(",", ":")).encode() + b"\n")
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.entries) == ("inserted", 3, 2)
    assert report.problem == "forged line inserted (mac mismatch; the chain continues without it)"


def test_several_inserted_forged_lines_are_detected(log_path: Path) -> None:
    ls = lines(log_path)
    ls[3:3] = [b'{"seq":4,"mac":"00"}\n', ls[0].replace(b"Button#b0", b"Button#zz")]
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("inserted", 4)
    assert "forged lines 4-5" in (report.problem or "")


def test_an_inserted_copy_of_a_real_line_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    ls.insert(2, ls[1])
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.problem) == ("inserted", 3, "copy of entry 2 (line 2) inserted")


def test_an_entry_from_another_log_with_the_same_key_is_detected(tmp_path: Path, log_path: Path) -> None:
    other = make_log(tmp_path / "other.jsonl", app="demo-2")
    ls = lines(log_path)
    ls[2] = lines(other)[2]
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("inserted", 3)
    assert "another log" in (report.problem or "")


def test_a_forged_line_appended_at_the_end_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    fake = json.loads(ls[-1])
    fake.update(seq=6, prev=fake["mac"], mac="0" * 64)
    put(log_path, [*ls, json.dumps(fake, separators=(",", ":")).encode() + b"\n"])
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.entries) == ("inserted", 6, 5)
    assert "appended after the last recorded entry" in (report.problem or "")


def test_a_deleted_tail_is_detected_through_the_head_file(log_path: Path) -> None:
    put(log_path, lines(log_path)[:3])
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.entries) == ("truncated", 4, 3)
    assert report.summary() == (
        "TAMPERED at line 4: entries 4-5 deleted from the end (2 lines; the head file records entry 5)"
    )


def test_emptying_the_log_is_detected_through_the_head_file(log_path: Path) -> None:
    log_path.write_bytes(b"")
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.entries) == ("truncated", 1, 0)


def test_a_head_rewritten_without_the_key_to_hide_a_deleted_tail_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    put(log_path, ls[:3])
    third = json.loads(ls[2])
    head = log_path.with_name(log_path.name + ".head")
    fake = {"v": 1, "lastSeq": 3, "lastMac": third["mac"], "kid": third["kid"], "mac": "f" * 64}
    head.write_bytes(json.dumps(fake, separators=(",", ":")).encode() + b"\n")
    report = check(log_path)
    assert (report.kind, report.head) == ("head-mismatch", "invalid")


def test_a_head_from_another_log_is_detected(tmp_path: Path, log_path: Path) -> None:
    other = make_log(tmp_path / "other.jsonl", 5, app="demo-2")
    head = log_path.with_name(log_path.name + ".head")
    head.write_bytes(other.with_name(other.name + ".head").read_bytes())
    report = check(log_path)
    assert (report.ok, report.kind) == (False, "head-mismatch")


def test_an_edited_head_is_detected(log_path: Path) -> None:
    head = log_path.with_name(log_path.name + ".head")
    head.write_bytes(head.read_bytes().replace(b'"lastSeq":5', b'"lastSeq":4'))
    assert check(log_path).kind == "head-mismatch"


def test_a_missing_head_fails_unless_allowed(log_path: Path) -> None:
    log_path.with_name(log_path.name + ".head").unlink()
    report = check(log_path)
    assert (report.ok, report.kind, report.head, report.first_bad_line) == (False, "head-missing", "missing", None)
    assert report.summary().startswith("TAMPERED: head file missing")
    relaxed = check(log_path, require_head=False)
    assert (relaxed.ok, relaxed.entries, relaxed.head) == (True, 5, "missing")
    assert relaxed.summary() == "OK: 5 entries, chain intact (no head file: a deleted tail would go unnoticed)"


def test_a_head_one_entry_behind_is_the_crash_window_and_verifies(tmp_path: Path) -> None:
    path = make_log(tmp_path / "app.jsonl", 4)
    head = path.with_name(path.name + ".head")
    saved = head.read_bytes()
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        log.record("wpf_focus", target="#name")
    head.write_bytes(saved)  # as if the app died between the entry's fsync and the head's update
    report = check(path)
    assert (report.ok, report.entries, report.head) == (True, 5, "verified")


def test_rollback_to_an_earlier_copy_of_log_and_head_is_not_detected(tmp_path: Path) -> None:
    """The documented limit: an old copy of both files is a valid log. An external anchor is needed."""
    path = make_log(tmp_path / "app.jsonl", 3)
    head = path.with_name(path.name + ".head")
    old_log, old_head = path.read_bytes(), head.read_bytes()
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        log.record("wpf_click", target="#delete")
    path.write_bytes(old_log)
    head.write_bytes(old_head)
    assert check(path).ok


def test_a_line_that_is_not_json_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    ls[2] = b'{"seq":3, this is not json\n'
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line, report.problem) == ("bad-json", 3, "line is not JSON")


def test_a_blank_line_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    ls.insert(1, b"\n")
    put(log_path, ls)
    assert (check(log_path).kind, check(log_path).first_bad_line) == ("bad-json", 2)


def test_json_that_is_not_an_entry_is_detected(log_path: Path) -> None:
    ls = lines(log_path)
    ls.insert(3, b"[1, 2, 3]\n")
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("bad-json", 4)
    assert "not an audit entry" in (report.problem or "")


def test_a_giant_line_is_refused_without_reading_it_whole(log_path: Path) -> None:
    ls = lines(log_path)
    ls.insert(1, b'{"x":"' + b"a" * (_entry.MAX_LINE_BYTES * 3) + b'"}\n')
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("bad-json", 2)
    assert "longer than any audit entry" in (report.problem or "")


def test_an_entry_with_an_extra_field_is_refused_even_with_a_valid_mac(log_path: Path) -> None:
    """Only the key holder could make this line; verify still refuses a field the format lacks."""
    ls = lines(log_path)
    fields = json.loads(ls[-1])
    fields["value"] = "hunter2"
    ls[-1] = forge(fields, KEY)
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("bad-json", 5)
    assert "hunter2" not in (report.problem or "")


def test_a_wrong_key_is_named_as_such(log_path: Path) -> None:
    report = verify(log_path, key=OTHER_KEY)
    assert (report.ok, report.kind, report.first_bad_line, report.entries) == (False, "wrong-key", 1, 0)
    assert report.summary().startswith("WRONG KEY: log written with another key")
    assert key_id(KEY) in report.summary() and key_id(OTHER_KEY) in report.summary()


def test_an_edited_key_id_on_the_first_line_is_an_edit_not_a_wrong_key(log_path: Path) -> None:
    ls = lines(log_path)
    ls[0] = ls[0].replace(key_id(KEY).encode(), b"deadbeefdeadbeef")
    put(log_path, ls)
    report = check(log_path)
    assert (report.kind, report.first_bad_line) == ("edited", 1)


def test_a_forged_key_id_never_reaches_the_output(log_path: Path) -> None:
    forged = json.loads(lines(log_path)[0])
    forged["kid"] = "\x1b]0;pwned\x07"
    log_path.write_bytes(forge(forged, OTHER_KEY))
    report = check(log_path, require_head=False)
    assert report.kind == "wrong-key" and "key id unknown" in report.summary() and "\x1b" not in report.summary()


def test_a_wrong_key_on_an_empty_log_is_named_as_such(tmp_path: Path) -> None:
    path = make_log(tmp_path / "empty.jsonl", 0)
    assert verify(path, key=OTHER_KEY).kind == "wrong-key"


def test_an_empty_log_without_its_head_is_not_proof_of_anything(tmp_path: Path) -> None:
    path = make_log(tmp_path / "empty.jsonl", 0)
    path.with_name(path.name + ".head").unlink()
    assert check(path).kind == "head-missing"


def test_the_report_serializes_with_camel_case_names(log_path: Path) -> None:
    put(log_path, lines(log_path)[:4])
    data = json.loads(check(log_path).model_dump_json(by_alias=True))
    assert data == {
        "path": str(log_path),
        "ok": False,
        "entries": 4,
        "firstBadLine": 5,
        "kind": "truncated",
        "problem": "entry 5 deleted from the end (1 line; the head file records entry 5)",
        "head": "invalid",
    }


def test_verify_refuses_a_short_key(log_path: Path) -> None:
    with pytest.raises(InvalidArgumentError):
        verify(log_path, key=b"short")


# --------------------------------------------------------------------------- crashes and restarts


def test_a_partial_last_line_from_an_interrupted_write_is_truncated_not_a_crash(log_path: Path) -> None:
    whole = lines(log_path)[-1]
    with open(log_path, "ab") as fh:
        fh.write(whole[: len(whole) // 2])
    report = check(log_path)
    assert (report.ok, report.kind, report.first_bad_line, report.entries) == (False, "truncated", 6, 5)
    assert "incomplete last line" in (report.problem or "")


def test_a_restarted_app_continues_the_chain(tmp_path: Path) -> None:
    path = make_log(tmp_path / "app.jsonl", 3, app="demo-100")
    with AuditLog(path, key=KEY, app_id="demo-200") as log:
        assert log.path == path
        entry = log.record("wpf_toggle", target="#agree", action="toggle")
    assert entry.seq == 4 and entry.prev == json.loads(lines(path)[2])["mac"]
    report = check(path)
    assert (report.ok, report.entries) == (True, 4)
    assert [json.loads(raw)["app"] for raw in lines(path)] == ["demo-100"] * 3 + ["demo-200"]


def test_a_restart_after_a_crash_between_entry_and_head_continues_the_chain(tmp_path: Path) -> None:
    path = make_log(tmp_path / "app.jsonl", 2)
    head = path.with_name(path.name + ".head")
    saved = head.read_bytes()
    make_log(path, 1)
    head.write_bytes(saved)
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        assert log.path == path
        assert log.record("wpf_click").seq == 4
    assert check(path).entries == 4


def test_a_restart_after_a_torn_write_starts_a_new_file_and_keeps_the_old(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = make_log(tmp_path / "app.jsonl", 3)
    with open(path, "ab") as fh:
        fh.write(b'{"v":1,"seq":4,"ti')
    before = path.read_bytes()
    with caplog.at_level(logging.WARNING, logger="wpfprobe.audit"):
        log = AuditLog(path, key=KEY, app_id="demo-1")
    with log:
        assert log.path == tmp_path / "app.1.jsonl"
        assert log.record("wpf_click").seq == 1
    assert path.read_bytes() == before
    assert "failed verification (truncated at line 4" in caplog.text and str(path) in caplog.text
    assert check(tmp_path / "app.1.jsonl").ok
    with AuditLog(path, key=KEY, app_id="demo-1") as again:  # the next start goes on in the new file
        assert again.path == tmp_path / "app.1.jsonl"
        assert again.record("wpf_click").seq == 2


def test_a_tampered_log_is_never_appended_to(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = make_log(tmp_path / "app.jsonl", 3)
    ls = lines(path)
    del ls[1]
    put(path, ls)
    with caplog.at_level(logging.WARNING, logger="wpfprobe.audit"), AuditLog(path, key=KEY, app_id="d") as log:
        log.record("wpf_click")
        assert log.path == tmp_path / "app.1.jsonl"
    assert "deleted" in caplog.text
    assert len(lines(path)) == 2


def test_a_log_written_with_another_key_is_not_continued(tmp_path: Path) -> None:
    path = make_log(tmp_path / "app.jsonl", 2, key=OTHER_KEY)
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        assert log.path == tmp_path / "app.1.jsonl"
    assert verify(path, key=OTHER_KEY).ok


def test_a_log_replaced_while_in_use_is_not_appended_to(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "app.jsonl"
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        log.record("wpf_click")
        impostor = tmp_path / "impostor"
        impostor.write_bytes(b"nothing happened here\n")
        os.replace(impostor, path)
        with caplog.at_level(logging.WARNING, logger="wpfprobe.audit"):
            log.record("wpf_click", target="#second")
        assert log.path == tmp_path / "app.1.jsonl"
    assert "moved or replaced while in use" in caplog.text
    assert path.read_bytes() == b"nothing happened here\n"
    assert check(tmp_path / "app.1.jsonl").ok


def test_a_log_cut_while_in_use_is_not_appended_to(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "app.jsonl"
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        for _ in range(3):
            log.record("wpf_click")
        with open(path, "r+b") as fh:
            fh.truncate(len(lines(path)[0]))
        with caplog.at_level(logging.WARNING, logger="wpfprobe.audit"):
            log.record("wpf_click")
        assert log.path == tmp_path / "app.1.jsonl"
    assert "shrank while in use" in caplog.text


def test_a_log_deleted_while_in_use_leaves_its_head_as_evidence(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "app.jsonl"
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        log.record("wpf_click")
        if sys.platform.startswith("win"):
            pytest.skip("Windows does not delete a file another handle has open")
        path.unlink()
        with caplog.at_level(logging.WARNING, logger="wpfprobe.audit"):
            assert log.record("wpf_click").seq == 1
        assert log.path == tmp_path / "app.1.jsonl"
    assert "was deleted while in use" in caplog.text
    # The head stays as the evidence; no fresh file is made where the log was.
    assert not path.exists() and path.with_name("app.jsonl.head").exists()
    assert check(tmp_path / "app.1.jsonl").entries == 1


def test_record_after_close_raises(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "a.jsonl", key=KEY, app_id="demo-1")
    log.close()
    with pytest.raises(ProbeError, match="closed"):
        log.record("wpf_click")


# --------------------------------------------------------------------------- threads and processes


def test_eight_threads_make_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "app.jsonl"
    errors: list[BaseException] = []
    with AuditLog(path, key=KEY, app_id="demo-1") as log:
        start = threading.Barrier(8)

        def worker(n: int) -> None:
            try:
                start.wait()
                for i in range(200):
                    log.record("wpf_click", target=f"t{n}-{i}", action="invoke")
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
    report = check(path)
    assert (report.ok, report.entries) == (True, 1600)
    entries = [json.loads(raw) for raw in lines(path)]
    assert [e["seq"] for e in entries] == list(range(1, 1601))
    assert sorted(e["target"] for e in entries) == sorted(f"t{n}-{i}" for n in range(8) for i in range(200))


def test_two_writers_on_one_path_share_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "app.jsonl"
    with AuditLog(path, key=KEY, app_id="one") as a, AuditLog(path, key=KEY, app_id="two") as b:
        for _ in range(3):
            a.record("wpf_click")
            b.record("wpf_focus")
        assert a.path == b.path == path
    report = check(path)
    assert (report.ok, report.entries) == (True, 6)
    assert [json.loads(raw)["app"] for raw in lines(path)] == ["one", "two"] * 3


def test_two_processes_on_one_path_share_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "app.jsonl"
    script = textwrap.dedent(
        """
        import sys
        from wpfprobe.audit._writer import AuditLog
        with AuditLog(sys.argv[1], key=bytes(range(32)), app_id=sys.argv[2]) as log:
            for i in range(100):
                log.record("wpf_click", target=f"{sys.argv[2]}-{i}")
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(path), f"p{n}"]) for n in range(2)]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    report = check(path)
    assert (report.ok, report.entries) == (True, 200)
    assert sorted({json.loads(raw)["app"] for raw in lines(path)}) == ["p0", "p1"]


# --------------------------------------------------------------------------- no values, ever


def test_record_has_no_parameter_that_could_hold_a_value() -> None:
    params = inspect.signature(AuditLog.record).parameters
    assert list(params) == ["self", "tool", "target", "action", "property", "outcome"]
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in params.values())
    assert set(AuditAction.model_fields) == {"tool", "target", "action", "property", "outcome"}
    assert set(AuditEntry.model_fields) == set(ENTRY_FIELDS)


@pytest.mark.parametrize("field", ["value", "text", "keys", "newValue"])
def test_record_refuses_a_value_field(tmp_path: Path, field: str) -> None:
    sneaky: dict[str, Any] = {field: "hunter2"}
    with AuditLog(tmp_path / "a.jsonl", key=KEY, app_id="demo-1") as log, pytest.raises(TypeError):
        log.record("wpf_type_text", target="#name", **sneaky)
    assert (tmp_path / "a.jsonl").read_bytes() == b""


def test_the_models_refuse_unknown_fields() -> None:
    with pytest.raises(ValidationError):
        AuditAction.model_validate({"tool": "wpf_type_text", "text": "hunter2"})
    good = {f: None for f in ENTRY_FIELDS} | {
        "v": 1, "seq": 1, "time": "t", "app": "a", "tool": "wpf_click", "outcome": "ok", "kid": "0" * 16,
        "prev": "0" * 64, "mac": "0" * 64,
    }  # fmt: skip
    AuditEntry.model_validate(good)
    with pytest.raises(ValidationError):
        AuditEntry.model_validate(good | {"value": "hunter2"})


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("action", "Ctrl+S hunter2"),
        ("action", "type:hunter2 secret"),
        ("property", "Text=hunter2"),
        ("property", 'Text "hunter2"'),
        ("outcome", "hunter2"),
        ("tool", "wpf click hunter2"),
        ("target", 12345),
    ],
)
def test_names_are_identifiers_and_errors_never_echo_the_input(tmp_path: Path, field: str, bad: object) -> None:
    with AuditLog(tmp_path / "a.jsonl", key=KEY, app_id="demo-1") as log:
        kwargs: dict[str, Any] = {"tool": "wpf_click", field: bad}
        with pytest.raises(InvalidArgumentError) as info:
            log.record(**kwargs)
    text = f"{info.value} {info.value.suggestion} {info.value.detail} {info.value!r}"
    assert "hunter2" not in text and "12345" not in text
    assert field in str(info.value)
    assert (tmp_path / "a.jsonl").read_bytes() == b""


def test_every_spec_error_code_is_a_valid_outcome(tmp_path: Path) -> None:
    from typing import get_args

    from wpfprobe.core.errors import ErrorCode

    with AuditLog(tmp_path / "a.jsonl", key=KEY, app_id="demo-1") as log:
        for code in get_args(ErrorCode):
            log.record("wpf_click", outcome=code)
    assert check(tmp_path / "a.jsonl").entries == len(get_args(ErrorCode))


def test_app_id_and_key_are_checked(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError):
        AuditLog(tmp_path / "a.jsonl", key=KEY, app_id="")
    with pytest.raises(InvalidArgumentError):
        AuditLog(tmp_path / "a.jsonl", key=KEY, app_id="bad\nid")
    with pytest.raises(InvalidArgumentError):
        AuditLog(tmp_path / "a.jsonl", key=b"0123456789", app_id="demo-1")


# --------------------------------------------------------------------------- keys, paths, permissions


def test_the_key_is_made_once_and_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    assert _key.default_key_path() == tmp_path / "home" / "audit.key"
    key = _key.load_or_create_key()
    assert len(key) == 32
    assert _key.load_or_create_key() == key == _key.load_key()
    text = (tmp_path / "home" / "audit.key").read_text()
    assert len(text.strip()) == 64 and bytes.fromhex(text.strip()) == key
    assert _files.default_log_path("My App/../x") == tmp_path / "home" / "audit" / "My_App_.._x.jsonl"


def test_apps_starting_together_agree_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "home" / "audit.key"
    keys: list[bytes] = []
    start = threading.Barrier(8)

    def make() -> None:
        start.wait()
        keys.append(_key.load_or_create_key(path))

    threads = [threading.Thread(target=make) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(keys) == 8 and len(set(keys)) == 1
    assert [p.name for p in path.parent.iterdir()] == ["audit.key"]  # no temp files left


def test_a_malformed_key_file_is_refused_without_echoing_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.key"
    path.write_text("hunter2-not-a-key\n")
    os.chmod(path, 0o600)
    with pytest.raises(AuditKeyError) as info:
        _key.load_key(path)
    assert "hunter2" not in str(info.value)
    with pytest.raises(AuditKeyError):
        _key.load_or_create_key(path)


@posix_only
def test_files_are_owner_only(tmp_path: Path) -> None:
    key_path = tmp_path / "home" / "audit.key"
    key = _key.load_or_create_key(key_path)
    path = make_log(tmp_path / "logs" / "app.jsonl", 2, key=key)
    for p in (key_path, path, path.with_name("app.jsonl.head"), path.with_name("app.jsonl.lock")):
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, p
    for d in (key_path.parent, path.parent):
        assert stat.S_IMODE(d.stat().st_mode) == 0o700, d


@posix_only
def test_an_existing_log_is_tightened_to_owner_only(tmp_path: Path) -> None:
    path = make_log(tmp_path / "app.jsonl", 1)
    os.chmod(path, 0o644)
    with AuditLog(path, key=KEY, app_id="demo-1"):
        pass
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@posix_only
def test_a_key_others_can_read_is_refused_for_writing_but_read_for_verifying(tmp_path: Path) -> None:
    key_path = tmp_path / "audit.key"
    key = _key.load_or_create_key(key_path)
    os.chmod(key_path, 0o644)
    with pytest.raises(AuditKeyError, match="other users") as info:
        _key.load_or_create_key(key_path)
    assert "chmod 600" in info.value.suggestion
    assert _key.load_key(key_path) == key
    assert not _key.key_file_is_private(key_path)
