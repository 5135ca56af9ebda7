// Input of ping-pong.mlir: an S in a KV loop of warp roles whose bound is
// the same for every consumer, and two whose loop bound or guard depends on
// the consumer index.
func.func @same_bound(%q: vector<64x128xf8E4M3FN>, %k: vector<128x128xf8E4M3FN>, %n: index) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
  } consumer(%c) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant dense<0.0> : vector<64x128xf32>
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (vector<64x128xf32>) {
      %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<64x128xf8E4M3FN>, vector<128x128xf8E4M3FN> -> vector<64x128xf32>
      %t = arith.addf %a, %s : vector<64x128xf32>
      scf.yield %t : vector<64x128xf32>
    } {fmha.kv_loop}
  }
  return
}
func.func @per_consumer_bound(%q: vector<64x128xf8E4M3FN>, %k: vector<128x128xf8E4M3FN>, %n: index) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
  } consumer(%c) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ub = arith.addi %n, %c : index
    %z = arith.constant dense<0.0> : vector<64x128xf32>
    %r = scf.for %i = %c0 to %ub step %c1 iter_args(%a = %z) -> (vector<64x128xf32>) {
      %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<64x128xf8E4M3FN>, vector<128x128xf8E4M3FN> -> vector<64x128xf32>
      %t = arith.addf %a, %s : vector<64x128xf32>
      scf.yield %t : vector<64x128xf32>
    } {fmha.kv_loop}
  }
  return
}
func.func @per_consumer_guard(%q: vector<64x128xf8E4M3FN>, %k: vector<128x128xf8E4M3FN>, %n: index) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
  } consumer(%c) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %first = arith.cmpi eq, %c, %c0 : index
    %z = arith.constant dense<0.0> : vector<64x128xf32>
    scf.if %first {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (vector<64x128xf32>) {
        %s = fmha.tile_mma %q, %k, %z {transpose_rhs} : vector<64x128xf8E4M3FN>, vector<128x128xf8E4M3FN> -> vector<64x128xf32>
        %t = arith.addf %a, %s : vector<64x128xf32>
        scf.yield %t : vector<64x128xf32>
      } {fmha.kv_loop}
    }
  }
  return
}
