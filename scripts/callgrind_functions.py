"""Self cost per compiled function and per source file from a callgrind output (issue 21).

callgrind_annotate splits a function's cost by the source file of each inlined
line (`vec_deque/mod.rs:World::run`, `engine.rs:World::run`, ...). With fat LTO
most of the simulator is inlined into a few functions, so this prints both sums:
by the function the code was compiled into, and by the source file the code
comes from (the standard library's files grouped by their last two path parts).
Usage: callgrind_functions.py OUT [TOP]
"""

import re
import subprocess
import sys
from collections import Counter

out, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
text = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", out], capture_output=True, text=True, check=True).stdout
line_re = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+(.*?):(.*?)(?: \[.*\])?$")
costs: Counter[str] = Counter()
files: Counter[str] = Counter()
total = 0
for line in text.splitlines():
    if "PROGRAM TOTALS" in line:
        total = int(line.split()[0].replace(",", ""))
        continue
    m = line_re.match(line)
    if m:
        n = int(m.group(1).replace(",", ""))
        costs[m.group(3)] += n
        path = m.group(2)
        files[path.split("/src/", 1)[1] if "/rustc/" in path else path.removeprefix("crates/pertlab-sim/src/")] += n
print(f"{'instructions':>14}  share  compiled function (self cost, inlined code included)")
for name, n in costs.most_common(top):
    short = re.sub(r"<impl pertlab_sim::world::World>", "World", name)
    print(f"{n:>14,}  {100 * n / total:4.1f} %  {short}")
print(f"{'instructions':>14}  share  source file of the code")
for name, n in files.most_common(top):
    print(f"{n:>14,}  {100 * n / total:4.1f} %  {name}")
