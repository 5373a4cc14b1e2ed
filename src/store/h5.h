// Private to src/store: the one checked wrapper over the HDF5 C API and its RAII handles.
// Every HDF5 call of the store goes through h5::check, which turns a failure and the HDF5 error
// stack into a typed StoreError with context. Per-object use from one thread at a time.
#pragma once
#include <hdf5.h>
#include <string>
#include <string_view>
#include <utility>

namespace nq::store::h5 {

// Which StoreError a failed call becomes: reading a file -> NotAResultFile, writing -> WriteError.
enum class Failure { read, write };

// Where calls happen, for messages: "<op>: <path>: <what>: <HDF5 reason>".
struct Site {
  std::string op;     // e.g. "store::open"
  std::string path;   // the file the user named
  Failure kind;
};

// Throws the Site's error type with `what` and the HDF5 error stack (outermost and innermost
// descriptions), then clears the stack.
[[noreturn]] void raise(const Site& site, std::string_view what);

// The checked call: HDF5 returns a negative hid_t / herr_t / htri_t / int on failure.
template <class R>
R check(R r, const Site& site, std::string_view what) {
  if (r < 0) raise(site, what);
  return r;
}

// Turns off HDF5's automatic error printing for the calling thread (the setting is per thread
// in a thread-safe build); the store reports errors through exceptions only. Called at the top
// of every public store entry point; cheap.
void silence_errors();

// An owned HDF5 identifier (file, group, dataset, dataspace, datatype, attribute, property
// list), closed by its destructor (errors ignored there: use close() where they matter).
class Handle {
 public:
  using CloseFn = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, CloseFn close_fn) : id_(id), close_(close_fn) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  explicit operator bool() const { return id_ >= 0; }
  void reset() noexcept {
    if (id_ >= 0 && close_) close_(id_);
    id_ = H5I_INVALID_HID;
  }
  // Checked close.
  void close(const Site& site, std::string_view what) {
    const hid_t id = std::exchange(id_, H5I_INVALID_HID);
    if (id >= 0 && close_) check(close_(id), site, what);
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  CloseFn close_ = nullptr;
};

// Checked constructors of owned handles: a negative id raises with `what`.
inline Handle file(hid_t id, const Site& s, std::string_view what) { return {check(id, s, what), H5Fclose}; }
inline Handle group(hid_t id, const Site& s, std::string_view what) { return {check(id, s, what), H5Gclose}; }
inline Handle dataset(hid_t id, const Site& s, std::string_view what) { return {check(id, s, what), H5Dclose}; }
inline Handle space(hid_t id, const Site& s, std::string_view what) { return {check(id, s, what), H5Sclose}; }
inline Handle type(hid_t id, const Site& s, std::string_view what) { return {check(id, s, what), H5Tclose}; }
inline Handle attribute(hid_t id, const Site& s, std::string_view what) { return {check(id, s, what), H5Aclose}; }
inline Handle plist(hid_t id, const Site& s, std::string_view what) { return {check(id, s, what), H5Pclose}; }

}  // namespace nq::store::h5
