# Writes the three *-invalid.mlir tests of this directory (python3 make_invalid.py
# from the repository root); the tests are committed, this keeps them in step.
import sys
SCALAR='page_regime = one_page, vd_route = scalar'
def cfg(dec=SCALAR):
    return ('{fmha.config = #fmha.config<chip = "@CHIP@", block_m = @BM@, block_n = @BN@, k_step = @K@, warps = 4, wave_size = @WAVE@, mma_m = @MMAM@, mma_n = @MMAN@, p_type = @FP8@, shift = @SHIFT@' + (', ' + dec if dec else '') + '>,\n                  known_block_size = array<i32: @THREADS@, 1, 1>}')
HEAD = '''    %c0 = arith.constant 0 : index
    %q_t = fmha.load_rows %q[%row0, %c0] rows(%rows) : memref<?x2x128x@FP8@> -> vector<@BM@x128x@FP8@>
    %id = fmha.page_ids %pages[%c0] len(%len) {page_size = 1024 : i64} : memref<?xi32> -> i32
    %k_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>
    %zs = arith.constant dense<0.0> : vector<@BM@x@BN@xf32>
    %s = fmha.tile_mma %q_t, %k_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>
'''
ARGS = '''%q: memref<?x2x128x@FP8@>, %k: memref<?x1024x1x128x@FP8@>,
                 %k16: memref<?x16x1x128x@FP8@>, %pages: memref<?xi32>,
                 %ds: memref<?x1xf32>, %o: memref<?x2x128xf32>, %o8: memref<?x2x@BN@x@FP8@>,
                 %oi: memref<?x2x@BN@xindex>, %lse: memref<?x2xf32>, %vids: vector<@BN@xi32>,
                 %q2: memref<?x2x@BN@x@FP8@>, %q24: memref<?x2x24x@FP8@>, %k24: memref<?x1024x1x24x@FP8@>, %kb: memref<?x1024x1x@BN@x@FP8@>, %kdyn: memref<?x?x1x128x@FP8@>,
                 %row0: index, %rows: index, %len: index'''
def chunk(name, body, dec=SCALAR, comment="", funcError=None):
    c = f"// {comment}\n" if comment else ""
    fe = f"  // expected-error @+1 {{{{{funcError}}}}}\n" if funcError else ""
    return c + f'''gpu.module @fmha_kernels [@TARGET@] {{
{fe}  gpu.func @{name}({ARGS}) kernel
      attributes {cfg(dec)} {{
{HEAD}{body}    gpu.return
  }}
}}
'''
def write(path, title, chunks):
    out = title + "\n\n// -----\n\n".join(chunks)
    open(path, 'w').write(out)
E = "    // expected-error @+1 {{%s}}\n"
PV = '''    %p = math.exp2 %s : vector<@BM@x@BN@xf32>
    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>
    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>
'''
TOK16 = '''    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>
    %v_t = fmha.gather_kv %k16[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x16x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>
    %vd = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>
'''
RUNS = lambda fam: "".join(f"// RUN: sed -f %S/Inputs/{c}.sed %s | fmha-opt --convert-fmha-to-gpu=chip={c} --split-input-file --verify-diagnostics\n" for c in ["gfx942","gfx950","sm_90"])
elem = [
 chunk("non_splat_constant", E % "only splat vector constants are supported" + "    %c = arith.constant dense<[1.0, 2.0]> : vector<2xf32>\n"),
 chunk("column_reduction", "    %a = arith.constant dense<0.0> : vector<@BN@xf32>\n" + E % "only row reductions (dim 1) of accumulator tiles" + "    %r = vector.multi_reduction <add>, %s, %a [0] : vector<@BM@x@BN@xf32> to vector<@BN@xf32>\n"),
 chunk("product_reduction", "    %a = arith.constant dense<1.0> : vector<@BM@xf32>\n" + E % "unsupported reduction kind" + "    %r = vector.multi_reduction <mul>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>\n"),
 chunk("row_plus_column", "    %a = arith.constant dense<0.0> : vector<@BM@xf32>\n    %r = vector.multi_reduction <add>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>\n    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>\n    %d = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>\n" + E % "mixes row and column vectors" + "    %x = arith.addf %r, %d : vector<@BM@xf32>\n", comment="A row value (one per query) and a column value (one per key): BM == BN here."),
 chunk("shape_cast_to_row", "    %a = arith.constant dense<0.0> : vector<@BM@xf32>\n    %r = vector.multi_reduction <add>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>\n" + E % "unsupported shape_cast" + "    %x = vector.shape_cast %r : vector<@BM@xf32> to vector<1x@BM@xf32>\n"),
 chunk("transpose", E % "is not supported on vectors by the GPU lowering" + "    %t = vector.transpose %s, [1, 0] : vector<@BM@x@BN@xf32> to vector<@BN@x@BM@xf32>\n"),
 chunk("log_of_tile", E % "only row vectors take a log" + "    %l = math.log %s : vector<@BM@x@BN@xf32>\n"),
 chunk("broadcast_rows_as_columns", "    %a = arith.constant dense<0.0> : vector<@BM@xf32>\n    %r = vector.multi_reduction <add>, %s, %a [1] : vector<@BM@x@BN@xf32> to vector<@BM@xf32>\n" + E % "broadcast of a vector that has no column form" + "    %x = vector.broadcast %r : vector<@BM@xf32> to vector<@BM@x@BN@xf32>\n"),
 chunk("region_op", E % "ops with regions other than scf.for, scf.if and fmha.warp_roles are not lowered to lanes" + "    %x = scf.execute_region -> f32 {\n      %one = arith.constant 1.0 : f32\n      scf.yield %one : f32\n    }\n"),
 chunk("undecided_config", "", dec="", funcError="the kernel's config leaves page_regime or vd_route unset (fmha-select-config takes them)", comment="A config fmha-select-config has not completed."),
 chunk("if_with_results", "    %b = arith.cmpi slt, %row0, %len : index\n" + E % "only uniform scf.if without results" + "    %x = scf.if %b -> (f32) {\n      %one = arith.constant 1.0 : f32\n      scf.yield %one : f32\n    } else {\n      %two = arith.constant 2.0 : f32\n      scf.yield %two : f32\n    }\n"),
]
write("test/Conversion/FmhaToGPU/elementwise-invalid.mlir",
 "// The elementwise patterns' rules, on each chip: what LaneForms rejects\n// before any rewrite, naming the rule.\n//\n" + RUNS("e") + "\n", elem)
mem = [
 chunk("kv_tile_not_an_mma_operand", E % "KV tiles may only feed tile_mma as its right operand" + "    %k2 = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>\n    %x = arith.extf %k2 : vector<@BN@x128x@FP8@> to vector<@BN@x128xf32>\n"),
 chunk("kv_tile_both_k_and_v", E % "a KV tile must be used as exactly one of K and V" + "    %k2 = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>\n    %s2 = fmha.tile_mma %q_t, %k2, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>\n" + PV + "    %out = fmha.tile_mma %p8, %k2, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>\n"),
 chunk("store_column_vector", "    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>\n    %d = fmha.gather_descale %ds[%ids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>\n" + E % "1-d store of a vector without row form" + "    fmha.store_rows %d, %lse[%row0, %c0] rows(%rows) : vector<@BN@xf32>, memref<?x2xf32>\n", comment="A column vector (one value per key) has no row to store it in: BM == BN here."),
 chunk("store_symbolic_columns", "    %st = vector.step : vector<@BN@xindex>\n    %b = vector.broadcast %st : vector<@BN@xindex> to vector<@BM@x@BN@xindex>\n" + E % "stores only accumulator-layout tiles" + "    fmha.store_rows %b, %oi[%row0, %c0] rows(%rows) : vector<@BM@x@BN@xindex>, memref<?x2x@BN@xindex>\n"),
 chunk("page_size_differs_from_cache", "    %ids = fmha.page_ids %pages[%c0] len(%len) {page_size = 16 : i64} : memref<?xi32> -> vector<@BN@xi32>\n" + E % "page_ids has page_size 16 but the cache's pages hold 1024" + "    %k2 = fmha.gather_kv %k[%ids] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, vector<@BN@xi32> -> vector<@BN@x128x@FP8@>\n    %s2 = fmha.tile_mma %q_t, %k2, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>\n"),
 chunk("dynamic_page_dim", E % "the cache's page dimension must be static" + "    %k2 = fmha.gather_kv %kdyn[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x?x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>\n    %s2 = fmha.tile_mma %q_t, %k2, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x@BN@xf32>\n"),
 chunk("descale_ids_not_from_page_ids", E % "per-key descales need their page_ids in the same tile" + "    %d = fmha.gather_descale %ds[%vids] head(%c0) : memref<?x1xf32>, vector<@BN@xi32> -> vector<@BN@xf32>\n"),
 chunk("head_dim_not_16_byte_chunks", "    %qa = fmha.load_rows %q24[%row0, %c0] rows(%rows) : memref<?x2x24x@FP8@> -> vector<@BM@x24x@FP8@>\n" + E % "does not split into 16-byte chunks over" + "    %ka = fmha.gather_kv %k24[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x24x@FP8@>, i32 -> vector<@BN@x24x@FP8@>\n    %sa = fmha.tile_mma %qa, %ka, %zs {transpose_rhs} : vector<@BM@x24x@FP8@>, vector<@BN@x24x@FP8@> -> vector<@BM@x@BN@xf32>\n"),
]
write("test/Conversion/FmhaToGPU/memory-invalid.mlir",
 "// The memory patterns' rules, on each chip: what LaneForms rejects before\n// any rewrite, naming the rule. (16-bit Q: unsupported-16bit.mlir.)\n//\n" + RUNS("m") + "\n", mem)
PG1 = 'page_regime = whole_pages, vd_route = page_groups, pv_group = 1'
mma = [
 chunk("rhs_not_staged", E % "expects a staged KV tile and an accumulator" + "    %x = fmha.tile_mma %q_t, %q_t, %zs {transpose_rhs} : vector<@BM@x128x@FP8@>, vector<@BM@x128x@FP8@> -> vector<@BM@x@BM@xf32>\n"),
 chunk("qk_with_p", PV + "    %kb_t = fmha.gather_kv %kb[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x@BN@x@FP8@>, i32 -> vector<@BN@x@BN@x@FP8@>\n" + E % "Q K^T expects Q operand registers and a K tile" + "    %x = fmha.tile_mma %p8, %kb_t, %zs {transpose_rhs} : vector<@BM@x@BN@x@FP8@>, vector<@BN@x@BN@x@FP8@> -> vector<@BM@x@BN@xf32>\n"),
 chunk("pv_with_q", "    %qb = fmha.load_rows %q2[%row0, %c0] rows(%rows) : memref<?x2x@BN@x@FP8@> -> vector<@BM@x@BN@x@FP8@>\n    %v_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>\n    %zo = arith.constant dense<0.0> : vector<@BM@x128xf32>\n" + E % "P V expects fp8 P from scores and a V tile" + "    %x = fmha.tile_mma %qb, %v_t, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>\n"),
 chunk("route_without_descales", PV + "    %v_t = fmha.gather_kv %k[%id] head(%c0) tile(%c0, %len) {kv_layout = #fmha.kv_layout<nhd>} : memref<?x1024x1x128x@FP8@>, i32 -> vector<@BN@x128x@FP8@>\n" + E % "the P V product has no per-key V descales but the config's vd_route is page_groups" + "    %out = fmha.tile_mma %p8, %v_t, %zo : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>\n", dec=PG1),
 chunk("descales_with_scalar_route", PV + TOK16 + E % "the P V product has per-key V descales but the config's vd_route is scalar" + "    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>\n"),
 chunk("group_does_not_divide", PV + TOK16 + E % "config pv_group = 3 does not divide the tile's" + "    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>\n", dec='page_regime = whole_pages, vd_route = page_groups, pv_group = 3'),
 chunk("group_spans_pages", PV + TOK16 + E % "does not lie in one page of 16" + "    %out = fmha.tile_mma %p8, %v_t, %zo k_scale(%vd : vector<@BN@xf32>) : vector<@BM@x@BN@x@FP8@>, vector<@BN@x128x@FP8@> -> vector<@BM@x128xf32>\n", dec='page_regime = whole_pages, vd_route = page_groups, pv_group = 2'),
 chunk("fp8_tile_stored", "    %p = math.exp2 %s : vector<@BM@x@BN@xf32>\n" + E % "fp8 tiles may only feed the P V product" + "    %p8 = arith.truncf %p : vector<@BM@x@BN@xf32> to vector<@BM@x@BN@x@FP8@>\n    fmha.store_rows %p8, %o8[%row0, %c0] rows(%rows) : vector<@BM@x@BN@x@FP8@>, memref<?x2x@BN@x@FP8@>\n"),
]
write("test/Conversion/FmhaToGPU/mma-invalid.mlir",
 "// The MMA patterns' rules, on each chip: what LaneForms rejects before any\n// rewrite, naming the rule (operand forms, the config's V-descale route).\n//\n" + RUNS("x") + "\n", mma)
