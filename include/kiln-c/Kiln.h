/*===- kiln-c/Kiln.h - Kiln's compiler as a C library -------------*- C -*-===*\
|*                                                                            *|
|* The only symbols libkiln.so exports. Everything crosses as text: a JSON    *|
|* request in, a JSON response out, so one library serves every Python (it    *|
|* is loaded with ctypes, no extension module) and any other host. LLVM and   *|
|* MLIR are linked in and hidden.                                             *|
|*                                                                            *|
|* Request:  {"api": 1, "method": "<name>", "args": {...}}                    *|
|* Response: {"ok": true, "result": ...}                                      *|
|*        or {"ok": false, "error": {"message": "...", "diagnostics": [...]}} *|
|* Each diagnostic: severity, message, file, line, col (null when the op has *|
|* no file location) and facts (machine-readable fields a pass attached).     *|
|*                                                                            *|
|* Methods (args -> result):                                                  *|
|*   version            {} -> "kiln-<version> llvm-<version>"                 *|
|*   known_targets      {} -> [{name, vendor, chip, warp_size, ...}]          *|
|*   default_target     {} -> name or null                                    *|
|*   run_pipeline       {ir, pipeline, source_name, info} ->                  *|
|*                      {text, info?}: parse + verify, run a registered       *|
|*                      pipeline given as text, print with locations          *|
|*   translate          {ir, target, emit: [names]} -> {artifacts: [{text}   *|
|*                      or {base64}], seconds: {translate, optimize, codegen, *|
|*                      binary}}                                              *|
|*   linear_layout      {layout, shape} -> [reg, lane, warp] bases or null    *|
|*   bank_conflicts     {tensor_type, memdesc_type} -> {conflicts} or         *|
|*                      {reason}: local_load/local_store's bank conflicts     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef KILN_C_KILN_H
#define KILN_C_KILN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a method's arguments or results change incompatibly. */
#define KILN_API_VERSION 1

/* The API version this library implements (KILN_API_VERSION). */
int kiln_api_version(void);

/* Runs one request. Always sets *response (NUL-terminated JSON, length in
 * *response_len) to be released with kiln_free; returns 0 when the response
 * says "ok": true and 1 otherwise. Thread-safe; never exits the process. */
int kiln_call(const char *request, size_t request_len, char **response,
              size_t *response_len);

/* Releases a response of kiln_call. */
void kiln_free(char *response);

#ifdef __cplusplus
}
#endif

#endif /* KILN_C_KILN_H */
