"""Errors (SPEC section 5), the real UiThread marshaller, DISPATCHER_BUSY and thread affinity."""

from __future__ import annotations

import threading
import time

import pytest
from fake_toolkit import (
    FakeAdapter,
    FakeObjectTable,
    Harness,
    UiWorker,
    build_app,
    harness,
)

from wpfprobe.core.errors import (
    AppNotAvailableError,
    DispatcherBusyError,
    InvalidArgumentError,
    NodeNotFoundError,
    ProbeError,
    UiThreadError,
)
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Engine, Target
from wpfprobe_clr._ui_thread import UiThread

# -- ProbeError ----------------------------------------------------------------


def test_probe_error_to_dict() -> None:
    err = NodeNotFoundError("gone", suggestion="call wpf_get_windows", detail={"nodeId": "n1"})
    assert err.to_dict() == {
        "code": "NODE_NOT_FOUND",
        "message": "gone",
        "suggestion": "call wpf_get_windows",
        "detail": {"nodeId": "n1"},
    }
    assert str(err) == "gone"


def test_probe_error_defaults_and_code_override() -> None:
    err = ProbeError("boom")
    assert err.to_dict() == {"code": "INTERNAL", "message": "boom", "suggestion": "", "detail": {}}
    assert ProbeError("x", code="MUTATION_DISABLED").code == "MUTATION_DISABLED"
    assert InvalidArgumentError("x").code == "INVALID_ARGUMENT"


def test_probe_error_detail_is_copied() -> None:
    detail = {"a": 1}
    err = ProbeError("x", detail=detail)
    detail["a"] = 2
    assert err.detail == {"a": 1}


def test_engine_errors_carry_a_suggestion(fake: Harness) -> None:
    for call in (
        lambda: fake.engine.node(Target(node_id="nope")),
        lambda: fake.engine.node(Target(locators=("#nope",))),
        lambda: fake.engine.node(Target(locators=("Button",))),
        lambda: fake.engine.tree(max_depth=99),
        lambda: fake.engine.children(cursor="bad"),
        lambda: fake.engine.property(Target(locators=("#saveButton",)), "Nope"),
    ):
        with pytest.raises(ProbeError) as info:
            call()
        data = info.value.to_dict()
        assert set(data) == {"code", "message", "suggestion", "detail"}
        assert data["suggestion"], data


# -- the real UiThread, over a worker thread ------------------------------------------


@pytest.fixture
def worker() -> UiWorker:
    w = UiWorker().start()
    yield w  # type: ignore[misc]
    w.stop()


def real_ui(worker: UiWorker, **kwargs: object) -> UiThread:
    return UiThread(post=worker.post, check_access=worker.is_current, **kwargs)  # type: ignore[arg-type]


def test_ui_thread_returns_results_from_the_ui_thread(worker: UiWorker) -> None:
    ui = real_ui(worker)
    assert ui.run(lambda: 6 * 7) == 42
    assert ui.run(threading.get_ident) == worker.ident
    assert ui.thread_id == worker.ident
    assert ui.is_ui_thread() is False
    assert ui.run(ui.is_ui_thread) is True


def test_ui_thread_runs_inline_when_already_on_the_ui_thread(worker: UiWorker) -> None:
    posts = []

    def post(call: object) -> None:
        posts.append(call)
        worker.post(call)  # type: ignore[arg-type]

    ui = UiThread(post=post, check_access=worker.is_current)
    inner = ui.run(lambda: ui.run(threading.get_ident))
    assert inner == worker.ident
    assert len(posts) == 1  # the nested call did not post (it would deadlock if it did)


def test_ui_thread_passes_probe_errors_through_unchanged(worker: UiWorker) -> None:
    ui = real_ui(worker)
    original = NodeNotFoundError("gone", suggestion="s", detail={"nodeId": "n9"})

    def fail() -> None:
        raise original

    with pytest.raises(NodeNotFoundError) as info:
        ui.run(fail)
    assert info.value is original


def test_ui_thread_translates_python_exceptions(worker: UiWorker) -> None:
    ui = real_ui(worker)
    with pytest.raises(ProbeError) as info:
        ui.run(lambda: 1 / 0)
    err = info.value
    assert isinstance(err, UiThreadError)
    assert err.detail["exceptionType"] == "ZeroDivisionError"
    assert err.detail["exceptionMessage"] == "division by zero"
    assert "division by zero" in err.message
    assert isinstance(err.__cause__, ZeroDivisionError)


def test_ui_thread_translates_exceptions_raised_inline(worker: UiWorker) -> None:
    ui = real_ui(worker)

    def nested() -> object:
        return ui.run(lambda: {}["missing"])

    with pytest.raises(UiThreadError) as info:
        ui.run(nested)
    assert info.value.detail["exceptionType"] == "KeyError"


def test_ui_thread_translates_a_failing_post(worker: UiWorker) -> None:
    def post(call: object) -> None:
        raise RuntimeError("loop has ended")

    ui = UiThread(post=post, check_access=lambda: False)
    with pytest.raises(ProbeError) as info:
        ui.run(lambda: 1)
    assert info.value.detail["exceptionType"] == "RuntimeError"


def test_posts_from_other_threads_are_made_by_the_one_poster_thread(worker: UiWorker) -> None:
    """Only the UI thread and the poster call into the runtime (Mono waits at exit for any other)."""
    posters: set[str] = set()

    def post(call: object) -> None:
        posters.add(threading.current_thread().name)
        worker.post(call)  # type: ignore[arg-type]

    ui = UiThread(post=post, check_access=worker.is_current)
    callers = [threading.Thread(target=lambda: ui.run(lambda: None)) for _ in range(3)]
    for t in callers:
        t.start()
    for t in callers:
        t.join(10)
    ui.run(lambda: ui.post(lambda: None))  # from the UI thread itself: posted directly
    assert posters == {"wpfprobe-ui-poster", "fake-ui-thread"}


def test_calls_waiting_for_a_ui_thread_that_ended_fail_at_once(worker: UiWorker) -> None:
    """Regression: a click that closed the app waited the whole timeout for hops that could never run."""
    swallowed: list[object] = []
    ui = UiThread(post=swallowed.append, check_access=lambda: False, default_timeout=30)
    outcome: list[BaseException] = []
    waiting = threading.Thread(target=lambda: _capture(outcome, lambda: ui.run(lambda: 1)))
    waiting.start()
    deadline = time.monotonic() + 10
    while not swallowed:  # the call was handed to the (dead) loop
        assert time.monotonic() < deadline
        time.sleep(0.01)
    started = time.monotonic()
    ui.end()
    waiting.join(10)
    assert time.monotonic() - started < 5
    assert [type(e) for e in outcome] == [AppNotAvailableError]
    with pytest.raises(AppNotAvailableError):
        ui.run(lambda: 1)
    assert ui.ended


def _capture(into: list[BaseException], fn: object) -> None:
    try:
        fn()  # type: ignore[operator]
    except BaseException as exc:
        into.append(exc)


def test_blocked_ui_thread_gives_dispatcher_busy_then_recovers(worker: UiWorker) -> None:
    app = build_app()
    ui = real_ui(worker)
    engine = Engine(adapter=FakeAdapter(app), ui=ui, objects=FakeObjectTable(), settings=ProbeSettings(ui_timeout=0.3))
    assert engine.windows()  # works before the block

    release = threading.Event()
    entered = threading.Event()

    def block() -> None:
        entered.set()
        release.wait(10)  # bounded: the test releases it long before

    worker.post(block)
    assert entered.wait(5)
    started = time.monotonic()
    with pytest.raises(DispatcherBusyError) as info:
        engine.tree()
    elapsed = time.monotonic() - started
    assert info.value.code == "DISPATCHER_BUSY"
    assert info.value.suggestion
    assert info.value.detail["timeoutSeconds"] == pytest.approx(0.3)
    assert 0.25 <= elapsed < 3.0

    executed_before = worker.executed
    release.set()
    # The probe keeps working once the UI thread is free again.
    tree = engine.tree()
    assert tree.root.name == "mainWindow"
    assert worker.executed >= executed_before + 2  # the blocker, the abandoned call (a no-op), the new one
    assert not worker.errors


def test_calls_queued_behind_other_callers_wait_while_the_ui_thread_works_through_them(worker: UiWorker) -> None:
    """Regression: four MCP sessions sending 100 calls at once got DISPATCHER_BUSY on a loaded
    CI machine, because a call's 1 s timeout ran while the UI thread answered the calls queued
    before it. Busy means the UI thread stopped answering, not that others were first."""
    ui = real_ui(worker, default_timeout=0.5)
    outcomes: list[object] = []

    def slow_caller(i: int) -> None:
        try:
            outcomes.append(ui.run(lambda: (time.sleep(0.1), i)[1]))
        except BaseException as exc:  # collected for the assertion
            outcomes.append(exc)

    callers = [threading.Thread(target=slow_caller, args=(i,)) for i in range(20)]  # 2 s of work in line
    for t in callers:
        t.start()
    for t in callers:
        t.join(30)
    assert sorted(o for o in outcomes if isinstance(o, int)) == list(range(20)), outcomes


def test_abandoned_call_does_not_run_later(worker: UiWorker) -> None:
    ui = real_ui(worker)
    release = threading.Event()
    worker.post(lambda: release.wait(10))
    ran = []
    with pytest.raises(DispatcherBusyError):
        ui.run(lambda: ran.append(1), timeout=0.1)
    release.set()
    assert ui.run(lambda: "ok") == "ok"  # runs after the abandoned call was dequeued
    assert ran == []


def test_one_element_whose_naming_throws_leaves_the_rest_of_the_tree_intact(worker: UiWorker) -> None:
    # Issue 11: one Python-defined control failed every call of the probe.
    class Broken(FakeAdapter):
        def naming(self, element):  # type: ignore[no-untyped-def]
            if element.name == "saveButton":
                raise RuntimeError("naming exploded")
            return super().naming(element)

    engine = Engine(adapter=Broken(build_app()), ui=real_ui(worker), objects=FakeObjectTable())
    tree = engine.tree(max_depth=10)
    broken = [n for n in tree.walk() if n.error is not None]
    assert len(broken) == 1 and tree.error_count == 1
    assert broken[0].error.type == "RuntimeError" and broken[0].error.message == "naming exploded"
    assert broken[0].error.reads == ["naming"]
    assert broken[0].text == "Save"  # what could be read still is
    names = {n.name for n in tree.walk()}
    assert {"cancelButton", "passwordBox", "pinBox"} <= names
    assert len(engine.session_info().dispatchers[0].windows) == 3  # the UI thread is not left blocked


def test_engine_turns_a_whole_call_failure_into_a_probe_error(worker: UiWorker) -> None:
    class Broken(FakeAdapter):
        def roots(self):  # type: ignore[no-untyped-def]
            raise RuntimeError("roots exploded")

    engine = Engine(adapter=Broken(build_app()), ui=real_ui(worker), objects=FakeObjectTable())
    with pytest.raises(ProbeError) as info:
        engine.tree(max_depth=10)
    assert info.value.detail["exceptionType"] == "RuntimeError"
    assert info.value.detail["exceptionMessage"] == "roots exploded"


def test_fake_ui_thread_times_out_as_dispatcher_busy(fake: Harness) -> None:
    release = threading.Event()
    fake.worker.post(lambda: release.wait(10))
    try:
        with pytest.raises(DispatcherBusyError):
            fake.ui.run(lambda: 1, timeout=0.1)
    finally:
        release.set()


# -- thread affinity ------------------------------------------------------------------


def test_engine_with_thread_affinity_checks_works_through_the_ui_thread() -> None:
    with harness(settings=ProbeSettings(check_thread_affinity=True)) as h:
        e = h.engine
        info = e.session_info()
        assert info.toolkit == "wpf"
        windows = e.windows(include_hidden=True)
        e.tree(max_depth=10, include_properties=["Width", "Password"])
        e.tree(tree_type="logical")
        page = e.children(e.node(Target(locators=("#bigList",))).node_id, take=50)
        e.children(e.node(Target(locators=("#bigList",))).node_id, take=50, cursor=page.next_cursor)
        e.find(locator="Button", max_results=100)
        e.find(text="save", property_conditions=[{"property": "IsEnabled", "value": "true"}])
        target = Target(locators=("#connection",))
        e.inspect(target)
        props = e.properties(target, include_defaults=True, take=5)
        e.properties(target, include_defaults=True, take=5, cursor=props.next_cursor)
        e.property(target, "Title")
        e.ancestors(target)
        e.count(Target(locators=("Button",)))
        e.resolve_ids(Target(locators=("Button",)))
        e.screenshot(Target(node_id=windows[0].node_id))
        assert e.thread_violations == []
        assert h.objects.off_thread_calls == []
        assert e.adapter.calls > 0  # type: ignore[attr-defined]


def test_adapter_call_off_the_ui_thread_raises_and_is_recorded() -> None:
    with harness(settings=ProbeSettings(check_thread_affinity=True)) as h:
        with pytest.raises(ProbeError):
            h.engine.adapter.roots()
        assert len(h.engine.thread_violations) == 1
        assert "roots" in h.engine.thread_violations[0]
        # On the UI thread the same call is fine.
        assert len(h.ui.run(h.engine.adapter.roots)) == 3
        assert len(h.engine.thread_violations) == 1


def test_without_affinity_checks_the_adapter_is_unwrapped(fake: Harness) -> None:
    assert fake.engine.adapter is fake.adapter
