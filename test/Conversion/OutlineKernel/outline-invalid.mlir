// RUN: not fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-select-config=chip=host --fmha-tile --fmha-outline-kernel=chip=gfx942 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not fmha-opt %s --fmha-outline-kernel=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=CHIP

// A grid tiled for another chip is not outlined.
// HOST: was tiled for chip 'host' but fmha-outline-kernel targets 'gfx942'

// An unknown chip is named.
// CHIP: fmha-outline-kernel: unknown chip 'gfx1100'; expected gfx942, gfx950, sm_90 or sm_90a

// The rules broken below are named on the grid, and a module without an fmha
// grid is left alone (no gpu.module appears).
// RUN: fmha-opt %s --fmha-outline-kernel=chip=gfx942 -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=NONE
// NONE-LABEL: func @negative_no_grid
// NONE-NOT: gpu.module
func.func @negative_no_grid(%x: f32) -> f32 {
  return %x : f32
}

// -----

// Not the grid's shape: 2-d.
func.func @negative_rank(%q: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{fmha grid must be a 3-d scf.forall without outputs}}
  scf.forall (%i, %j) in (4, 2) {
    %x = memref.load %q[%i, %j] : memref<?x4xf32>
    memref.store %x, %q[%j, %i] : memref<?x4xf32>
  } {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>}
  return
}

// -----

// A config for another wave size than the chip's.
func.func @negative_wave(%q: memref<?x4xf32>) {
  // expected-error @+1 {{config wave_size 32 differs from gfx942's 64}}
  scf.forall (%i, %j, %k) in (4, 2, 1) {
    %x = memref.load %q[%i, %j] : memref<?x4xf32>
    memref.store %x, %q[%j, %i] : memref<?x4xf32>
  } {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 32, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>}
  return
}

// -----

// The flat ABI describes strided memrefs only. The first grid is fine, but
// nothing is outlined when one grid fails.
func.func @negative_not_strided(%q: memref<?x4xf32>,
                                %m: memref<8x4xf32, affine_map<(d0, d1) -> (d0 mod 4, d1)>>) {
  scf.forall (%i, %j, %k) in (4, 2, 1) {
    %x = memref.load %q[%i, %j] : memref<?x4xf32>
    memref.store %x, %q[%j, %i] : memref<?x4xf32>
  } {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>}
  // expected-error @+1 {{fmha-outline-kernel: kernel memrefs must be strided, not 'memref<8x4xf32, affine_map<(d0, d1) -> (d0 mod 4, d1)>>'}}
  scf.forall (%i, %j, %k) in (4, 2, 1) {
    %x = memref.load %m[%i, %j] : memref<8x4xf32, affine_map<(d0, d1) -> (d0 mod 4, d1)>>
    memref.store %x, %q[%j, %i] : memref<?x4xf32>
  } {fmha.config = #fmha.config<chip = "gfx942", block_m = 128, block_n = 128, k_step = 16, warps = 4, wave_size = 64, mma_m = 32, mma_n = 32, p_type = f8E4M3FNUZ, shift = 7>}
  return
}
