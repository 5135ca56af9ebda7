#!/usr/bin/env python3
"""Summary of an Nsight Compute source page (ncu --page source --print-source
sass --csv): stall reasons over all samples, samples and executed
instructions by opcode, the shared loads with the most excess wavefronts,
and the instructions with the most stall samples.
  ncu_sass_summary.py NCU-SASS.csv"""
import csv, sys, collections, re
rows=[]
with open(sys.argv[1]) as f:
    lines=[l for l in f if l.startswith('"')]
r=csv.reader(lines)
next(r); hdr=next(r)
for row in r:
    if len(row)!=len(hdr): continue
    rows.append(dict(zip(hdr,row)))
def num(x):
    try: return float(x.replace(',',''))
    except: return 0.0
stalls=[h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
tot=collections.Counter()
for x in rows:
    for s in stalls: tot[s]+=num(x[s])
S=sum(tot.values())
print("total samples",S)
for s,v in tot.most_common(12): print(f"  {s:28s} {v/S*100:5.1f}%")
# by opcode
op=collections.Counter(); opexec=collections.Counter()
for x in rows:
    o=x['Source'].strip().split()[0] if x['Source'].strip() else '?'
    if o.startswith('@'): o=x['Source'].strip().split()[1]
    o=o.split('.')[0]
    op[o]+=num(x['Warp Stall Sampling (All Samples)']); opexec[o]+=num(x['Instructions Executed'])
E=sum(opexec.values())
print("opcode: samples% exec%")
for o,v in op.most_common(25): print(f"  {o:10s} {v/S*100:5.1f}% {opexec[o]/E*100:5.1f}%  exec={opexec[o]:.0f}")
# shared load conflicts
print("top shared wavefront excess")
sh=sorted(rows,key=lambda x:-num(x['L1 Wavefronts Shared Excessive']))[:12]
for x in sh: print(x['Address'][-5:], x['Source'].strip()[:60], x['Instructions Executed'], x['L1 Wavefronts Shared'], x['L1 Wavefronts Shared Ideal'])
print("top stall instructions")
for x in sorted(rows,key=lambda x:-num(x['Warp Stall Sampling (All Samples)']))[:25]:
    top=max(stalls,key=lambda s:num(x[s]))
    print(x['Address'][-5:], f"{num(x['Warp Stall Sampling (All Samples)'])/S*100:4.1f}%", x['Source'].strip()[:70], top)
