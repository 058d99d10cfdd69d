// Measuring one configuration on the GPU (the main thread owns the CUDA context). Part of
// measure_kt_spaces.cpp (one translation unit; see its head comment).
#pragma once

#include "workloads.hpp"

namespace kt {

// ---------------------------------------------------------------------------------------------
// Measuring one configuration (main thread, owns the context)

struct Measurement {
    enum Kind { Ok, RuntimeFailed, VerificationFailed } kind = Ok;
    std::vector<double> times;   // ms, the 7 timed launches
    double benchmark_ms = 0, verification_ms = 0, framework_ms = 0;
    float max_error = 0;
    unsigned mismatches = 0;
    std::string why;             // for RuntimeFailed
};

// Times kernels like Kernel Tuner (event, launch, event, synchronise; once per run), with one
// safeguard: the compile processes keep every core busy, so the measuring thread can be
// preempted between recording the start event and launching. On an idle stream the start event
// would then time that host delay too. Each timed launch is therefore enqueued behind a "gate"
// (cuStreamWaitValue32 on a host-mapped word) that the host opens only after the start event,
// the launch and the stop event are all enqueued: the events time the kernel alone.
class Measurer {
public:
    Measurer(const Space& s, Workload& w, ReferenceModule& ref, int max_shared)
        : space_(s), work_(w), ref_(ref), max_shared_(max_shared)
    {
        CU(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
        CU(cuEventCreate(&start_, CU_EVENT_BLOCKING_SYNC));
        CU(cuEventCreate(&stop_, CU_EVENT_BLOCKING_SYNC));
        CU(cuMemAlloc(&result_, 8));
        void* gate = nullptr;
        CU(cuMemHostAlloc(&gate, sizeof(uint32_t), CU_MEMHOSTALLOC_DEVICEMAP));
        gate_host_ = static_cast<volatile uint32_t*>(gate);
        *gate_host_ = 0;
        CU(cuMemHostGetDevicePointer(&gate_dev_, gate, 0));
        // Stream memory operations are supported on current drivers; if not, time without gate.
        const CUresult r = cuStreamWaitValue32(stream_, gate_dev_, 0, CU_STREAM_WAIT_VALUE_GEQ);
        use_gate_ = r == CUDA_SUCCESS;
        CU(cuStreamSynchronize(stream_));
        if (!use_gate_)
            std::fprintf(stderr, "warning: cuStreamWaitValue32 unavailable (%s): timing without the launch gate\n",
                         cu_error_name(r));
    }

    Measurement measure(const Config& c, const std::string& cubin)
    {
        Measurement m;
        const auto t0 = Clock::now();
        CUmodule mod;
        CUresult r = cuModuleLoadData(&mod, cubin.data());
        if (r != CUDA_SUCCESS)
            fatal(c, "cuModuleLoadData", r);
        CUfunction f;
        check(c, cuModuleGetFunction(&f, mod, space_.kernel_name.c_str()), "cuModuleGetFunction");
        work_.prepare_module(mod);   // synchronous copies into the module's constant memory

        const Dim3 block = space_.block(c), grid = space_.grid(c);
        int max_threads = 0, shared = 0;
        check(c, cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), "cuFuncGetAttribute");
        check(c, cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f), "cuFuncGetAttribute");
        const int threads = int(block.x * block.y * block.z);
        if (threads > max_threads || shared > max_shared_) {
            // Too many registers per thread for this block size, or too much shared memory:
            // the launch would fail, so do not try.
            m.kind = Measurement::RuntimeFailed;
            m.why = threads > max_threads ? "more threads per block than the kernel's registers allow"
                                          : "static shared memory above the device's limit per block";
            check(c, cuModuleUnload(mod), "cuModuleUnload");
            m.framework_ms = ms_since(t0);
            return m;
        }

        // Poison the output so that a kernel that skips elements cannot pass on stale data.
        check(c, cuMemsetD32Async(work_.output.ptr, 0xFFFFFFFFu, work_.elements, stream_), "cuMemsetD32Async");

        const auto tb = Clock::now();
        r = launch(f, grid, block);   // warm-up, not timed
        if (r == CUDA_SUCCESS)
            r = cuStreamSynchronize(stream_);
        if (r != CUDA_SUCCESS) {
            if (!is_launch_config_error(r))
                fatal(c, "warm-up launch", r);
            m.kind = Measurement::RuntimeFailed;
            m.why = cu_error_name(r);
            check(c, cuModuleUnload(mod), "cuModuleUnload");
            m.framework_ms = ms_since(t0);
            return m;
        }
        for (int i = 0; i < 7; i++) {
            if (use_gate_)
                check(c, cuStreamWaitValue32(stream_, gate_dev_, ++gate_seq_, CU_STREAM_WAIT_VALUE_GEQ),
                      "cuStreamWaitValue32");
            check(c, cuEventRecord(start_, stream_), "cuEventRecord");
            r = launch(f, grid, block);
            open_gate();   // also on failure, or the stream would wait forever
            if (r != CUDA_SUCCESS)
                fatal(c, "timed launch", r);
            check(c, cuEventRecord(stop_, stream_), "cuEventRecord");
            check(c, cuEventSynchronize(stop_), "kernel execution");
            float ms = 0;
            check(c, cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
            m.times.push_back(ms);
        }
        m.benchmark_ms = ms_since(tb);

        const auto tv = Clock::now();
        verify(c, m);
        m.verification_ms = ms_since(tv);
        check(c, cuModuleUnload(mod), "cuModuleUnload");
        // Everything but the launches and the check: module load, constants, poisoning, unload.
        m.framework_ms = ms_since(t0) - m.benchmark_ms - m.verification_ms;
        return m;
    }

private:
    CUresult launch(CUfunction f, Dim3 g, Dim3 b)
    {
        return cuLaunchKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, 0, stream_, work_.args(), nullptr);
    }

    void open_gate()
    {
        if (!use_gate_)
            return;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        *gate_host_ = gate_seq_;
    }

    void verify(const Config& c, Measurement& m)
    {
        check(c, cuMemsetD32Async(result_, 0, 2, stream_), "cuMemsetD32Async");
        long long n = (long long)work_.elements;
        float tol = work_.tolerance;
        void* a[] = {&work_.output.ptr, &work_.reference.ptr, &n, &tol, &result_};
        CUfunction f = work_.int_output ? ref_.compare_int : ref_.compare_float;
        const CUresult r = cuLaunchKernel(f, 132 * 8, 1, 1, 256, 1, 1, 0, stream_, a, nullptr);
        if (r != CUDA_SUCCESS)
            fatal(c, "compare launch", r);
        unsigned res[2];
        check(c, cuMemcpyDtoHAsync(res, result_, 8, stream_), "cuMemcpyDtoHAsync");
        check(c, cuStreamSynchronize(stream_), "verification");
        std::memcpy(&m.max_error, &res[1], 4);
        m.mismatches = res[0];
        if (res[0] != 0)
            m.kind = Measurement::VerificationFailed;
    }

    // A context error after a kernel of ours ran (illegal address etc.) is a bug: stop at once.
    [[noreturn]] void fatal(const Config& c, const char* where, CUresult r)
    {
        std::fprintf(stderr, "FATAL: %s failed with %s for configuration %s\n", where, cu_error_name(r),
                     c.describe().c_str());
        quit(4);
    }
    void check(const Config& c, CUresult r, const char* where)
    {
        if (r != CUDA_SUCCESS)
            fatal(c, where, r);
    }

    const Space& space_;
    Workload& work_;
    ReferenceModule& ref_;
    int max_shared_;
    CUstream stream_;
    CUevent start_, stop_;
    CUdeviceptr result_;
    volatile uint32_t* gate_host_ = nullptr;
    CUdeviceptr gate_dev_ = 0;
    uint32_t gate_seq_ = 0;
    bool use_gate_ = false;
};


}  // namespace kt
