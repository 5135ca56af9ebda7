// Each GPU pipeline takes chips of its own vendor only (the chip table,
// fmha/Support/Chips.h). Another vendor's chip, the host pseudo-chip or an
// unknown chip is one error line naming the rule, before any pass runs: no IR
// is printed and fmha-opt exits non-zero.
//
// RUN: not fmha-opt %s --fmha-to-nvvm-pipeline=chip=gfx942 2>&1 | FileCheck %s --check-prefix=NV-AMD
// RUN: not fmha-opt %s --fmha-to-nvvm-pipeline=chip=host 2>&1 | FileCheck %s --check-prefix=NV-HOST
// RUN: not fmha-opt %s --fmha-to-nvvm-pipeline=chip=sm_80 2>&1 | FileCheck %s --check-prefix=NV-UNKNOWN
// RUN: not fmha-opt %s --fmha-to-rocdl-pipeline=chip=sm_90 2>&1 | FileCheck %s --check-prefix=ROCDL-NV
// RUN: not fmha-opt %s --fmha-to-rocdl-pipeline=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=ROCDL-UNKNOWN
//
// Without chip= each pipeline takes its vendor's default (gfx942 / sm_90):
// the default request (OCP fp8 for sm_90) goes all the way to the binary.
// RUN: sed s/FNUZ/FN/g %fmha_src_root/examples/default_request.mlir | fmha-opt --fmha-to-nvvm-pipeline | FileCheck %s --check-prefix=NV-DEFAULT
// RUN: fmha-opt %fmha_src_root/examples/default_request.mlir --fmha-to-rocdl-pipeline=format=isa | FileCheck %s --check-prefix=ROCDL-DEFAULT

// NV-AMD: fmha-to-nvvm-pipeline: chip 'gfx942' is an AMDGPU chip; expected an NVIDIA chip (sm_90 or sm_90a)
// NV-AMD-NOT: module
// NV-HOST: fmha-to-nvvm-pipeline: chip 'host' is the host pseudo-chip; expected an NVIDIA chip (sm_90 or sm_90a)
// NV-UNKNOWN: fmha-to-nvvm-pipeline: unknown chip 'sm_80'; expected an NVIDIA chip (sm_90 or sm_90a)
// ROCDL-NV: fmha-to-rocdl-pipeline: chip 'sm_90' is an NVIDIA chip; expected an AMDGPU chip (gfx942 or gfx950)
// ROCDL-NV-NOT: module
// ROCDL-UNKNOWN: fmha-to-rocdl-pipeline: unknown chip 'gfx1100'; expected an AMDGPU chip (gfx942 or gfx950)

// NV-DEFAULT: gpu.binary @fmha_kernels [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx84">
// ROCDL-DEFAULT: gpu.binary @fmha_kernels [#gpu.object<#rocdl.target<chip = "gfx942">

module {
}
