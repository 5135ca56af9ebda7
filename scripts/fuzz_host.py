#!/usr/bin/env python3
"""Random requests through fmha-run on the host: every one must pass (or be
rejected as invalid with exit 2 when the draw is invalid on purpose).

Usage: scripts/fuzz_host.py BUILD_DIR [COUNT] [SEED]
Prints one line per request and a closing 'N passed, N failed' line.
"""
import random
import subprocess
import sys


def draw(rng):
    quant = rng.choice(["none", "per_tensor", "kv_blockscale", "kv_blockscale"])
    fam = rng.choice(["ocp", "fnuz"])
    if quant == "none":
        q = kv = rng.choice(["bf16", "f16"])
    else:
        kv = rng.choice({"ocp": ["f8E4M3FN", "f8E5M2"], "fnuz": ["f8E4M3FNUZ", "f8E5M2FNUZ"]}[fam])
        q = rng.choice([{"ocp": "f8E4M3FN", "fnuz": "f8E4M3FNUZ"}[fam], "bf16", "f16"])
    b = rng.randint(1, 4)
    qo = [rng.choice([0, 1, rng.randint(1, 40), rng.randint(1, 90)]) for _ in range(b)]
    kvl = [rng.choice([0, rng.randint(1, 64), rng.randint(1, 600)]) for _ in range(b)]
    hkv = rng.choice([1, 2])
    hq = hkv * rng.choice([1, 2, 4])
    d = rng.choice(["32", "64", "64/32", "96/64"])
    page = rng.choice([1, 3, 16, 48, 64, 100, 1024])
    mask = rng.choice(["none", "causal", f"window:{rng.randint(-1, 50)},{rng.randint(-1, 20)}"])
    args = ["--qo-len", ",".join(map(str, qo)), "--kv-len", ",".join(map(str, kvl)),
            "--heads", f"{hq}/{hkv}", "--head-dim", d, "--page-size", str(page),
            "--table", rng.choice(["csr", "block"]), "--layout", rng.choice(["nhd", "hnd"]),
            "--quant", quant, "--q-dtype", q, "--kv-dtype", kv,
            "--out-dtype", rng.choice(["bf16", "f16", "f32"]), "--mask", mask,
            "--seed", str(rng.randint(0, 1000)), "--lse"]
    if rng.random() < 0.3:
        args += ["--soft-cap", str(rng.choice([5, 30]))]
    if rng.random() < 0.3:
        args += ["--sm-scale", str(rng.choice([0.05, 0.3, 1.0]))]
    if rng.random() < 0.3:
        args += ["--block-n", str(rng.choice([8, 16, 64]))]
    return args


def main():
    build = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    passed = failed = 0
    for i in range(count):
        args = draw(rng)
        p = subprocess.run([f"{build}/bin/fmha-run", *args], capture_output=True, text=True)
        ok = p.returncode == 0
        passed += ok
        failed += not ok
        status = "PASS" if ok else f"FAIL rc={p.returncode}"
        print(f"{i:3d} {status} {' '.join(args)}")
        if not ok:
            print("    " + (p.stdout + p.stderr).strip().replace("\n", "\n    ")[:1500])
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
