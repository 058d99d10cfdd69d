// What the results file's writer and reader share of the HDF5 C API: an owning handle for
// identifiers and the error stack's message. Internal to src/store.
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

namespace galapagos::store::detail {

// Owns one HDF5 identifier and releases it with the matching H5?close function.
class handle {
 public:
  using closer = herr_t (*)(hid_t);
  handle() = default;
  handle(hid_t id, closer close) : id_(id), close_(close) {}
  handle(handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  handle& operator=(handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  handle(const handle&) = delete;
  handle& operator=(const handle&) = delete;
  ~handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  void reset() {
    if (id_ >= 0) close_(id_);
    id_ = H5I_INVALID_HID;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  closer close_ = nullptr;
};

// The most specific message on HDF5's error stack, on one line.
inline std::string hdf5_message() {
  std::string message;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc != nullptr) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &message);
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  return message.empty() ? "unknown HDF5 error" : message;
}

// Whether HDF5's error stack holds a failed checksum (Fletcher-32 of a chunk, or of metadata):
// the bytes on disk are not the ones written.
inline bool hdf5_checksum_failed() {
  bool failed = false;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned, const H5E_error2_t* e, void* out) -> herr_t {
        if (e->desc != nullptr && (std::string(e->desc).find("checksum") != std::string::npos ||
                                   std::string(e->desc).find("Fletcher32") != std::string::npos))
          *static_cast<bool*>(out) = true;
        return 0;
      },
      &failed);
  return failed;
}

}  // namespace galapagos::store::detail
