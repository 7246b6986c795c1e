"""Oracles: deciding from what a step did whether the app failed, and naming the failure.

Failures detected with no assertion written (SPEC 9): the app exits or
crashes; an exception escapes an event handler (the probe's action result, or
an app event from the toolkit's hooks); an error dialog opens; the UI thread
stops answering; a new binding error; a step's element cannot be found when
it should be. Assertions and invariants that fail are failures too.

Every failure has a ``signature``: its kind, the exception type (or what
stands for it: the exit status, the dialog's title), and the element the step
acted on. Messages are left out (they carry values that change from run to
run). Deduplication and minimization compare signatures: a reduced repro
counts only if the same signature recurs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from wpfprobe.core.patterns import Pattern, compile_pattern

FailureKind = Literal[
    "crash",
    "exception",
    "error-dialog",
    "hang",
    "binding-error",
    "missing-element",
    "expectation",
    "invariant",
    "step-error",
    "reported",
]

#: A window title or type that reads as an error report.
ERROR_DIALOG = compile_pattern(r"\b(error|exception|fatal|unhandled|crash(ed)?|failed|failure)\b", "i")
ERROR_DIALOG_TYPES = frozenset({"ThreadExceptionDialog", "ExceptionDialog"})


class Failure(BaseModel):
    """One failure, as found: enough to deduplicate it, reproduce it and explain it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    kind: FailureKind
    signature: str
    message: str
    step: int | None = Field(default=None, description="The seq of the step that set it off.")
    element: str | None = Field(default=None, description="The locator of the element that step acted on.")
    exception_type: str | None = None
    exception_message: str | None = None
    stack: str | None = None
    expected: str | None = None
    actual: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)

    def one_line(self) -> str:
        return f"{self.kind}: {self.message}"


def short_type(name: str | None) -> str:
    """``System.InvalidOperationException`` and ``InvalidOperationException`` name the same thing."""
    if not name:
        return "-"
    return name.rsplit(".", 1)[-1].rsplit("+", 1)[-1]


def signature(kind: str, what: str | None, element: str | None) -> str:
    clean = " ".join((what or "-").split())[:120] or "-"
    return f"{kind}|{clean}|{element_key(element)}"


#: ``Button#copyButton``: a type and a name, nothing else (no path, combinator, text or index).
_TYPED_NAME = re.compile(r"^[A-Za-z_][\w.+`]*(#[^\s>/\[\]:]+)$")


def element_key(element: str | None) -> str:
    """The element as a signature names it: ``Button#copyButton`` and ``#copyButton`` are one element.

    A scenario's author writes ``#copyButton`` where the explorer uses the node's own locator
    ``Button#copyButton``; the same bug found both ways must deduplicate. Anything else is kept as
    written: a path or a combinator may tell apart elements that share a name."""
    if not element:
        return "-"
    match = _TYPED_NAME.match(element)
    return match.group(1) if match else element


def same_bug(signature_text: str) -> str:
    """A signature as :func:`signature` makes it now (tickets written before keep ``Type#name``)."""
    kind, sep, rest = signature_text.partition("|")
    what, sep2, element = rest.rpartition("|")
    if not sep or not sep2:
        return signature_text
    return f"{kind}|{what}|{element_key(element)}"


def make(
    kind: FailureKind,
    message: str,
    *,
    what: str | None = None,
    element: str | None = None,
    step: int | None = None,
    **fields: Any,
) -> Failure:
    return Failure(
        kind=kind, signature=signature(kind, what, element), message=message, step=step, element=element, **fields
    )


def is_error_dialog(window: Mapping[str, Any], pattern: Pattern = ERROR_DIALOG) -> bool:
    kind = str(window.get("type") or "")
    if kind in ERROR_DIALOG_TYPES:
        return True
    title = str(window.get("title") or window.get("text") or "")
    return bool(title) and pattern.search(title)


def dialog_failures(
    windows: Iterable[Mapping[str, Any]],
    *,
    element: str | None,
    step: int | None,
    pattern: Pattern = ERROR_DIALOG,
) -> list[Failure]:
    out = []
    for window in windows:
        if is_error_dialog(window, pattern):
            title = str(window.get("title") or window.get("text") or window.get("type") or "")
            out.append(
                make(
                    "error-dialog",
                    f"An error dialog opened: {title!r} ({window.get('type')}).",
                    what=normalize_title(title),
                    element=element,
                    step=step,
                    actual=f"dialog {title!r}",
                    details={"window": dict(window)},
                )
            )
    return out


def normalize_title(title: str) -> str:
    """A dialog title without the numbers and quoted values that change between runs."""
    title = re.sub(r"'[^']*'|\"[^\"]*\"", "…", title)
    return re.sub(r"\d+", "N", title).strip()[:80]


def exception_failure(
    event: Mapping[str, Any], *, element: str | None, step: int | None, source: str | None = None
) -> Failure:
    kind_name = str(event.get("type") or "Exception")
    message = str(event.get("message") or "")
    where = source or str(event.get("source") or "handler")
    return make(
        "exception", f"{kind_name} escaped an event handler ({where}): {first_line(message)}",
        what=short_type(kind_name), element=element, step=step, exception_type=kind_name,
        exception_message=message, stack=event.get("stack") or None,
        actual=f"{kind_name}: {first_line(message)}", details={"source": where},
    )  # fmt: skip


def crash_failure(
    exit_code: int | None,
    fatal: Sequence[Mapping[str, Any]],
    *,
    element: str | None,
    step: int | None,
    log_tail: str = "",
) -> Failure:
    """The app's process ended. The exception that ended it, when the events file has one, names it."""
    exc = next((e for e in reversed(fatal) if e.get("kind") == "exception" and e.get("source") == "appdomain"), None)
    if exc is None:
        exc = next((e for e in reversed(fatal) if e.get("kind") == "exception"), None)
    status = describe_exit(exit_code)
    if exc is not None:
        kind_name = str(exc.get("type") or "Exception")
        message = str(exc.get("message") or "")
        return make(
            "crash", f"The app crashed ({status}) with {kind_name}: {first_line(message)}",
            what=short_type(kind_name), element=element, step=step, exception_type=kind_name,
            exception_message=message, stack=exc.get("stack") or None,
            actual=f"the app exited ({status}) with {kind_name}", details={"exitCode": exit_code, "logTail": log_tail},
        )  # fmt: skip
    python_error = _python_error_in(log_tail)
    what = python_error or status
    return make(
        "crash", f"The app exited ({status})" + (f": {python_error}" if python_error else "") + ".",
        what=what, element=element, step=step, exception_type=python_error,
        actual=f"the app exited ({status})", details={"exitCode": exit_code, "logTail": log_tail},
    )  # fmt: skip


def describe_exit(code: int | None) -> str:
    if code is None:
        return "exit status unknown"
    if code < 0:
        import signal  # noqa: PLC0415

        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


_PY_ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt))\b", re.M)


def _python_error_in(log: str) -> str | None:
    """The exception type of the last traceback (or .NET 'Unhandled Exception:') in an app's log."""
    matches = _PY_ERROR_LINE.findall(log)
    if matches:
        return short_type(matches[-1][0])
    net = re.findall(r"(?:Unhandled Exception|FATAL UNHANDLED EXCEPTION):\s*([\w.]+)", log)
    return short_type(net[-1]) if net else None


def hang_failure(*, element: str | None, step: int | None, waited_s: float) -> Failure:
    return make(
        "hang", f"The UI thread stopped answering (no answer for {waited_s:.0f} s).",
        what="ui-thread", element=element, step=step, actual=f"the UI thread did not answer for {waited_s:.0f} s",
    )  # fmt: skip


def binding_failures(
    before: set[tuple[str, str]], now: Iterable[Mapping[str, Any]], *, element: str | None, step: int | None
) -> tuple[list[Failure], set[tuple[str, str]]]:
    """New binding errors (diagnostics findings of the binding-errors provider) since ``before``."""
    seen = set(before)
    out = []
    for finding in now:
        # The message names the path that broke (keep it); a repeat count in it does not make a new error.
        key = (str(finding.get("locator") or ""), re.sub(r"\d+", "N", str(finding.get("message") or "")))
        if key in seen:
            continue
        seen.add(key)
        where = key[0] or "?"
        out.append(
            make(
                "binding-error",
                f"A new binding error on {where}: {finding.get('message')}",
                what=key[1][:60],
                element=where,
                step=step,
                actual=str(finding.get("message") or ""),
                details={"finding": dict(finding), "stepElement": element},
            )
        )
    return out, seen


def first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[0] if lines else "")[:300]


def dedupe(failures: Iterable[Failure]) -> list[Failure]:
    """One failure per signature, the first seen."""
    seen: dict[str, Failure] = {}
    for failure in failures:
        seen.setdefault(failure.signature, failure)
    return list(seen.values())
