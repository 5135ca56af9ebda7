//===- Passes.td - fmha passes not tied to the fmha dialect -*- tablegen -*-===//
#ifndef FMHA_TRANSFORMS_PASSES_TD
#define FMHA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ExpandFp8ArithPass : Pass<"fmha-expand-fp8-arith"> {
  let summary = "Expand fp8 arith.extf / arith.truncf into integer bit operations";
  let description = [{
    MLIR 22 cannot run `arith.extf` from, or `arith.truncf` to, the fp8 types
    on the CPU: `convert-arith-to-llvm` leaves them in place (LLVM has no fp8
    IR type; the LLVM type converter maps every fp8 type to `i8`). This pass
    rewrites them into `arith` integer ops (bitcast, shifts, masks, adds,
    compares, selects, `uitofp` of a 3-bit integer), which lower to LLVM on any
    target. It handles f8E4M3FN, f8E4M3FNUZ, f8E5M2 and f8E5M2FNUZ, on scalars
    and on vectors of any shape (the same ops on the vector type, elementwise);
    `extf` to f16, bf16, f32 and f64, and `truncf` from those four. Other ops
    are left alone.

    | type       | bias | largest finite   | NaN codes        | inf       | -0  |
    |------------|------|------------------|------------------|-----------|-----|
    | f8E4M3FN   | 7    | 448 (0x7E)       | 0x7F, 0xFF       | none      | yes |
    | f8E4M3FNUZ | 8    | 240 (0x7F)       | 0x80             | none      | no  |
    | f8E5M2     | 15   | 57344 (0x7B)     | 0x7D-7F, 0xFD-FF | 0x7C/0xFC | yes |
    | f8E5M2FNUZ | 16   | 57344 (0x7F)     | 0x80             | none      | no  |

    `extf` is exact, bit for bit what `llvm::APFloat::convert` gives: a NaN
    becomes a quiet NaN that keeps the sign and the payload shifted up (f8E4M3FN
    0x7F -> f32 0x7FF00000); the FNUZ NaN 0x80 becomes the positive quiet NaN
    (f32 0x7FC00000); f8E5M2 +-inf stays +-inf.

    `truncf` rounds to nearest, ties to even, once (an f64 source is rounded
    from its own bits, not through f32), with subnormals exact. It saturates
    like the GPU kernels' fp8 converts (satfinite), which is where it differs
    from APFloat:
    - a finite value whose rounded magnitude exceeds the largest finite value
      becomes +-max (APFloat: NaN, or inf for f8E5M2);
    - +-inf becomes +-max for the three formats without inf; for f8E5M2 it
      stays +-inf (0x7C / 0xFC) unless `saturate-inf` is set (then +-max, as
      the reference codec's `Overflow::Saturate` does);
    - NaN becomes the canonical quiet NaN of the format, with the input's sign
      where the format has a signed NaN: 0x7F / 0xFF for f8E4M3FN, 0x7E / 0xFE
      for f8E5M2 (payload dropped); 0x80 for the FNUZ formats;
    - the FNUZ formats have no negative zero: -0.0 and negative values that
      round to zero give 0x00.
    A `truncf` with a rounding mode other than `to_nearest_even` is left alone.
    Fast-math flags are ignored (the expansion never changes a value's class).

    Before:
    ```mlir
    %y = arith.truncf %x : vector<8xf32> to vector<8xf8E4M3FN>
    %z = arith.extf %y : vector<8xf8E4M3FN> to vector<8xf32>
    ```
    After (sketch, constants are splats):
    ```mlir
    %b    = arith.bitcast %x : vector<8xf32> to vector<8xi32>
    %abs  = arith.andi %b, %c0x7FFFFFFF : vector<8xi32>
    // normal range: rebias by 127 - 7, add 0x7FFFF + lsb, shift right by 20
    // subnormal range: (1.m) >> (141 - exponent), ties to even
    %mag  = arith.minui %r, %c0x7E : vector<8xi32>   // saturate to 448
    // select inf / NaN, trunci to i8, or in the sign bit
    %y    = arith.bitcast %code : vector<8xi8> to vector<8xf8E4M3FN>
    %c    = arith.bitcast %y : vector<8xf8E4M3FN> to vector<8xi8>
    // exponent + (127 - 7) and mantissa << 20; subnormals through
    // uitofp(mantissa) with the exponent field moved by -9; NaN selected
    %z    = arith.bitcast %bits : vector<8xi32> to vector<8xf32>
    ```

    `arith.constant` of fp8 values needs no expansion: `convert-arith-to-llvm`
    turns it into an `i8` (vector) `llvm.mlir.constant` that translates to the
    right bytes. Loads, stores, shuffles, broadcasts and other moves of fp8
    values lower as `i8` after `convert-vector-to-llvm` /
    `finalize-memref-to-llvm`. Arithmetic on fp8 (addf, mulf, cmpf, ...) is not
    handled: extend first.
  }];
  let options = [
    Option<"saturateInf", "saturate-inf", "bool", /*default=*/"false",
           "Also saturate +-inf to +-max for f8E5M2 (the other formats always do)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def ExpandTanhPass : Pass<"fmha-expand-tanh"> {
  let summary = "Write math.tanh on f32 as math.exp2 and arith ops (the soft cap on a GPU)";
  let description = [{
    The soft cap `cap * tanh(s / cap)` is the only tanh of a kernel. The GPU
    lowerings take `math.exp2` (the chip's exp2 instruction) and elementwise
    `arith`, and no device library, so this pass writes every f32 `math.tanh`
    (scalar or vector, any shape) as

    ```
    e = exp2(2 log2(e) x)
    tanh(x) = 1 - 2 / (1 + e)
    ```

    five ops, no compare or select: for large x, e = +inf and 2 / inf = 0
    (exactly 1); for large -x, e = 0 (exactly -1); NaN stays NaN. Near 0 the
    error is absolute, about 1-2 ulp of 1 (1 - 2 / (1 + e) cancels), which
    the cap scales: 30 * 2.4e-7 = 7e-6 on a logit. The division carries
    `arcp` and `afn` (a reciprocal, not the IEEE sequence; the chips' rcp of
    +inf is 0). Other element types are left alone.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def SharedToDynamicPass : Pass<"fmha-shared-to-dynamic"> {
  let summary = "Place a module's workgroup (address space 3) globals in one dynamic shared memory block";
  let description = [{
    CUDA allows a kernel 48 KiB of static shared memory (`.shared` arrays in
    the PTX); more must be dynamic: one `.extern .shared` array whose size
    the launcher passes (`sharedMemBytes`, and
    `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` above 48 KiB). This pass
    runs on the LLVM dialect after `convert-gpu-to-nvvm`, which turns each
    `gpu.func` workgroup attribution into an internal `llvm.mlir.global` in
    address space 3. It lays those globals out one after the other in the
    order they are declared, each at the next multiple of its alignment (16
    when it has none), replaces every `llvm.mlir.addressof` of one with a
    byte offset (`llvm.getelementptr inbounds`) into a single external
    global `@fmha_dynamic_shared` (`!llvm.array<0 x i8>`, address space 3,
    aligned to the largest alignment, at least 16), and erases them.
    `sharedLayout` (include/fmha/Transforms/Passes.h) gives the same offsets
    and total, so the manifest states the bytes a launcher passes
    (`"dynamic_shared_bytes"`, docs/ABI.md). A global with an initializer,
    or a non-array one, is an error. With `min-bytes` N the module is left
    as it is when the layout's total is at most N (the NVVM back half
    passes 49152: static shared memory up to CUDA's 48 KiB, dynamic above).

    Before:
    ```mlir
    llvm.mlir.global internal @__wg_k_0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<8192 x i8>
    llvm.mlir.global internal @__wg_k_1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<100 x i8>
    %0 = llvm.mlir.addressof @__wg_k_1 : !llvm.ptr<3>
    ```
    After:
    ```mlir
    llvm.mlir.global external @fmha_dynamic_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    %b = llvm.mlir.addressof @fmha_dynamic_shared : !llvm.ptr<3>
    %0 = llvm.getelementptr inbounds %b[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
    ```
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"0",
           "Leave the globals static when their layout takes at most this many bytes">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GridConstantTensorMapsPass : Pass<"fmha-grid-constant-tensormaps"> {
  let summary = "Pass a kernel's tensor-map arguments by value as __grid_constant__ parameters";
  let description = [{
    A kernel that copies by TMA (fmha-outline-kernel `tma`) takes one CUDA
    tensor map per cache, a `!llvm.ptr` argument whose entry in the
    kernel's `fmha.abi` record (KernelAbi.h) has part "tensormap" (the
    `gpu.func` verifier does not take `llvm.byval` or `nvvm.grid_constant`,
    so they come after convert-gpu-to-nvvm, which keeps the record). This
    pass runs on the LLVM dialect: every such `llvm.func` argument gets
    `{llvm.byval = !llvm.array<128 x i8>, llvm.align = 64,
    nvvm.grid_constant}`, so the PTX parameter is
    `.param .align 64 .b8 NAME[128]` holding the map itself (docs/ABI.md,
    "tensor-map arguments") and the TMA instruction reads it through the
    parameter's generic address. An entry whose argument is not a pointer
    is an error.

    Before:
    ```mlir
    llvm.func @k(%p: !llvm.ptr<1>, %m: !llvm.ptr) attributes {fmha.abi = [{name = "k_cache", operand = 1 : i64, part = "pointer"}, {name = "k_cache", operand = 1 : i64, part = "tensormap", dims = [3, 1, 2, 0], ...} ], nvvm.kernel}
    ```
    After:
    ```mlir
    llvm.func @k(%p: !llvm.ptr<1>, %m: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}) attributes {fmha.abi = [...], nvvm.kernel}
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // FMHA_TRANSFORMS_PASSES_TD
