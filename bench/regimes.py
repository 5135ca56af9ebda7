#!/usr/bin/env python3
"""The GPU lowering's regimes per (chip, page size), derived from the rules in the code.

docs/REGIMES.md's tables are this script's output (--markdown). Every rule
below names the place in the code that takes the decision; the lane layouts
are copies of the TargetInfo functions (AMDGPUTargetInfo.cpp,
NVVMTargetInfo.cpp), so the fault window of the page_groups route (which
lanes read a V descale of 0 in a partly filled last page) is computed, not
guessed.

Usage:
  regimes.py                      the table as text
  regimes.py --markdown           the tables of docs/REGIMES.md
  regimes.py --update docs/REGIMES.md
                                  rewrites the generated part of the doc (between
                                  its BEGIN/END regimes.py markers)
  regimes.py --json               one object per (chip, quant, page)
  regimes.py --check FMHA_COMPILE compiles every (chip, quant, page) with
                                  fmha-compile --emit=mlir and compares k_step,
                                  the V-descale route and the page-id form
                                  with what the rules predict (exit 1 on a
                                  mismatch)

Importable: test/Integration/LaneMatrix/cases.py uses regime() and CHIPS.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

PAGES = [1, 8, 16, 32, 48, 64, 96, 128, 192, 1024]

# SelectConfig.cpp, kChips (fp8 caches; the GPU lowering takes fp8 only).
CHIPS = {
    "gfx942": dict(wave=64, warps=4, block_m=128, block_n=128, k_step=16,
                   mma_m=32, mma_n=32, fp8="f8E4M3FNUZ", transposed=True, group=16),
    "gfx950": dict(wave=64, warps=4, block_m=128, block_n=128, k_step=64,
                   mma_m=32, mma_n=32, fp8="f8E4M3FN", transposed=True, group=16),
    "sm_90": dict(wave=32, warps=4, block_m=64, block_n=64, k_step=32,
                  mma_m=16, mma_n=8, fp8="f8E4M3FN", transposed=False, group=8),
    # The same per-warp layouts (one warp's slice of wgmma m64nNk32).
    "sm_90a": dict(wave=32, warps=4, block_m=64, block_n=128, k_step=32,
                   mma_m=16, mma_n=8, fp8="f8E4M3FN", transposed=False, group=8),
}


def block_n(chip, quant="kv_blockscale", mask="causal", dim=64, page=1024, group=2):
    """SelectConfig.cpp selectConfig: the chip's block_n, except sm_90a with
    an fp8 kv_blockscale cache, D and Dv of at most 64, no mask, an even GQA
    group (Hq / Hkv) and pages of more than 16 keys: 256
    (wideWgmmaTile, twenty-second session)."""
    if (chip == "sm_90a" and quant == "kv_blockscale" and mask == "none" and dim <= 64
            and group % 2 == 0 and 256 < 16 * page):
        return 256
    return CHIPS[chip]["block_n"]


def k_step(chip, page, quant, soft_cap=False):
    """SelectConfig.cpp selectConfig: gfx950 takes its K=16 MFMA for
    kv_blockscale pages smaller than the tile and not a multiple of 64 only
    where the route is page_groups (a P x V step inside one page): with a
    soft cap (no exp2_bias) on whole pages of whole K=16 steps."""
    c = CHIPS[chip]
    if (chip == "gfx950" and quant == "kv_blockscale" and page < c["block_n"]
            and page % c["k_step"] != 0 and soft_cap
            and c["block_n"] % page == 0 and page % 16 == 0):
        return 16
    return c["k_step"]


# --- lane layouts (TargetInfo) ------------------------------------------------

def acc_key(chip, lane, reg):
    """(query, key column inside an atom) of accumulator element (lane, reg)."""
    if CHIPS[chip]["transposed"]:  # AMDGPU accElem: S^T, row = key
        row, col = 8 * (reg // 4) + 4 * (lane // 32) + reg % 4, lane % 32
        return col, row
    row, col = lane // 4 + 8 * (reg // 2), 2 * (lane % 4) + reg % 2  # sm_90
    return row, col


def acc_per_lane(chip):
    return 16 if CHIPS[chip]["transposed"] else 4


def atom_n(chip):
    c = CHIPS[chip]
    return c["mma_m"] if c["transposed"] else c["mma_n"]


def pv_key_position(chip, k, key):
    if chip.startswith("sm_90"):
        t, b1 = (key >> 1) & 3, (key >> 3) & 1
        return (key & ~0xF) | (t << 2) | (b1 << 1) | (key & 1)
    if k == 16:  # (b3 b2) -> (b2 b3)
        return (key & ~0xC) | ((key >> 1) & 4) | ((key << 1) & 8)
    g, h = (key >> 3) & 3, (key >> 2) & 1
    return (key & ~0x1C) | (h << 4) | (g << 2)


def p_frag_kq(chip, k, lane, e):
    """Contraction slot of P element e of a lane in one PV step."""
    if chip.startswith("sm_90"):  # aFragElem col
        return 4 * (lane % 4) + e % 4 + 16 * (e // 8)
    h = lane // 32  # bFragElem row = kSlot(h, e)
    return 8 * h + e if k == 16 else 16 * h + 32 * (e // 16) + e % 16


def lane_keys(chip, lane, bn):
    """Tile columns (keys) whose scores lane holds: nLane + j*atomN + nReg[v]."""
    n = atom_n(chip)
    return sorted({j * n + acc_key(chip, lane, v)[1]
                   for j in range(bn // n) for v in range(acc_per_lane(chip))})


def descale_loads_per_lane(chip, page, bn):
    """MemoryPatterns.cpp GatherDescalePattern: (loads a lane, form). With
    aligned tiles, elements whose keys lie in one page on every lane share one
    page-id + descale load ("grouped per page"). Where those loads are not all
    wave-uniform, a chip with group broadcasts (TargetInfo::groupBroadcastLanes,
    AMDGPU: 16 lanes, a DPP row; NVIDIA: the 8 lanes of one lane % 4) takes
    the spread form (LaneForms.cpp): a lane loads its share, the distinct
    columns of a lane (AMDGPU 16 an atom, NVIDIA 2) / group, and its users
    take each column by a broadcast."""
    c = CHIPS[chip]
    elems = (bn // atom_n(chip)) * acc_per_lane(chip)
    groups = set()
    for j in range(bn // atom_n(chip)):
        for v in range(acc_per_lane(chip)):
            groups.add(tuple((j * atom_n(chip) + acc_key(chip, l, v)[1]) // page
                             for l in range(c["wave"])))
    uniform = bn % page == 0 and all(len(set(g)) == 1 for g in groups)
    if not uniform and c.get("group"):
        distinct = len({acc_key(chip, 0, v)[1] for v in range(acc_per_lane(chip))})
        return (bn // atom_n(chip)) * distinct // c["group"], "spread"
    if bn % page != 0:
        return elems, "per element"
    return len(groups), "grouped per page"


def page_group_fault(chip, page, k, bn):
    """The page_groups route takes a group's V descale from the lane's own
    score element pElem(g0, 0) (MmaPatterns.cpp TileMmaPattern). That element
    holds what GatherDescalePattern loaded for its group's representative (the
    element of the smallest column offset among those whose keys share a page
    on every lane): 0 when the representative's key, on this lane, is at or
    past Sk. Returns (R, lanes): a last page holding r valid keys, 1 <= r <= R,
    drops that page's P x V for the lanes whose representative key is >= r;
    lanes[r] is how many lanes of a wave lose it."""
    c = CHIPS[chip]
    n, apl, wave = atom_n(chip), acc_per_lane(chip), c["wave"]
    pos_inv = [0] * bn
    for key in range(bn):
        pos_inv[pv_key_position(chip, k, key)] = key
    # Column of element (j, v) on lane l: n_lane[l] + off[(j, v)].
    n_lane = [acc_key(chip, l, 0)[1] - acc_key(chip, 0, 0)[1] for l in range(wave)]
    off = {(j, v): j * n + acc_key(chip, 0, v)[1]
           for j in range(bn // n) for v in range(apl)}

    def pages(e):
        return tuple((n_lane[l] + off[e]) // page for l in range(wave))

    group_rep = {}
    for e in sorted(off):
        r = group_rep.setdefault(pages(e), e)
        if off[e] < off[r]:
            group_rep[pages(e)] = e
    worst, lost = 0, {}
    for g0 in range(0, bn // k, page // k):
        start = g0 * k
        for lane in range(c["wave"]):
            key = pos_inv[g0 * k + p_frag_kq(chip, k, lane, 0)]
            assert start <= key < start + page, "group key outside its page"
            je = [e for e in off if n_lane[lane] + off[e] == key]
            assert je, "pElem finds no score element"
            rep = n_lane[lane] + off[group_rep[pages(je[0])]] - start
            assert 0 <= rep < page
            worst = max(worst, rep)
            for r in range(1, rep + 1):
                lost.setdefault(r, set()).add(lane)
    return worst, {r: len(v) for r, v in sorted(lost.items())}


# --- the regime of one (chip, quant, page) --------------------------------------

AMDGPU = ("gfx942", "gfx950")


def regime(chip, page, quant="kv_blockscale", soft_cap=False, window=False, bn=None):
    """`bn`: the tile's block_n where it is not the chip's (block_n())."""
    c = CHIPS[chip]
    bn, k = bn or c["block_n"], k_step(chip, page, quant, soft_cap)
    steps = bn // k
    r = dict(chip=chip, page=page, quant=quant, block_m=c["block_m"], block_n=bn,
             k_step=k, wave=c["wave"])
    # SelectConfig.cpp completeConfig: page_regime one_page (uniform ids) when
    # P % BN == 0, whole_pages when BN % P == 0, else unaligned.
    uniform = page % bn == 0
    r["ids"] = "uniform" if uniform else "per-token"
    if uniform:
        r["shape"] = "page = tile" if page == bn else "page spans tiles"
    elif bn % page == 0:
        r["shape"] = "tile spans pages"
    else:
        r["shape"] = ("tile spans pages, unaligned" if page < bn
                      else "page > tile, unaligned")
    # page_regime whole_pages: tiles on page boundaries (GatherDescalePattern
    # groups its loads, and page_groups is possible).
    aligned = not uniform and bn % page == 0
    r["aligned"] = aligned
    # PrefetchPageIds.cpp findCandidates(perToken=false): only scalar ids.
    r["prefetch"] = "ids + kd + vd" if uniform and quant == "kv_blockscale" else (
        "ids" if uniform else "none (ids per key in the tile)")
    if quant == "per_tensor":
        r["kd"] = "per tensor (sigma * kd)"
        r["descale_loads"] = 0
        r["vd_route"] = "tile scalar (o / vd, constant)"
        r["name"] = "per-tensor-" + ("uniform" if uniform else "per-token")
        return r
    if uniform:
        r["kd"] = "per tile (sigma * kd_t)"
        r["descale_loads"] = 0  # prefetched scalars
        r["vd_route"] = "tile scalar (o' = o / vd_t)"
        r["name"] = "uniform-page-tile" if page == bn else "uniform-page-spans-tiles"
        return r
    r["kd"] = "per column"
    r["descale_loads"], r["descale_form"] = descale_loads_per_lane(chip, page, bn)
    # SelectConfig.cpp completeConfig: on AMDGPU without a soft cap
    # exp2_bias (exp2BiasFirst; until 2026-12-06, eleventh session, not
    # where page_groups fits with at most two pages a tile); else vd_route
    # page_groups when whole_pages and P % k == 0 (pv_group = min(steps, P /
    # k)); else scaled_p.
    # (since then: not where those at most two pages are one k step each,
    # gfx950's page 64, where exp2_bias spilled VGPRs; but there too under a
    # window mask, where page_groups spilled 363 VGPRs: eighteenth session).
    fits = aligned and page % k == 0 and steps % min(steps, page // k) == 0
    if chip in AMDGPU and not soft_cap and (
            window or not (fits and bn <= 2 * page and page == k)):
        r["vd_route"] = "exp2_bias"
    # sm_90a where a tile holds 16 pages or more (block_n 128: pages of at
    # most 8 keys): page 1 since the fifteenth session (timed faster there),
    # 2-8 since the twenty-first (scaled_p missed the spread-data row bar at
    # page 8), page 16 of a 256-key tile since the twenty-second (the same).
    # And since the twenty-third every tile of whole pages (pages 16, 32
    # and 64 at block_n 128): once its per-page work was taken apart on
    # NVIDIA too, its loop was the shortest of the routes (bench/NOTES.md).
    if chip == "sm_90a" and not soft_cap and (bn >= 16 * page or aligned):
        r["vd_route"] = "exp2_bias"
    if fits:
        group = min(steps, page // k)
        r.setdefault("vd_route",
                     f"page_groups ({group} k-step{'s' if group > 1 else ''} per group)")
        if r["vd_route"].startswith("page_groups"):
            r["group_steps"] = group
        worst, lanes = page_group_fault(chip, page, k, bn)
        r["fault_r_max"] = worst
        r["fault_lanes"] = lanes
        r["name"] = "page-groups-" + ("1step" if group == 1 else "multistep")
    else:
        r.setdefault("vd_route", "scaled_p")
        r["name"] = "scaled-p-" + ("aligned" if aligned else "unaligned")
    return r


def route_of(vd_route):
    """The V-descale routes told apart by the lane matrix: scaled_p and
    exp2_bias by name; every other route (scalar, page_groups) as one."""
    for name in ("scaled_p", "exp2_bias"):
        if str(vd_route).startswith(name):
            return name
    return "other"


def all_regimes():
    return [regime(chip, p, q) for q in ("kv_blockscale", "per_tensor")
            for chip in CHIPS for p in PAGES]


# --- output ---------------------------------------------------------------------

def fault_cell(r):
    if "fault_r_max" not in r:
        return "-"
    return f"Sk % P in 1..{r['fault_r_max']}"


BEGIN = "<!-- BEGIN regimes.py --markdown -->"
END = "<!-- END regimes.py --markdown -->"


def markdown(out):
    rs = all_regimes()
    out.write("Generated by `python3 bench/regimes.py --markdown` from the rules in the code "
              "(checked against fmha-compile with `--check`).\n\n")
    short = {"uniform-page-tile": "U=", "uniform-page-spans-tiles": "U>",
             "page-groups-1step": "PG1", "page-groups-multistep": "PG", "scaled-p-aligned": "SPa",
             "scaled-p-unaligned": "SPu", "per-tensor-uniform": "U", "per-tensor-per-token": "T"}
    out.write("### Overview (k step in brackets where it differs from the chip's)\n\n")
    out.write("| chip | quant | " + " | ".join(f"P={p}" for p in PAGES) + " |\n")
    out.write("|---|---|" + "---|" * len(PAGES) + "\n")
    for quant in ("kv_blockscale", "per_tensor"):
        for chip in CHIPS:
            cells = []
            for p in PAGES:
                r = regime(chip, p, quant)
                cell = short[r["name"]]
                if r.get("group_steps", 1) > 1:
                    cell += f"x{r['group_steps']}"
                if r["k_step"] != CHIPS[chip]["k_step"]:
                    cell += f" (k{r['k_step']})"
                if "fault_r_max" in r:
                    cell = f"**{cell}**"
                cells.append(cell)
            out.write(f"| {chip} | {quant} | " + " | ".join(cells) + " |\n")
    out.write("\nU= page = tile, U> page spans tiles (uniform ids, one kd/vd per tile); "
              "PG1 / PGxN page_groups with 1 / N k steps per group (**bold**: the fault "
              "window exists); SPa / SPu scaled_p with tiles on / off page boundaries; "
              "per_tensor: U uniform ids, T per-token ids.\n\n")
    out.write("### kv_blockscale\n\n")
    out.write("| chip | P | regime | k | page ids | tile / page | kd | descale loads per lane and gather | V descale route | fault window: Sk % P that drops a page group (descale 0 past Sk) |\n")
    out.write("|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rs:
        if r["quant"] != "kv_blockscale":
            continue
        loads = r["descale_loads"] if r["descale_loads"] else "0 (prefetched scalar)"
        if r["descale_loads"]:
            form = r["descale_form"]
            if form == "spread":
                ch = r["chip"]
                cols = CHIPS[ch]["block_n"] // atom_n(ch) * len(
                    {acc_key(ch, 0, v)[1] for v in range(acc_per_lane(ch))})
                how = "DPP row" if CHIPS[ch]["transposed"] else "shfl.idx"
                form = f"spread: a lane's share, {cols} {how} broadcasts a use"
            loads = f"{loads} ({form})"
        out.write(f"| {r['chip']} | {r['page']} | `{r['name']}` | {r['k_step']} | {r['ids']} | "
                  f"{r['shape']} | {r['kd']} | {loads} | {r['vd_route']} | {fault_cell(r)} |\n")
    out.write("\n### per_tensor\n\n")
    out.write("| chip | pages with uniform ids (`per-tensor-uniform`) | pages with per-token ids (`per-tensor-per-token`) | k |\n")
    out.write("|---|---|---|---|\n")
    for chip in CHIPS:
        rr = [r for r in rs if r["chip"] == chip and r["quant"] == "per_tensor"]
        u = ", ".join(str(r["page"]) for r in rr if r["ids"] == "uniform")
        t = ", ".join(str(r["page"]) for r in rr if r["ids"] != "uniform")
        out.write(f"| {chip} | {u} | {t} | {rr[0]['k_step']} |\n")
    out.write("\n### Lanes that lose the last page group (`page-groups-*`, Sk % P = r; "
              "with a past-the-end descale of 0, before the Sk - 1 clamp)\n\n")
    out.write("| chip | P | k | lanes of a wave losing the page's P x V, by r |\n|---|---|---|---|\n")
    for r in rs:
        if "fault_lanes" in r:
            lanes = ", ".join(f"r={x}: {n}/{r['wave']}" for x, n in r["fault_lanes"].items())
            out.write(f"| {r['chip']} | {r['page']} | {r['k_step']} | {lanes} |\n")


def text(out):
    for r in all_regimes():
        out.write(f"{r['chip']:<7} {r['quant']:<13} P={r['page']:<5} k={r['k_step']:<3} "
                  f"{r['name']:<26} ids={r['ids']:<9} kd={r['kd']:<24} "
                  f"loads={r['descale_loads']:<3} vd={r['vd_route']:<32} "
                  f"fault={fault_cell(r)}\n")


# --- check against the compiler -------------------------------------------------

def check(fmha_compile):
    """Compiles each (chip, quant, page) and compares the decisions its
    #fmha.config states (k_step, page_regime, vd_route, pv_group) with the
    prediction, and the page-id form with the code (a uniform id adds two
    first-lane broadcasts, K's and V's, to the wave index's one). The probe
    compiles the lowering without the steps that bring broadcasts of their
    own (gfx950's loads into LDS read uniform ids and its unrolled loop's
    count is stated uniform; sm_90a's warp roles elect a thread) and
    counts on NVIDIA only shuffles from lane 0
    (the spread form's shuffles take other lanes)."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for r in all_regimes():
            chip = r["chip"]
            fp8 = CHIPS[chip]["fp8"]
            out = os.path.join(tmp, "k")
            cmd = [fmha_compile, "--chip", chip, "--emit=mlir", "-o", out,
                   "--q-dtype", fp8, "--kv-dtype", fp8, "--quant", r["quant"],
                   "--page-size", str(r["page"]), "--heads", "2/1", "--head-dim", "64",
                   "--qo-len", "5", "--kv-len", "100", "--batch", "1"]
            cmd += (["--warp-specialize=false"] if chip == "sm_90a" else
                    [] if chip.startswith("sm_") else ["--lds-loads=false", "--kv-unroll=1"])
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"FAIL {chip} {r['quant']} P={r['page']}: fmha-compile rc={p.returncode}: "
                      f"{p.stderr.strip()[:200]}")
                bad += 1
                continue
            mlir = open(out + ".mlir").read()
            cfg = config_of(mlir)
            bcast = (mlir.count("rocdl.readfirstlane") if not chip.startswith("sm_90")
                     else len(re.findall(r"gpu\.shuffle\s+idx\s+%[\w.]+,\s+%c0_i32(?:_\d+)?,",
                                         mlir)))
            want_regime = ("one_page" if r["ids"] == "uniform" else
                           "whole_pages" if r["aligned"] else "unaligned")
            want_route = r["vd_route"].split(" ")[0]
            want_route = "scalar" if want_route == "tile" else want_route
            want_group = r.get("group_steps", 0)
            ok = (cfg["k_step"] == r["k_step"] and cfg["page_regime"] == want_regime
                  and cfg["vd_route"] == want_route and cfg["pv_group"] == want_group
                  and (bcast > 1) == (want_regime == "one_page"))
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {chip:<7} {r['quant']:<13} P={r['page']:<5} "
                  f"k={cfg['k_step']} (want {r['k_step']}) {cfg['page_regime']} (want {want_regime}) "
                  f"{cfg['vd_route']} x{cfg['pv_group']} (want {want_route} x{want_group}) "
                  f"first-lane broadcasts={bcast}")
    print(f"{len(all_regimes()) - bad} agree, {bad} differ")
    return 1 if bad else 0


def config_of(mlir):
    """The decisions of the kernel's #fmha.config (unprinted ones at their
    defaults: page_regime / vd_route unset, pv_group 0)."""
    m = re.search(r"#fmha\.config<([^>]*)>", mlir)
    text = m.group(1) if m else ""
    def field(name, default):
        f = re.search(name + r" = ([A-Za-z_0-9]+)", text)
        return f.group(1) if f else default
    return dict(k_step=int(field("k_step", "0")), page_regime=field("page_regime", "unset"),
                vd_route=field("vd_route", "unset"), pv_group=int(field("pv_group", "0")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check", metavar="FMHA_COMPILE")
    ap.add_argument("--update", metavar="DOC")
    a = ap.parse_args()
    if a.check:
        return check(a.check)
    if a.update:
        import io
        buf = io.StringIO()
        markdown(buf)
        doc = open(a.update).read()
        begin, end = BEGIN + "\n", "\n" + END
        i, j = doc.index(begin) + len(begin), doc.index(end)
        open(a.update, "w").write(doc[:i] + buf.getvalue().rstrip("\n") + doc[j:])
        return 0
    if a.markdown:
        markdown(sys.stdout)
    elif a.json:
        for r in all_regimes():
            print(json.dumps(r))
    else:
        text(sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
