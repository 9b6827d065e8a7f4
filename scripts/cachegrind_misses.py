"""Last-level cache misses per source line and per compiled function from a cachegrind output (issue 21).

Cachegrind simulates the caches, so its miss counts are the same on every run of
the same binary and scenario: the instrument for the many-flow runs, where the
time goes to reaching per-flow state and timings on this machine vary by 10 %.
Run it with the last level set to one core's L2, which is what the per-flow
state outgrows, e.g. for the canonical example at 1000 flows:

    valgrind --tool=cachegrind --cache-sim=yes --LL=1048576,16,64 \
        --cachegrind-out-file=cg.out target/release/examples/canonical 1000 20

Usage: cachegrind_misses.py OUT [TOP]. Prints the misses (data reads and
writes that miss the last level) by source line, with the line's text for the
simulator's own files, and by the function the line was compiled into.
"""

import sys
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "crates/pertlab-sim/src"


def misses(out: str) -> tuple[Counter[tuple[str, int]], Counter[str], int]:
    """(misses by (file, line), misses by function, total). The counts of a
    line follow cachegrind's `events:` header; DLmr and DLmw are summed."""
    by_line: Counter[tuple[str, int]] = Counter()
    by_fn: Counter[str] = Counter()
    events: list[str] = []
    fl = fn = ""
    for line in Path(out).read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fl="):
            fl = line[3:]
        elif line.startswith("fn="):
            fn = line[3:]
        elif line[:1].isdigit():
            parts = line.split()
            counts = dict(zip(events, map(int, parts[1:])))
            n = counts.get("DLmr", 0) + counts.get("DLmw", 0)
            if n:
                by_line[(fl, int(parts[0]))] += n
                by_fn[fn] += n
    return by_line, by_fn, sum(by_line.values())


def source(fl: str, line: int) -> str:
    """The text of `line` in `fl` if it is one of the simulator's files."""
    short = fl.split("crates/pertlab-sim/src/", 1)[-1]
    path = SRC / short
    if not path.is_file():
        return ""
    lines = path.read_text().splitlines()
    return lines[line - 1].strip()[:80] if 0 < line <= len(lines) else ""


def main() -> None:
    out, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    by_line, by_fn, total = misses(out)
    print(f"last-level misses: {total:,}")
    print(f"{'misses':>11}  share  source line")
    for (fl, line), n in by_line.most_common(top):
        short = fl.split("crates/pertlab-sim/src/", 1)[-1].split("/library/", 1)[-1]
        print(f"{n:>11,}  {100 * n / total:4.1f} %  {short}:{line}  {source(fl, line)}")
    print(f"{'misses':>11}  share  compiled function")
    for name, n in by_fn.most_common(top):
        print(f"{n:>11,}  {100 * n / total:4.1f} %  {name.replace('<impl pertlab_sim::world::World>', 'World')}")


if __name__ == "__main__":
    main()
