// fmha-select-config{vd-route=...} states the V-descale route instead of
// choosing it; the k step follows the route (gfx950's K=16 MFMA only where
// page_groups needs each P x V step inside a page) and the route is checked
// as a stated config is.
// RUN: sed 's/x1024x8x128/x16x8x128/g; s/page_size = 1024/page_size = 16/; s/f8E4M3FNUZ/f8E4M3FN/g' %fmha_src_root/examples/default_request.mlir > %t.p16.mlir
// RUN: fmha-opt %t.p16.mlir --fmha-select-config="chip=gfx950 vd-route=exp2_bias" | FileCheck %s --check-prefix=BIAS
// BIAS: k_step = 64
// BIAS-SAME: vd_route = exp2_bias
// RUN: fmha-opt %t.p16.mlir --fmha-select-config="chip=gfx950 vd-route=page_groups" | FileCheck %s --check-prefix=PG
// PG: k_step = 16
// PG-SAME: vd_route = page_groups, pv_group = 1
// RUN: fmha-opt %t.p16.mlir --fmha-select-config="chip=gfx950 vd-route=auto" | FileCheck %s --check-prefix=AUTO
// AUTO: k_step = 64
// AUTO-SAME: vd_route = exp2_bias
// RUN: fmha-opt %t.p16.mlir --fmha-select-config="chip=sm_90a vd-route=exp2_bias" | FileCheck %s --check-prefix=NV
// NV: chip = "sm_90a"
// NV-SAME: vd_route = exp2_bias
// RUN: not fmha-opt %t.p16.mlir --fmha-select-config="chip=gfx950 vd-route=scalar" 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: config vd_route = scalar but the V descale differs between keys of a tile
// RUN: not fmha-opt %t.p16.mlir --fmha-select-config="chip=host vd-route=exp2_bias" 2>&1 | FileCheck %s --check-prefix=HOST
// HOST: the host lowering scales each key: per_key
// RUN: not fmha-opt %t.p16.mlir --fmha-select-config="chip=gfx950 vd-route=pages" 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: unknown vd-route 'pages'
// A config already on the op: a route it leaves out is taken from vd-route,
// one it states must agree.
// RUN: fmha-opt %t.p16.mlir --fmha-select-config="chip=gfx950" | sed 's/, vd_route = exp2_bias//' > %t.noroute.mlir
// RUN: fmha-opt %t.noroute.mlir --fmha-select-config="chip=gfx950 vd-route=scaled_p" | FileCheck %s --check-prefix=JOIN
// JOIN: vd_route = scaled_p
// RUN: fmha-opt %t.p16.mlir --fmha-select-config="chip=gfx950" > %t.stated.mlir
// RUN: not fmha-opt %t.stated.mlir --fmha-select-config="chip=gfx950 vd-route=scaled_p" 2>&1 | FileCheck %s --check-prefix=CONFLICT
// CONFLICT: fmha-select-config: vd-route scaled_p but the config states exp2_bias
// An unknown name is refused even when every op has a config.
// RUN: not fmha-opt %t.stated.mlir --fmha-select-config="chip=gfx950 vd-route=pages" 2>&1 | FileCheck %s --check-prefix=NAME
