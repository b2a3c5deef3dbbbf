"""Which instructions of one compiled kernel a ``perf`` profile's samples fall on.

Record with ``bench/profile_render.py --code-dir DIR`` under ``perf record``, then:

    .venv/bin/python -m bench.annotate_kernel /tmp/perf.data DIR _to_alpha --min 1.0

prints the kernel's disassembly (``objdump``) with each instruction's share of the
kernel's samples, only around the instructions at or above ``--min`` percent (all
of it with ``--min 0``). A sample lands on the instruction after the one that
stalled, so read a hot line together with the line before it.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
from pathlib import Path


def sample_ips(perf_data: Path) -> list[int]:
    out = subprocess.run(["perf", "script", "-i", str(perf_data), "-F", "ip"], capture_output=True, text=True,
                         check=True).stdout
    return [int(tok, 16) for tok in out.split()]


def kernels(code_dir: Path) -> list[tuple[int, int, str]]:
    rows = []
    for line in (code_dir / "map.txt").read_text().splitlines():
        addr, size, name = line.split(" ", 2)
        rows.append((int(addr, 16), int(size, 16), name))
    return rows


def annotate(ips: list[int], code_dir: Path, pattern: str, min_pct: float) -> str:
    """The annotated listing of the kernel whose name contains ``pattern`` and holds the most samples."""
    cands = [k for k in kernels(code_dir) if pattern in k[2] and "cpython" not in k[2] and "cfunc" not in k[2]]
    if not cands:
        raise SystemExit(f"no kernel named like {pattern!r} in {code_dir / 'map.txt'}")
    addr, size, name = max(cands, key=lambda k: sum(k[0] <= ip < k[0] + k[1] for ip in ips))
    hist = collections.Counter(ip - addr for ip in ips if addr <= ip < addr + size)
    total = sum(hist.values())
    if total == 0:
        raise SystemExit(f"no samples in {name}")
    dis = subprocess.run(["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "--no-show-raw-insn",
                          str(code_dir / f"{addr:x}.bin")], capture_output=True, text=True, check=True).stdout
    lines = []
    for line in dis.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if m:
            off = int(m.group(1), 16)
            pct = 100.0 * hist.get(off, 0) / total
            lines.append((pct, f"{pct:5.1f} {off:6x}  {m.group(2)}" if pct else f"      {off:6x}  {m.group(2)}"))
    keep = set()
    for i, (pct, _) in enumerate(lines):
        if pct >= min_pct:
            keep.update(range(max(i - 5, 0), min(i + 2, len(lines))))
    out, prev = [f"{name}\n{total} of {len(ips)} samples"], -2
    for i in sorted(keep):
        if i != prev + 1:
            out.append("...")
        out.append(lines[i][1])
        prev = i
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("perf_data", type=Path)
    ap.add_argument("code_dir", type=Path)
    ap.add_argument("kernel", help="part of the kernel's name, e.g. _to_alpha")
    ap.add_argument("--min", type=float, default=1.0, help="show instructions with at least this share (percent)")
    args = ap.parse_args(argv)
    print(annotate(sample_ips(args.perf_data), args.code_dir, args.kernel, args.min))


if __name__ == "__main__":
    main()
