// The grouping keys of exp2_bias's per-key work (ElementwisePatterns
// affineKey): a register's group is its (kd, lb) pair, not its kd alone.
// Input: the default request at page 16 on gfx942, tiled and folded
// (fmha-select-config, fmha-tile, the folds, fmha-prefetch-page-ids
// per-token=false, fmha-peel-masked-tiles, fmha-expand-masks, canonicalize,
// cse), then edited so that kd is gathered through page ids of 32 keys
// (%kdids) while vd, and so lb = log2(vd) / c, keep pages of 16: kd is
// shared by two of lb's pages. The row max of S * kd + lb must then be
// taken over 8 groups (lb's pages), not kd's 4: a key that ignored lb would
// merge registers with different biases.
// RUN: fmha-opt %s --fmha-outline-kernel=chip=gfx942 --convert-fmha-to-gpu=chip=gfx942 | FileCheck %s
// CHECK: scf.for {{.*}} -> (f32, f32, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK-COUNT-8: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK-NOT: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.maximumf %arg{{[0-9]+}}, %{{.*}} : f32

module {
  func.func @default_request(%arg0: memref<?x32x128xf8E4M3FNUZ>, %arg1: memref<?x16x8x128xf8E4M3FNUZ>, %arg2: memref<?x16x8x128xf8E4M3FNUZ>, %arg3: memref<?xi32>, %arg4: memref<?xi32>, %arg5: memref<?xi32>, %arg6: memref<?xi32>, %arg7: memref<1xf32>, %arg8: memref<?x8xf32>, %arg9: memref<?x8xf32>, %arg10: memref<?x32x128xbf16>) {
    %cst = arith.constant dense<0xFF800000> : vector<128x128xf32>
    %cst_0 = arith.constant dense<1.000000e+00> : vector<128xf32>
    %cst_1 = arith.constant dense<7.000000e+00> : vector<128xf32>
    %c-128 = arith.constant -128 : index
    %cst_2 = arith.constant dense<0.000000e+00> : vector<128x128xf32>
    %cst_3 = arith.constant dense<0.000000e+00> : vector<128xf32>
    %cst_4 = arith.constant dense<0xFF800000> : vector<128xf32>
    %cst_5 = arith.constant 1.000000e+00 : f32
    %c-127 = arith.constant -127 : index
    %cst_6 = arith.constant 1.44269502 : f32
    %cst_7 = arith.constant 0.0883883461 : f32
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg3, %c0 : memref<?xi32>
    %0 = arith.subi %dim, %c1 : index
    %1 = scf.for %arg11 = %c0 to %0 step %c1 iter_args(%arg12 = %c0) -> (index) {
      %3 = arith.addi %arg11, %c1 : index
      %4 = memref.load %arg3[%3] : memref<?xi32>
      %5 = arith.index_cast %4 : i32 to index
      %6 = memref.load %arg3[%arg11] : memref<?xi32>
      %7 = arith.index_cast %6 : i32 to index
      %8 = arith.subi %5, %7 : index
      %9 = arith.maxsi %arg12, %8 : index
      scf.yield %9 : index
    }
    %2 = arith.ceildivsi %1, %c128 : index
    scf.forall (%arg11, %arg12, %arg13) in (%2, 32, %0) {
      %3 = arith.cmpi slt, %arg13, %0 : index
      scf.if %3 {
        %4 = memref.load %arg3[%arg13] : memref<?xi32>
        %5 = arith.index_cast %4 : i32 to index
        %6 = arith.addi %arg13, %c1 : index
        %7 = memref.load %arg3[%6] : memref<?xi32>
        %8 = arith.index_cast %7 : i32 to index
        %9 = arith.subi %8, %5 : index
        %10 = arith.muli %arg11, %c128 : index
        %11 = arith.cmpi slt, %10, %9 : index
        scf.if %11 {
          %12 = arith.subi %9, %10 : index
          %13 = arith.minsi %12, %c128 : index
          %14 = arith.addi %5, %10 : index
          %15 = memref.load %arg4[%arg13] : memref<?xi32>
          %16 = arith.index_cast %15 : i32 to index
          %17 = memref.load %arg4[%6] : memref<?xi32>
          %18 = arith.index_cast %17 : i32 to index
          %19 = arith.subi %18, %16 : index
          %20 = memref.load %arg6[%arg13] : memref<?xi32>
          %21 = arith.index_cast %20 : i32 to index
          %22 = arith.subi %19, %c1 : index
          %23 = arith.muli %22, %c16 : index
          %24 = arith.cmpi sgt, %19, %c0 : index
          %25 = arith.addi %23, %21 : index
          %26 = arith.select %24, %25, %c0 : index
          %subview = memref.subview %arg5[%16] [%19] [1] : memref<?xi32> to memref<?xi32, strided<[1], offset: ?>>
          %27 = arith.subi %26, %9 : index
          %28 = arith.divui %arg12, %c4 : index
          %29 = fmha.load_rows %arg0[%14, %arg12] rows(%13) : memref<?x32x128xf8E4M3FNUZ> -> vector<128x128xf8E4M3FNUZ>
          %30 = memref.load %arg7[%c0] : memref<1xf32>
          %31 = arith.mulf %30, %cst_7 : f32
          %32 = arith.subi %13, %c1 : index
          %33 = arith.addi %10, %32 : index
          %34 = arith.addi %33, %27 : index
          %35 = arith.addi %34, %c1 : index
          %36 = arith.minsi %26, %35 : index
          %37 = arith.maxsi %36, %c0 : index
          %38 = arith.ceildivsi %37, %c128 : index
          %39 = arith.maxsi %38, %c0 : index
          %40 = arith.addi %10, %27 : index
          %41 = arith.mulf %31, %cst_6 : f32
          %42 = arith.addi %26, %c-128 : index
          %43 = arith.floordivsi %42, %c128 : index
          %44 = arith.addi %43, %c1 : index
          %45 = arith.addi %40, %c-127 : index
          %46 = arith.floordivsi %45, %c128 : index
          %47 = arith.addi %46, %c1 : index
          %48 = arith.minsi %44, %47 : index
          %49 = arith.maxsi %48, %c0 : index
          %50 = arith.minsi %49, %39 : index
          %51:3 = scf.for %arg14 = %c0 to %50 step %c1 iter_args(%arg15 = %cst_4, %arg16 = %cst_3, %arg17 = %cst_2) -> (vector<128xf32>, vector<128xf32>, vector<128x128xf32>) {
            %60 = arith.muli %arg14, %c128 : index
            %61 = fmha.page_ids %subview[%60] len(%26) {page_size = 16 : i64} : memref<?xi32, strided<[1], offset: ?>> -> vector<128xi32>
            %kdids = fmha.page_ids %subview[%60] len(%26) {page_size = 32 : i64} : memref<?xi32, strided<[1], offset: ?>> -> vector<128xi32>
            %62 = fmha.gather_kv %arg1[%61] head(%28) tile(%60, %26) {in_bounds, kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x8x128xf8E4M3FNUZ>, vector<128xi32> -> vector<128x128xf8E4M3FNUZ>
            %63 = fmha.gather_kv %arg2[%61] head(%28) tile(%60, %26) {in_bounds, kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x8x128xf8E4M3FNUZ>, vector<128xi32> -> vector<128x128xf8E4M3FNUZ>
            %64 = fmha.tile_mma %29, %62, %cst_2 {transpose_rhs} : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
            %65 = fmha.gather_descale %arg8[%kdids] head(%28) : memref<?x8xf32>, vector<128xi32> -> vector<128xf32>
            %66 = fmha.gather_descale %arg9[%61] head(%28) : memref<?x8xf32>, vector<128xi32> -> vector<128xf32>
            %67 = vector.broadcast %65 : vector<128xf32> to vector<128x128xf32>
            %68 = arith.mulf %64, %67 : vector<128x128xf32>
            %69 = arith.divf %cst_5, %41 : f32
            %70 = math.log2 %66 : vector<128xf32>
            %71 = vector.broadcast %69 : f32 to vector<128xf32>
            %72 = arith.mulf %70, %71 : vector<128xf32>
            %73 = vector.broadcast %72 : vector<128xf32> to vector<128x128xf32>
            %74 = arith.addf %68, %73 : vector<128x128xf32>
            %75 = vector.multi_reduction <maximumf>, %74, %cst_4 [1] : vector<128x128xf32> to vector<128xf32>
            %76 = arith.maximumf %arg15, %75 : vector<128xf32>
            %77 = arith.cmpf oeq, %76, %cst_4 : vector<128xf32>
            %78 = arith.select %77, %cst_3, %76 : vector<128xi1>, vector<128xf32>
            %79 = vector.broadcast %41 : f32 to vector<128x128xf32>
            %80 = arith.mulf %74, %79 : vector<128x128xf32>
            %81 = vector.broadcast %41 : f32 to vector<128xf32>
            %82 = arith.mulf %78, %81 : vector<128xf32>
            %83 = arith.subf %82, %cst_1 : vector<128xf32>
            %84 = vector.shape_cast %83 : vector<128xf32> to vector<128x1xf32>
            %85 = vector.broadcast %84 : vector<128x1xf32> to vector<128x128xf32>
            %86 = arith.subf %80, %85 : vector<128x128xf32>
            %87 = math.exp2 %86 : vector<128x128xf32>
            %88 = arith.subf %arg15, %78 : vector<128xf32>
            %89 = arith.mulf %88, %81 : vector<128xf32>
            %90 = math.exp2 %89 : vector<128xf32>
            %91 = arith.mulf %90, %arg16 : vector<128xf32>
            %92 = arith.divf %cst_0, %66 : vector<128xf32>
            %93 = vector.broadcast %92 : vector<128xf32> to vector<128x128xf32>
            %94 = arith.mulf %87, %93 : vector<128x128xf32>
            %95 = vector.multi_reduction <add>, %94, %cst_3 [1] : vector<128x128xf32> to vector<128xf32>
            %96 = arith.addf %91, %95 : vector<128xf32>
            %97 = arith.truncf %87 : vector<128x128xf32> to vector<128x128xf8E4M3FNUZ>
            %98 = fmha.tile_mma %97, %63, %cst_2 : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
            %99 = vector.shape_cast %90 : vector<128xf32> to vector<128x1xf32>
            %100 = vector.broadcast %99 : vector<128x1xf32> to vector<128x128xf32>
            %101 = arith.mulf %100, %arg17 : vector<128x128xf32>
            %102 = arith.addf %101, %98 : vector<128x128xf32>
            scf.yield %76, %96, %102 : vector<128xf32>, vector<128xf32>, vector<128x128xf32>
          } {fmha.descales_folded, fmha.full_tiles, fmha.kv_loop}
          %52:3 = scf.for %arg14 = %50 to %39 step %c1 iter_args(%arg15 = %51#0, %arg16 = %51#1, %arg17 = %51#2) -> (vector<128xf32>, vector<128xf32>, vector<128x128xf32>) {
            %60 = arith.muli %arg14, %c128 : index
            %61 = fmha.page_ids %subview[%60] len(%26) {page_size = 16 : i64} : memref<?xi32, strided<[1], offset: ?>> -> vector<128xi32>
            %kdids = fmha.page_ids %subview[%60] len(%26) {page_size = 32 : i64} : memref<?xi32, strided<[1], offset: ?>> -> vector<128xi32>
            %62 = fmha.gather_kv %arg1[%61] head(%28) tile(%60, %26) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x8x128xf8E4M3FNUZ>, vector<128xi32> -> vector<128x128xf8E4M3FNUZ>
            %63 = fmha.gather_kv %arg2[%61] head(%28) tile(%60, %26) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x8x128xf8E4M3FNUZ>, vector<128xi32> -> vector<128x128xf8E4M3FNUZ>
            %64 = fmha.tile_mma %29, %62, %cst_2 {transpose_rhs} : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
            %65 = fmha.gather_descale %arg8[%kdids] head(%28) : memref<?x8xf32>, vector<128xi32> -> vector<128xf32>
            %66 = fmha.gather_descale %arg9[%61] head(%28) : memref<?x8xf32>, vector<128xi32> -> vector<128xf32>
            %67 = vector.broadcast %65 : vector<128xf32> to vector<128x128xf32>
            %68 = arith.mulf %64, %67 : vector<128x128xf32>
            %69 = vector.step : vector<128xindex>
            %70 = vector.broadcast %40 : index to vector<128xindex>
            %71 = arith.addi %69, %70 : vector<128xindex>
            %72 = vector.broadcast %60 : index to vector<128xindex>
            %73 = arith.addi %69, %72 : vector<128xindex>
            %74 = vector.shape_cast %71 : vector<128xindex> to vector<128x1xindex>
            %75 = vector.broadcast %74 : vector<128x1xindex> to vector<128x128xindex>
            %76 = vector.broadcast %73 : vector<128xindex> to vector<128x128xindex>
            %77 = vector.broadcast %26 : index to vector<128x128xindex>
            %78 = arith.cmpi slt, %76, %77 : vector<128x128xindex>
            %79 = arith.cmpi sle, %76, %75 : vector<128x128xindex>
            %80 = arith.andi %78, %79 : vector<128x128xi1>
            %81 = arith.select %80, %68, %cst : vector<128x128xi1>, vector<128x128xf32>
            %82 = arith.divf %cst_5, %41 : f32
            %83 = math.log2 %66 : vector<128xf32>
            %84 = vector.broadcast %82 : f32 to vector<128xf32>
            %85 = arith.mulf %83, %84 : vector<128xf32>
            %86 = vector.broadcast %85 : vector<128xf32> to vector<128x128xf32>
            %87 = arith.addf %81, %86 : vector<128x128xf32>
            %88 = vector.multi_reduction <maximumf>, %87, %cst_4 [1] : vector<128x128xf32> to vector<128xf32>
            %89 = arith.maximumf %arg15, %88 : vector<128xf32>
            %90 = arith.cmpf oeq, %89, %cst_4 : vector<128xf32>
            %91 = arith.select %90, %cst_3, %89 : vector<128xi1>, vector<128xf32>
            %92 = vector.broadcast %41 : f32 to vector<128x128xf32>
            %93 = arith.mulf %87, %92 : vector<128x128xf32>
            %94 = vector.broadcast %41 : f32 to vector<128xf32>
            %95 = arith.mulf %91, %94 : vector<128xf32>
            %96 = arith.subf %95, %cst_1 : vector<128xf32>
            %97 = vector.shape_cast %96 : vector<128xf32> to vector<128x1xf32>
            %98 = vector.broadcast %97 : vector<128x1xf32> to vector<128x128xf32>
            %99 = arith.subf %93, %98 : vector<128x128xf32>
            %100 = math.exp2 %99 : vector<128x128xf32>
            %101 = arith.subf %arg15, %91 : vector<128xf32>
            %102 = arith.mulf %101, %94 : vector<128xf32>
            %103 = math.exp2 %102 : vector<128xf32>
            %104 = arith.mulf %103, %arg16 : vector<128xf32>
            %105 = arith.divf %cst_0, %66 : vector<128xf32>
            %106 = vector.broadcast %105 : vector<128xf32> to vector<128x128xf32>
            %107 = arith.mulf %100, %106 : vector<128x128xf32>
            %108 = vector.multi_reduction <add>, %107, %cst_3 [1] : vector<128x128xf32> to vector<128xf32>
            %109 = arith.addf %104, %108 : vector<128xf32>
            %110 = arith.truncf %100 : vector<128x128xf32> to vector<128x128xf8E4M3FNUZ>
            %111 = fmha.tile_mma %110, %63, %cst_2 : vector<128x128xf8E4M3FNUZ>, vector<128x128xf8E4M3FNUZ> -> vector<128x128xf32>
            %112 = vector.shape_cast %103 : vector<128xf32> to vector<128x1xf32>
            %113 = vector.broadcast %112 : vector<128x1xf32> to vector<128x128xf32>
            %114 = arith.mulf %113, %arg17 : vector<128x128xf32>
            %115 = arith.addf %114, %111 : vector<128x128xf32>
            scf.yield %89, %109, %115 : vector<128xf32>, vector<128xf32>, vector<128x128xf32>
          } {fmha.descales_folded, fmha.kv_loop, fmha.masked_tiles}
          %53 = arith.cmpf oeq, %52#1, %cst_3 : vector<128xf32>
          %54 = arith.divf %cst_0, %52#1 : vector<128xf32>
          %55 = arith.select %53, %cst_3, %54 : vector<128xi1>, vector<128xf32>
          %56 = vector.shape_cast %55 : vector<128xf32> to vector<128x1xf32>
          %57 = vector.broadcast %56 : vector<128x1xf32> to vector<128x128xf32>
          %58 = arith.mulf %52#2, %57 : vector<128x128xf32>
          %59 = arith.truncf %58 : vector<128x128xf32> to vector<128x128xbf16>
          fmha.store_rows %59, %arg10[%14, %arg12] rows(%13) : vector<128x128xbf16>, memref<?x32x128xbf16>
        }
      }
    } {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7, page_regime = whole_pages, vd_route = exp2_bias>}
    return
  }
}

