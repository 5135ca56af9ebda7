s/@CHIP@/gfx942/g
s/@FP8@/f8E4M3FNUZ/g
s/@BM@/128/g
s/@BN@/128/g
s/@K@/16/g
s/@WAVE@/64/g
s/@MMAM@/32/g
s/@MMAN@/32/g
s/@SHIFT@/7/g
s/@THREADS@/256/g
s/@TARGET@/#rocdl.target<chip = "gfx942">/g
s/@PGPAGE@/32/g
