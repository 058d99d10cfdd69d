#include "eval/gpu_monitor.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#ifdef GALAPAGOS_HAVE_ROCM_SMI
#include <rocm_smi/rocm_smi.h>

#include "eval/toolchain.hpp"
#endif

namespace galapagos::eval {

namespace {
double steady_now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// NVML's clock-event reason bits (nvml.h): software power cap, hardware slowdown, software and
// hardware thermal slowdown, hardware power brake.
constexpr std::uint64_t sw_power_cap = 0x4, hw_slowdown = 0x8, sw_thermal = 0x20, hw_thermal = 0x40, hw_power_brake = 0x80;
constexpr unsigned nvml_clock_sm = 1;

class nvml_reader final : public gpu_monitor::reader {
 public:
  static std::unique_ptr<nvml_reader> open(const std::string& pci_bus_id) {
    auto r = std::unique_ptr<nvml_reader>(new nvml_reader);
    r->handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!r->handle_) return nullptr;
    auto sym = [&](const char* name) { return dlsym(r->handle_, name); };
    auto init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
    auto by_bus_id = reinterpret_cast<int (*)(const char*, void**)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    r->energy_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetTotalEnergyConsumption"));
    r->clock_ = reinterpret_cast<int (*)(void*, unsigned, unsigned*)>(sym("nvmlDeviceGetClockInfo"));
    r->reasons_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetCurrentClocksEventReasons"));
    if (!r->reasons_)
      r->reasons_ = reinterpret_cast<int (*)(void*, unsigned long long*)>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (!init || !by_bus_id || !r->energy_ || !r->clock_ || !r->reasons_ || init() != 0) return nullptr;
    r->shutdown_ = reinterpret_cast<int (*)()>(sym("nvmlShutdown"));
    r->name_ = reinterpret_cast<int (*)(void*, char*, unsigned)>(sym("nvmlDeviceGetName"));
    if (by_bus_id(pci_bus_id.c_str(), &r->device_) != 0) return nullptr;
    unsigned long long e = 0;
    if (r->energy_(r->device_, &e) != 0) return nullptr;  // a card without an energy counter
    return r;
  }
  ~nvml_reader() override {
    if (shutdown_) shutdown_();
    if (handle_) dlclose(handle_);
  }
  gpu_monitor::sample now() const override {
    unsigned long long e = 0, reasons = 0;
    unsigned c = 0;
    energy_(device_, &e);
    clock_(device_, nvml_clock_sm, &c);
    reasons_(device_, &reasons);
    return {steady_now_s(), e, c, reasons};
  }
  std::string name() const override {
    char buf[96] = {};
    if (!name_ || name_(device_, buf, sizeof buf - 1) != 0) return "";
    return buf;
  }
  std::string library() const override { return "NVML"; }

 private:
  nvml_reader() = default;
  void* handle_ = nullptr;
  void* device_ = nullptr;
  int (*shutdown_)() = nullptr;
  int (*energy_)(void*, unsigned long long*) = nullptr;
  int (*clock_)(void*, unsigned, unsigned*) = nullptr;
  int (*reasons_)(void*, unsigned long long*) = nullptr;
  int (*name_)(void*, char*, unsigned) = nullptr;
};

#ifdef GALAPAGOS_HAVE_ROCM_SMI
// AMD: the energy accumulator (counts of counter_resolution microjoules), the system clock's
// current DPM level, and the SMU's throttle status from the GPU metrics table. The throttle bits
// differ between ASICs, so any throttler the SMU reports active reads as NVML's hardware
// slowdown: throttled() then counts the run. Written against ROCm SMI 5.2 (Debian 12); no AMD GPU
// has run it yet (docs/gpu.md).
class rocm_smi_reader final : public gpu_monitor::reader {
 public:
  static std::unique_ptr<rocm_smi_reader> open(const std::string& pci_bus_id) {
    const auto bdf = pci_bdf(pci_bus_id);
    // Without an AMD GPU in the kernel's topology ROCm SMI has nothing to read (and says so on
    // the terminal): it is not started.
    if (!bdf || amd_gpus().count == 0 || rsmi_init(0) != RSMI_STATUS_SUCCESS) return nullptr;
    auto r = std::unique_ptr<rocm_smi_reader>(new rocm_smi_reader);  // shuts ROCm SMI down again
    std::uint32_t count = 0;
    if (rsmi_num_monitor_devices(&count) != RSMI_STATUS_SUCCESS) return nullptr;
    for (std::uint32_t i = 0; i < count; ++i) {
      std::uint64_t id = 0;
      if (rsmi_dev_pci_id_get(i, &id) == RSMI_STATUS_SUCCESS && id == *bdf) {
        r->device_ = i;
        std::uint64_t counts = 0, stamp = 0;
        float resolution = 0;
        if (rsmi_dev_energy_count_get(i, &counts, &resolution, &stamp) != RSMI_STATUS_SUCCESS || !(resolution > 0))
          return nullptr;  // a card without an energy counter
        return r;
      }
    }
    return nullptr;
  }
  ~rocm_smi_reader() override { rsmi_shut_down(); }
  gpu_monitor::sample now() const override {
    gpu_monitor::sample s;
    std::uint64_t counts = 0, stamp = 0;
    float resolution_uj = 0;
    if (rsmi_dev_energy_count_get(device_, &counts, &resolution_uj, &stamp) == RSMI_STATUS_SUCCESS)
      s.energy_mj = static_cast<std::uint64_t>(static_cast<double>(counts) * resolution_uj * 1e-3);
    rsmi_frequencies_t f{};
    if (rsmi_dev_gpu_clk_freq_get(device_, RSMI_CLK_TYPE_SYS, &f) == RSMI_STATUS_SUCCESS && f.current < f.num_supported &&
        f.current < RSMI_MAX_NUM_FREQUENCIES)
      s.sm_clock_mhz = static_cast<unsigned>(f.frequency[f.current] / 1000000);
    // Later ROCm SMI releases append fields to the metrics table: the library may write past the
    // struct this header declares, so it gets room to spare.
    alignas(rsmi_gpu_metrics_t) unsigned char table[4 * sizeof(rsmi_gpu_metrics_t)] = {};
    auto* metrics = reinterpret_cast<rsmi_gpu_metrics_t*>(table);
    if (rsmi_dev_gpu_metrics_info_get(device_, metrics) == RSMI_STATUS_SUCCESS && metrics->throttle_status != 0)
      s.event_reasons = hw_slowdown;
    s.t_s = steady_now_s();
    return s;
  }
  std::string name() const override {
    char buf[128] = {};
    if (rsmi_dev_name_get(device_, buf, sizeof buf - 1) != RSMI_STATUS_SUCCESS) return "";
    return buf;
  }
  std::string library() const override { return "ROCm SMI"; }

 private:
  rocm_smi_reader() = default;
  std::uint32_t device_ = 0;
};
#endif
}  // namespace

std::optional<std::uint64_t> pci_bdf(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char end = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &end) != 4 || bus > 0xff || device > 0x1f ||
      function > 0x7)
    return std::nullopt;
  return std::uint64_t{domain} << 32 | std::uint64_t{bus} << 8 | std::uint64_t{device} << 3 | function;
}

std::unique_ptr<gpu_monitor> gpu_monitor::open(const std::string& pci_bus_id) {
  if (pci_bus_id.empty()) return nullptr;
  std::unique_ptr<reader> r = nvml_reader::open(pci_bus_id);
#ifdef GALAPAGOS_HAVE_ROCM_SMI
  if (!r) r = rocm_smi_reader::open(pci_bus_id);
#endif
  if (!r) return nullptr;
  return std::unique_ptr<gpu_monitor>(new gpu_monitor(std::move(r)));
}

gpu_monitor::gpu_monitor(std::unique_ptr<reader> r) : reader_(std::move(r)) {}
gpu_monitor::~gpu_monitor() = default;

std::string gpu_monitor::name() const { return reader_->name(); }
std::string gpu_monitor::library() const { return reader_->library(); }
gpu_monitor::sample gpu_monitor::now() const { return reader_->now(); }

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
