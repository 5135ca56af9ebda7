// fmha-lanes-to-host refuses what it has no semantics for, naming the op,
// before it changes anything.
// RUN: fmha-opt %s --split-input-file --fmha-lanes-to-host --verify-diagnostics

// expected-error @+1 {{fmha-lanes-to-host: no gpu.module to emulate (run convert-fmha-to-gpu first)}}
module {
  func.func @f() { return }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%v: i1) kernel {
      // expected-error @+1 {{fmha-lanes-to-host (gfx942): the lane emulator has no semantics for 'rocdl.ballot'}}
      %b = rocdl.ballot %v : i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90">] {
    gpu.func @k(%v: f32) kernel {
      // expected-error @+1 {{the lane emulator has no semantics for inline assembly 'tanh.approx.f32 $0, $1;'}}
      %t = llvm.inline_asm asm_dialect = att "tanh.approx.f32 $0, $1;", "=f,f" %v : (f32) -> f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k() kernel {
      %a = arith.constant dense<0.5> : vector<8xf8E4M3FNUZ>
      %c = arith.constant dense<0.0> : vector<16xf32>
      // expected-error @+1 {{the lane emulator has no semantics for an MFMA with blocks, broadcast, permute or negate modifiers}}
      %d = amdgpu.mfma 32x32x16 %a * %a + %c {cbsz = 1 : i32} blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%v: i64) kernel {
      %c = arith.constant 1 : i32
      %w = arith.constant 64 : i32
      // expected-error @+1 {{the lane emulator has no semantics for a shuffle of a non-32-bit value}}
      %s, %ok = gpu.shuffle xor %v, %c, %w : i64
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @host(%x: i32) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{fmha-lanes-to-host: kernel operands must be pointers or i64 (the flat ABI), got 'i32'}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : i32)
    return
  }
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%x: i32) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{fmha-lanes-to-host: expected one target on the gpu.module}}
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

// check-bounds (the default) guards loads and stores only: another access of
// a memref is refused (check-bounds=false emulates it unchecked).
module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k() workgroup(%lds : memref<64xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      // expected-error @+1 {{fmha-lanes-to-host (gfx942): check-bounds has no guard for the memory access of 'memref.atomic_rmw' (check-bounds=false emulates it unchecked)}}
      %r = memref.atomic_rmw addf %f, %lds[%c0] : (f32, memref<64xf32, #gpu.address_space<workgroup>>) -> f32
      gpu.return
    }
  }
}

// -----

// A wgmma the runtime has no shape for (N = 7) is refused like any asm.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @k(%a: i32, %d: i64) kernel {
      // expected-error @+1 {{the lane emulator has no semantics for inline assembly}}
      %rs = llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n7k32.f32.e4m3.e4m3 {$0, $1, $2}, {$3, $4, $5, $6}, $7, p, 1, 1;\0A}", "=f,=f,=f,r,r,r,r,l" %a, %a, %a, %a, %d : (i32, i32, i32, i32, i64) -> !llvm.struct<(f32, f32, f32)>
      gpu.return
    }
  }
}

// -----

// A raw buffer without validBytes: its bound would come from the view's
// sizes, which the emulator does not model.
module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%m: memref<64xi8, 1>) kernel {
      // expected-error @+1 {{the lane emulator has no semantics for a fat_raw_buffer_cast without validBytes}}
      %b = amdgpu.fat_raw_buffer_cast %m : memref<64xi8, 1> to memref<64xi8, #amdgpu.address_space<fat_raw_buffer>>
      %c0 = arith.constant 0 : index
      %v = vector.load %b[%c0] : memref<64xi8, #amdgpu.address_space<fat_raw_buffer>>, vector<16xi8>
      gpu.return
    }
  }
}

// -----

// A raw buffer used other than by loads (a store: the emulator gives only
// the range check of loads).
module attributes {gpu.container_module} {
  gpu.module @kernels [#rocdl.target<chip = "gfx942">] {
    gpu.func @k(%m: memref<64xi8, 1>, %n: i64) kernel {
      // expected-error @+1 {{the lane emulator has no semantics for a fat_raw_buffer_cast used other than by loads}}
      %b = amdgpu.fat_raw_buffer_cast %m validBytes(%n) : memref<64xi8, 1> to memref<64xi8, #amdgpu.address_space<fat_raw_buffer>>
      %c0 = arith.constant 0 : index
      %v = arith.constant dense<0> : vector<16xi8>
      vector.store %v, %b[%c0] : memref<64xi8, #amdgpu.address_space<fat_raw_buffer>>, vector<16xi8>
      gpu.return
    }
  }
}

// -----

// mbarrier.test.wait (a non-blocking test a kernel would spin on) has no
// emulation: the emulated wait is try_wait.parity.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @k(%p: !llvm.ptr<3>, %s: i64) kernel {
      // expected-error @+1 {{fmha-lanes-to-host (sm_90a): the lane emulator has no semantics for 'nvvm.mbarrier.test.wait'}}
      %done = nvvm.mbarrier.test.wait %p, %s : !llvm.ptr<3>, i64 -> i1
      gpu.return
    }
  }
}

// -----

// A barrier with a reduction (bar.red) is not modelled.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @k(%v: i32) kernel {
      // expected-error @+1 {{the lane emulator has no semantics for nvvm.barrier with a reduction}}
      %r = nvvm.barrier #nvvm.reduction<popc> %v -> i32
      gpu.return
    }
  }
}

// -----

// elect.sync among part of the warp (a member mask) is not modelled.
module attributes {gpu.container_module} {
  gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
    gpu.func @k(%m: i32) kernel {
      // expected-error @+1 {{the lane emulator has no semantics for elect.sync with a member mask}}
      %e = nvvm.elect.sync %m -> i1
      gpu.return
    }
  }
}
