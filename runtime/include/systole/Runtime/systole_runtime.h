/*===- systole_runtime.h - C API of the Systole host runtime ------*- C -*-===*\
|*                                                                            *|
|* A stable C ABI over systole::rt (Runtime.h) for hosts that are not C++.    *|
|* Every function returning int returns 0 on success and nonzero on error;    *|
|* systole_last_error() then describes the error (thread-local, valid until  *|
|* the next call on the same thread). Handles are opaque; free them with the *|
|* matching *_free function.                                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef SYSTOLE_RUNTIME_C_H
#define SYSTOLE_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct systole_model systole_model;
typedef struct systole_session systole_session;

typedef enum {
  SYSTOLE_BACKEND_FUNCTIONAL = 0,
  SYSTOLE_BACKEND_CYCLE = 1
} systole_backend;

/* Same numbering as the .npu schema's DType. */
typedef enum {
  SYSTOLE_DTYPE_INT8 = 0,
  SYSTOLE_DTYPE_UINT8 = 1,
  SYSTOLE_DTYPE_INT32 = 2,
  SYSTOLE_DTYPE_FLOAT32 = 3
} systole_dtype;

typedef struct {
  const char *name; /* owned by the model */
  systole_dtype dtype;
  size_t rank;
  const int64_t *shape; /* owned by the model */
  uint64_t size_bytes;
} systole_tensor_info;

typedef struct {
  uint64_t total_cycles; /* 0 on the functional backend */
  uint64_t instructions;
  uint64_t macs;
  uint64_t peak_macs;
  uint64_t dram_read_bytes, dram_write_bytes;
  uint64_t sp_read_bytes, sp_write_bytes;
  uint64_t acc_read_words, acc_write_words;
  double energy_pj;
  double wall_seconds;
} systole_stats;

typedef struct {
  uint64_t max_file_bytes, max_dram_bytes, max_tensor_bytes, max_instructions;
  uint64_t max_sram_bytes; /* scratchpad + accumulator of the embedded config */
  int allow_native_host_code; /* 0: refuse cpu_object/ptx host segments */
} systole_limits;

const char *systole_last_error(void);

/* Loads and verifies a .npu. `limits` may be NULL (defaults). */
int systole_model_load(const char *path, const systole_limits *limits,
                       systole_model **out);
void systole_model_free(systole_model *model);
size_t systole_model_num_inputs(const systole_model *model);
size_t systole_model_num_outputs(const systole_model *model);
int systole_model_input(const systole_model *model, size_t index,
                        systole_tensor_info *out);
int systole_model_output(const systole_model *model, size_t index,
                         systole_tensor_info *out);

int systole_session_create(const systole_model *model, systole_backend backend,
                           systole_session **out);
void systole_session_free(systole_session *session);
/* Copies `bytes` bytes; dtype and shape must match the model's input. */
int systole_session_set_input(systole_session *session, const char *name,
                              systole_dtype dtype, const int64_t *shape,
                              size_t rank, const void *data, size_t bytes);
/* 0 = no limit. */
int systole_session_set_max_cycles(systole_session *session,
                                   uint64_t max_cycles);
int systole_session_run(systole_session *session);
/* Copies the output into `data`, which must hold its size_bytes. */
int systole_session_get_output(systole_session *session, const char *name,
                               void *data, size_t capacity);
int systole_session_stats(const systole_session *session, systole_stats *out);
/* The --report JSON of the last run; owned by the session. */
const char *systole_session_report_json(systole_session *session);

#ifdef __cplusplus
}
#endif

#endif /* SYSTOLE_RUNTIME_C_H */
