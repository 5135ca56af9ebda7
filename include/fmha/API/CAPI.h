/*===- CAPI.h - fmha-mlir's C interface (for ctypes and other FFIs) -----===*\
|*                                                                          *|
|* A C view of fmha::api::compile for languages that load libFmhaMLIR.so    *|
|* through a C FFI (python/fmha_mlir uses ctypes). A request is a JSON      *|
|* object with the fields of the manifest's "request" (docs/ABI.md):        *|
|*   {"qo_lens": [100], "kv_lens": [1500], "num_qo_heads": 32,              *|
|*    "num_kv_heads": 8, "head_dim": 128, "page_size": 1024,                *|
|*    "page_table": "csr", "kv_layout": "nhd", "quant": "kv_blockscale",    *|
|*    "mask": "causal", "q_dtype": "f8E4M3FN", "kv_dtype": "f8E4M3FN",      *|
|*    "out_dtype": "bf16", "lse": true}                                     *|
|* Fields left out take the C++ Request's defaults; fmha_compile needs the *|
|* lengths, fmha_request_complete and fmha_cpu_compile do not.          *|
|* an unknown key, a value of the wrong type or nesting past 64 levels is  *|
|* refused (return 2).                                                     *|
|*                                                                          *|
\*===----------------------------------------------------------------------===*/
#ifndef FMHA_API_CAPI_H
#define FMHA_API_CAPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fmha_kernel fmha_kernel;

/** The version of the library ("0.4.0"). */
const char *fmha_version(void);

/** Compiles `request_json` for `chip` (gfx942 | gfx950 | sm_90) in `format`
 *  (bin | isa | llvm | mlir). Returns 0 and a kernel in *out, 2 for a
 *  request or target that is at fault, 3 for a compiler failure; on a
 *  non-zero return *diagnostic holds the message (free it with fmha_free)
 *  and *out is null. */
int fmha_compile(const char *request_json, const char *chip,
                 const char *format, fmha_kernel **out, char **diagnostic);

/** fmha_compile with the lowering's choices in `options_json` (null or ""
 *  for the compiler's): a JSON object of any of
 *    "folds", "peel", "pipeline", "warp_specialize", "transpose_v",
 *    "ping_pong" (true | false), "kv_stages", "kv_unroll", "warps",
 *    "block_n" (integers), "lds_loads", "lds_swizzle", "stage_descales", "tma" (true |
 *    false | null: the chip's choice) and
 *    "vd_route" ("scalar" | "page_groups" | "scaled_p" | "exp2_bias" |
 *    "auto"),
 *  fmha-compile's flags of the same names (README.md). An unknown key, a
 *  value of the wrong type, or a choice the request or chip cannot take
 *  (e.g. "warps": 8 at D 256, a route the descales cannot take) is refused
 *  (return 2, the diagnostic names it). */
int fmha_compile_options(const char *request_json, const char *chip,
                         const char *format, const char *options_json,
                         fmha_kernel **out, char **diagnostic);

/** The kernel's bytes (a code object, or text for the text formats). */
const char *fmha_kernel_binary(const fmha_kernel *kernel, size_t *size);
/** The manifest (JSON, docs/ABI.md; empty for the text formats). */
const char *fmha_kernel_manifest(const fmha_kernel *kernel);
void fmha_kernel_free(fmha_kernel *kernel);
void fmha_free(char *text);

/** `request_json` completed, in *completed (free with fmha_free), as JSON:
 *  {"kernel_key": "...", "request": {...}}. "request" has every field of the
 *  manifest's "request" (docs/ABI.md) with the defaults resolved; the kernel
 *  key is its static part (Request::kernelKey: heads, dims, page size,
 *  table, layout, quant, dtypes, mask, sm_scale, soft cap, lse; not the
 *  lengths, seed or data): requests with the same key share one kernel.
 *  Lengths may be left out here. Returns 0, or 2 with *diagnostic. */
int fmha_request_complete(const char *request_json, char **completed,
                          char **diagnostic);

/* --- CPU execution ---------------------------------------------------- */

typedef struct fmha_cpu_kernel fmha_cpu_kernel;

/** Compiles `request_json` (lengths may be left out: a kernel serves any)
 *  to run on this CPU: `target` host (the tiled form lowered for the CPU)
 *  or a chip, gfx942 | gfx950 | sm_90 | sm_90a (that chip's lane-level
 *  kernel, run lane by lane by the lane emulator). Returns 0, 2 or 3 as
 *  fmha_compile does. */
int fmha_cpu_compile(const char *request_json, const char *target,
                     fmha_cpu_kernel **out, char **diagnostic);

/** fmha_cpu_compile with the lowering's choices in `options_json`, as
 *  fmha_compile_options takes them. */
int fmha_cpu_compile_options(const char *request_json, const char *target,
                             const char *options_json, fmha_cpu_kernel **out,
                             char **diagnostic);

/** The kernel's operands in argument order, as JSON:
 *  [{"name": "q", "rank": 3}, ...]. */
const char *fmha_cpu_kernel_operands(const fmha_cpu_kernel *kernel);

/** One caller-owned buffer: the operand it binds, its first element, its
 *  rank, sizes and strides in elements (strides null: dense row-major; only
 *  the kv_blockscale descales take other strides). */
typedef struct fmha_buffer {
  const char *name;
  void *data;
  int rank;
  const long long *sizes;
  const long long *strides;
} fmha_buffer;

/** Runs the kernel on `count` buffers, one per operand; the lengths come
 *  from them (qo_indptr, the page table, k_cache's pages), and out and lse
 *  are written. Returns 0; 2 when a buffer, the page table or the lengths
 *  break a rule (the message names it; nothing was run); 3 when the run
 *  failed (a lane emulator error). */
int fmha_cpu_run(fmha_cpu_kernel *kernel, const fmha_buffer *buffers,
                 size_t count, char **diagnostic);
void fmha_cpu_kernel_free(fmha_cpu_kernel *kernel);

#ifdef __cplusplus
}
#endif

#endif /* FMHA_API_CAPI_H */
