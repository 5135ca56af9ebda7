// fmha.warp_roles and its stage handoff ops (written by
// fmha-warp-specialize): a round trip, then every verifier rule.
// RUN: fmha-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @roles
// CHECK: fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
// CHECK: fmha.stage_free slot(%{{.*}}) fill(%{{.*}}) if(%{{.*}}) {stages = 2 : i64}
// CHECK: fmha.stage_kv
// CHECK: fmha.stage_filled slot(%{{.*}}) if(%{{.*}}) {stages = 2 : i64}
// CHECK: } consumer(%[[C:.*]]) {
// CHECK: arith.addi %{{.*}}, %[[C]] : index
// CHECK: fmha.stage_wait slot(%{{.*}}) fill(%{{.*}}) {stages = 2 : i64}
// CHECK: fmha.staged_kv slot(%{{.*}}) {by_barrier, pending = 0 : i64, ring = 0 : i64, stages = 2 : i64}
// CHECK: fmha.stage_release slot(%{{.*}}) {stages = 2 : i64}
// CHECK: fmha.turn_take consumer(%[[C]]) if(%{{.*}})
// CHECK: fmha.turn_pass consumer(%[[C]]) if(%{{.*}})
func.func @roles(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index, %s: index,
    %n: index, %slot: index, %on: i1, %out: memref<2xindex>) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
    fmha.stage_free slot(%slot) fill(%n) if(%on) {stages = 2 : i64}
    fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
        {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
         tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
    fmha.stage_filled slot(%slot) if(%on) {stages = 2 : i64}
  } consumer(%c) {
    %x = arith.addi %h, %c : index
    fmha.stage_wait slot(%slot) fill(%n) {stages = 2 : i64}
    %t = fmha.staged_kv slot(%slot) {by_barrier, pending = 0 : i64, ring = 0 : i64, stages = 2 : i64}
        : vector<128x128xf8E4M3FN>
    fmha.stage_release slot(%slot) {stages = 2 : i64}
    fmha.turn_take consumer(%c) if(%on)
    fmha.turn_pass consumer(%c) if(%on)
    memref.store %x, %out[%c] : memref<2xindex>
  }
  return
}

// -----

func.func @no_consumer() {
  // expected-error @+1 {{needs at least one consumer group, got 0}}
  fmha.warp_roles consumers(0) warps(4) regs(40, 232) producer {
  } consumer(%c) {
  }
  return
}

// -----

func.func @bad_regs() {
  // expected-error @+1 {{registers per thread must be 0 (the target's choice) or a multiple of 8 in [24, 256], got 230}}
  fmha.warp_roles consumers(2) warps(4) regs(40, 230) producer {
  } consumer(%c) {
  }
  return
}

// -----

func.func @wait_in_producer(%slot: index, %n: index) {
  // expected-error @+1 {{the producer region may not hold 'fmha.stage_wait'}}
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
    fmha.stage_wait slot(%slot) fill(%n) {stages = 2 : i64}
  } consumer(%c) {
  }
  return
}

// -----

func.func @filled_in_consumer(%slot: index, %on: i1) {
  // expected-error @+1 {{the consumer region may not hold 'fmha.stage_filled'}}
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
  } consumer(%c) {
    fmha.stage_filled slot(%slot) if(%on) {stages = 2 : i64}
  }
  return
}

// -----

func.func @by_barrier_pending(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index,
    %s: index, %n: index, %slot: index, %on: i1) {
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  // expected-error @+1 {{a stage waited by fmha.stage_wait (by_barrier) takes pending = 0, got 1}}
  %t = fmha.staged_kv slot(%slot) {by_barrier, pending = 1 : i64, ring = 0 : i64, stages = 2 : i64}
      : vector<128x128xf8E4M3FN>
  return
}

// -----

func.func @over_budget() {
  // expected-error @+1 {{the roles ask for 128 x (24 + 4 x 240) registers, over the 65536 of an SM}}
  fmha.warp_roles consumers(4) warps(4) regs(24, 240) producer {
  } consumer(%c) {
  }
  return
}

// -----

func.func @too_many_threads() {
  // expected-error @+1 {{a workgroup of 9 groups of 4 warps is over 1024 threads or 15 named barriers}}
  fmha.warp_roles consumers(8) warps(4) regs(0, 0) producer {
  } consumer(%c) {
  }
  return
}

// -----

func.func @free_outside_roles(%slot: index, %n: index, %on: i1) {
  // expected-error @+1 {{hands a stage between warp roles: it must be inside an fmha.warp_roles}}
  fmha.stage_free slot(%slot) fill(%n) if(%on) {stages = 2 : i64}
  return
}

// -----

func.func @gather_in_producer(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index,
    %s: index, %n: index) {
  // expected-error @+1 {{the producer region may not hold 'fmha.gather_kv'}}
  fmha.warp_roles consumers(2) warps(4) regs(24, 240) producer {
    %t = fmha.gather_kv %k[%id] head(%h) tile(%s, %n) {kv_layout = #fmha.kv_layout<nhd>}
        : memref<?x1024x8x128xf8E4M3FN>, i32 -> vector<128x128xf8E4M3FN>
  } consumer(%c) {
  }
  return
}

// -----

func.func @transpose_of_no_ring(%slot: index, %fill: index) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
    // expected-error @+1 {{reads ring 1, which no fmha.stage_kv of 2 stages of 'vector<128x128xf8E4M3FN>' fills}}
    fmha.stage_transpose slot(%slot) fill(%fill) {from = 1 : i64, pending = 0 : i64, ring = 2 : i64,
        stages = 2 : i64, tile_type = vector<128x128xf8E4M3FN>}
  } consumer(%c) {
  }
  return
}

// -----

func.func @by_barrier_outside_roles(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index,
    %s: index, %n: index, %slot: index, %on: i1) {
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  // expected-error @+1 {{a stage waited by fmha.stage_wait (by_barrier) must be inside an fmha.warp_roles}}
  %t = fmha.staged_kv slot(%slot) {by_barrier, pending = 0 : i64, ring = 0 : i64, stages = 2 : i64}
      : vector<128x128xf8E4M3FN>
  return
}

// -----

// The turns are the consumers': not in the producer, not outside the roles.
func.func @turn_in_producer(%on: i1) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
    %z = arith.constant 0 : index
    // expected-error @+1 {{passes a turn between consumers: it must be inside the consumer region of an fmha.warp_roles}}
    fmha.turn_take consumer(%z) if(%on)
  } consumer(%c) {
  }
  return
}

// -----

func.func @turn_outside(%c: index, %on: i1) {
  // expected-error @+1 {{passes a turn between consumers: it must be inside the consumer region of an fmha.warp_roles}}
  fmha.turn_pass consumer(%c) if(%on)
  return
}

// -----

// One consumer has no one to take turns with.
func.func @turn_one_consumer(%on: i1) {
  fmha.warp_roles consumers(1) warps(4) regs(40, 232) producer {
  } consumer(%c) {
    // expected-error @+1 {{needs 2 to 7 consumers to take turns (a named barrier each beside theirs and the producer's), got 1}}
    fmha.turn_take consumer(%c) if(%on)
  }
  return
}

// -----

// The consumer is named by the region's index argument, nothing else.
func.func @turn_other_index(%h: index, %on: i1) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
  } consumer(%c) {
    // expected-error @+1 {{names its consumer by the consumer region's index argument}}
    fmha.turn_pass consumer(%h) if(%on)
  }
  return
}

// -----

// The staged descales (fmha-warp-specialize stage-descales): a round trip.
// CHECK-LABEL: func.func @descales
// CHECK: fmha.stage_descale %{{.*}}[%{{.*}}] head(%{{.*}}) slot(%{{.*}}) if(%{{.*}}) {ring = 3 : i64, stages = 2 : i64} : memref<?x8xf32>, vector<128xi32>
// CHECK: fmha.staged_descale slot(%{{.*}}) {page_size = 16 : i64, ring = 3 : i64, stages = 2 : i64} : vector<128xf32>
func.func @descales(%kd: memref<?x8xf32>, %ids: vector<128xi32>, %h: index, %slot: index,
    %on: i1, %out: memref<128xf32>) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
    fmha.stage_descale %kd[%ids] head(%h) slot(%slot) if(%on) {ring = 3 : i64, stages = 2 : i64}
        : memref<?x8xf32>, vector<128xi32>
  } consumer(%c) {
    %d = fmha.staged_descale slot(%slot) {page_size = 16 : i64, ring = 3 : i64, stages = 2 : i64}
        : vector<128xf32>
    vector.store %d, %out[%h] : memref<128xf32>, vector<128xf32>
  }
  return
}

// -----

func.func @staged_descale_no_ring(%slot: index, %out: memref<128xf32>, %h: index) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
  } consumer(%c) {
    // expected-error @+1 {{ring 5 has no fmha.stage_descale to fill it}}
    %d = fmha.staged_descale slot(%slot) {page_size = 16 : i64, ring = 5 : i64, stages = 2 : i64}
        : vector<128xf32>
    vector.store %d, %out[%h] : memref<128xf32>, vector<128xf32>
  }
  return
}

// -----

func.func @staged_descale_other_stages(%kd: memref<?x8xf32>, %ids: vector<128xi32>, %h: index,
    %slot: index, %on: i1, %out: memref<128xf32>) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
    fmha.stage_descale %kd[%ids] head(%h) slot(%slot) if(%on) {ring = 3 : i64, stages = 3 : i64}
        : memref<?x8xf32>, vector<128xi32>
  } consumer(%c) {
    // expected-error @+1 {{ring 3 is written by an fmha.stage_descale of other stages or another key count than 2 stages of 128 keys}}
    %d = fmha.staged_descale slot(%slot) {page_size = 16 : i64, ring = 3 : i64, stages = 2 : i64}
        : vector<128xf32>
    vector.store %d, %out[%h] : memref<128xf32>, vector<128xf32>
  }
  return
}

// -----

func.func @stage_descale_rank(%kd: memref<?xf32>, %ids: vector<128xi32>, %h: index,
    %slot: index, %on: i1) {
  fmha.warp_roles consumers(2) warps(4) regs(40, 232) producer {
    // expected-error @+1 {{descale must be a rank-2 f32 memref (page, KV head), got 'memref<?xf32>'}}
    fmha.stage_descale %kd[%ids] head(%h) slot(%slot) if(%on) {ring = 3 : i64, stages = 2 : i64}
        : memref<?xf32>, vector<128xi32>
  } consumer(%c) {
  }
  return
}

// -----

func.func @stage_descale_outside(%kd: memref<?x8xf32>, %ids: vector<128xi32>, %h: index,
    %slot: index, %on: i1) {
  // expected-error @+1 {{hands a stage between warp roles: it must be inside an fmha.warp_roles}}
  fmha.stage_descale %kd[%ids] head(%h) slot(%slot) if(%on) {ring = 3 : i64, stages = 2 : i64}
      : memref<?x8xf32>, vector<128xi32>
  return
}
