// The GPU's energy counter, SM clock and clock-event reasons, read by the trusted orchestrator
// (never the worker): on NVIDIA through NVML (loaded at run time: nothing links it), on AMD through
// the ROCm SMI library (linked where the build found librocm-smi-dev). Where neither knows the
// device there is simply no monitor, and every reading it would give is reported unavailable.
// Read-only: galapagos never changes a card's clocks or power settings.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace galapagos::eval {

class gpu_monitor {
 public:
  struct sample {
    double t_s = 0;                   // steady clock
    std::uint64_t energy_mj = 0;      // since the driver loaded
    unsigned sm_clock_mhz = 0;        // AMD: the graphics (system) clock
    std::uint64_t event_reasons = 0;  // NVML clock-event (throttle) reason bits; AMD: see rocm_smi_reader
  };

  // The device with this PCI bus id (as CUDA and HIP report it, "0000:c1:00.0"); nullptr when
  // neither NVML nor ROCm SMI is there or knows the device.
  static std::unique_ptr<gpu_monitor> open(const std::string& pci_bus_id);
  // What reads the counters: "NVML" or "ROCm SMI".
  std::string library() const;
  ~gpu_monitor();

  sample now() const;
  std::string name() const;  // the product name the library reports (e.g. "NVIDIA H200"); "" if unknown
  // True when the reasons say the clock is held down by power or temperature (not idleness or
  // an application clock setting).
  static bool throttled(std::uint64_t reasons);

  // Samples in the background every period_s until stop(): the energy counter advances in steps
  // (about every 100 ms on Hopper), so power comes from the steps seen while work ran.
  class recorder {
   public:
    recorder(const gpu_monitor& m, double period_s);
    ~recorder();
    std::vector<sample> stop();

   private:
    const gpu_monitor& monitor_;
    std::atomic<bool> stop_{false};
    std::vector<sample> samples_;
    std::thread thread_;
  };

  // The counters of one vendor's library (gpu_monitor.cpp).
  struct reader {
    virtual ~reader() = default;
    virtual sample now() const = 0;
    virtual std::string name() const = 0;
    virtual std::string library() const = 0;
  };

 private:
  explicit gpu_monitor(std::unique_ptr<reader> r);
  std::unique_ptr<reader> reader_;
};

// A PCI bus id as CUDA and HIP write it ("0000:c1:00.0", any case) as the BDF number ROCm SMI
// uses: domain << 32 | bus << 8 | device << 3 | function. Nothing when the text is not one.
std::optional<std::uint64_t> pci_bdf(const std::string& bus_id);

// Mean power (W) over the steps of the energy counter seen in `samples` between t0_s and t1_s;
// NaN when fewer than two steps fall inside.
double mean_power_w(const std::vector<gpu_monitor::sample>& samples, double t0_s, double t1_s);

}  // namespace galapagos::eval
