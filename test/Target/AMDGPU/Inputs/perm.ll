; llvm.amdgcn.perm on constants (v-transpose-perm_gfx942.test): S0 holds
; bytes 4-7 (0x07060504), S1 bytes 0-3 (0x03020100), so each result byte
; shows which byte the selector picked. The same three cases are
; LaneRuntime's unit test (LaneRuntime.PermB32MatchesLLVM).
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.perm(i32, i32, i32)
define i32 @lo_pairs() {
  %r = call i32 @llvm.amdgcn.perm(i32 u0x07060504, i32 u0x03020100, i32 u0x05010400)
  ret i32 %r
}
define i32 @hi_pairs() {
  %r = call i32 @llvm.amdgcn.perm(i32 u0x07060504, i32 u0x03020100, i32 u0x07030602)
  ret i32 %r
}
define i32 @zero_and_ones() {
  %r = call i32 @llvm.amdgcn.perm(i32 u0x07060504, i32 u0x03020100, i32 u0x0c0d0700)
  ret i32 %r
}
