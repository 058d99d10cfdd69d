// Includes and small utilities shared by every part of measure_kt_spaces. Part of
// measure_kt_spaces.cpp (one translation unit; see its head comment).
#pragma once


#include <cuda.h>
#include <nvrtc.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

using ordered_json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

namespace kt {

// ---------------------------------------------------------------------------------------------
// Small utilities

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Kernel Tuner's timestamp format: str(datetime.now(timezone.utc)).
std::string utc_timestamp()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const long us = static_cast<long>(
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    char out[96];
    std::snprintf(out, sizeof out, "%s.%06ld+00:00", buf, us);
    return out;
}

// Exits at once (no destructors: compile feeder threads may still be running; the worker
// processes see their pipes close and exit too).
[[noreturn]] void quit(int status)
{
    std::fflush(nullptr);
    std::_Exit(status);
}

[[noreturn]] void die(int status, const std::string& msg)
{
    std::fprintf(stderr, "measure_kt_spaces: %s\n", msg.c_str());
    quit(status);
}

std::string read_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        die(2, "cannot read " + path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Deterministic pseudo-random numbers (splitmix64): the same data on every machine and library.
struct Rng {
    uint64_t state;
    explicit Rng(uint64_t seed) : state(seed) {}
    uint64_t next()
    {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }   // [0, 1)
    int integer(int lo, int hi) { return lo + static_cast<int>(next() % uint64_t(hi - lo + 1)); }
};


}  // namespace kt
