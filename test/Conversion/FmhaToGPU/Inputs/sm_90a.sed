s/@CHIP@/sm_90a/g
s/@FP8@/f8E4M3FN/g
s/@BM@/64/g
s/@BN@/128/g
s/@K@/32/g
s/@WAVE@/32/g
s/@MMAM@/16/g
s/@MMAN@/8/g
s/@SHIFT@/8/g
s/@THREADS@/128/g
s/@TARGET@/#nvvm.target<chip = "sm_90a", features = "+ptx84">/g
s/@PGPAGE@/32/g
