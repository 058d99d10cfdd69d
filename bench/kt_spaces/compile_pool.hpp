// Compile worker processes and the pool that feeds them and queues the CUBINs. Part of
// measure_kt_spaces.cpp (one translation unit; see its head comment).
#pragma once

#include "measurer.hpp"

namespace kt {

// ---------------------------------------------------------------------------------------------
// Compile worker processes. NVRTC serialises much of a compilation within one process (two
// threads compile no faster than one), so compiles run in separate processes: this binary
// re-executed with --compile-worker, each compiling one configuration at a time on request over
// a pipe. Request: the configuration's position among all valid configurations (uint64).
// Reply: WireHeader, then the CUBIN (ok) or the NVRTC log (failed).

struct WireHeader {
    uint64_t id;
    uint32_t ok;
    uint32_t pad;
    double ms;
    uint64_t size;
};

bool write_all(int fd, const void* p, size_t n)
{
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
        const ssize_t w = ::write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= size_t(w);
    }
    return true;
}

bool read_all(int fd, void* p, size_t n)
{
    char* c = static_cast<char*>(p);
    while (n > 0) {
        const ssize_t r = ::read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        c += r;
        n -= size_t(r);
    }
    return true;
}

// The worker's main loop: until the parent closes the pipe.
int compile_worker(const Space& s, const std::vector<Config>& all, const std::string& text, int arch)
{
    for (;;) {
        uint64_t id;
        if (!read_all(0, &id, sizeof id))
            return 0;
        if (id >= all.size())
            return 2;
        const CompileResult r = nvrtc_compile(config_source(all[id], s, text), s.kernel_file, arch);
        const std::string& payload = r.ok ? r.cubin : r.log;
        const WireHeader h{id, r.ok ? 1u : 0u, 0, r.ms, payload.size()};
        if (!write_all(1, &h, sizeof h) || !write_all(1, payload.data(), payload.size()))
            return 2;
    }
}

// Parent side of one worker process.
class WorkerProcess {
public:
    explicit WorkerProcess(std::vector<std::string> argv) : argv_(std::move(argv)) {}
    ~WorkerProcess() { stop(); }

    void start()
    {
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
            die(2, "pipe2 failed");
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        std::vector<char*> args;
        for (auto& a : argv_)
            args.push_back(&a[0]);
        args.push_back(nullptr);
        const int rc = posix_spawn(&pid_, argv_[0].c_str(), &fa, nullptr, args.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        close(in[0]);
        close(out[1]);
        if (rc != 0)
            die(2, "cannot start compile worker " + argv_[0] + ": " + std::strerror(rc));
        to_ = in[1];
        from_ = out[0];
    }

    // False when the worker died (e.g. NVRTC crashed on this configuration).
    bool compile(uint64_t id, CompileResult& r)
    {
        WireHeader h;
        if (!write_all(to_, &id, sizeof id) || !read_all(from_, &h, sizeof h) || h.id != id)
            return false;
        std::string payload(h.size, '\0');
        if (h.size > 0 && !read_all(from_, &payload[0], h.size))
            return false;
        r.ok = h.ok != 0;
        r.ms = h.ms;
        (r.ok ? r.cubin : r.log) = std::move(payload);
        return true;
    }

    void stop()
    {
        if (to_ >= 0)
            close(to_);   // EOF: the worker exits
        if (from_ >= 0)
            close(from_);
        if (pid_ > 0)
            waitpid(pid_, nullptr, 0);
        to_ = from_ = -1;
        pid_ = -1;
    }

private:
    std::vector<std::string> argv_;
    pid_t pid_ = -1;
    int to_ = -1, from_ = -1;
};

// Compile pipeline: one feeder thread per worker process hands out configurations in order and
// queues the results for the measuring thread.

struct Compiled {
    size_t index;   // position in the selected configurations
    CompileResult result;
};

class CompilePool {
public:
    CompilePool(const std::vector<Config>& configs, const std::vector<std::string>& worker_argv, unsigned workers,
                double deadline)
        : configs_(configs), deadline_(deadline)
    {
        active_ = workers;
        for (unsigned t = 0; t < workers; t++)
            feeders_.emplace_back([this, worker_argv] { run(worker_argv); });
    }
    ~CompilePool()
    {
        stop();
        for (auto& w : feeders_)
            w.join();
    }

    // Next compiled configuration (Item), nothing within `wait` (Timeout, for progress printing),
    // or Done when all feeders have finished and the queue is empty.
    enum Pop { Item, Timeout, Done };
    Pop pop(Compiled& out, std::chrono::milliseconds wait)
    {
        std::unique_lock<std::mutex> lk(mu_);
        ready_cv_.wait_for(lk, wait, [this] { return !queue_.empty() || active_ == 0; });
        if (queue_.empty())
            return active_ == 0 ? Done : Timeout;
        out = std::move(queue_.front());
        queue_.pop_front();
        space_cv_.notify_one();
        return Item;
    }

    // No further configurations are handed out (those being compiled still arrive).
    void stop()
    {
        std::lock_guard<std::mutex> lk(mu_);
        stopped_ = true;
        space_cv_.notify_all();
    }
    size_t compiled() const { return compiled_.load(); }
    double total_compile_ms() const { return total_ms_.load(); }

private:
    void run(const std::vector<std::string>& worker_argv)
    {
        WorkerProcess worker(worker_argv);
        worker.start();
        for (;;) {
            {
                std::unique_lock<std::mutex> lk(mu_);
                // Bounded queue: the CUBINs waiting for the GPU stay few.
                space_cv_.wait(lk, [this] { return queue_.size() < kMaxQueued || stopped_; });
                if (stopped_)
                    break;
            }
            if (deadline_ > 0 && unix_now() >= deadline_)
                break;
            const size_t i = next_.fetch_add(1);
            if (i >= configs_.size())
                break;
            Compiled c{i, {}};
            if (!worker.compile(configs_[i].id, c.result)) {
                c.result = CompileResult{};
                c.result.log = "the NVRTC worker process died compiling this configuration";
                worker.stop();
                worker.start();
            }
            compiled_++;
            add_ms(c.result.ms);
            std::lock_guard<std::mutex> lk(mu_);
            queue_.push_back(std::move(c));
            ready_cv_.notify_one();
        }
        worker.stop();
        std::lock_guard<std::mutex> lk(mu_);
        active_--;
        ready_cv_.notify_all();
    }
    void add_ms(double ms)
    {
        double cur = total_ms_.load();
        while (!total_ms_.compare_exchange_weak(cur, cur + ms)) {
        }
    }

    static constexpr size_t kMaxQueued = 256;
    const std::vector<Config>& configs_;
    const double deadline_;
    std::vector<std::thread> feeders_;
    std::mutex mu_;
    std::condition_variable ready_cv_, space_cv_;
    std::deque<Compiled> queue_;
    std::atomic<size_t> next_{0}, compiled_{0};
    std::atomic<double> total_ms_{0};
    unsigned active_ = 0;
    bool stopped_ = false;
};

}  // namespace kt
