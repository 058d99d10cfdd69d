/* galapagos kernel ABI: the one C entry point every candidate, baseline and reference exports.
 * The worker allocates and fills the arguments from the family's argument specs; the candidate
 * only computes. Arguments arrive in family.toml order, sizes in the order of its `symbols`. */
#ifndef GLP_KERNEL_H
#define GLP_KERNEL_H
#include <stdint.h>

#ifdef __cplusplus
#define GLP_EXTERN_C extern "C"
#else
#define GLP_EXTERN_C
#endif
#define GLP_EXPORT GLP_EXTERN_C __attribute__((visibility("default")))

enum glp_dtype { GLP_FLOAT64 = 0, GLP_FLOAT32 = 1, GLP_INT32 = 2, GLP_INT64 = 3 };
enum glp_intent { GLP_IN = 0, GLP_OUT = 1, GLP_INOUT = 2 };

typedef struct glp_arg {
  void* data;    /* host pointer (cpu) or device pointer (cuda/hip) */
  int64_t count; /* number of elements */
  int32_t dtype; /* enum glp_dtype */
  int32_t intent;/* enum glp_intent */
} glp_arg;

/* Candidates and baselines: returns 0 on success. `stream` is the device stream (NULL on cpu). */
GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream);
/* References (trusted, built against Kokkos, loaded into the orchestrator): returns 0 on success. */
GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes);

#endif
