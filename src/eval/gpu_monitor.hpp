// The GPU's energy counter, SM clock and clock-event reasons, read by the trusted orchestrator
// through NVML (loaded at run time: nothing links it, and where it is absent there is simply no
// monitor). Read-only: galapagos never changes a card's clocks or power settings.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace galapagos::eval {

class gpu_monitor {
 public:
  struct sample {
    double t_s = 0;               // steady clock
    std::uint64_t energy_mj = 0;  // since the driver loaded
    unsigned sm_clock_mhz = 0;
    std::uint64_t event_reasons = 0;  // NVML clock-event (throttle) reason bits
  };

  // The device with this PCI bus id (as CUDA reports it); nullptr when NVML is absent or does
  // not know the device.
  static std::unique_ptr<gpu_monitor> open(const std::string& pci_bus_id);
  ~gpu_monitor();

  sample now() const;
  std::string name() const;  // the product name NVML reports (e.g. "NVIDIA H200"); "" if unknown
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

 private:
  struct api;
  gpu_monitor(std::unique_ptr<api> a, void* device);
  std::unique_ptr<api> api_;
  void* device_;
};

// Mean power (W) over the steps of the energy counter seen in `samples` between t0_s and t1_s;
// NaN when fewer than two steps fall inside.
double mean_power_w(const std::vector<gpu_monitor::sample>& samples, double t0_s, double t1_s);

}  // namespace galapagos::eval
