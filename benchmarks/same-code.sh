#!/usr/bin/env bash
# Which functions two builds compiled differently: the machine code of
# every function both builds of alloclab and of each bundled plugin have,
# compared instruction by instruction (addresses, offsets from the
# instruction pointer and alignment padding set aside, since code moving
# in the file changes them and nothing else). A function on a measured
# path that compiles alike costs the same instructions: this is how a
# change that should not touch the measured paths (moving code between
# files, invariant checks compiled out of a release build) is shown not
# to, without the noise of running anything.
#   benchmarks/same-code.sh BUILD_A BUILD_B     (build folders, as meson made them)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
usage="usage: same-code.sh BUILD_A BUILD_B"
bench_alloclab "${1:?$usage}"
a=$build
bench_alloclab "${2:?$usage}"
b=$build
command -v objdump >/dev/null || bench_fail "objdump (binutils) is needed"

bench_python - "$a" "$b" <<'PY'
import os, re, subprocess, sys

def functions(path):
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "--no-addresses", path],
                         capture_output=True, text=True, check=True).stdout
    found, name = {}, None
    for line in out.splitlines():
        line = line.strip()
        head = re.match(r"^<([^>]+)>:$", line)
        if head:
            name = head.group(1)
            found[name] = []
        elif name and line and not line.startswith("Disassembly"):
            line = re.sub(r"<[^>]*>", "<>", line)
            line = re.sub(r"-?0x[0-9a-f]+\(%rip\)", "X(%rip)", line)
            line = re.sub(r"\b[0-9a-f]{5,}\b", "X", line)
            # padding inside a function: one instruction, whatever its form
            line = re.sub(r"^(data16 |cs |ds )*(nop[wl]?\b.*|xchg\s+%ax,%ax)$", "nop", line)
            found[name].append(line)
    # alignment padding after a function's last instruction
    padding = re.compile(r"^(nop|int3)$")
    for body in found.values():
        while body and padding.match(body[-1]):
            body.pop()
    return found

a_dir, b_dir = sys.argv[1:3]
binaries = ["cli/alloclab"] + sorted("plugins/" + f for f in os.listdir(os.path.join(a_dir, "plugins"))
                                     if f.endswith(".so") and os.path.exists(os.path.join(b_dir, "plugins", f)))
total_same = total = 0
for rel in binaries:
    fa, fb = functions(os.path.join(a_dir, rel)), functions(os.path.join(b_dir, rel))
    common = sorted(set(fa) & set(fb))
    differ = [n for n in common if fa[n] != fb[n]]
    total += len(common)
    total_same += len(common) - len(differ)
    print(f"{rel}: {len(common) - len(differ)} of {len(common)} functions alike"
          + (f"; differ: {' '.join(differ)}" if differ else ""))
print(f"in all: {total_same} of {total} functions compiled alike")
PY
