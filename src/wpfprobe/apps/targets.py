"""Which running app a person or an agent means: one target grammar for the broker and the CLI.

A target is one of

- an appId: the probe's own (``notepad-1234``) or the broker's stable one (``notepad``);
- an app name, case-insensitive (``Notepad``), or its slug;
- ``pid:1234``, or just ``1234``;
- ``process:NAME``: the process name or the executable's basename (``.exe`` optional);
- ``title:REGEX``: searched (case-insensitive) in the app's window titles;
- ``script:PATH``, or anything ending in ``.py``: a script on the process's command
  line. A bare file name (no directory) matches by basename; a path matches the
  resolved path (relative paths resolved against the caller's working directory,
  the process's arguments against the process's).

Pure: it decides among candidate records that the caller gathered (manifest, window
titles, command line); it never talks to an app.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from wpfprobe.core.errors import AppNotAvailableError, InvalidArgumentError, ProbeError
from wpfprobe.core.patterns import PatternError, compile_pattern
from wpfprobe.mcp.manifest import Manifest

_PREFIXES = ("pid:", "process:", "title:", "script:")
LIST_APPS_HINT = "Call wpf_list_apps (or run `wpfprobe ls`) to see the running apps"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One running app as the resolver sees it."""

    manifest: Manifest
    app_id: str = ""
    """The id the caller shows for it (the broker's stable id); defaults to the probe's appId."""
    titles: tuple[str, ...] = ()
    cmdline: tuple[str, ...] = ()
    cwd: str | None = None
    process_name: str = ""
    exe: str = ""

    @property
    def shown_id(self) -> str:
        return self.app_id or self.manifest.app_id

    def summary(self) -> dict[str, object]:
        """What an error lists about the app: never its url or token."""
        return {"appId": self.shown_id, "name": self.manifest.app_name, "pid": self.manifest.pid}


def slug(text: str) -> str:
    """The same slug the engine builds appIds from (``My App!`` -> ``my-app``)."""
    out = "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")
    return "-".join(p for p in out.split("-") if p)[:40] or "app"


def resolve(target: str | None, candidates: Sequence[Candidate], *, cwd: str | None = None) -> Candidate:
    """The one candidate ``target`` names.

    No target: the only running app. Raises AppNotAvailableError when nothing
    matches (detail lists the live apps), a ProbeError with code APP_AMBIGUOUS
    when several do (detail lists them), INVALID_ARGUMENT for a malformed target.
    """
    text = (target or "").strip()
    if not text:
        if len(candidates) == 1:
            return candidates[0]
        if not candidates:
            raise _none_running()
        raise _ambiguous(
            "Several apps are running; say which one.",
            candidates,
            suggestion="Pass app (an appId or name from wpf_list_apps; on the command line: the APP argument).",
        )
    matches = matching(text, candidates, cwd=cwd)
    if len(matches) == 1:
        return matches[0]
    if not matches:
        if not candidates:
            raise _none_running(target=text)
        raise AppNotAvailableError(
            f"No running app matches {text!r}.",
            suggestion=f"{LIST_APPS_HINT}; name one by appId, name, pid:N, process:NAME, title:REGEX or script:PATH.",
            detail={"target": text, "apps": [c.summary() for c in candidates]},
        )
    raise _ambiguous(
        f"{len(matches)} running apps match {text!r}.",
        matches,
        suggestion="Name one by its appId or pid:N.",
        target=text,
    )


def matching(text: str, candidates: Sequence[Candidate], *, cwd: str | None = None) -> list[Candidate]:
    """Every candidate ``text`` names; for an id or name, the most specific kind of match wins."""
    lowered = text.lower()
    if lowered.startswith("pid:") or text.isdigit():
        return _by_pid(text.split(":", 1)[-1], candidates)
    if lowered.startswith("process:"):
        return _by_process(text.split(":", 1)[1], candidates)
    if lowered.startswith("title:"):
        return _by_title(text.split(":", 1)[1], candidates)
    if lowered.startswith("script:"):
        return _by_script(text.split(":", 1)[1], candidates, cwd=cwd)
    if lowered.endswith(".py"):
        return _by_script(text, candidates, cwd=cwd)
    # An id names one app exactly; a name may be shared. Ids first, so a broker id that
    # equals a name slug ("notepad") and a probe id ("notepad-41") each find their app.
    for key in (
        lambda c: c.shown_id.lower(),
        lambda c: c.manifest.app_id.lower(),
        lambda c: c.manifest.app_name.lower(),
        lambda c: slug(c.manifest.app_name),
    ):
        found = [c for c in candidates if key(c) == lowered]
        if found:
            return found
    return []


def _by_pid(value: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    value = value.strip()
    if not value.isdigit():
        raise InvalidArgumentError(
            f"pid:{value} is not a process id.", suggestion="Write pid:1234 (or just the number)."
        )
    pid = int(value)
    return [c for c in candidates if c.manifest.pid == pid]


def _exe_names(c: Candidate) -> set[str]:
    names = set()
    for raw in (c.process_name, PurePath(c.exe or "").name, PurePath(c.manifest.exe or "").name):
        if raw:
            low = raw.lower()
            names.add(low)
            names.add(low.removesuffix(".exe"))
    return names


def _by_process(name: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    wanted = name.strip().lower()
    if not wanted:
        raise InvalidArgumentError("process: needs a name.", suggestion="Write process:NAME, e.g. process:python.")
    wanted_bare = wanted.removesuffix(".exe")
    return [c for c in candidates if wanted in _exe_names(c) or wanted_bare in _exe_names(c)]


def _by_title(pattern: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    if not pattern:
        raise InvalidArgumentError(
            "title: needs a regular expression.", suggestion="Write title:REGEX, e.g. title:^Orders"
        )
    try:
        regex = compile_pattern(pattern, "i")
    except PatternError as exc:
        raise InvalidArgumentError(
            f"title:{pattern} is not a valid regular expression ({exc.reason}).",
            suggestion="Fix the regular expression, or use a plain substring of the title.",
        ) from None
    return [c for c in candidates if any(regex.search(t) for t in c.titles)]


def _by_script(path: str, candidates: Sequence[Candidate], *, cwd: str | None) -> list[Candidate]:
    path = path.strip()
    if not path:
        raise InvalidArgumentError("script: needs a path.", suggestion="Write script:PATH, e.g. script:app.py.")
    bare = PurePath(path).name == path and "/" not in path and "\\" not in path
    wanted = path.lower() if bare else _norm(path, cwd)
    found = []
    for c in candidates:
        # argv[0] is the interpreter; a script can only be among the arguments.
        for arg in c.cmdline[1:]:
            if not arg or arg.startswith("-"):
                continue
            if bare:
                if PurePath(arg.replace("\\", "/")).name.lower() == wanted:
                    found.append(c)
                    break
            elif _norm(arg, c.cwd) == wanted:
                found.append(c)
                break
    return found


def _norm(path: str, base: str | None) -> str:
    expanded = os.path.expanduser(path)
    if not os.path.isabs(expanded):
        expanded = os.path.join(base or os.getcwd(), expanded)
    try:
        resolved = os.path.realpath(expanded)
    except OSError:
        resolved = os.path.abspath(expanded)
    return os.path.normcase(resolved)


def _none_running(*, target: str | None = None) -> AppNotAvailableError:
    return AppNotAvailableError(
        "No wpfprobe app is running." if target is None else f"No wpfprobe app is running, so none matches {target!r}.",
        suggestion="Start an app with `wpfprobe run SCRIPT` (or wpf_launch_app), or wpfprobe.start(app) in its code, "
        "then call wpf_list_apps. An app under `wpfprobe run` is listed once it has loaded a CLR and shown a window "
        "(`--log-level INFO` says what it is waiting for).",
        detail={"apps": [], **({"target": target} if target is not None else {})},
    )


def _ambiguous(
    message: str, candidates: Sequence[Candidate], *, suggestion: str, target: str | None = None
) -> ProbeError:
    detail: dict[str, object] = {"apps": [c.summary() for c in candidates]}
    if target is not None:
        detail["target"] = target
    listed = ", ".join(f"{c.shown_id} ({c.manifest.app_name}, pid {c.manifest.pid})" for c in candidates)
    return ProbeError(f"{message} Candidates: {listed}.", code="APP_AMBIGUOUS", suggestion=suggestion, detail=detail)
