"""Runs inside the app that ``wpfprobe attach`` entered: starts the probe's server as
``wpfprobe.start()`` would, and answers through an owner-only result file.

``start`` is called on the bare thread the injected code started (``payload``); it
starts the ``wpfprobe-attach`` thread and returns, so that bare thread ends at once.
Everything else happens on ``wpfprobe-attach``, which ends too once it has answered:

1. The request file (written owner-only by the attacher, read once and deleted)
   gives the tier, the name, where to write the manifest and a deadline. Nothing
   in it is code. A request that is not this user's, not private, not for this
   process, or past its deadline is not served.
2. A probe already in the app answers with its app id (attach is idempotent).
3. The app's UI is found as ``wpfprobe run`` finds it (``shown_app``: read from any
   thread, no UI-thread call), then ``start()`` makes its hops to the UI thread,
   each bounded by ``ui_timeout``; a UI thread that does not answer fails the attach
   with nothing left behind (the poster thread is ended; calls the UI thread has
   not reached yet do nothing when it does).
4. The manifest is moved to the attacher's sessions directory if the app's
   environment would put it elsewhere, and ``POST /wpfprobe/detach`` is served
   beside the MCP endpoint, behind the same guard and token: ``wpfprobe detach``.

The app prints nothing: no exception leaves this module, the runtime's suspend-mode
warning is collected into the answer, and the ``wpfprobe`` logger has the
NullHandler every import of wpfprobe gives it (``wpfprobe/__init__``), so
Python's last-resort handler does not print its warnings on the app's stderr.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any, get_args

from wpfprobe.engine.engine import Tier

THREAD_NAME = "wpfprobe-attach"
DETACH_PATH = "/wpfprobe/detach"
_MAX_REQUEST_BYTES = 64 * 1024
_POLL = 0.1


def start(request_path: str, result_path: str) -> None:
    """Serve the request on a thread of our own and return at once."""
    threading.Thread(target=_serve, args=(request_path, result_path), name=THREAD_NAME, daemon=True).start()


def _serve(request_path: str, result_path: str) -> None:
    try:
        answer = _answer(request_path)
    except BaseException as exc:  # noqa: BLE001 - nothing may escape into the app
        answer = _failure("INTERNAL", f"The probe could not start in the app: {type(exc).__name__}: {exc}")
    if answer is not None:
        _write_result(Path(result_path), answer)


def _answer(request_path: str) -> dict[str, Any] | None:
    if not os.path.lexists(request_path):
        return None  # the attacher gave up and took its request back: nobody reads an answer
    try:
        request = read_request(Path(request_path))
    except ValueError as exc:
        return _failure("ATTACH_REFUSED", f"The attach request was not accepted: {exc}.")
    deadline = float(request["deadline"])
    if time.time() > deadline:
        return None  # the attacher has given up: nobody reads an answer
    from wpfprobe.mcp import server as _server  # noqa: PLC0415

    running = _server.active_handle()
    if running is not None:
        return _success(running, already=True, warnings=[])
    refusal = _mono_suspend_refusal()
    if refusal is not None:
        return refusal
    app = _wait_for_app(deadline)
    if app is None:
        return _failure(
            "APP_NOT_AVAILABLE",
            "The app shows no window yet (no WPF Application, no visible WinForms form with a handle).",
            suggestion="Attach again once the app's first window is shown.",
        )
    return _start(_server, app, request, deadline)


def read_request(path: Path) -> dict[str, Any]:
    """The request, checked and deleted; ValueError says why it is refused."""
    try:
        info = path.lstat()
    except OSError:
        raise ValueError("the request file is missing") from None
    try:
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("the request is not a regular file")
        if not sys.platform.startswith("win") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            raise ValueError("the request file is not this user's, or others may read or write it")
        if info.st_size > _MAX_REQUEST_BYTES:
            raise ValueError("the request file is too large")
        data = json.loads(path.read_text(encoding="utf-8"))
    finally:
        try:
            path.unlink()
        except OSError:
            pass
    if not isinstance(data, dict):
        raise ValueError("the request is not a JSON object")
    if data.get("pid") != os.getpid():
        raise ValueError("the request is for another process")
    if data.get("tier") not in get_args(Tier):
        raise ValueError("the request names no valid tier")
    name = data.get("name")
    if name is not None and (not isinstance(name, str) or not 0 < len(name) <= 200):
        raise ValueError("the request's name is not a short string")
    for key in ("deadline", "uiTimeout"):
        if not isinstance(data.get(key), (int, float)) or isinstance(data.get(key), bool):
            raise ValueError(f"the request has no valid {key}")
    if not isinstance(data.get("sessionsDir"), str) or not os.path.isabs(data["sessionsDir"]):
        raise ValueError("the request names no sessions directory")
    return data


def _mono_suspend_refusal() -> dict[str, Any] | None:
    """Decided before any call into the CLR. In Mono's cooperative and hybrid suspend modes
    (hybrid is Mono's default), a thread that calls into the CLR while it holds the GIL waits
    for a collection that waits for the UI thread, which waits for the GIL in a Python
    callback: the app freezes for good. An attach found exactly that on its first try (an app
    with a Python timer on its UI thread; both threads parked, one in Mono's suspend, one in
    the GIL's wait). The app chose its mode when it loaded Mono; nothing can change it now."""
    from wpfprobe_clr._runtime import MONO_SAFE_SUSPEND, MONO_SUSPEND_VARIABLE  # noqa: PLC0415 - no CLR call

    runtime = getattr(sys.modules.get("pythonnet"), "_RUNTIME", None)
    if runtime is None or "mono" not in type(runtime).__module__.lower():
        return None
    mode = os.environ.get(MONO_SUSPEND_VARIABLE)
    if mode == MONO_SAFE_SUSPEND:
        return None
    shown = mode or "(unset: Mono's default, hybrid)"
    return _failure(
        "ATTACH_REFUSED",
        f"This app runs Mono with {MONO_SUSPEND_VARIABLE}={shown}, where the "
        "probe's calls into the CLR from a thread of its own can freeze the app for good (during a garbage "
        "collection, while the UI thread waits for Python's lock). Nothing was started in the app.",
        suggestion=f"Start the app with {MONO_SUSPEND_VARIABLE}={MONO_SAFE_SUSPEND} in its environment (or set it "
        "in os.environ before pythonnet loads Mono), or under `wpfprobe run`, which does; then attach.",
        reason="mono-suspend-mode",
    )


def _wait_for_app(deadline: float) -> Any:
    from wpfprobe_clr._ready import shown_app  # noqa: PLC0415 - reads from any thread, posts nothing

    # The app is up already; a short wait covers the moment between two forms.
    until = min(deadline - 1.0, time.time() + 5.0)
    while True:
        try:
            app = shown_app()
        except Exception:  # noqa: BLE001 - a form closing as it is read: look again
            app = None
        if app is not None or time.time() >= until:
            return app
        time.sleep(_POLL)


def _start(server: Any, app: Any, request: dict[str, Any], deadline: float) -> dict[str, Any] | None:
    from wpfprobe.core.errors import ProbeError  # noqa: PLC0415
    from wpfprobe.core.settings import ProbeSettings  # noqa: PLC0415
    from wpfprobe_clr._runtime import collected_warnings  # noqa: PLC0415
    from wpfprobe_clr._ui_thread import release_poster  # noqa: PLC0415

    tier: Tier = request["tier"]
    handle = None
    try:
        with collected_warnings() as warnings:
            # The attacher's user waits at the command line: a UI thread that does not answer within
            # the attach's own timeout fails it at once (an app's own start() waits for it longer).
            ui_timeout = float(request["uiTimeout"])
            settings = ProbeSettings.from_env(attach_wait=ui_timeout)
            handle = server.start(app, allow=tier, name=request.get("name"), timeout=ui_timeout, settings=settings)
            # start() returns before the probe has reached the UI thread: the attacher hears
            # how that went, and a failed attach leaves nothing behind.
            handle.wait_ready(max(0.0, deadline - time.time()))
    except server.AlreadyStartedError:
        running = server.active_handle()  # the app's own start() came first
        return _success(running, already=True, warnings=[]) if running is not None else None
    except ProbeError as err:
        if handle is not None:
            handle.stop()
        release_poster()
        if err.code == "DISPATCHER_BUSY":
            return _failure(
                "APP_NOT_AVAILABLE",
                f"The app's UI thread did not respond within {float(request['uiTimeout']):g} s: it is busy or "
                "blocked. Nothing of the probe was left in the app.",
                suggestion="Attach again once the app responds to input.",
                cause=err.code,
            )
        return _failure(err.code, err.message, suggestion=err.suggestion)
    except BaseException:
        if handle is not None:
            handle.stop()
        release_poster()
        raise
    try:
        _place_manifest(handle, Path(request["sessionsDir"]))
        handle.add_route(DETACH_PATH, _detach_route(handle))
    except BaseException:
        handle.stop()
        raise
    if time.time() > deadline:
        handle.stop()  # the attacher gave up meanwhile: leave nothing behind
        return None
    return _success(handle, already=False, warnings=warnings)


def _place_manifest(handle: Any, directory: Path) -> None:
    """Where the attacher looks: the app's own environment may name another sessions directory."""
    from wpfprobe.mcp import manifest as _manifest  # noqa: PLC0415

    current: Path | None = handle.manifest_path
    if current is None or current.parent == directory:
        return
    manifest = _manifest.Manifest.model_validate_json(current.read_text(encoding="utf-8"))
    handle.manifest_path = _manifest.write(manifest, directory)
    _manifest.remove(current)


def _detach_route(handle: Any) -> Any:
    async def detach(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("method") != "POST":
            await _respond(send, 405, {"code": "METHOD_NOT_ALLOWED", "message": "POST to detach."})
            return
        await _respond(send, 202, {"detaching": handle.app_id})
        # stop() waits for the server thread this handler runs on: it runs on a thread of its own.
        threading.Thread(target=handle.stop, name="wpfprobe-detach", daemon=True).start()

    return detach


async def _respond(send: Any, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _success(handle: Any, *, already: bool, warnings: list[str]) -> dict[str, Any]:
    return {
        "ok": True,
        "appId": handle.app_id,
        "tier": handle.tier,
        "url": handle.url,
        "already": already,
        "manifest": str(handle.manifest_path) if handle.manifest_path else None,
        "warnings": warnings,
    }


def _failure(
    code: str, message: str, *, suggestion: str = "", cause: str | None = None, reason: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": False, "code": code, "message": message, "suggestion": suggestion}
    if cause is not None:
        out["cause"] = cause
    if reason is not None:
        out["reason"] = reason
    return out


def _write_result(path: Path, answer: dict[str, Any]) -> None:
    """Owner-only from its first byte, and whole when it appears (written aside, then renamed)."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return  # the attacher's directory is gone: nobody to tell
    try:
        try:
            os.write(fd, json.dumps(answer).encode("utf-8"))
        finally:
            os.close(fd)
        os.replace(temp, path)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
