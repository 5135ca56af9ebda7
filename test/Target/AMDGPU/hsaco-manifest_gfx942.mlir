// REQUIRES: ld.lld
// serializeToHsaco (through fmha-elf-manifest --from-mlir) on a hand-written
// kernel, gfx942 (fp8 FNUZ MFMA): the code object, its symbols and notes, the
// manifest read back from the note, and the ISA.
//
// RUN: fmha-elf-manifest --from-mlir %s --chip gfx942 --toolkit %fmha_toolkit \
// RUN:   -o %t.hsaco --isa-out %t.s > %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: llvm-readelf -h %t.hsaco | FileCheck %s --check-prefix=HEADER
// RUN: llvm-readelf -s %t.hsaco | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-readelf --notes %t.hsaco > %t.notes
// RUN: FileCheck %s --check-prefix=NOTES < %t.notes
// RUN: %python %S/Inputs/compare_manifest.py %t.json %t.notes \
// RUN:   | FileCheck %s --check-prefix=SAME
// RUN: llvm-objdump -d --mcpu=gfx942 %t.hsaco | FileCheck %s --check-prefix=ISA
// RUN: FileCheck %s --check-prefix=ASM < %t.s
//
// Reading the written file gives the same manifest as the in-memory bytes.
// RUN: fmha-elf-manifest %t.hsaco | diff - %t.json
//
// The features reach the target id and the ELF flags.
// RUN: fmha-elf-manifest --from-mlir %s --chip gfx942 --features=+sramecc,-xnack \
// RUN:   --toolkit %fmha_toolkit -o %t.feat.hsaco | FileCheck %s --check-prefix=FEAT
// RUN: llvm-readelf -h %t.feat.hsaco | FileCheck %s --check-prefix=FEAT-HEADER

// HEADER: OS/ABI: AMDGPU - HSA
// HEADER: Machine: EM_AMDGPU
// HEADER: Flags: {{.*}}, gfx942, xnack, sramecc

// SYMBOLS-DAG: FUNC GLOBAL PROTECTED {{[0-9]+}} mfma_exp2_pack{{$}}
// SYMBOLS-DAG: OBJECT GLOBAL DEFAULT {{[0-9]+}} mfma_exp2_pack.kd{{$}}

// The manifest: args by position, then the resources.
// SAME:      kernel 0 arg 0: offset=0 size=8 value_kind=global_buffer address_space=global actual_access=read_only
// SAME-NEXT: kernel 0 arg 1: offset=8 size=8 value_kind=global_buffer address_space=global actual_access=write_only
// SAME-NEXT: kernel 0 arg 2: offset=16 size=4 value_kind=by_value
// SAME-NEXT: manifest == notes: 1 kernel(s), 3 arg(s)

// JSON:      "target": "amdgcn-amd-amdhsa--gfx942",
// JSON:      "name": "mfma_exp2_pack",
// JSON-NEXT: "symbol": "mfma_exp2_pack.kd",
// JSON:      "kernarg_segment_size": 20,
// JSON-NEXT: "kernarg_segment_align": 8,
// JSON-NEXT: "group_segment_fixed_size": 4096,
// JSON-NEXT: "private_segment_fixed_size": 0,
// JSON-NEXT: "sgpr_count": {{[0-9]+}},
// JSON-NEXT: "vgpr_count": {{[0-9]+}},
// JSON-NEXT: "agpr_count": 0,
// JSON-NEXT: "sgpr_spill_count": 0,
// JSON-NEXT: "vgpr_spill_count": 0,
// JSON-NEXT: "wavefront_size": 64,
// JSON-NEXT: "max_flat_workgroup_size": 256,
// JSON-NEXT: "reqd_workgroup_size": [
// JSON-NEXT:   256,
// JSON-NEXT:   1,
// JSON-NEXT:   1
// JSON-NEXT: ],
// JSON-NEXT: "derived": {
// JSON-NEXT:   "waves_per_simd_by_vgprs": 8,
// JSON-NEXT:   "rule": "gfx90a/gfx942/gfx950 wave64: min(8, floor(512 / alignTo(max(vgpr_count, 1), 8))); SGPR and LDS limits not counted"
// JSON-NEXT: }

// The same values straight from llvm-readelf.
// NOTES: NT_AMDGPU_METADATA
// NOTES-DAG: .group_segment_fixed_size: 4096
// NOTES-DAG: .private_segment_fixed_size: 0
// NOTES-DAG: .sgpr_spill_count: 0
// NOTES-DAG: .vgpr_spill_count: 0
// NOTES-DAG: .wavefront_size: 64
// NOTES-DAG: amdhsa.target: amdgcn-amd-amdhsa--gfx942

// ISA-LABEL: <mfma_exp2_pack>:
// ISA: v_mfma_f32_32x32x16_fp8_fp8
// ISA: s_barrier
// ISA: v_exp_f32
// ISA: v_cvt_pk_fp8_f32
// ISA: global_store_dword

// ASM-LABEL: mfma_exp2_pack:
// ASM: v_mfma_f32_32x32x16_fp8_fp8
// ASM: v_exp_f32
// ASM: v_cvt_pk_fp8_f32
// ASM: .amdhsa_group_segment_fixed_size 4096
// ASM: .amdhsa_private_segment_fixed_size 0

// FEAT: "target": "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-",
// FEAT-HEADER: Flags: {{.*}}, gfx942, xnack-, sramecc+

module attributes {gpu.container_module} {
  gpu.module @probe {
    // One fp8 MFMA, an LDS round trip through a 4 KiB workgroup attribution,
    // exp2 and the fp8 pack of two results, a guarded global store.
    gpu.func @mfma_exp2_pack(%in: !llvm.ptr<1> {llvm.noalias, llvm.readonly},
                             %out: !llvm.ptr<1> {llvm.noalias}, %n: i32)
        workgroup(%lds : memref<1024xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %tid = gpu.thread_id x
      %t = arith.index_cast %tid : index to i32
      %c1 = arith.constant 1 : i32
      %c4 = arith.constant 4 : i32
      %c8 = arith.constant 8 : i32
      %c16 = arith.constant 16 : i32
      %c255 = arith.constant 255 : i32
      %aoff = arith.muli %t, %c16 : i32
      %pa = llvm.getelementptr %in[%aoff] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      %pb = llvm.getelementptr %pa[%c8] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i8
      // Bytes, then a bitcast: an llvm.load of an fp8 vector crashes the
      // translation (docs/archive/GPU_LOWERING_STUDY.md appendix A).
      %ai = llvm.load %pa : !llvm.ptr<1> -> vector<8xi8>
      %bi = llvm.load %pb : !llvm.ptr<1> -> vector<8xi8>
      %a = arith.bitcast %ai : vector<8xi8> to vector<8xf8E4M3FNUZ>
      %b = arith.bitcast %bi : vector<8xi8> to vector<8xf8E4M3FNUZ>
      %zero = arith.constant dense<0.0> : vector<16xf32>
      %d = amdgpu.mfma 32x32x16 %a * %b + %zero {blocks = 1 : i32} blgp = none
          : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
      %d0 = vector.extract %d[0] : f32 from vector<16xf32>
      %d1 = vector.extract %d[1] : f32 from vector<16xf32>
      %i0 = arith.muli %t, %c4 : i32
      %i1 = arith.addi %i0, %c1 : i32
      %x0 = arith.index_cast %i0 : i32 to index
      %x1 = arith.index_cast %i1 : i32 to index
      memref.store %d0, %lds[%x0] : memref<1024xf32, #gpu.address_space<workgroup>>
      memref.store %d1, %lds[%x1] : memref<1024xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      // Read another lane's pair, so the LDS cannot be folded away.
      %r = arith.subi %c255, %t : i32
      %j0 = arith.muli %r, %c4 : i32
      %j1 = arith.addi %j0, %c1 : i32
      %y0i = arith.index_cast %j0 : i32 to index
      %y1i = arith.index_cast %j1 : i32 to index
      %y0 = memref.load %lds[%y0i] : memref<1024xf32, #gpu.address_space<workgroup>>
      %y1 = memref.load %lds[%y1i] : memref<1024xf32, #gpu.address_space<workgroup>>
      %e0 = rocdl.exp2 %y0 f32 -> f32
      %e1 = rocdl.exp2 %y1 f32 -> f32
      %old = arith.constant 0 : i32
      %p = rocdl.cvt.pk.fp8.f32 %e0, %e1 -> %old[false] : i32
      %inb = arith.cmpi ult, %t, %n : i32
      scf.if %inb {
        %po = llvm.getelementptr %out[%t] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, i32
        llvm.store %p, %po : i32, !llvm.ptr<1>
      }
      gpu.return
    }
  }
}
