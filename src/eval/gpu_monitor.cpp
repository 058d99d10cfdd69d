#include "eval/gpu_monitor.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <limits>

namespace galapagos::eval {

namespace {
double steady_now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// NVML's clock-event reason bits (nvml.h): software power cap, hardware slowdown, software and
// hardware thermal slowdown, hardware power brake.
constexpr std::uint64_t sw_power_cap = 0x4, hw_slowdown = 0x8, sw_thermal = 0x20, hw_thermal = 0x40, hw_power_brake = 0x80;
constexpr unsigned nvml_clock_sm = 1;
}  // namespace

struct gpu_monitor::api {
  void* handle = nullptr;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*by_bus_id)(const char*, void**) = nullptr;
  int (*energy)(void*, unsigned long long*) = nullptr;
  int (*clock)(void*, unsigned, unsigned*) = nullptr;
  int (*reasons)(void*, unsigned long long*) = nullptr;
  int (*name)(void*, char*, unsigned) = nullptr;
  ~api() {
    if (shutdown) shutdown();
    if (handle) dlclose(handle);
  }
};

std::unique_ptr<gpu_monitor> gpu_monitor::open(const std::string& pci_bus_id) {
  if (pci_bus_id.empty()) return nullptr;
  auto a = std::make_unique<api>();
  a->handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!a->handle) return nullptr;
  auto sym = [&](const char* name) { return dlsym(a->handle, name); };
  a->init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
  a->by_bus_id = reinterpret_cast<int (*)(const char*, void**)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  a->energy = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetTotalEnergyConsumption"));
  a->clock = reinterpret_cast<int (*)(void*, unsigned, unsigned*)>(sym("nvmlDeviceGetClockInfo"));
  a->reasons = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
  if (!a->reasons)
    a->reasons = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
  if (!a->init || !a->by_bus_id || !a->energy || !a->clock || !a->reasons || a->init() != 0) return nullptr;
  a->shutdown = reinterpret_cast<int (*)()>(sym("nvmlShutdown"));
  a->name = reinterpret_cast<int (*)(void*, char*, unsigned)>(sym("nvmlDeviceGetName"));
  void* device = nullptr;
  if (a->by_bus_id(pci_bus_id.c_str(), &device) != 0) return nullptr;
  unsigned long long e = 0;
  if (a->energy(device, &e) != 0) return nullptr;  // a card without an energy counter
  return std::unique_ptr<gpu_monitor>(new gpu_monitor(std::move(a), device));
}

gpu_monitor::gpu_monitor(std::unique_ptr<api> a, void* device) : api_(std::move(a)), device_(device) {}
gpu_monitor::~gpu_monitor() = default;

std::string gpu_monitor::name() const {
  char buf[96] = {};
  if (!api_->name || api_->name(device_, buf, sizeof buf - 1) != 0) return "";
  return buf;
}

gpu_monitor::sample gpu_monitor::now() const {
  sample s;
  unsigned long long e = 0, r = 0;
  unsigned c = 0;
  api_->energy(device_, &e);
  api_->clock(device_, nvml_clock_sm, &c);
  api_->reasons(device_, &r);
  s.t_s = steady_now_s();
  s.energy_mj = e;
  s.sm_clock_mhz = c;
  s.event_reasons = r;
  return s;
}

bool gpu_monitor::throttled(std::uint64_t reasons) {
  return (reasons & (sw_power_cap | hw_slowdown | sw_thermal | hw_thermal | hw_power_brake)) != 0;
}

gpu_monitor::recorder::recorder(const gpu_monitor& m, double period_s) : monitor_(m) {
  samples_.push_back(m.now());
  thread_ = std::thread([this, period_s] {
    while (!stop_.load(std::memory_order_relaxed)) {
      std::this_thread::sleep_for(std::chrono::duration<double>(period_s));
      samples_.push_back(monitor_.now());
    }
  });
}

gpu_monitor::recorder::~recorder() {
  if (thread_.joinable()) stop();
}

std::vector<gpu_monitor::sample> gpu_monitor::recorder::stop() {
  stop_ = true;
  thread_.join();
  samples_.push_back(monitor_.now());
  return std::move(samples_);
}

double mean_power_w(const std::vector<gpu_monitor::sample>& samples, double t0_s, double t1_s) {
  // The first sample of each new counter value marks a step; power is measured between the
  // first and the last step that both lie inside [t0, t1].
  const gpu_monitor::sample* first = nullptr;
  const gpu_monitor::sample* last = nullptr;
  for (std::size_t i = 1; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (s.energy_mj == samples[i - 1].energy_mj || s.t_s < t0_s || s.t_s > t1_s) continue;
    if (!first) first = &s;
    last = &s;
  }
  if (!first || last == first || last->t_s <= first->t_s) return std::numeric_limits<double>::quiet_NaN();
  return 1e-3 * static_cast<double>(last->energy_mj - first->energy_mj) / (last->t_s - first->t_s);
}

}  // namespace galapagos::eval
