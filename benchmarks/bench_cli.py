"""How fast the command line answers: ``--help``, ``--version``, ``datasets list`` and argument
mistakes (target: under 1 s each), and what ``fsengine warmup`` saves the first real command.

    python benchmarks/bench_cli.py            # light commands (7 runs each) + warm-up effect
    python benchmarks/bench_cli.py --quick    # 3 runs each, no cold-cache part
    python benchmarks/bench_cli.py --cold     # also: a fresh venv from the wheel, cold numba cache

Each command runs as a new process (``python -m fsengine ...``), as a user types it; the table
shows the median and the fastest of the runs. The cold part installs the wheel into a temporary
venv (numba's cache starts empty there) and times ``fsengine warmup`` twice and one ``select``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIGHT = {
    "fsengine --help": ["--help"],
    "fsengine --version": ["--version"],
    "fsengine datasets list": ["datasets", "list"],
    "fsengine select --help": ["select", "--help"],
    "argument error (unknown method)": ["select", "--method", "nope", "--data", "digits", "--out", "x"],
    "argument error (missing --out)": ["select", "--method", "mi", "--data", "digits"],
}
SELECT = ["select", "--method", "bia", "--data", "synthetic_glm:n=300,p=40", "--out"]


def wall(cmd, env=None, cwd=None) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def light_commands(python: str, runs: int) -> None:
    print("| command | median [s] | fastest [s] | runs |\n|---|---|---|---|")
    for label, args in LIGHT.items():
        times = [wall([python, "-m", "fsengine", *args], cwd=tempfile.gettempdir()) for _ in range(runs)]
        print(f"| `{label}` | {statistics.median(times):.2f} | {min(times):.2f} | {runs} |")


def cold_cache() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp), str(ROOT)],
                       check=True, stderr=subprocess.DEVNULL)
        subprocess.run([sys._base_executable, "-m", "venv", str(tmp / "venv")], check=True)
        python = str(tmp / "venv" / "bin" / "python")
        subprocess.run([python, "-m", "pip", "install", "-q", str(next(tmp.glob("*.whl")))], check=True,
                       stderr=subprocess.DEVNULL)
        env = {k: v for k, v in os.environ.items() if not k.startswith("FSENGINE_")}
        env["HOME"] = str(tmp)
        first_select = wall([python, "-m", "fsengine", *SELECT, str(tmp / "a")], env=env)
        # a second fresh venv would be needed for a cold warmup after a cold select; instead time
        # warmup on the now partly warm cache, then the same select again
        warm1 = wall([python, "-m", "fsengine", "warmup", "--force"], env=env)
        warm2 = wall([python, "-m", "fsengine", "warmup", "--force"], env=env)
        again = wall([python, "-m", "fsengine", *SELECT, str(tmp / "b")], env=env)
        print("\n| fresh install (wheel) | seconds |\n|---|---|")
        print(f"| first `fsengine select --method bia` (cold numba cache: compiles its kernels) | {first_select:.1f} |")
        print(f"| `fsengine warmup --force` right after (compiles the remaining methods' kernels) | {warm1:.1f} |")
        print(f"| `fsengine warmup --force` again (everything cached) | {warm2:.1f} |")
        print(f"| the same `fsengine select --method bia` after warmup | {again:.1f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--cold", action="store_true", help="also time a fresh install's cold numba cache")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    light_commands(sys.executable, 3 if args.quick else 7)
    if args.cold and not args.quick:
        cold_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
