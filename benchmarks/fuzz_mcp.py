"""The MCP fuzzer of tests/integration/test_fuzz_mcp.py, for longer: 20,000 calls by default.

    python benchmarks/fuzz_mcp.py [--calls N] [--seed S] [--batch N] [--max-wait-ms N] [--json PATH]

Same app (tests/integration/scripts/fuzz_app.py), same properties checked
(tests/integration/mcp_fuzzing.py); a wait's valid timeouts are drawn up to
--max-wait-ms (1000; ./run test uses 300, the schema allows 60,000: a few
hundred waits of up to a minute would take hours). Prints the seed first, then the
report: calls, restarts, the slowest call, error codes, calls per tool and
every distinct failure. Exit status 1 when something failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "integration"))
sys.path.insert(0, str(ROOT / "src"))

from fuzz_harness import FuzzApp  # noqa: E402
from mcp_fuzzing import ENV_SEED, Fuzzer, seed_from_env  # noqa: E402

from wpfprobe.testing import virtual_display  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--max-wait-ms", type=int, default=1000)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--home", type=Path, default=Path("/tmp/wpfprobe-fuzz"))
    args = parser.parse_args()
    seed_value = args.seed if args.seed is not None else seed_from_env()
    print(
        f"seed {seed_value} (--seed {seed_value} or {ENV_SEED}={seed_value} to repeat), {args.calls} calls", flush=True
    )
    started = time.monotonic()
    homes = iter(range(10_000))
    with virtual_display():
        fuzzer = Fuzzer(
            lambda: FuzzApp(args.home / f"app{next(homes)}"), seed_value=seed_value, max_wait_ms=args.max_wait_ms
        )
        try:
            fuzzer.run(calls=args.calls, batch=args.batch)
        finally:
            facts = fuzzer.close()
    seconds = time.monotonic() - started
    print(fuzzer.report())
    print(f"{seconds:.0f} s, {fuzzer.stats.calls / seconds:.1f} calls/s; facts at the end: {facts}")
    if args.json:
        result = {
            "seed": seed_value,
            "seconds": round(seconds, 1),
            "calls": fuzzer.stats.calls,
            "restarts": fuzzer.stats.restarts,
            "slowest": list(fuzzer.stats.slowest),
            "errors": fuzzer.stats.errors,
            "byTool": fuzzer.stats.by_tool,
            "failures": [f.line() for f in fuzzer.failures.values()],
        }
        args.json.write_text(json.dumps(result, indent=2), encoding="utf-8")
    return 1 if fuzzer.failures else 0


if __name__ == "__main__":
    sys.exit(main())
