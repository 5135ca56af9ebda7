#!/usr/bin/env python3
"""Compares an fmha manifest (JSON) with `llvm-readelf --notes` of the HSACO.

usage: compare_manifest.py MANIFEST.json NOTES.txt

The notes hold the NT_AMDGPU_METADATA as YAML. Kernels and their args are
compared position by position (MLIR does not name LLVM arguments); the derived
waves per SIMD is recomputed from the notes' .vgpr_count. Prints one line per
arg and a summary; exits 1 listing every difference.
"""
import json
import re
import sys

KERNEL_KEYS = [
    "name", "symbol", "kernarg_segment_size", "kernarg_segment_align",
    "group_segment_fixed_size", "private_segment_fixed_size", "sgpr_count",
    "vgpr_count", "agpr_count", "sgpr_spill_count", "vgpr_spill_count",
    "wavefront_size", "max_flat_workgroup_size", "reqd_workgroup_size",
]
ARG_KEYS = ["offset", "size", "align", "name", "value_kind", "address_space",
            "actual_access"]


def scalar(text):
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [scalar(t) for t in text[1:-1].split(",") if t.strip()]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def parse_block(lines, i, indent):
    if lines[i][1].startswith("-"):
        return parse_list(lines, i, indent)
    return parse_map(lines, i, indent)


def parse_list(lines, i, indent):
    items = []
    while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("-"):
        rest = lines[i][1][1:].lstrip()
        if not rest:
            value, i = parse_block(lines, i + 1, lines[i + 1][0])
        elif re.match(r"^[^\s:'\"]+:(\s|$)", rest):
            # "- key: value" opens a map whose keys align with "key".
            lines[i] = (indent + len(lines[i][1]) - len(rest), rest)
            value, i = parse_map(lines, i, lines[i][0])
        else:
            value, i = scalar(rest), i + 1
        items.append(value)
    return items, i


def parse_map(lines, i, indent):
    result = {}
    while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("-"):
        key, _, rest = lines[i][1].partition(":")
        i += 1
        if rest.strip():
            result[key] = scalar(rest)
        elif i < len(lines) and (lines[i][0] > indent or
                                 (lines[i][0] == indent and lines[i][1].startswith("-"))):
            result[key], i = parse_block(lines, i, lines[i][0])
        else:
            result[key] = None
    return result, i


def read_notes(path):
    """The YAML document between '---' and '...' of the AMDGPU Metadata."""
    text = open(path).read().splitlines()
    start = next(n for n, l in enumerate(text) if l.strip() == "---")
    end = next(n for n, l in enumerate(text) if n > start and l.strip() == "...")
    lines = [(len(l) - len(l.lstrip()), l.strip())
             for l in text[start + 1:end] if l.strip()]
    doc, _ = parse_map(lines, 0, lines[0][0])
    return doc


def main():
    manifest = json.load(open(sys.argv[1]))
    notes = read_notes(sys.argv[2])
    errors = []

    def same(where, mine, theirs):
        if mine != theirs:
            errors.append(f"{where}: manifest {mine!r} != notes {theirs!r}")

    same("target", manifest.get("target"), notes.get("amdhsa.target"))
    same("version", manifest.get("version"), notes.get("amdhsa.version"))
    kernels, note_kernels = manifest.get("kernels", []), notes.get("amdhsa.kernels") or []
    same("kernel count", len(kernels), len(note_kernels))
    num_args = 0
    for k, (mine, theirs) in enumerate(zip(kernels, note_kernels)):
        for key in KERNEL_KEYS:
            same(f"kernel {k} {key}", mine.get(key), theirs.get("." + key))
        # The derived occupancy, restated: 512 VGPRs per SIMD lane, granule 8.
        if "derived" in mine:
            vgprs = -(-max(theirs[".vgpr_count"], 1) // 8) * 8
            same(f"kernel {k} derived waves_per_simd_by_vgprs",
                 mine["derived"].get("waves_per_simd_by_vgprs"), min(8, 512 // vgprs))
        args, note_args = mine.get("args", []), theirs.get(".args") or []
        same(f"kernel {k} arg count", len(args), len(note_args))
        for a, (arg, note_arg) in enumerate(zip(args, note_args)):
            for key in ARG_KEYS:
                same(f"kernel {k} arg {a} {key}", arg.get(key), note_arg.get("." + key))
            print(f"kernel {k} arg {a}: " + " ".join(
                f"{key}={arg[key]}" for key in ARG_KEYS if key in arg))
            num_args += 1
    for error in errors:
        print("MISMATCH " + error)
    if errors:
        return 1
    print(f"manifest == notes: {len(kernels)} kernel(s), {num_args} arg(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
