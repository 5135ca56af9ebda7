// fmha.stage_kv / fmha.staged_kv (written by fmha-pipeline-kv-stages): a
// round trip, then every verifier rule, one case each.
// RUN: fmha-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @ring
// CHECK: fmha.stage_kv %{{.*}}[%{{.*}}] head(%{{.*}}) tile(%{{.*}}, %{{.*}}) slot(%{{.*}}) if(%{{.*}}) {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64, tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
// CHECK: fmha.staged_kv slot(%{{.*}}) {pending = 1 : i64, ring = 0 : i64, stages = 2 : i64} : vector<128x128xf8E4M3FN>
func.func @ring(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index, %s: index,
    %n: index, %slot: index, %on: i1) -> vector<128x128xf8E4M3FN> {
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  %t = fmha.staged_kv slot(%slot) {pending = 1 : i64, ring = 0 : i64, stages = 2 : i64}
      : vector<128x128xf8E4M3FN>
  return %t : vector<128x128xf8E4M3FN>
}

// -----

func.func @not_in_bounds(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index,
    %s: index, %n: index, %slot: index, %on: i1) {
  // expected-error @+1 {{a staged tile must be in_bounds (no zero-fill)}}
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  return
}

// -----

func.func @no_stage(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index,
    %s: index, %n: index, %slot: index, %on: i1) {
  // expected-error @+1 {{a ring needs at least 1 stage, got 0}}
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 0 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  return
}

// -----

func.func @tile_type(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index,
    %s: index, %n: index, %slot: index, %on: i1) {
  // expected-error @+1 {{tile_type 'vector<128x64xf8E4M3FN>' must be a [BlockN, D] vector of the cache's element type and head dim}}
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x64xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  return
}

// -----

func.func @token_count(%k: memref<?x16x8x128xf8E4M3FN>, %ids: vector<64xi32>, %h: index,
    %s: index, %n: index, %slot: index, %on: i1) {
  // expected-error @+1 {{ids ('vector<64xi32>') and tile ('vector<128x128xf8E4M3FN>') must have the same token count}}
  fmha.stage_kv %k[%ids] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x16x8x128xf8E4M3FN>, vector<64xi32>
  return
}

// -----

func.func @pending(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index, %s: index,
    %n: index, %slot: index, %on: i1) {
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  // expected-error @+1 {{pending must be >= 0, got -1}}
  %t = fmha.staged_kv slot(%slot) {pending = -1 : i64, ring = 0 : i64, stages = 2 : i64}
      : vector<128x128xf8E4M3FN>
  return
}

// -----

func.func @no_stage(%slot: index) {
  // expected-error @+1 {{ring 3 has no fmha.stage_kv to fill it}}
  %t = fmha.staged_kv slot(%slot) {pending = 0 : i64, ring = 3 : i64, stages = 2 : i64}
      : vector<128x128xf8E4M3FN>
  return
}

// -----

func.func @ring_mismatch(%k: memref<?x1024x8x128xf8E4M3FN>, %id: i32, %h: index,
    %s: index, %n: index, %slot: index, %on: i1) {
  fmha.stage_kv %k[%id] head(%h) tile(%s, %n) slot(%slot) if(%on)
      {in_bounds, kv_layout = #fmha.kv_layout<nhd>, ring = 0 : i64, stages = 2 : i64,
       tile_type = vector<128x128xf8E4M3FN>} : memref<?x1024x8x128xf8E4M3FN>, i32
  // expected-error @+1 {{ring 0 is filled by an fmha.stage_kv of 2 stages of 'vector<128x128xf8E4M3FN>', not 3 of 'vector<128x128xf8E4M3FN>'}}
  %t = fmha.staged_kv slot(%slot) {pending = 0 : i64, ring = 0 : i64, stages = 3 : i64}
      : vector<128x128xf8E4M3FN>
  return
}
