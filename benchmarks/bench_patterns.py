"""What a client's regular expression costs: Python's re against RE2 (core/patterns.py), and regex if installed.

    python benchmarks/bench_patterns.py [--json PATH]

Rows:
- backtracking bombs, ``^(a+)+$`` and ``(x+x+)+y`` against n characters: re's time doubles per
  character (kept to n <= 24 so the run ends); RE2's stays flat;
- per search, a short pattern against short texts (what a find over a tree does per element):
  re, RE2 bare, wpfprobe's Pattern (RE2 plus the thread-time budget);
- RE2's worst linear constant: patterns whose automaton outgrows RE2's memory, over 64 K characters;
- whether RE2 lets go of the GIL: how fast another Python thread counts during a long match,
  against how fast it counts alone.
No timing is asserted (docs/architecture.md, "Patterns from outside", quotes a run).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import re2

from wpfprobe.core.patterns import MAX_MATCHED_CHARS, compile_pattern


def timed(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def bombs() -> list[dict[str, Any]]:
    rows = []
    try:
        import regex  # type: ignore[import-not-found]
    except ImportError:
        regex = None
    for pattern, char, tail in ((r"^(a+)+$", "a", "!"), (r"(x+x+)+y", "x", "")):
        for n in (16, 20, 24):
            text = char * n + tail
            row: dict[str, Any] = {"pattern": pattern, "n": n}
            row["re_ms"] = round(1000 * timed(lambda: re.search(pattern, text)), 3)  # noqa: B023
            compiled = compile_pattern(pattern)
            row["re2_ms"] = round(1000 * timed(lambda: compiled.search(text)), 3)  # noqa: B023
            if regex is not None:
                row["regex_ms"] = round(1000 * timed(lambda: regex.search(pattern, text, timeout=5)), 3)  # noqa: B023
            rows.append(row)
    return rows


def per_search() -> dict[str, float]:
    texts = ["Save", "Hello, Ada", "Ready", "wpfprobe demo", "Banana"] * 4000
    out = {}
    python_re = re.compile(r"^Sa.e$")
    options = re2.Options()
    options.log_errors = False
    options.never_capture = True
    bare = re2.compile(r"^Sa.e$", options)
    ours = compile_pattern(r"^Sa.e$")
    for name, search in (("re", python_re.search), ("re2_bare", bare.search), ("wpfprobe_pattern", ours.search)):
        out[f"{name}_us"] = round(1e6 * timed(lambda: [search(t) for t in texts]) / len(texts), 3)  # noqa: B023
    return out


def worst_linear() -> list[dict[str, Any]]:
    rng = random.Random(1)
    text = "".join(rng.choice("ab") for _ in range(MAX_MATCHED_CHARS))
    rows = []
    for pattern in ("[ab]*a[ab]{30}c", "(a|b)*a(a|b){100}", "(a|b)*a(a|b){400}", "(.*a.*b.*){400}c"):
        compiled = compile_pattern(pattern)
        seconds = timed(lambda: compiled.search(text))  # noqa: B023
        rows.append(
            {
                "pattern": pattern,
                "chars": len(text),
                "ms": round(1000 * seconds, 1),
                "us_per_char": round(1e6 * seconds / len(text), 3),
            }
        )
    return rows  # fmt: skip


def gil() -> dict[str, float]:
    count = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            count[0] += 1

    def rate(seconds_of: Callable[[], float]) -> float:
        before = count[0]
        seconds = seconds_of()
        return (count[0] - before) / seconds

    thread = threading.Thread(target=spin)
    thread.start()
    try:
        time.sleep(0.05)
        alone = rate(lambda: (time.sleep(0.2), 0.2)[1])
        options = re2.Options()
        options.log_errors = False
        compiled = re2.compile(r"(a|b)*c", options)
        big = "ab" * 5_000_000
        during = rate(lambda: timed(lambda: compiled.search(big)))
    finally:
        stop.set()
        thread.join()
    return {"other_thread_alone_per_s": round(alone), "other_thread_during_re2_match_per_s": round(during)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    result = {"bombs": bombs(), "per_search": per_search(), "worst_linear": worst_linear(), "gil": gil()}
    for key, value in result.items():
        print(key)
        for row in value if isinstance(value, list) else [value]:
            print("  ", row)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
