// fmha-fold-vd-exp2 on the tiled gfx942 kernel at page 16 (kv_blockscale,
// a V descale per key; fmha-select-config takes vd_route = exp2_bias there,
// docs/FOLDS.md): y = S' c + log2(vd) is the exp2 argument before the row
// max is subtracted, the tile's row max is max(y) * (1 / c) (in the scores'
// units, as the running max m), the row sum takes p / vd, and P x V loses
// its k_scale. The same kernel with a config that states
// page_groups keeps its k_scale (the pass reads the route).
// RUN: sed 's/f8E4M3FNUZ/f8E4M3FN/g; s/x1024x8x128/x16x8x128/g; s/page_size = 1024/page_size = 16/' \
// RUN:   %fmha_src_root/examples/default_request.mlir \
// RUN:   | fmha-opt --fmha-select-config=chip=gfx950 --fmha-tile --fmha-fold-descales \
// RUN:   --fmha-fold-exp2-shift -o %t.before.mlir
// RUN: fmha-opt %t.before.mlir --fmha-fold-vd-exp2 | FileCheck %s
// RUN: sed 's/vd_route = exp2_bias/vd_route = page_groups, pv_group = 1/' %t.before.mlir \
// RUN:   | fmha-opt --fmha-fold-vd-exp2 | FileCheck %s --check-prefix=GROUPS
//
// CHECK: scf.for
// CHECK: %[[S:.*]] = fmha.tile_mma {{.*}} {transpose_rhs}
// CHECK: %[[VD:.*]] = fmha.gather_descale %arg9[%{{.*}}] {{.*}} -> vector<128xf32>
// CHECK: %[[SD:.*]] = arith.mulf %[[S]], %{{.*}} : vector<128x128xf32>
// CHECK: %[[SM:.*]] = fmha.mask_tile %[[SD]]
// CHECK: %[[LOG:.*]] = math.log2 %[[VD]] : vector<128xf32>
// CHECK-NEXT: %[[CT:.*]] = vector.broadcast %[[C:.*]] : f32 to vector<128x128xf32>
// CHECK-NEXT: %[[SC:.*]] = arith.mulf %[[SM]], %[[CT]] : vector<128x128xf32>
// CHECK-NEXT: %[[LOGT:.*]] = vector.broadcast %[[LOG]] : vector<128xf32> to vector<128x128xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[SC]], %[[LOGT]] : vector<128x128xf32>
// CHECK-NEXT: %[[MAX:.*]] = vector.multi_reduction <maximumf>, %[[Y]]
// CHECK-NEXT: %[[INVC:.*]] = arith.divf %{{.*}}, %[[C]] : f32
// CHECK-NEXT: %[[INVCV:.*]] = vector.broadcast %[[INVC]] : f32 to vector<128xf32>
// CHECK-NEXT: %[[MT:.*]] = arith.mulf %[[MAX]], %[[INVCV]] : vector<128xf32>
// CHECK-NEXT: arith.maxnumf %{{.*}}, %[[MT]] : vector<128xf32>
// CHECK: %[[ARG:.*]] = arith.subf %[[Y]], %{{.*}} : vector<128x128xf32>
// CHECK-NEXT: %[[P:.*]] = math.exp2 %[[ARG]] : vector<128x128xf32>
// CHECK: %[[W:.*]] = arith.divf %{{.*}}, %[[VD]] : vector<128xf32>
// CHECK-NEXT: %[[WT:.*]] = vector.broadcast %[[W]] : vector<128xf32> to vector<128x128xf32>
// CHECK-NEXT: %[[PW:.*]] = arith.mulf %[[P]], %[[WT]] : vector<128x128xf32>
// CHECK-NEXT: vector.multi_reduction <add>, %[[PW]]
// CHECK: fmha.tile_mma %{{.*}}, %{{.*}}, %{{.*}} : vector<128x128xf8E4M3FN>, vector<128x128xf8E4M3FN> -> vector<128x128xf32>
// CHECK-NOT: k_scale
// CHECK: fmha.kv_loop
// CHECK: vd_route = exp2_bias
//
// GROUPS-NOT: math.log2
// GROUPS: fmha.tile_mma {{.*}} k_scale(
