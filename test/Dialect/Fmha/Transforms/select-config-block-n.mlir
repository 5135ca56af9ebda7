// fmha-select-config's block_n: the chip's table, sm_90a's wide tile at
// small head dims without a mask, and the block-n option (a tile stated
// instead, checked like a stated config). The inputs are the default
// request (D 128, causal, page 1024) made OCP e4m3 for sm_90a, and its D 64
// form without a mask.
// RUN: sed 's/FNUZ/FN/g; s/x128xf8/x64xf8/g; s/x128xbf16/x64xbf16/g; s/mask<causal>/mask<none>/' \
// RUN:   %fmha_src_root/examples/default_request.mlir > %t.d64.mlir
// RUN: sed 's/1024 : i64/16 : i64/; s/x1024x/x16x/g' %t.d64.mlir > %t.d64p16.mlir
//
// sm_90a, fp8 kv_blockscale, D 64, no mask, GQA 32/8: one m64n256 wgmma for
// S (kWgmmaWideBlockN, wideWgmmaTile).
// RUN: fmha-opt %t.d64.mlir --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=WIDE
// WIDE: #fmha.config<chip = "sm_90a", block_m = 64, block_n = 256, k_step = 32,
// WIDE-SAME: page_regime = one_page, vd_route = scalar>
// A mask keeps 128 (its diagonal tile's masked half would double).
// RUN: sed 's/mask<none>/mask<causal>/' %t.d64.mlir | fmha-opt --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=B128
// RUN: sed 's/mask<none>/mask<window, left = 8, right = 0>/' %t.d64.mlir | fmha-opt --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=B128
// So does D 128 (S and o would not fit the consumers' registers) ...
// RUN: sed 's/FNUZ/FN/g; s/mask<causal>/mask<none>/' %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=B128
// B128: #fmha.config<chip = "sm_90a", block_m = 64, block_n = 128, k_step = 32,
// ... and, where the wide tile was not timed, a group the warp-specialized
// kernel cannot split (8/8), per_tensor, and pages of at most 16 keys
// (below) ...
// RUN: sed 's/?x32x64/?x8x64/g' %t.d64.mlir | fmha-opt --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=B128
// RUN: sed 's/kv_blockscale/per_tensor/; s/?x8xf32/1xf32/g' %t.d64.mlir | fmha-opt --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=B128
// (16/8 is a group of 2: one query head a consumer.)
// RUN: sed 's/?x32x64/?x16x64/g' %t.d64.mlir | fmha-opt --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=WIDE
// ... and every other chip (gfx950 at D 64 without a mask: its table's 128).
// RUN: fmha-opt %t.d64.mlir --fmha-select-config=chip=gfx950 | FileCheck %s --check-prefix=GFX950
// GFX950: #fmha.config<chip = "gfx950", block_m = 128, block_n = 128, k_step = 64,
//
// Page 16 in a 256-key tile is 16 pages a tile, which takes the exp2_bias
// route, as pages of at most 8 keys in a 128-key tile (scaled_p missed
// the spread-data row bar there: LaneMatrix/sm_90a-small-page-spread.test).
// The chip's choice keeps 128 there (8 pages a tile; exp2_bias too, as
// every tile of whole pages on sm_90a); a stated 256 takes exp2_bias.
// RUN: fmha-opt %t.d64p16.mlir --fmha-select-config=chip=sm_90a | FileCheck %s --check-prefix=P16-128
// P16-128: block_n = 128, {{.*}} page_regime = whole_pages, vd_route = exp2_bias>
// RUN: fmha-opt %t.d64p16.mlir --fmha-select-config="chip=sm_90a block-n=256" | FileCheck %s --check-prefix=P16
// P16: block_n = 256, {{.*}} page_regime = whole_pages, vd_route = exp2_bias>
//
// The option states the tile on any chip.
// RUN: fmha-opt %t.d64.mlir --fmha-select-config="chip=sm_90a block-n=64" | FileCheck %s --check-prefix=S64
// S64: #fmha.config<chip = "sm_90a", block_m = 64, block_n = 64, k_step = 32,
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 block-n=64" | FileCheck %s --check-prefix=G64
// G64: #fmha.config<chip = "gfx942", block_m = 128, block_n = 64, k_step = 16,
// 0 is the chip's choice.
// RUN: fmha-opt %t.d64.mlir --fmha-select-config="chip=sm_90a block-n=0" | FileCheck %s --check-prefix=WIDE
//
// Refused, each naming its rule: a negative tile, one that is not whole
// MMA atoms, and a hand-written config stating another tile.
// RUN: not fmha-opt %t.d64.mlir --fmha-select-config="chip=sm_90a block-n=-2" 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: fmha-select-config: block-n must be >= 0 (0: the chip's), got -2
// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config="chip=gfx942 block-n=48" 2>&1 | FileCheck %s --check-prefix=ATOM
// ATOM: config block_n = 48 must be a multiple of mma_n = 32
// RUN: fmha-opt %t.d64.mlir --fmha-select-config=chip=sm_90a \
// RUN:   | not fmha-opt --fmha-select-config="chip=sm_90a block-n=128" 2>&1 | FileCheck %s --check-prefix=HAND
// HAND: fmha-select-config: block-n 128 but the config states 256
// A config that states the same tile is kept.
// RUN: fmha-opt %t.d64.mlir --fmha-select-config=chip=sm_90a \
// RUN:   | fmha-opt --fmha-select-config="chip=sm_90a block-n=256" | FileCheck %s --check-prefix=WIDE
