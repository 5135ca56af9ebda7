s/@CHIP@/gfx950/g
s/@FP8@/f8E4M3FN/g
s/@BM@/128/g
s/@BN@/128/g
s/@K@/64/g
s/@WAVE@/64/g
s/@MMAM@/32/g
s/@MMAN@/32/g
s/@SHIFT@/8/g
s/@THREADS@/256/g
s/@TARGET@/#rocdl.target<chip = "gfx950">/g
s/@PGPAGE@/64/g
