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
|* Fields left out take the C++ Request's defaults; lengths are required;  *|
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

/** The kernel's bytes (a code object, or text for the text formats). */
const char *fmha_kernel_binary(const fmha_kernel *kernel, size_t *size);
/** The manifest (JSON, docs/ABI.md; empty for the text formats). */
const char *fmha_kernel_manifest(const fmha_kernel *kernel);
void fmha_kernel_free(fmha_kernel *kernel);
void fmha_free(char *text);

#ifdef __cplusplus
}
#endif

#endif /* FMHA_API_CAPI_H */
