"""Profile the native renderer with Linux ``perf``, with the compiled kernels named.

numba's kernels are machine code perf cannot name, so this script compiles them in
this process (an empty ``NUMBA_CACHE_DIR``: code loaded from numba's cache has no
addresses to look up), writes their addresses to ``/tmp/perf-PID.map`` (perf's
format for JIT code), then renders the given programs in a loop. Run:

    rm -rf /tmp/nbc && NUMBA_CACHE_DIR=/tmp/nbc OMP_NUM_THREADS=1 \\
      perf record -D 30000 -F 1000 -o /tmp/perf.data \\
      .venv/bin/python -m bench.profile_render pool/sketches/flowers_iris.js --seconds 40
    perf report -i /tmp/perf.data --no-children --sort symbol

``-D`` skips the compile (about 25 s alone; the cache directory must start empty each time);
the loop runs ``--seconds`` after it. On a loaded machine the compile can outlast any fixed
delay (over 90 s for six paintings beside other work: the samples are then the compiler's,
with Python and its GC on top): start the script with a long ``--seconds`` and attach
``perf record -p PID -F 1000 -o /tmp/perf.data -- sleep 40`` once it prints "kernels mapped".

With ``--code-dir DIR`` it also saves each kernel's machine code there, so
``bench/annotate_kernel.py`` can show which instructions of a kernel the samples
fall on (perf cannot annotate JIT code it has no copy of).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def _kernel_addresses() -> list[tuple[int, str]]:
    import numba

    seen, out = set(), []
    for mod in list(sys.modules.values()):
        if not getattr(mod, "__name__", "").startswith("aquarelle.render"):
            continue
        for obj in list(vars(mod).values()):
            if not isinstance(obj, numba.core.registry.CPUDispatcher):
                continue
            for cres in obj.overloads.values():
                lib = cres.library
                if id(lib) in seen or not hasattr(lib, "_final_module"):
                    continue
                seen.add(id(lib))
                for fn in lib._final_module.functions:
                    if fn.is_declaration:
                        continue
                    addr = lib._codegen._engine.get_function_address(fn.name)
                    if addr:
                        out.append((addr, fn.name))
    return sorted(out)


def _save_code(entries: list[tuple[int, str]], out: Path) -> None:
    """Each kernel's bytes (up to the next kernel, at most 64 KB) as ``ADDR.bin``, listed in ``map.txt``.

    Read through ``/proc/self/mem``, which refuses an unmapped page instead of crashing the process."""
    out.mkdir(parents=True, exist_ok=True)
    fd = os.open("/proc/self/mem", os.O_RDONLY)
    try:
        with open(out / "map.txt", "w") as f:
            for i, (addr, name) in enumerate(entries):
                size = min(entries[i + 1][0] - addr if i + 1 < len(entries) else 4096, 1 << 16)
                code = b""
                for n in (size, 4096, 1024):  # the last kernel may end near the end of its mapping
                    try:
                        code = os.pread(fd, min(n, size), addr)
                        break
                    except OSError:
                        continue
                (out / f"{addr:x}.bin").write_bytes(code)
                f.write(f"{addr:x} {len(code):x} {name}\n")
    finally:
        os.close(fd)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sketches", nargs="+", type=Path)
    ap.add_argument("--seconds", type=float, default=40.0, help="how long to loop after compiling")
    ap.add_argument("--code-dir", type=Path, help="save each kernel's machine code here (bench/annotate_kernel.py)")
    args = ap.parse_args(argv)

    from aquarelle.brush.sandbox import run_sketch
    from aquarelle.render.native import render

    progs = []
    for p in args.sketches:
        r = run_sketch(p.read_text(encoding="utf-8"))
        if not r.ok:
            raise SystemExit(f"{p}: {r.reason}")
        progs.append(r.program)
    for p in progs:
        render(p)
    entries = _kernel_addresses()
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for i, (addr, name) in enumerate(entries):
            size = entries[i + 1][0] - addr if i + 1 < len(entries) else 4096
            f.write(f"{addr:x} {min(size, 1 << 20):x} {name}\n")
    if args.code_dir:
        _save_code(entries, args.code_dir)
    print(f"{len(entries)} kernels mapped; looping {args.seconds:g} s", file=sys.stderr)
    t0, n = time.time(), 0
    while time.time() - t0 < args.seconds:
        for p in progs:
            render(p)
            n += 1
    print(f"{n} renders", file=sys.stderr)


if __name__ == "__main__":
    main()
