// spmv baseline (HIP): the plain thread-per-row CSR kernel of ../cuda_hip/baseline_plain.hpp,
// launched asynchronously on `stream`.
#ifndef GLP_HIP_ON_CUDA
#include <hip/hip_runtime.h>
#endif

#include "glp_kernel.h"
#include "../cuda_hip/baseline_plain.hpp"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  unsigned blocks = 0;
  if (const int rc = glp_spmv_plain::make_launch(args, nargs, sizes, blocks)) return rc;
  if (blocks == 0) return 0;
  hipLaunchKernelGGL(glp_spmv_plain::spmv, dim3(blocks), dim3(glp_spmv_plain::BLOCK), 0, static_cast<hipStream_t>(stream),
                     sizes[0], static_cast<const int64_t*>(args[0].data), static_cast<const int32_t*>(args[1].data),
                     static_cast<const double*>(args[2].data), static_cast<const double*>(args[3].data),
                     static_cast<double*>(args[4].data));
  return hipGetLastError() == hipSuccess ? 0 : 6;
}
