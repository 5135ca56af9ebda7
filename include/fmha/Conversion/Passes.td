//===- Passes.td - fmha conversion passes ------------------*- tablegen -*-===//
#ifndef FMHA_CONVERSION_PASSES_TD
#define FMHA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertFmhaToHost : Pass<"convert-fmha-to-host"> {
  let summary = "Lower the tile-level fmha ops to loops for the CPU";
  let description = [{
    Rewrites the tiled form's tile ops into upstream scf/vector/memref/arith
    ops that the CPU pipeline (fmha-to-host-pipeline) lowers to LLVM:

    - `fmha.load_rows`, `fmha.gather_kv`: one guarded `vector.load` per row
      (rows past the valid count are zero and never read), assembled with
      static `vector.insert`s.
    - `fmha.page_ids`, `fmha.gather_descale`: guarded scalar loads.
    - `fmha.store_rows`: one guarded `vector.store` (or scalar store) per row.
    - `fmha.tile_mma`: operands widened to f32 and written to stack buffers
      allocated once at the function entry; loops of row dot products (Q x K^T) or row
      AXPYs (P x V) accumulate in f32.

    Before:
    ```mlir
    %s = fmha.tile_mma %q, %k, %acc {transpose_rhs}
        : vector<16x128xf8E4M3FNUZ>, vector<32x128xf8E4M3FNUZ> -> vector<16x32xf32>
    ```
    After (sketch):
    ```mlir
    %a = memref.alloca() : memref<16x128xf32>   // at the function entry
    ...
    vector.transfer_write %qf32, %a[...]        // extf(q)
    scf.for %i ... { scf.for %j ... { vector.reduction <add> ... } }
    %s = vector.transfer_read %c[...] : memref<16x32xf32>, vector<16x32xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"
  ];
}


def OutlineKernel : Pass<"fmha-outline-kernel", "::mlir::ModuleOp"> {
  let summary = "Outline the tiled grid as a GPU kernel with the flat ABI";
  let description = [{
    docs/GPU_LOWERING.md, "fmha-outline-kernel": every grid fmha-tile wrote (an
    `scf.forall` carrying `fmha.config`) becomes a `gpu.func` kernel in
    `gpu.module @fmha_kernels` with the chip's target attribute and kernel
    attributes (`known_block_size`; on AMDGPU `rocdl.waves_per_eu = 2` and
    `denormal_fp_math_f32`) and keeps `fmha.config`; the host function
    launches it with
    `gpu.launch_func` over (q tiles, query heads, sequences) blocks of
    warps x wave_size threads. `gpu.block_id x/y/z` replace the grid's
    induction variables; no `gpu.block_dim` / `gpu.grid_dim` is used (on
    AMDGPU they need device libraries). Values the grid captures become
    kernel arguments (constants are cloned in): the function's arguments in
    their order, then values computed in the function.

    The kernel has the flat ABI: each memref is one `!llvm.ptr<1>` and one
    i64 per dynamic size (then, for a strided layout, its dynamic offset and
    strides), rebuilt into a memref at the top of the entry block (an LLVM
    descriptor struct through `unrealized_conversion_cast`, fp8 elements as
    i8, address space 1); other values are passed as they are. The launch
    passes the same flat values (`extract_aligned_pointer_as_index`,
    `memref.dim`, `extract_strided_metadata`). The kernel's `fmha.abi`
    records, per argument, the function argument it comes from (`operand`),
    its name (the argument's `fmha.operand_name`, which buildRequestModule
    sets, else `argN`; `hostK` for a value computed in the function) and the
    part (`pointer`, `size`, `offset`, `stride` with `dim`, or `value`);
    `fmha-compile`'s manifest and the launchers read that record
    (include/fmha/Conversion/OutlineKernel/KernelAbi.h).

    The tile ops stay in the body for convert-fmha-to-gpu. Every grid is
    checked before anything is rewritten: a config of another chip or wave
    size, a grid that is not a 3-d `scf.forall` without outputs, or a memref
    that is not strided is an error naming the rule, and the module is left
    as it was.

    Before:
    ```mlir
    func.func @f(%q: memref<?x32x128xf8E4M3FNUZ> {fmha.operand_name = "q"}, ...) {
      scf.forall (%qt, %h, %b) in (%n, 32, %B) { ...tile ops... } {fmha.config = #fmha.config<chip = "gfx942", ...>}
    }
    ```
    After:
    ```mlir
    module attributes {gpu.container_module} {
      gpu.module @fmha_kernels [#rocdl.target<chip = "gfx942">] {
        gpu.func @f_kernel(%qp: !llvm.ptr<1>, %qn: i64, ...) kernel attributes {
            fmha.abi = [{name = "q", operand = 0 : i64, part = "pointer"},
                        {dim = 0 : i64, name = "q", operand = 0 : i64, part = "size"}, ...],
            fmha.config = #fmha.config<...>, known_block_size = array<i32: 256, 1, 1>, ...} {
          ... llvm.insertvalue ... : !llvm.struct<(ptr<1>, ptr<1>, i64, array<3 x i64>, array<3 x i64>)>
          %q = builtin.unrealized_conversion_cast %d : !llvm.struct<...> to memref<?x32x128xi8, 1>
          %qt = gpu.block_id x
          ...tile ops...
          gpu.return
        }
      }
      func.func @f(...) {
        gpu.launch_func @fmha_kernels::@f_kernel blocks in (%n, %c32, %B) threads in (%c256, %c1, %c1) args(%qp : !llvm.ptr<1>, %qn : i64, ...)
      }
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target: gfx942, gfx950 or sm_90">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "sm_90a: the producer's K/V stages (fmha.stage_kv in "
           "fmha.warp_roles whose V fmha.stage_transpose rewrites) by TMA "
           "where every stage's pages allow it; the kernel then takes one "
           "tensor map per cache">,
    Option<"tmaMinBoxRows", "tma-min-box-rows", "int64_t", /*default=*/"8",
           "with tma: the fewest rows a box (gcd(page size, tile rows)) may "
           "have for the kernel to take TMA (at least 8, the swizzle atom)">,
    Option<"tmaStagedMinBoxRows", "tma-staged-min-box-rows", "int64_t", /*default=*/"8",
           "with tma: the same where the producer also stages the descales "
           "(fmha.stage_descale)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect"];
}


def ConvertFmhaToGPU : Pass<"convert-fmha-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower the tile ops of outlined kernels to one lane's code (a 1:N conversion)";
  let description = [{
    The lane lowering (docs/GPU_LOWERING.md, "The lane lowering"), on the
    kernels fmha-outline-kernel wrote (each `gpu.func` carrying `fmha.config`
    in `gpu.module @fmha_kernels`, with the flat ABI): the body goes from
    whole-tile vectors to the code of one lane through the chip's TargetInfo,
    following the decisions `fmha.config` carries (k_step, page_regime,
    vd_route, pv_group). Per kernel: the lane layout of the chip's MMA
    (LaneLayout) and the form of every vector value (LaneForms) are computed
    first, and a value or op the lowering does not take is an error on it
    naming the rule (e.g. 16-bit Q); LDS barriers are placed on the tile ops;
    then a 1:N dialect conversion (a context-aware type converter from the
    forms, the memory / MMA / elementwise pattern families and upstream's
    structural scf conversion for the loop state) gives MMA atoms
    (`amdgpu.mfma`, inline `mma.sync`), K and V tiles staged in LDS / shared
    memory (workgroup attributions; V transposed), row reductions across
    lanes, and fp8 P packed straight from the score accumulators. The memrefs
    the outline pass rebuilt at the top of the entry block take the global
    byte view (fp8 as i8, address space 1); the kernel's arguments, its
    `fmha.abi` record and the launch stay as they are. Before any kernel is
    rewritten every kernel is checked: one outlined for another chip, a K/V
    cache that is not fp8 (the chips' MMAs take fp8 only), a k step / fp8
    type the chip's MMA does not take, or K and V tiles larger than one
    workgroup's LDS / shared memory is an error naming the rule. A grid that
    was not outlined is an error too. A module without kernels is left
    alone.

    Before:
    ```mlir
    gpu.func @f_kernel(%qp: !llvm.ptr<1>, %qn: i64, ...) kernel attributes {fmha.abi = [...], fmha.config = #fmha.config<...>, ...} {
      %q = builtin.unrealized_conversion_cast %d : !llvm.struct<...> to memref<?x32x128xi8, 1>
      %qt = gpu.block_id x
      %s = fmha.tile_mma %qtile, %k, %acc {transpose_rhs} : ...
      ...
    }
    ```
    After (sketch, gfx942):
    ```mlir
    gpu.func @f_kernel(%qp: !llvm.ptr<1>, %qn: i64, ...) workgroup(%lds_k : memref<16384xi8, #gpu.address_space<workgroup>>, ...) kernel attributes {...} {
      %q = builtin.unrealized_conversion_cast %d : !llvm.struct<...> to memref<?x32x128xi8, 1>
      %tid = gpu.thread_id x
      %w = rocdl.readfirstlane ...
      %acc1 = amdgpu.mfma 32x32x16 %a * %b + %acc0 ... : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
      ...
    }
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "Target: gfx942, gfx950 or sm_90">,
    Option<"ldsBankSwizzle", "lds-bank-swizzle", "bool", /*default=*/"false",
           "AMDGPU: stage the K and V tiles the lanes write chunk-major (16-byte "
           "column chunks of consecutive rows contiguous: conflict-free LDS "
           "reads; V^T's k steps in pairs)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::ROCDL::ROCDLDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::LLVM::LLVMDialect", "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect", "::mlir::nvgpu::NVGPUDialect"];
}


def ConvertLanesToHost : Pass<"fmha-lanes-to-host", "::mlir::ModuleOp"> {
  let summary = "Make the lane-level GPU kernel a host function run once per lane (the lane emulator)";
  let description = [{
    The CPU execution of the kernel that convert-fmha-to-gpu emits
    (docs/LANE_EMULATOR.md). Each `gpu.func` kernel of the module's
    `gpu.module` becomes a `func.func` with the same flat ABI that the lane
    runtime calls once per lane of every workgroup, each lane a coroutine;
    the host function's `gpu.launch_func` becomes a call of the runtime's
    launch. What a lane cannot compute alone becomes a runtime call that
    meets the other lanes of its wave (MMA, shuffles, readfirstlane) or of
    its workgroup (barrier):
    - `gpu.thread_id` / `gpu.block_id`: `fmha_lane_id`;
    - `gpu.barrier`: `fmha_lane_barrier`;
    - `gpu.shuffle`, `rocdl.readfirstlane`: `fmha_lane_shuffle`,
      `fmha_lane_readfirstlane`;
    - `amdgpu.mfma` and the inline-PTX `mma.sync.m16n8k32`: `fmha_lane_mma`
      (the operands through stack slots; the runtime assembles the wave's
      matrices from the vendors' documented fragment layouts);
    - `rocdl.cvt.pk.fp8.f32` and inline `cvt.rn.satfinite.*x2.f32`: fp8
      packing, bit-exact; `rocdl.exp2` / `rocdl.log` and inline
      `ex2.approx.ftz.f32` / `lg2.approx.ftz.f32`: the hardware's flush of
      denormals, correctly rounded otherwise;
    - workgroup attributions: one buffer per workgroup from
      `fmha_lane_shared`, filled with 0x7F bytes so an unwritten read shows;
    - `amdgpu.sched_barrier`: dropped (scheduling only).
    Every call site carries an id; lanes of one wave meeting at different
    sites is reported as divergence. Any other gpu/amdgpu/rocdl/nvvm op, or
    inline assembly it does not know, is an error that names it.

    With `check-bounds` (the default) every memory access of the kernel is
    guarded: each index of a `memref.load` / `memref.store` must lie in
    [0, dim), and each of the last n indices of an n-D `vector.load` /
    `vector.store` must satisfy 0 <= i and i + length <= dim, on the
    memref's own dims (a subview's sizes, a workgroup buffer's static
    shape, the host's sizes of a global tensor); the access runs in an
    `scf.if` on that. A `memref.subview` must lie in its source. On a
    violation the lane calls `fmha_lane_out_of_bounds(site, index, bound,
    dim)` (the first out-of-range dim, its index and size), the access is
    skipped (a load yields zero, a store writes nothing; an out-of-range
    subview becomes empty in its dynamic offsets and sizes) and the lane goes
    on; the runtime reports the first violation, naming the workgroup, lane
    and site, and fmha-run exits 3. An access in range by construction is
    left alone. The access sites are numbered after the wave-op sites. A
    kernel that accesses memory through any other op (vector.transfer_read,
    vector.maskedload, memref.atomic_rmw, llvm.load, ...) is an error with
    check-bounds; `check-bounds=false` emulates it unchecked.
    Before:
    ```mlir
    gpu.module @fmha_kernels [#rocdl.target<chip = "gfx942">] {
      gpu.func @k(%a: !llvm.ptr<1>, %n: i64) workgroup(%lds : memref<4096xi8, #gpu.address_space<workgroup>>) kernel {
        %d = amdgpu.mfma 32x32x16 %x * %y + %c blgp = none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
        gpu.barrier
        gpu.return
      }
    }
    func.func @f(...) { gpu.launch_func @fmha_kernels::@k blocks in (...) threads in (...) args(...) }
    ```
    After (sketch):
    ```mlir
    func.func @k(%a: !llvm.ptr<1>, %n: i64) {
      %p = call @fmha_lane_shared(%c0, %c4096) : (i32, i64) -> !llvm.ptr
      ... llvm.store %x, %slotA ...
      call @fmha_lane_mma(%site, %kind, %slotA, %slotB, %slotC, %slotD) : (...) -> ()
      call @fmha_lane_barrier(%site1) : (i32) -> ()
      // check-bounds: %v = memref.load %m[%i] : memref<?xi32, 1> becomes
      %ok = arith.cmpi ult, %i, %dim : index
      %v = scf.if %ok -> (i32) {
        %l = memref.load %m[%i] : memref<?xi32, 1>
        scf.yield %l : i32
      } else {
        call @fmha_lane_out_of_bounds(%site2, %i64, %dim64, %c0_i32) : (i32, i64, i64, i32) -> ()
        scf.yield %c0 : i32
      }
      return
    }
    func.func @k_lanes(%args: !llvm.ptr) { ... call @k(...) }
    func.func @f(...) { call @fmha_lane_launch(%entry, %gx, %gy, %gz, %bx, %by, %bz, %args, %wave) }
    ```
  }];
  let options = [
    Option<"checkBounds", "check-bounds", "bool", /*default=*/"true",
           "guard every memref/vector load and store (and subview) of the "
           "kernel: an index outside its dim is reported through "
           "fmha_lane_out_of_bounds and the access skipped">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"];
}

#endif // FMHA_CONVERSION_PASSES_TD
