#!/usr/bin/env python3
"""Checks the support table of README.md (between <!-- support-table --> and
<!-- /support-table -->): every cell names at least one test, and every name
exists: `PATH` a file under test/, `lane:NAME` a case NAME (the part after
the regime) of that column's chip in test/Integration/LaneMatrix/cases.py.
A cell saying "no" must cite a test too (the one that checks the exit 2).

Usage: check_support_table.py [README.md]   exit 0 when every reference
holds, 1 with one line per problem.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "LaneMatrix"))
import cases  # noqa: E402

CHIPS = ("gfx942", "gfx950", "sm_90", "sm_90a")


def table_rows(text):
    m = re.search(r"<!-- support-table -->\n(.*?)\n<!-- /support-table -->", text, re.S)
    if not m:
        return None, []
    lines = [ln for ln in m.group(1).splitlines() if ln.startswith("|")]
    split = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return split[0], [r for r in split[2:]]


def main():
    readme = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "README.md")
    header, rows = table_rows(open(readme).read())
    if header is None:
        print(f"{readme}: no support table")
        return 1
    names = {c: {n.split(".", 1)[1] for n, _, _ in cases.build(c)} for c in CHIPS}
    problems = []
    for row in rows:
        if len(row) != len(header):
            problems.append(f"row {row[0]!r}: {len(row)} cells, the header has {len(header)}")
            continue
        for col, cell in zip(header[1:], row[1:]):
            refs = re.findall(r"`([^`]+)`", cell)
            where = f"{row[0]!r} / {col}"
            if not refs:
                problems.append(f"{where}: names no test")
            for ref in refs:
                if ref.startswith("lane:"):
                    if col not in CHIPS:
                        problems.append(f"{where}: {ref} in a column without a lane matrix")
                    elif ref[5:] not in names[col]:
                        problems.append(f"{where}: {col} has no lane case {ref[5:]!r}")
                elif not os.path.isfile(os.path.join(ROOT, "test", ref)):
                    problems.append(f"{where}: no file test/{ref}")
    for p in problems:
        print(p)
    print(f"support table: {len(rows)} rows, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
